"""Leave-one-out BLEU and mean PINC for every description of a cluster, fast.

Each description is scored against all the *other* descriptions of its cluster. Done
naively that is quadratic; a ``ClusterIndex`` makes it linear in the cluster's n-grams:

- every sentence's n-grams are counted once;
- per n-gram, the cluster keeps its two largest counts and which sentence holds the largest,
  so "the largest count in any other reference" is one lookup (the runner-up when the
  sentence itself holds the largest); see ``ClusterIndex`` for how that table is stored;
- the sorted multiset of lengths gives each sentence its closest reference length;
- per lowercased n-gram, the number of sentences containing it (document frequency) gives
  each sentence's PINC against every other sentence at once: the n-grams it shares with
  the others, summed over the others, are its n-grams' document frequencies minus one each.

The index can also take one more sentence (``ClusterIndex.add``) and update the others'
statistics in place. That work follows the newcomer's n-grams, not the cluster's size: a
newcomer can raise the clipped matches of at most one sentence per n-gram (the one holding
it most often), found in a table of holders, and the PINC overlaps of exactly the sentences
that share its n-grams, found in per-n-gram positions. Only the PINC scores, which
all move (every sentence gains a source), are recomputed for everyone, as one array
operation. Everything is plain data built from the sentences, so rebuilding it is cheap.
"""

from bisect import insort
from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, repeat

import numpy as np

from paracrowd_metrics.bleu import bleu_from_statistics, closest_sorted_length
from paracrowd_metrics.cluster_scores import (
    Addition,
    ClusterScores,
    ClusterSettings,
    SentenceScores,
)
from paracrowd_metrics.ngrams import NgramCounts, ngram_counts, ngram_totals, recounted
from paracrowd_metrics.pinc import pinc_from_overlap_table
from paracrowd_metrics.tokens import lowercased_units, sentence_units

# The holder recorded for n-grams whose largest count is in the source sentence, which is
# never itself scored.
_SOURCE = -1

# The positions of the sentences holding a PINC n-gram are kept as bytes, C ints one after
# another: those of all a newcomer's n-grams join into one buffer numpy reads as it is,
# and an n-gram one sentence holds shares that sentence's one-position bytes.
_POSITION_DTYPE = np.dtype(np.intc)


@dataclass(slots=True)
class IndexedSentence:
    """One sentence's n-grams and its running statistics against the rest of the cluster."""

    length: int
    counts: NgramCounts
    pinc_grams: NgramCounts
    # Per order, how many n-grams the sentence has (distinct or not).
    totals: list[int]
    # Per PINC order, how many distinct lowercased n-grams it has.
    pinc_sizes: list[int]
    # The orders (0-based) at which some n-gram occurs more than once in the sentence.
    repeating_orders: list[int]
    # Per order: clipped matches against the largest count in any *other* sentence.
    matches: list[int] = field(default_factory=list)
    reference_length: int | None = None

    def with_same_ngrams(self) -> "IndexedSentence":
        """A sentence with the same text: it shares these (read-only) n-gram counts, and
        has statistics of its own."""
        return IndexedSentence(
            self.length,
            self.counts,
            self.pinc_grams,
            self.totals,
            self.pinc_sizes,
            self.repeating_orders,
        )


def _raise_peak(entry: list[int], count: int, position: int) -> None:
    """Record ``count`` in the sentence at ``position`` in a [largest, holder, runner-up]."""
    if count > entry[0]:
        entry[2] = entry[0]
        entry[0] = count
        entry[1] = position
    elif count > entry[2]:
        entry[2] = count


def _available(entry: list[int] | None, holders: int, position: int) -> int:
    """The largest count of an n-gram in any sentence other than the one at ``position``,
    which contains it: ``entry`` is its top-two record, or None when no sentence repeats
    it (then every holder has exactly one)."""
    if entry is None:
        return 1 if holders > 1 else 0
    return entry[2] if entry[1] == position else entry[0]


