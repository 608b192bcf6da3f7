"""The agreement table as a sum over sentence pairs, so that it can be kept up to date.

Every corpus figure of the table is a function of sums over sentence pairs: link and phrase
counts (micro-averages), the number of scored items and the sums of their π̂, π̂₀ and
Kupper–Hafner π₀, the category tables behind Cohen's and Fleiss' κ. ``pair_totals`` gives one
sentence pair's share of those sums, ``AgreementTotals`` adds and subtracts them, and
``table_from_totals`` turns the sums into the table. ``agreement_table`` is the sum over
every pair; a store that keeps the sum can replace one pair's share when its alignments
change (subtract the old share, add the new) and gets the same table.

The sums are exact — integers, and the ratios as ``Fraction``s of the floats — so the result
does not depend on the order pairs were added or replaced in, and a sum kept through any
number of replacements equals the sum computed afresh, bit for bit. A pair's share depends
on the edit models behind π̂₀; both ways must be given the same models (see ``models``).
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from fractions import Fraction
from itertools import combinations

from .agreement import (
    MAJORITY,
    AgreementSummary,
    AgreementTable,
    AnnotatedPair,
    ChanceCorrected,
    LengthBin,
    _score_pair,
    aligner_against_annotators,
    fit_edit_models,
)
from .brockett import (
    BROCKETT_CATEGORIES,
    KAPPA_CATEGORIES,
    BrockettAgreement,
    brockett_items,
    brockett_labels,
    kappa_label,
)
from .chance import EditModel
from .kappa import (
    LINK_CATEGORIES,
    cohen_kappa_from_table,
    fleiss_kappa_from_totals,
    link_items,
    link_labels,
)
from .measures import LinkCounts
from .phrases import PhraseCounts, PhraseLinks

Number = int | Fraction
DEFAULT_LENGTH_BINS = (5, 10, 15, 20, 30)


class AgreementTotals:
    """Exact sums keyed by what they count; ``+`` and ``-`` work key by key.

    Keys are tuples such as ``("summary", "pair", "A", "B", "words", "candidate_sure")``;
    a sum that comes back to zero is dropped, so equal totals compare equal however they
    were reached.
    """

    def __init__(self, sums: Mapping[tuple, Number] | None = None) -> None:
        self.sums: dict[tuple, Number] = {
            key: value for key, value in (sums or {}).items() if value
        }

    def add(self, key: tuple, value: Number) -> None:
        """Add ``value`` to one sum."""
        total = self.sums.get(key, 0) + value
        if total:
            self.sums[key] = total
        else:
            self.sums.pop(key, None)

    def get(self, *key) -> Number:
        return self.sums.get(key, 0)

    def __add__(self, other: AgreementTotals) -> AgreementTotals:
        result = AgreementTotals(self.sums)
        for key, value in other.sums.items():
            result.add(key, value)
        return result

    def __sub__(self, other: AgreementTotals) -> AgreementTotals:
        result = AgreementTotals(self.sums)
        for key, value in other.sums.items():
            result.add(key, -value)
        return result

    @classmethod
    def sum(cls, many: Iterable[AgreementTotals]) -> AgreementTotals:
        """The sum of many totals (in one pass, not one copy per addition)."""
        sums: dict[tuple, Number] = defaultdict(int)
        for totals in many:
            for key, value in totals.sums.items():
                sums[key] += value
        return cls(sums)

    def __eq__(self, other) -> bool:
        return isinstance(other, AgreementTotals) and self.sums == other.sums

    def to_json(self) -> dict:
        """JSON-ready: a tree of the keys' parts (each part JSON-encoded, as names may hold any
        character), so parts the keys share are written once; fractions as "p/q" strings."""
        tree: dict = {}
        for key, value in self.sums.items():
            node = tree
            for part in key[:-1]:
                node = node.setdefault(json.dumps(part, ensure_ascii=False), {})
            node[json.dumps(key[-1], ensure_ascii=False)] = (
                value if isinstance(value, int) else str(value)
            )
        return tree

    @classmethod
    def from_json(cls, tree: Mapping) -> AgreementTotals:
        """The totals written by ``to_json``."""
        sums: dict[tuple, Number] = {}

        def walk(node: Mapping, prefix: tuple) -> None:
            for part, value in node.items():
                key = (*prefix, json.loads(part))
                if isinstance(value, dict):
                    walk(value, key)
                else:
                    sums[key] = value if isinstance(value, int) else Fraction(value)

        walk(tree, ())
        return cls(sums)


def _length_bins(edges: Sequence[int]) -> list[tuple[int, int | None]]:
    bounds = sorted(set(edges))
    starts = [1, *(edge + 1 for edge in bounds)]
    return list(zip(starts, [*bounds, None], strict=True))


def _length_bin(pair: AnnotatedPair, edges: Sequence[int]) -> tuple[int, int | None] | None:
    length = min(len(pair.source), len(pair.target))
    for shortest, longest in _length_bins(edges):
        if length >= shortest and (longest is None or length <= longest):
            return shortest, longest
    return None  # an empty sentence: no bin


def _add_counts(totals: AgreementTotals, group: tuple, words, phrases) -> None:
    for name, counts in (("words", words), ("phrases", phrases)):
        for f in fields(counts):
            totals.add(("summary", *group, name, f.name), getattr(counts, f.name))


def _add_item(totals: AgreementTotals, group: tuple, item: list, *, reversed_: bool = False):
    _, _, words, words_reversed, phrases, phrases_reversed, observed, chance, kh = item
    words = LinkCounts(*(words_reversed if reversed_ else words))
    phrases = PhraseCounts(*(phrases_reversed if reversed_ else phrases))
    _add_counts(totals, group, words, phrases)
    totals.add(("summary", *group, "rows"), 1)
    if observed is not None:
        totals.add(("summary", *group, "scored"), 1)
        totals.add(("summary", *group, "observed"), Fraction(observed))
        totals.add(("summary", *group, "chance"), Fraction(chance))
        totals.add(("summary", *group, "kupper_hafner"), Fraction(kh))


def _counts_list(counts) -> list[int]:
    return [getattr(counts, f.name) for f in fields(counts)]


def _add_cohen(totals: AgreementTotals, prefix: tuple, first_labels, second_labels) -> None:
    for labels in zip(first_labels, second_labels, strict=True):
        totals.add((*prefix, *labels), 1)


def _add_fleiss(totals: AgreementTotals, prefix: tuple, columns, categories) -> None:
    for item_labels in zip(*columns, strict=True):
        counts = Counter(item_labels)
        totals.add((*prefix, "items"), 1)
        totals.add((*prefix, "squares"), sum(count * count for count in counts.values()))
        totals.add((*prefix, "agreeing", max(counts.values())), 1)
        for category in categories:
            totals.add((*prefix, "category", category), counts[category])


def pair_share(
    pair: AnnotatedPair,
    models: Mapping[str, EditModel],
    *,
    samples: int = 1000,
    seed: int = 0,
    include_identical: bool = False,
    links: PhraseLinks = "all",
    length_bins: Sequence[int] = DEFAULT_LENGTH_BINS,
) -> dict:
    """One sentence pair's share of the sums behind the agreement table, JSON-ready and
    compact: each annotator pair's item once (``share_totals`` adds it to every group it
    belongs to), and the κ tables as sums. Floats are written exactly by ``json``.

    ``models`` must hold an edit model for each annotator of a pair with words on both sides.
    """
    names = sorted(pair.alignments)
    if len(names) < 2:
        return {}
    scored = _score_pair(
        pair,
        models,
        samples=samples,
        seed=seed,
        include_identical=include_identical,
        links=links,
    )
    totals = AgreementTotals()
    items = []
    for item in scored:
        first, second = item.first, item.second
        items.append(
            [
                first,
                second,
                _counts_list(item.words),
                _counts_list(item.words_reversed),
                _counts_list(item.phrases),
                _counts_list(item.phrases_reversed),
                item.observed,
                item.chance,
                item.kupper_hafner_chance,
            ]
        )
        a, b = pair.alignments[first], pair.alignments[second]
        found = link_items([a, b], pair.source, pair.target, include_identical=include_identical)
        _add_cohen(totals, ("cohen", first, second), link_labels(a, found), link_labels(b, found))
    # Fleiss' κ needs the same raters on every item: the sums are kept per set of
    # annotators, and the table uses the set of everyone.
    chosen = [pair.alignments[name] for name in names]
    raters = _raters(names)
    if len(names) >= 3:
        found = link_items(chosen, pair.source, pair.target, include_identical=include_identical)
        columns = [link_labels(alignment, found) for alignment in chosen]
        _add_fleiss(totals, ("fleiss", raters), columns, LINK_CATEGORIES)
    found = brockett_items(chosen, len(pair.target))
    columns = [brockett_labels(alignment, found) for alignment in chosen]
    kappa_columns = [[kappa_label(label) for label in column] for column in columns]
    totals.add(("brockett", raters, "pairs"), 1)
    _add_fleiss(totals, ("brockett", raters), columns, BROCKETT_CATEGORIES)
    _add_fleiss(totals, ("brockett", raters, "kappa"), kappa_columns, KAPPA_CATEGORIES)
    for (i, first), (j, second) in combinations(enumerate(names), 2):
        prefix = ("brockett", raters, "cohen", first, second)
        _add_cohen(totals, prefix, kappa_columns[i], kappa_columns[j])
    aligner = aligner_against_annotators([pair], include_identical=include_identical, links=links)
    for name, summary in aligner.items():
        _add_counts(totals, ("aligner", name), summary.words, summary.phrases)
        totals.add(("summary", "aligner", name, "rows"), summary.agreement.items)
    return {
        "names": names if items else [],
        "length": list(_length_bin(pair, length_bins) or ()),
        "corpus": pair.corpus,
        "items": items,
        "sums": totals.to_json(),
    }


def share_totals(share: Mapping) -> AgreementTotals:
    """The sums a ``pair_share`` stands for."""
    if not share:
        return AgreementTotals()
    totals = AgreementTotals.from_json(share["sums"])
    for name in share["names"]:
        totals.add(("annotator", name), 1)
    length = tuple(share["length"])
    for item in share["items"]:
        first, second = item[0], item[1]
        _add_item(totals, ("corpus",), item)
        _add_item(totals, ("pair", first, second), item)
        _add_item(totals, ("annotator", first), item)
        _add_item(totals, ("annotator", second), item, reversed_=True)
        _add_item(totals, ("length", *length), item)
        _add_item(totals, ("source", share["corpus"]), item)
    if share["items"]:
        totals.add(("summary", "length", *length, "pairs"), 1)
    return totals


def pair_totals(pair: AnnotatedPair, models: Mapping[str, EditModel], **options):
    """One sentence pair's share of every sum behind the agreement table (see ``pair_share``)."""
    return share_totals(pair_share(pair, models, **options))


