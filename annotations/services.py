"""Sentence pairs for alignment: sampling them from clusters, pre-aligning them, and storing
what annotators submit."""

import random
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import combinations

from django.conf import settings
from django.db import transaction

from collector.models import Description
from collector.selectors import cluster_descriptions
from collector.services.typing import UNCHANGED_SUGGESTION, typing_quality_record
from crowd import services as crowd
from crowd.models import GoldItem, HitType, Worker
from crowd.services import WorkRefused
from paracrowd.celery import enqueue
from paracrowd_metrics import default_tokenize, pinc
from paracrowd_metrics.alignment import format_pharaoh, parse_pharaoh, train_aligner
from paracrowd_metrics.tokens import sentence_units

from .models import AlignerModel, Alignment, SentencePair, benchmark_test_pairs, pair_content
from .prealigner import aligner_usable, format_prealignment, prealigner

# A pair of near-copies teaches nothing about paraphrase: below this PINC both ways, skip it.
NEAR_IDENTICAL_PINC = 10.0


def tokens_of(text: str, language: str) -> list[str]:
    """The tokens an annotator aligns: sacrebleu's 13a words, or characters for languages
    written without spaces. What is shown is what is stored and exported."""
    return list(sentence_units(text, tokenize=default_tokenize(language)))


@dataclass(frozen=True)
class PairFilters:
    """Which pairs of descriptions are worth aligning.

    Lengths are in tokens. The defaults for the longest sentence (50) and the length ratio
    (9, longer over shorter) are the filters of Cohn et al. (2008); the shortest (3) keeps out
    fragments that leave nothing to align. Near-duplicates are pairs whose PINC is below
    ``NEAR_IDENTICAL_PINC`` both ways.
    """

    min_length: int = 3
    max_length: int = 50
    max_ratio: float = 9.0

    def __post_init__(self):
        if self.min_length < 1 or self.max_length < self.min_length:
            raise ValueError("lengths must satisfy 1 ≤ shortest ≤ longest")
        if self.max_ratio < 1:
            raise ValueError("the length ratio is longer over shorter, so at least 1")

    def reason_to_drop(self, tokens_a: list[str], tokens_b: list[str], a: str, b: str) -> str:
        """Why a pair is dropped ('' to keep it): the first filter it fails."""
        shorter, longer = sorted((len(tokens_a), len(tokens_b)))
        if shorter < self.min_length:
            return "too short"
        if longer > self.max_length:
            return "too long"
        if longer / shorter > self.max_ratio:
            return "length ratio"
        if _near_identical(a, b):
            return "near-duplicate"
        return ""


DROP_REASONS = ("too short", "too long", "length ratio", "near-duplicate")


@dataclass(frozen=True)
class PairDraw:
    """The pairs a draw stored, and how many pairs each filter dropped on the way."""

    pairs: list[SentencePair]
    dropped: dict[str, int] = field(default_factory=dict)


def pairs_draw(
    *,
    per_cluster: int,
    seed: int = 0,
    language: str = "en",
    open_hits: bool = True,
    filters: PairFilters = PairFilters(),
) -> PairDraw:
    """Draw ``per_cluster`` pairs of descriptions from every cluster in ``language``, seeded.

    Pairings of a cluster are tried in a seeded order until ``per_cluster`` pass ``filters``;
    the counts say how many of the pairings tried each filter dropped. Pairs already drawn are
    kept, not drawn twice. A usable aligner pre-aligns the new pairs; ``open_hits`` offers them
    as alignment HITs.
    """
    rng = random.Random(seed)
    segments = sorted(
        set(
            Description.objects.filter(language=language)
            .exclude(status=Description.Status.REJECTED)
            .values_list("segment_id", flat=True)
        )
    )
    candidates = []
    dropped = dict.fromkeys(DROP_REASONS, 0)
    for (_, lang), members in sorted(cluster_descriptions(segments).items()):
        if lang != language or len(members) < 2:
            continue
        all_pairs = list(combinations(members, 2))
        rng.shuffle(all_pairs)
        taken = 0
        for (id_a, text_a), (id_b, text_b) in all_pairs:
            if taken == per_cluster:
                break
            tokens_a, tokens_b = tokens_of(text_a, language), tokens_of(text_b, language)
            reason = filters.reason_to_drop(tokens_a, tokens_b, text_a, text_b)
            if reason:
                dropped[reason] += 1
                continue
            candidates.append(
                SentencePair(
                    origin=SentencePair.Origin.CLUSTER,
                    description_a_id=id_a,
                    description_b_id=id_b,
                    tokens_a=tokens_a,
                    tokens_b=tokens_b,
                )
            )
            taken += 1
    return PairDraw(pairs_store(candidates, open_hits=open_hits), dropped)


