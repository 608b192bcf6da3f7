"""Sentence BLEU of one hypothesis against many subsets of its references, at once.

How BLEU's correlation with human ratings grows with the number of references (Chen & Dolan's
Figure 4) needs every rated sentence scored against dozens of random subsets of its
references. Clipping needs, per hypothesis n-gram, only its largest count in any chosen
reference; so the counts of the hypothesis's n-grams in each reference are tabulated once
(references × n-grams), and a subset's clipped matches and closest reference length are
array reductions over the chosen rows. The statistics, and so the scores, are exactly those
``sentence_bleu`` computes for that subset.
"""

from collections.abc import Sequence

import numpy as np

from paracrowd_metrics.bleu import bleu_from_statistics
from paracrowd_metrics.ngrams import NgramCounts, ngram_counts, ngram_totals
from paracrowd_metrics.tokens import check_tokenize, default_max_order, sentence_units


class SentenceCounts:
    """N-gram counts of sentences by text, each counted once however often it recurs (a
    cluster's descriptions are the references of many rated sentences)."""

    def __init__(self, *, tokenize: str = "13a", max_order: int | None = None):
        check_tokenize(tokenize)
        self.tokenize = tokenize
        self.max_order = max_order or default_max_order(tokenize)
        self._counted: dict[str, tuple[int, NgramCounts]] = {}

    def __call__(self, text: str) -> tuple[int, NgramCounts]:
        """(length in units, n-gram counts) of ``text``."""
        counted = self._counted.get(text)
        if counted is None:
            units = sentence_units(text, tokenize=self.tokenize)
            counted = self._counted[text] = (len(units), ngram_counts(units, self.max_order))
        return counted


class ReferenceSubsets:
    """One hypothesis and its references, ready to be scored against any subset of them."""

    def __init__(self, hypothesis: str, references: Sequence[str], counts: SentenceCounts):
        if not references:
            raise ValueError("BLEU needs at least one reference")
        self.length, hypothesis_counts = counts(hypothesis)
        self.totals = ngram_totals(self.length, counts.max_order)
        grams = [
            (order, gram, count)
            for order, by_order in enumerate(hypothesis_counts)
            for gram, count in by_order.items()
        ]
        self._wanted = np.array([count for _, _, count in grams], dtype=np.int64)
        # Column → order, to sum each order's clipped matches.
        self._orders = np.zeros((len(grams), counts.max_order), dtype=np.int64)
        self._orders[np.arange(len(grams)), [order for order, _, _ in grams]] = 1
        table = np.zeros((len(references), len(grams)), dtype=np.int64)
        lengths = np.zeros(len(references), dtype=np.int64)
        for row, reference in enumerate(references):
            lengths[row], reference_counts = counts(reference)
            table[row] = [reference_counts[order].get(gram, 0) for order, gram, _ in grams]
        self._table = table
        # Nearer lengths first, then shorter ones: sacrebleu's choice of reference length.
        self._lengths = lengths
        self._preference = np.abs(lengths - self.length) * (lengths.max() + 1) + lengths

    @property
    def references(self) -> int:
        return len(self._lengths)

    def bleu(self, chosen: np.ndarray, *, smooth: str = "exp") -> np.ndarray:
        """BLEU (0-100) against each subset: ``chosen`` is (subsets, references) of booleans,
        each row choosing at least one reference."""
        chosen = np.asarray(chosen, dtype=bool)
        if not chosen.any(axis=1).all():
            raise ValueError("every subset needs at least one reference")
        peaks = np.where(chosen[:, :, None], self._table[None], 0).max(axis=1)
        matches = np.minimum(peaks, self._wanted) @ self._orders
        preference = np.where(chosen, self._preference, np.iinfo(np.int64).max)
        reference_lengths = self._lengths[preference.argmin(axis=1)]
        # Subsets often keep the same statistics (every draw of many references finds the
        # same matches): each distinct set is scored once.
        scored: dict[tuple[int, ...], float] = {}
        scores = []
        for row, length in zip(matches.tolist(), reference_lengths.tolist(), strict=True):
            key = (*row, length)
            score = scored.get(key)
            if score is None:
                score = scored[key] = bleu_from_statistics(
                    row, self.totals, self.length, length, smooth=smooth
                )
            scores.append(score)
        return np.array(scores)