def _raters(names: Sequence[str]) -> str:
    """A set of annotators as one key part (a JSON array, since names may hold any character)."""
    return json.dumps(list(names), ensure_ascii=False)


def _groups(totals: AgreementTotals, kind: str) -> list[tuple]:
    """The groups of one kind that hold at least one item, sorted."""
    found = {
        key[2:-1]
        for key in totals.sums
        if key[0] == "summary" and key[1] == kind and key[-1] == "rows"
    }
    return sorted(found, key=lambda group: [(part is None, part) for part in group])


def _mean(total: Number, count: int) -> float:
    return float(total / count) if count else math.nan


def _summary(totals: AgreementTotals, group: tuple, link_kappa: float | None = None):
    def counts(kind, name):
        return kind(*(totals.get("summary", *group, name, f.name) for f in fields(kind)))

    scored = totals.get("summary", *group, "scored")
    agreement = ChanceCorrected(
        items=scored,
        observed=_mean(totals.get("summary", *group, "observed"), scored),
        chance=_mean(totals.get("summary", *group, "chance"), scored),
        kupper_hafner_chance=_mean(totals.get("summary", *group, "kupper_hafner"), scored),
    )
    return AgreementSummary(
        counts(LinkCounts, "words"), counts(PhraseCounts, "phrases"), agreement, link_kappa
    )