def pairs_sample(
    *, per_cluster: int, seed: int = 0, language: str = "en", open_hits: bool = True
) -> list[SentencePair]:
    """The pairs of ``pairs_draw`` with the default filters."""
    return pairs_draw(
        per_cluster=per_cluster, seed=seed, language=language, open_hits=open_hits
    ).pairs


def pairs_store(pairs: list[SentencePair], *, open_hits: bool) -> list[SentencePair]:
    """Store new pairs (skipping ones already stored), pre-align them with a usable aligner
    (see ``aligner_usable``), offer them as HITs."""
    aligner_model = aligner_usable()
    if aligner_model:
        aligner = prealigner(aligner_model)
        for pair in pairs:
            pair.pre_alignment = format_prealignment(aligner, pair)
            pair.aligner = aligner_model
    with transaction.atomic():
        SentencePair.objects.bulk_create(pairs, ignore_conflicts=True, batch_size=2000)
        # ignore_conflicts leaves the primary keys unset: read back what is now stored.
        stored = _stored(pairs)
        if open_hits:
            offered = SentencePair.objects.filter(pk__in=[pair.pk for pair in stored])
            crowd.hits_open(rows=offered, kind=HitType.Kind.ALIGNMENT)
            stored = list(offered.order_by("pk"))
    return stored


def imported_pair(corpus: str, pair_id: str, tokens_a, tokens_b) -> SentencePair:
    """An imported sentence pair, known by its corpus, its id there and its sentences."""
    return SentencePair(
        origin=SentencePair.Origin.IMPORT,
        import_key=f"{corpus}:{pair_id}",
        import_content=pair_content(tokens_a, tokens_b),
        tokens_a=list(tokens_a),
        tokens_b=list(tokens_b),
    )


def import_identity(pair: SentencePair) -> tuple[str, str]:
    """What tells imported pairs apart: the id in their corpus and their sentences."""
    return (pair.import_key, pair.import_content)


def _stored(pairs):
    identities = {import_identity(p) for p in pairs if p.import_key}
    descriptions = {(p.description_a_id, p.description_b_id) for p in pairs if p.description_a_id}
    found = []
    if identities:
        keys = {key for key, _ in identities}
        found = [
            pair
            for pair in SentencePair.objects.filter(import_key__in=keys)
            if import_identity(pair) in identities
        ]
    if descriptions:
        firsts = {a for a, _ in descriptions}
        found += [
            pair
            for pair in SentencePair.objects.filter(description_a_id__in=firsts)
            if (pair.description_a_id, pair.description_b_id) in descriptions
        ]
    return found


def _near_identical(a: str, b: str) -> bool:
    return pinc(a, b) < NEAR_IDENTICAL_PINC and pinc(b, a) < NEAR_IDENTICAL_PINC


