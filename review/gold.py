"""Gold items of every kind of task: making one from existing work, and checking an answer to
one against what is known.

An answer passes when:

- **description**: it is in the language it declares (py3langid, as the review signals check
  it), of sensible length (at least half the shortest reference's words, at most twice the
  longest's and five more) and on topic: its sentence BLEU against the gold's reference
  descriptions in that language reaches GOLD_DESCRIPTION_MIN_BLEU. Answers in a language
  no reference is written in are not checked (nothing to compare with).
- **paraphrase**: the same, against the source sentence and its reference paraphrases.
- **alignment**: its F1 against the gold links (sure and possible, as the alignment trial
  scores them) reaches ALIGNMENT_TRIAL_MIN_F1.
- **rating**: every dimension falls within the gold's range.

Each checked answer is one "gold" check of ``crowd.services.quality``, which applies the
staff's warn and stop rule.
"""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from annotations.models import Alignment, SentencePair
from annotations.services import links_parse
from collector.models import Description, Paraphrase, ParaphraseSource
from crowd import services as crowd
from crowd.models import Assignment, GoldItem, HitType, QualityCheck
from crowd.services import WorkRefused
from paracrowd_metrics import sentence_bleu
from paracrowd_metrics.alignment import format_pharaoh, link_counts, parse_pharaoh
from research.models import Rating, RatingItem

from .text_checks import language_code, text_checks

GOLD = "gold"
KIND = HitType.Kind


# Checking ------------------------------------------------------------------------------------


def gold_answer_check(*, assignment_id: int) -> QualityCheck | None:
    """Check the answer submitted for ``assignment_id`` against its gold item and record the
    result (``crowd.quality_check_record``, which applies the rule). None when the
    assignment offered no gold item, is not submitted, or its answer cannot be checked.
    Checking twice records once."""
    assignment = (
        Assignment.objects.select_related("hit__hit_type", "worker")
        .filter(pk=assignment_id, submitted_at__isnull=False)
        .first()
    )
    if assignment is None:
        return None
    gold = crowd.gold_for_assignment(assignment)
    if gold is None:
        return None
    verdict = CHECKS[gold.kind](assignment, gold.answer)
    if verdict is None:
        return None
    passed, score, details = verdict
    return crowd.quality_check_record(
        worker=assignment.worker,
        kind=GOLD,
        source=f"assignment:{assignment.pk}",
        passed=passed,
        score=score,
        details={**details, "gold": gold.pk, "task": gold.kind},
        assignment=assignment,
    )