def _label_tables(totals: AgreementTotals, prefix: tuple) -> dict[tuple, dict]:
    """Cohen's κ tables under ``prefix``, by pair of annotators, gathered in one pass."""
    size = len(prefix)
    tables: dict[tuple, dict] = defaultdict(dict)
    for key, value in totals.sums.items():
        if key[:size] == prefix:
            tables[key[size : size + 2]][key[size + 2 :]] = value
    return tables


def _fleiss(totals: AgreementTotals, prefix: tuple, raters: int, categories) -> float:
    return fleiss_kappa_from_totals(
        totals.get(*prefix, "items"),
        raters,
        totals.get(*prefix, "squares"),
        [totals.get(*prefix, "category", category) for category in categories],
    )


def _brockett(totals: AgreementTotals, names: tuple[str, ...]) -> BrockettAgreement:
    prefix = ("brockett", _raters(names))
    cohen = _label_tables(totals, (*prefix, "cohen"))
    agreeing = {
        key[3]: value for key, value in totals.sums.items() if key[:3] == (*prefix, "agreeing")
    }
    return BrockettAgreement(
        annotators=names,
        sentence_pairs=totals.get(*prefix, "pairs"),
        items=totals.get(*prefix, "items"),
        kappa=_fleiss(totals, (*prefix, "kappa"), len(names), KAPPA_CATEGORIES),
        agreeing=dict(sorted(agreeing.items(), reverse=True)),
        categories={c: totals.get(*prefix, "category", c) for c in BROCKETT_CATEGORIES},
        pairwise={
            (first, second): cohen_kappa_from_table(cohen.get((first, second), {}))
            for first, second in combinations(names, 2)
        },
        kappa_null_apart=_fleiss(totals, prefix, len(names), BROCKETT_CATEGORIES),
    )