def aligner_train(
    *,
    max_pairs: int = 200_000,
    seed: int = 0,
    iterations: int = 5,
    include_test_sets: bool = False,
) -> AlignerModel:
    """Train the automatic aligner on pairings of descriptions within clusters and on the
    stored sentence pairs, with every word allowed to align to itself, as the original study
    did with GIZA++. At most ``max_pairs`` cluster pairings, sampled evenly and seeded. The
    pairs of imported benchmark test sets (``benchmark_test_pairs``) are left out unless
    ``include_test_sets``."""
    rng = random.Random(seed)
    segments = sorted(set(Description.objects.values_list("segment_id", flat=True)))
    clusters = [
        (language, members)
        for (_, language), members in sorted(cluster_descriptions(segments).items())
        if len(members) > 1
    ]
    budget = max(1, max_pairs // max(len(clusters), 1))
    training = []
    for language, members in clusters:
        pairings = list(combinations(members, 2))
        for (_, a), (_, b) in rng.sample(pairings, min(budget, len(pairings))):
            training.append((tokens_of(a, language), tokens_of(b, language)))
    stored = SentencePair.objects.all()
    if not include_test_sets:
        stored = stored.exclude(benchmark_test_pairs())
    training += [
        (pair.tokens_a, pair.tokens_b) for pair in stored.only("tokens_a", "tokens_b").iterator()
    ]
    aligner = train_aligner(training, iterations=iterations)
    return AlignerModel.objects.create(parameters=aligner.to_dict(), training_pairs=len(training))


def links_parse(links: str, pair: SentencePair):
    """Parse submitted links; raise WorkRefused with a message the annotator can act on."""
    try:
        alignment = parse_pharaoh(links)
    except ValueError as error:
        raise WorkRefused(f"The links could not be read: {error}") from None
    for i, j in alignment.possible:
        if i >= len(pair.tokens_a) or j >= len(pair.tokens_b):
            raise WorkRefused(f"Link {i}-{j} points past the end of a sentence; reload the task.")
    return alignment


def cells_changed(before, after) -> int:
    """Cells of the grid whose state (none, sure, possible) differs between two alignments."""

    def state(alignment, cell):
        return "S" if cell in alignment.sure else "P" if cell in alignment.possible else ""

    cells = before.possible | after.possible
    return sum(1 for cell in cells if state(before, cell) != state(after, cell))


def pair_suggestion(pair: SentencePair) -> str:
    """The pre-alignment (Pharaoh form) an annotator of ``pair`` starts from: none on a gold
    item or a trial pair, whose answers are checked against a known one (a suggestion accepted
    there would score the pre-aligner, not the worker); the pair's pre-alignment otherwise."""
    if pair.is_trial:
        return ""
    if pair.item_id and GoldItem.objects.filter(item_id=pair.item_id).exists():
        return ""
    return pair.pre_alignment


def suggestion_unchanged(*, suggestion, changed_cells: int) -> bool:
    """Whether an alignment that changed ``changed_cells`` of the pre-alignment
    ``suggestion`` it was shown sent it back unchanged: a suggestion with links, changed in
    at most ``ALIGNMENT_UNCHANGED_MAX_CELLS`` cells. Without a suggestion nothing could be
    accepted unchanged."""
    return bool(suggestion.possible) and changed_cells <= settings.ALIGNMENT_UNCHANGED_MAX_CELLS


NO_LINK = (
    "Your alignment has no link. Link the words that correspond, or, if nothing in the two "
    "sentences corresponds at all, tick “Nothing corresponds” before submitting."
)
LINKS_AND_NOTHING = (
    "You ticked “Nothing corresponds” but linked words: untick it, or clear the links."
)


def alignment_submit(
    *, assignment_id: int, worker: Worker, links: str, nothing_corresponds: bool = False
) -> tuple[Alignment, bool]:
    """Store a worker's alignment for their assignment, exactly once. An alignment with no
    link is refused unless the worker confirms that nothing corresponds
    (``nothing_corresponds``): an empty grid is far more often a task not done than a pair with
    nothing to link, and it would otherwise be accepted and paid as done. One that sends back
    the pre-alignment it was shown (nearly) unchanged is stored flagged ``unchanged_suggestion``
    and counts as a failed ``typing`` check, as a pasted text does."""

    def record(assignment, hit, now):
        pair = SentencePair.objects.get(item_id=hit.item_id)
        alignment = links_parse(links, pair)
        if not alignment.possible and not nothing_corresponds:
            raise WorkRefused(NO_LINK)
        if alignment.possible and nothing_corresponds:
            raise WorkRefused(LINKS_AND_NOTHING)
        enqueue("annotations.tasks.refresh_agreement", pair.pk)
        suggestion = parse_pharaoh(pair_suggestion(pair))
        changed = cells_changed(suggestion, alignment)
        unchanged = suggestion_unchanged(suggestion=suggestion, changed_cells=changed)
        stored = Alignment.objects.create(
            pair=pair,
            assignment=assignment,
            worker=worker,
            links=format_pharaoh(alignment),
            changed_cells=changed,
            unchanged_suggestion=unchanged,
            time_spent=max(now - assignment.accepted_at, timedelta(0)),
            created_at=now,
        )
        # A suggestion sent back as it was is not the worker's alignment, as a pasted text is
        # not their sentence: it counts under the same rule.
        typing_quality_record(
            worker=worker,
            assignment=assignment,
            signals=[UNCHANGED_SUGGESTION] if unchanged else [],
            source=f"alignment:{stored.pk}",
        )
        return stored

    return crowd.assignment_submit(
        assignment_id=assignment_id, worker=worker, record=record, submission="alignment"
    )