class ClusterIndex:
    """The n-gram statistics of one cluster, from which every leave-one-out score follows.

    Build it with ``ClusterIndex.build(sentences, source=...)``; read scores with
    ``sentence_scores()`` and ``cluster_scores()``; add a description with ``add()``.

    The two largest counts of every n-gram are kept in two parts. Almost every n-gram
    occurs at most once per sentence; for those, the largest count is 1 and the second is
    1 exactly when two or more sentences contain it, so ``holders`` (how many sentences
    contain each n-gram, counted in C) is the whole record. Only n-grams that some
    sentence repeats get an explicit ``repeats`` entry [largest, holder, runner-up].

    An index that is only read (``growable=False``) skips the tables that only ``add``
    needs: ``owners``, ``pinc_holders`` and ``by_length``.
    """

    def __init__(
        self,
        settings: ClusterSettings | None = None,
        source: str | None = None,
        *,
        growable: bool = True,
    ):
        self.settings = settings or ClusterSettings()
        self.sentences: list[IndexedSentence] = []
        orders = range(self.settings.max_order)
        pinc_orders = range(self.settings.pinc_max_order)
        # Per BLEU order: n-gram -> number of sentences (source included) containing it.
        self.holders: list[Counter] = [Counter() for _ in orders]
        # Per BLEU order: repeated n-gram -> [largest count, its holder, second largest].
        self.repeats: list[dict] = [{} for _ in orders]
        # Per PINC order: lowercased n-gram -> number of sentences (not the source) with it.
        self.document_frequency: list[Counter] = [Counter() for _ in pinc_orders]
        # Sorted lengths of every sentence and of the source: the candidate reference lengths.
        self.lengths: list[int] = []
        # Per sentence (row) and PINC order (column): how many distinct n-grams it has, and
        # over those, how many other sentences contain each, summed.
        self.pinc_sizes = np.zeros((0, len(pinc_orders)), dtype=np.int64)
        self.overlaps = np.zeros((0, len(pinc_orders)), dtype=np.int64)
        self.growable = growable
        # For ``add`` only. Per BLEU order: n-gram -> the last sentence to contain it, which
        # for an n-gram one sentence holds is that sentence. Per PINC order: n-gram -> the
        # positions of the sentences containing it. Length -> positions of that length.
        self.owners: list[dict] | None = [{} for _ in orders] if growable else None
        self.pinc_holders: list[dict[Hashable, bytes]] | None = (
            [{} for _ in pinc_orders] if growable else None
        )
        self.by_length: defaultdict | None = defaultdict(list) if growable else None
        # The scores last computed, which ``add`` updates rather than recomputes: every
        # sentence's BLEU, and their PINCs as an array (None while there is no source).
        self._bleus: list[float | None] | None = None
        self._pincs: np.ndarray | None = None
        # Per sentence length, its n-gram totals (shared, read-only).
        self._totals: dict[int, list[int]] = {}
        self.source = None if source is None else self._index_sentence(source, for_pinc=False)
        if self.source is not None:
            self._record_repeats(self.source, _SOURCE)
            for holders, grams in zip(self.holders, self.source.counts, strict=True):
                holders.update(grams.keys())
            if growable:
                for owners, grams in zip(self.owners, self.source.counts, strict=True):
                    owners.update(dict.fromkeys(grams, _SOURCE))
            self.lengths.append(self.source.length)

    @classmethod
    def build(
        cls,
        sentences: Sequence[str],
        *,
        source: str | None = None,
        growable: bool = True,
        **settings,
    ) -> "ClusterIndex":
        """Index a cluster's sentences; ``source``, if given, is a reference for every
        sentence but is not scored itself. ``settings`` are ``ClusterSettings`` fields.
        With ``growable=False`` the index is only read (``add`` refuses), built faster."""
        index = cls(ClusterSettings(**settings), source=source, growable=growable)
        # Crowds often write the very same sentence: count its n-grams once.
        by_text: dict[str, IndexedSentence] = {}
        for text in sentences:
            twin = by_text.get(text)
            if twin is None:
                sentence = by_text[text] = index._index_sentence(text)
            else:
                sentence = twin.with_same_ngrams()
            index.sentences.append(sentence)
        for position, sentence in enumerate(index.sentences):
            if sentence.repeating_orders:
                index._record_repeats(sentence, position)
        # One counting pass per order over the whole cluster, done in C.
        for order, holders in enumerate(index.holders):
            holders.update(chain.from_iterable(each.counts[order] for each in index.sentences))
        shares_bleu_ngrams = [
            index._pinc_shares_bleu_ngrams(order) for order in range(len(index.document_frequency))
        ]
        for order, frequency in enumerate(index.document_frequency):
            if shares_bleu_ngrams[order]:
                # The same counts; a copy only where add() will update both.
                holders = index.holders[order]
                index.document_frequency[order] = Counter(holders) if growable else holders
            else:
                frequency.update(
                    chain.from_iterable(each.pinc_grams[order] for each in index.sentences)
                )
        # A repeated n-gram's runner-up is at least 1 once a second sentence holds it;
        # _record_repeats leaves that to this one pass rather than check every n-gram.
        for holders, repeats in zip(index.holders, index.repeats, strict=True):
            for gram, entry in repeats.items():
                if entry[2] == 0 and holders[gram] > 1:
                    entry[2] = 1
        index.lengths = sorted(index.lengths + [each.length for each in index.sentences])

        reference_lengths = {
            length: closest_sorted_length(index.lengths, length, excluding_own=True)
            for length in set(index.lengths)
        }
        overlaps = []
        for position, sentence in enumerate(index.sentences):
            # Per order, how many sentences hold each of its n-grams: one lookup each
            # serves both its matches and, where PINC counts the same n-grams, its overlap.
            held = [
                list(map(holders.__getitem__, by_order))
                for holders, by_order in zip(index.holders, sentence.counts, strict=True)
            ]
            sentence.matches = index._matches_against_others(sentence, position, held)
            overlaps.append(
                [
                    (
                        sum(held[order])
                        if shares_bleu_ngrams[order]
                        else sum(map(frequency.__getitem__, grams))
                    )
                    - len(grams)
                    for order, (frequency, grams) in enumerate(
                        zip(index.document_frequency, sentence.pinc_grams, strict=True)
                    )
                ]
            )
            sentence.reference_length = reference_lengths[sentence.length]
        columns = index.settings.pinc_max_order
        index.overlaps = np.array(overlaps, dtype=np.int64).reshape(-1, columns)
        index.pinc_sizes = np.array(
            [each.pinc_sizes for each in index.sentences], dtype=np.int64
        ).reshape(-1, columns)
        if growable:
            index._enter_holders(index.sentences, 0)
        return index

    def _pinc_shares_bleu_ngrams(self, order: int) -> bool:
        """Whether PINC's document frequencies at ``order`` are BLEU's holder counts: the
        same n-grams (nothing changed by lowercasing) and no source among the holders."""
        return (
            self.source is None
            and order < self.settings.max_order
            and all(each.pinc_grams[order] is each.counts[order] for each in self.sentences)
        )

    def _enter_holders(self, sentences: Sequence[IndexedSentence], first: int) -> None:
        """Record in the tables only ``add`` reads which sentences hold which n-grams, for
        ``sentences`` at positions ``first``, ``first + 1``, ..."""
        positions = range(first, first + len(sentences))
        for order, owners in enumerate(self.owners):
            grams = [each.counts[order] for each in sentences]
            # Later holders overwrite earlier ones.
            owners.update(
                zip(
                    chain.from_iterable(grams),
                    chain.from_iterable(map(repeat, positions, map(len, grams))),
                    strict=True,
                )
            )
        for position, each in zip(positions, sentences, strict=True):
            entry = _POSITION_DTYPE.type(position).tobytes()
            for pinc_holders, grams in zip(self.pinc_holders, each.pinc_grams, strict=True):
                # Each n-gram's positions so far, and this one after them, in C.
                held = map(pinc_holders.get, grams, repeat(b""))
                pinc_holders.update(
                    zip(grams, map(bytes.__add__, held, repeat(entry)), strict=True)
                )
            self.by_length[each.length].append(position)

    def add(self, text: str) -> Addition:
        """Add one description; return its scores and those of the others that changed.

        The work is proportional to the newcomer's n-grams and how many sentences share
        them, plus one array operation over the cluster for PINC, not a rebuild.
        Afterwards the index is what ``build`` makes of all the sentences.
        """
        if not self.growable:
            raise ValueError("this index was built with growable=False; it cannot take more")
        if self._bleus is None:
            self._score_sentences(None)
        bleus_before, pincs_before = self._bleus, self._pincs
        position = len(self.sentences)
        sentence = self._index_sentence(text)
        # Everyone already here is a reference of the newcomer.
        sentence.matches = self._newcomer_matches(sentence)
        sentence.reference_length = closest_sorted_length(
            self.lengths, sentence.length, excluding_own=False
        )
        moved = self._account_for_newcomer(sentence)
        overlaps = self._share_pinc_ngrams(sentence)

        self._record_repeats(sentence, position, settled=True)
        for holders, grams in zip(self.holders, sentence.counts, strict=True):
            holders.update(grams.keys())
        for frequency, grams in zip(self.document_frequency, sentence.pinc_grams, strict=True):
            frequency.update(grams.keys())
        self._enter_holders([sentence], position)
        insort(self.lengths, sentence.length)
        self.sentences.append(sentence)
        self.overlaps = np.vstack([self.overlaps, [overlaps]])
        self.pinc_sizes = np.vstack([self.pinc_sizes, [sentence.pinc_sizes]])

        # Only the sentences whose BLEU statistics moved are rescored; every PINC moves,
        # as each sentence now has one source more.
        moved.add(position)
        bleus, pincs = self._score_sentences(moved)
        if pincs_before is None:
            # None of the others had a source before; each has one now.
            changed = list(range(position))
        else:
            # Compared as arrays: only the sentences that changed become records.
            differs = pincs[:position] != pincs_before
            for each in moved:
                if each < position and bleus[each] != bleus_before[each]:
                    differs[each] = True
            changed = np.flatnonzero(differs).tolist()
        pinc_values = [None] * len(bleus) if pincs is None else pincs.tolist()
        return Addition(
            scores=SentenceScores(position, bleus[position], pinc_values[position]),
            changed=tuple(
                map(
                    SentenceScores,
                    changed,
                    map(bleus.__getitem__, changed),
                    map(pinc_values.__getitem__, changed),
                )
            ),
        )

    def sentence_scores(self) -> list[SentenceScores]:
        """Leave-one-out BLEU and mean PINC of every sentence, in the order they were given."""
        bleus, pincs = self._score_sentences(None)
        pinc_values = repeat(None) if pincs is None else pincs.tolist()
        return list(map(SentenceScores, range(len(bleus)), bleus, pinc_values))

    def _score_sentences(self, moved: set[int] | None) -> tuple[list, np.ndarray | None]:
        """Every sentence's BLEU, and their PINCs as an array (None while there is no
        source). BLEU is computed for the positions in ``moved`` and kept from the last
        call for the others (all are computed when ``moved`` is None); both are kept for
        the next ``add``."""
        smooth, smooth_value = self.settings.smooth, self.settings.smooth_value
        size = len(self.sentences)
        sources = size - 1
        pincs = None
        if sources > 0:
            pincs = pinc_from_overlap_table(self.overlaps, self.pinc_sizes, sources)
        if moved is None:
            bleus, moved = [None] * size, range(size)
        else:
            bleus = self._bleus + [None] * (size - len(self._bleus))
        for position in moved:
            sentence = self.sentences[position]
            if sentence.reference_length is not None:
                bleus[position] = bleu_from_statistics(
                    sentence.matches,
                    sentence.totals,
                    sentence.length,
                    sentence.reference_length,
                    smooth=smooth,
                    smooth_value=smooth_value,
                )
        self._bleus, self._pincs = bleus, pincs
        return bleus, pincs

    def cluster_scores(self) -> ClusterScores:
        """Size, corpus-level and mean leave-one-out BLEU, and mean pairwise PINC."""
        sentences = self.sentence_scores()
        size = len(sentences)
        references = size - 1 + (self.source is not None)
        corpus = mean_bleu = mean_pinc = None
        if size and references:
            corpus = bleu_from_statistics(
                list(map(sum, zip(*[each.matches for each in self.sentences], strict=True))),
                list(map(sum, zip(*[each.totals for each in self.sentences], strict=True))),
                sum(each.length for each in self.sentences),
                sum(each.reference_length for each in self.sentences),
                smooth=self.settings.smooth,
                smooth_value=self.settings.smooth_value,
                effective_order=False,
            )
            mean_bleu = sum(each.bleu for each in sentences) / size
        if size > 1:
            mean_pinc = sum(each.pinc for each in sentences) / size
        return ClusterScores(
            size=size,
            corpus_bleu=corpus,
            mean_bleu=mean_bleu,
            mean_pinc=mean_pinc,
            sentences=tuple(sentences),
            bleu_signature=self.settings.bleu_signature(references),
            pinc_signature=self.settings.pinc_signature(max(size - 1, 0)),
        )

    def _index_sentence(self, text: str, *, for_pinc: bool = True) -> IndexedSentence:
        settings = self.settings
        tokenize, keep_spaces = settings.tokenize, settings.keep_spaces
        units = sentence_units(
            text, tokenize=tokenize, lowercase=settings.lowercase, keep_spaces=keep_spaces
        )
        counts = ngram_counts(units, settings.max_order)
        pinc_grams = []
        if for_pinc:
            # PINC compares lowercased n-grams: reuse BLEU's when lowercasing changes nothing.
            same_units = settings.lowercase or text.lower() == text
            if same_units and settings.pinc_max_order <= settings.max_order:
                pinc_grams = counts[: settings.pinc_max_order]
            elif same_units:
                pinc_grams = ngram_counts(units, settings.pinc_max_order)
            else:
                lowered = lowercased_units(text, units, tokenize=tokenize, keep_spaces=keep_spaces)
                if len(lowered) == len(units):
                    # Typically only the first word is lowered: recount the n-grams it is in.
                    pinc_grams = recounted(counts, units, lowered, settings.pinc_max_order)
                else:
                    pinc_grams = ngram_counts(lowered, settings.pinc_max_order)
        totals = self._totals.get(len(units))
        if totals is None:
            totals = self._totals[len(units)] = ngram_totals(len(units), settings.max_order)
        return IndexedSentence(
            len(units),
            counts,
            pinc_grams,
            totals,
            list(map(len, pinc_grams)),
            [order for order, total in enumerate(totals) if len(counts[order]) < total],
        )

    def _record_repeats(
        self, sentence: IndexedSentence, position: int, *, settled: bool = False
    ) -> None:
        """Enter the n-grams a sentence repeats into ``repeats``, before it is counted in
        ``holders``.

        With ``settled`` (one sentence joining a finished index) a new entry's runner-up
        counts the sentences already holding the n-gram once, and every n-gram the sentence
        holds once lifts the runner-up of an existing entry; ``build`` leaves both to one
        pass at the end.
        """
        for order in sentence.repeating_orders:
            holders, repeats = self.holders[order], self.repeats[order]
            for gram, count in sentence.counts[order].items():
                if count == 1:
                    continue
                entry = repeats.get(gram)
                if entry is None:
                    repeats[gram] = [count, position, 1 if gram in holders else 0]
                else:
                    _raise_peak(entry, count, position)
        if settled:
            for repeats, by_order in zip(self.repeats, sentence.counts, strict=True):
                for gram in repeats.keys() & by_order.keys():
                    if by_order[gram] == 1:
                        _raise_peak(repeats[gram], 1, position)

    def _matches_against_others(
        self, sentence: IndexedSentence, position: int, held: list[list[int]]
    ) -> list[int]:
        """Clipped matches of a sentence against the others; ``held`` gives, per order and
        in the order of its n-grams, how many sentences hold each."""
        # An n-gram the sentence holds once matches exactly when another sentence has it.
        matches = [len(holders) - holders.count(1) for holders in held]
        for order in sentence.repeating_orders:
            holders, repeats = self.holders[order], self.repeats[order]
            for gram, count in sentence.counts[order].items():
                if count > 1:
                    available = _available(repeats.get(gram), holders[gram], position)
                    matches[order] += min(count, available) - min(1, available)
        return matches

    def _newcomer_matches(self, newcomer: IndexedSentence) -> list[int]:
        """Clipped matches of a sentence not yet in the tables against all that are."""
        # Every n-gram some sentence holds matches at least once; that is all for the
        # n-grams the newcomer holds once.
        matches = [
            sum(map(holders.__contains__, by_order))
            for holders, by_order in zip(self.holders, newcomer.counts, strict=True)
        ]
        for order in newcomer.repeating_orders:
            holders, repeats = self.holders[order], self.repeats[order]
            for gram, count in newcomer.counts[order].items():
                if count > 1 and gram in holders:
                    entry = repeats.get(gram)
                    matches[order] += min(count, 1 if entry is None else entry[0]) - 1
        return matches

    def _account_for_newcomer(self, newcomer: IndexedSentence) -> set[int]:
        """Update every sentence's statistics for ``newcomer`` joining its references, and
        return the positions whose BLEU statistics changed. Must run before the newcomer's
        counts enter the tables."""
        moved = set()
        sentences = self.sentences
        for order, (holders, repeats, owners, theirs) in enumerate(
            zip(self.holders, self.repeats, self.owners, newcomer.counts, strict=True)
        ):
            # Only the sentence holding an n-gram most often can gain matches for it:
            # every other holder already has a reference with at least its own count.
            for gram in theirs.keys() & repeats.keys():
                largest, holder, available = repeats[gram]
                gain = min(largest, theirs[gram]) - available
                if gain > 0 and holder != _SOURCE:
                    sentences[holder].matches[order] += gain
                    moved.add(holder)
            # An n-gram held once, by one sentence, gains it a match: it had no reference
            # with it. Those are picked out in C.
            held_once = map((1).__eq__, map(holders.get, theirs, repeat(0)))
            for gram in compress(theirs, held_once):
                holder = owners[gram]
                if holder != _SOURCE and gram not in repeats:
                    sentences[holder].matches[order] += 1
                    moved.add(holder)
        length = newcomer.length
        for group_length, positions in self.by_length.items():
            # Sentences of one length share their closest reference length.
            was = sentences[positions[0]].reference_length
            if was is not None:
                gap, old_gap = abs(group_length - length), abs(group_length - was)
                if gap > old_gap or (gap == old_gap and length >= was):
                    continue
            for position in positions:
                sentences[position].reference_length = length
            moved.update(positions)
        return moved

    def _share_pinc_ngrams(self, newcomer: IndexedSentence) -> list[int]:
        """Raise every sentence's PINC overlaps by the n-grams it shares with ``newcomer``,
        and return the newcomer's: per order, how many of the others hold each of its
        n-grams, summed. Must run before the newcomer enters ``pinc_holders``."""
        shared = [0] * len(self.pinc_holders)
        for order, (pinc_holders, theirs) in enumerate(
            zip(self.pinc_holders, newcomer.pinc_grams, strict=True)
        ):
            # The positions of the sentences holding each of the newcomer's n-grams: a
            # sentence's overlap grows by one per n-gram of the newcomer it has too.
            sharing = b"".join(map(pinc_holders.get, theirs, repeat(b"")))
            if not sharing:
                break  # nor any longer n-gram, as each contains one of this order
            positions = np.frombuffer(sharing, dtype=_POSITION_DTYPE)
            shared[order] = len(positions)
            self.overlaps[:, order] += np.bincount(positions, minlength=len(self.overlaps))
        return shared


def score_clusters(
    clusters: Mapping[Hashable, Sequence[str]],
    *,
    tokenize: str = "13a",
    max_order: int | None = None,
    include_source: Mapping[Hashable, str] | None = None,
    smooth: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    keep_spaces: bool = False,
    pinc_max_order: int | None = None,
) -> dict[Hashable, ClusterScores]:
    """Score every sentence of every cluster against the rest of its cluster.

    ``clusters`` maps a cluster id to its sentences; ``include_source`` may map a cluster id
    to a source sentence that joins every sentence's BLEU references but is neither scored
    nor used as a PINC source. Scores equal ``sentence_bleu(s, others)`` and the mean of
    ``pinc(other, s)`` over the others, sentence by sentence.
    """
    settings = {
        "tokenize": tokenize,
        "max_order": max_order,
        "pinc_max_order": pinc_max_order,
        "smooth": smooth,
        "smooth_value": smooth_value,
        "lowercase": lowercase,
        "keep_spaces": keep_spaces,
    }
    sources = include_source or {}
    return {
        cluster_id: ClusterIndex.build(
            sentences, source=sources.get(cluster_id), growable=False, **settings
        ).cluster_scores()
        for cluster_id, sentences in clusters.items()
    }