def table_from_totals(
    totals: AgreementTotals, models: Mapping[str, EditModel], *, samples: int
) -> AgreementTable:
    """The agreement table from the sums of every sentence pair's ``pair_totals``."""
    names = tuple(sorted(key[1] for key in totals.sums if key[0] == "annotator"))
    cohen = _label_tables(totals, ("cohen",))
    pairwise = {
        (first, second): _summary(
            totals,
            ("pair", first, second),
            cohen_kappa_from_table(cohen.get((first, second), {})),
        )
        for first, second in _groups(totals, "pair")
    }
    by_length = [
        LengthBin(
            shortest,
            longest,
            totals.get("summary", "length", shortest, longest, "pairs"),
            _summary(totals, ("length", shortest, longest)),
        )
        for shortest, longest in _groups(totals, "length")
    ]
    aligner = {}
    for (name,) in sorted(_groups(totals, "aligner"), key=lambda g: (g[0] == MAJORITY, g[0])):
        summary = _summary(totals, ("aligner", name))
        counted = totals.get("summary", "aligner", name, "rows")
        nan = math.nan
        aligner[name] = AgreementSummary(
            summary.words, summary.phrases, ChanceCorrected(counted, nan, nan, nan)
        )
    return AgreementTable(
        corpus=_summary(totals, ("corpus",)),
        pairwise=pairwise,
        per_annotator={name: _summary(totals, ("annotator", name)) for name in names},
        by_length=by_length,
        by_corpus={
            corpus: _summary(totals, ("source", corpus)) for (corpus,) in _groups(totals, "source")
        },
        edit_models={name: models[name] for name in names},
        link_fleiss_kappa=(
            _fleiss(totals, ("fleiss", _raters(names)), len(names), LINK_CATEGORIES)
            if len(names) >= 3
            else None
        ),
        samples=samples,
        aligner=aligner,
        brockett=_brockett(totals, names) if len(names) >= 2 else None,
    )


def corpus_totals(
    pairs: Iterable[AnnotatedPair], models: Mapping[str, EditModel], **options
) -> AgreementTotals:
    """The sum of every pair's ``pair_totals``."""
    return AgreementTotals.sum(pair_totals(pair, models, **options) for pair in pairs)


def agreement_table(
    pairs: Iterable[AnnotatedPair],
    *,
    samples: int = 1000,
    seed: int = 0,
    include_identical: bool = False,
    links: PhraseLinks = "all",
    length_bins: Sequence[int] = DEFAULT_LENGTH_BINS,
    models: Mapping[str, EditModel] | None = None,
) -> AgreementTable:
    """Agreement of every pair of annotators, per corpus, per annotator and by length.

    ``samples`` is J, the Monte Carlo draws per annotator and sentence pair; ``seed`` makes
    the draws reproducible (each pair and annotator gets its own stream, see
    ``chance.sample_generator``). ``length_bins`` are the upper edges of the bins of the
    shorter sentence's length. ``links`` chooses the links that define phrase pairs.
    ``models`` are the annotators' edit models behind π̂₀; by default each is fitted on the
    pairs given.
    """
    pairs = list(pairs)
    if models is None:
        models = fit_edit_models(pairs, links=links)
    options = {
        "samples": samples,
        "seed": seed,
        "include_identical": include_identical,
        "links": links,
        "length_bins": length_bins,
    }
    return table_from_totals(corpus_totals(pairs, models, **options), models, samples=samples)


def c_hat(
    pairs: Iterable[AnnotatedPair],
    *,
    samples: int = 1000,
    seed: int = 0,
    include_identical: bool = False,
    links: PhraseLinks = "all",
) -> ChanceCorrected:
    """Ĉ pooled over every pair of annotators of every sentence pair.

    The same figure as ``agreement_table(...).corpus.agreement``.
    """
    table = agreement_table(
        pairs, samples=samples, seed=seed, include_identical=include_identical, links=links
    )
    return table.corpus.agreement