def gold_answers_unchecked(*, limit: int) -> list[int]:
    """Answers to live gold items submitted in the last day with no gold check yet, oldest
    first. (An answer that cannot be checked, in a language no reference is written in, is
    looked at for a day, then left.)"""
    checked = QualityCheck.objects.filter(kind=GOLD, assignment=OuterRef("pk"))
    return list(
        Assignment.objects.filter(
            submitted_at__gte=timezone.now() - timedelta(days=1),
            hit__item__gold__retired_at__isnull=True,
            hit__item__gold__isnull=False,
        )
        .exclude(Exists(checked))
        .order_by("submitted_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def _text_verdict(text: str, language: str, references: list[dict]):
    """(passed, BLEU, details) of a written answer against references of its language."""
    code = language_code(language)
    same = [ref["text"] for ref in references if language_code(ref["language"]) == code]
    if not same:
        return None
    words = len(text.split())
    lengths = [len(ref.split()) for ref in same]
    sensible = max(1, min(lengths) // 2) <= words <= 2 * max(lengths) + 5
    reads_as = text_checks(text, language).reads_as
    bleu = sentence_bleu(text, same, lowercase=True)
    on_topic = bleu >= settings.GOLD_DESCRIPTION_MIN_BLEU
    details = {"bleu": round(bleu, 2), "references": len(same), "words": words}
    if reads_as:
        details["reads_as"] = reads_as
    if not sensible:
        details["length"] = f"{words} words"
    return (on_topic and sensible and not reads_as), bleu, details


def _description_verdict(assignment, answer):
    description = Description.objects.filter(assignment=assignment).first()
    if description is None:
        return None
    return _text_verdict(description.text, description.language, answer["references"])


def _paraphrase_verdict(assignment, answer):
    paraphrase = Paraphrase.objects.filter(assignment=assignment).first()
    if paraphrase is None:
        return None
    return _text_verdict(paraphrase.text, paraphrase.language, answer["references"])


def _alignment_verdict(assignment, answer):
    alignment = Alignment.objects.select_related("pair").filter(assignment=assignment).first()
    if alignment is None:
        return None
    pair = alignment.pair
    counts = link_counts(
        parse_pharaoh(alignment.links), parse_pharaoh(answer["links"]), pair.tokens_a, pair.tokens_b
    )
    passed = counts.f1 >= settings.ALIGNMENT_TRIAL_MIN_F1
    return passed, counts.f1, {"f1": round(counts.f1, 3)}


def _rating_verdict(assignment, answer):
    rating = Rating.objects.filter(assignment=assignment).first()
    if rating is None:
        return None
    outside = {
        dimension: getattr(rating, dimension)
        for dimension, (low, high) in answer["ranges"].items()
        if not low <= getattr(rating, dimension) <= high
    }
    return not outside, None, {"outside": outside}


CHECKS = {
    KIND.DESCRIPTION: _description_verdict,
    KIND.PARAPHRASE: _paraphrase_verdict,
    KIND.ALIGNMENT: _alignment_verdict,
    KIND.RATING: _rating_verdict,
}


# Making gold from existing work ----------------------------------------------------------------


# What each kind of work is made into gold from: its model, the relations the maker reads,
# and why it cannot vouch for a right answer when it is flagged for a reviewer.
SOURCES = {
    KIND.DESCRIPTION: (Description, ("segment",)),
    KIND.PARAPHRASE: (Paraphrase, ("source",)),
    KIND.ALIGNMENT: (Alignment, ("pair",)),
    KIND.RATING: (Rating, ("item",)),
}


def gold_flag(work) -> str:
    """Why ``work`` is flagged for a reviewer, in words, or "": flagged work is no right
    answer to check others against (a pasted text, a pre-alignment sent back unchanged, a copy
    rated as if it were a paraphrase)."""
    if getattr(work, "typing_flagged", False):
        return "its text was flagged as not typed on the page"
    if getattr(work, "unchanged_suggestion", False):
        return "it sends back the suggested pre-alignment unchanged"
    if isinstance(work, Rating) and work.misrates_a_copy:
        return "it rates a copy of its source as a paraphrase"
    return ""


def gold_candidate(*, kind: str, work_id: int):
    """The work ``work_id`` of ``kind`` that staff may make gold: accepted or still pending,
    never rejected, never flagged. ``WorkRefused`` saying why otherwise."""
    if kind not in SOURCES:
        raise WorkRefused("Gold is made from descriptions, paraphrases, alignments or ratings.")
    model, related = SOURCES[kind]
    work = model.objects.exclude(status=model.Status.REJECTED)
    work = work.select_related(*related).filter(pk=work_id).first()
    if work is None:
        raise WorkRefused("There is no such work, or it was rejected: gold needs a right answer.")
    if flag := gold_flag(work):
        raise WorkRefused(f"This {kind} cannot become gold: {flag}. Gold needs a right answer.")
    return work


def gold_from_work(*, kind: str, work_id: int, created_by) -> GoldItem:
    """Make the item that work ``work_id`` of ``kind`` answered a gold item, in one step,
    staff vouching for the work (``gold_candidate``): a description's segment with it and the
    segment's accepted descriptions as references; a paraphrase's source sentence with it, the
    sentence and its accepted paraphrases; an alignment's sentence pair with its links (a trial
    pair's gold links when it has them); a rating's pair with each of its values ±1 as the
    range. ``WorkRefused`` for rejected, flagged or unknown work."""
    makers = {
        KIND.DESCRIPTION: _gold_from_description,
        KIND.PARAPHRASE: _gold_from_paraphrase,
        KIND.ALIGNMENT: _gold_from_alignment,
        KIND.RATING: _gold_from_rating,
    }
    with transaction.atomic():
        work = gold_candidate(kind=kind, work_id=work_id)
        item, answer = makers[kind](work)
        return crowd.gold_item_create(
            item=item, answer=answer, source=f"{kind}:{work_id}", created_by=created_by
        )


def _offered(row, kind):
    """The row's item, opening its HITs if it was never offered."""
    if row.item_id is None:
        crowd.hits_open(rows=type(row).objects.filter(pk=row.pk), kind=kind)
        row.refresh_from_db(fields=["item"])
    return row.item


def _references(texts) -> list[dict]:
    return [{"text": text, "language": language} for text, language in texts]


def _gold_from_description(description):
    segment = description.segment
    references = segment.descriptions.filter(
        Q(status=Description.Status.ACCEPTED) | Q(pk=description.pk)
    ).order_by("pk")
    references = references.values_list("text", "language")
    return _offered(segment, KIND.DESCRIPTION), {"references": _references(references)}


def _gold_from_paraphrase(paraphrase):
    source: ParaphraseSource = paraphrase.source
    texts = [(source.text, source.language)]
    others = source.paraphrases.filter(Q(status=Paraphrase.Status.ACCEPTED) | Q(pk=paraphrase.pk))
    texts += others.order_by("pk").values_list("text", "language")
    return _offered(source, KIND.PARAPHRASE), {"references": _references(texts)}


def _gold_from_alignment(alignment):
    pair: SentencePair = alignment.pair
    links = pair.gold_links if pair.is_trial and pair.gold_links else alignment.links
    gold = links_parse(links, pair)
    if not gold.possible:
        raise WorkRefused("A gold alignment needs at least one link.")
    return _offered(pair, KIND.ALIGNMENT), {"links": format_pharaoh(gold)}


def _gold_from_rating(rating):
    item: RatingItem = rating.item
    ranges = {
        dimension: [max(1, getattr(rating, dimension) - 1), min(4, getattr(rating, dimension) + 1)]
        for dimension in Rating.DIMENSIONS
    }
    return _offered(item, KIND.RATING), {"ranges": ranges}
