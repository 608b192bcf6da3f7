"""A baseline paraphraser: substitute paraphrase-table phrases, keep the sentence fluent.

A sentence is rewritten left to right; at each word the search may keep it or replace a
phrase starting there by one of its paraphrases in the table. A rewrite is ranked by

    Σ log P(paraphrase | phrase) over its substitutions + log P(rewrite) under a trigram model

of the corpus's sentences (stupid backoff, Brants et al. 2007: an unseen trigram falls back to
0.4 × the bigram's relative frequency, then 0.4² × the unigram's, with add-one unigrams so
that unknown words cost much but not infinitely). Only rewrites with at least one
substitution are offered, so an output always differs from its source. The point is a first
system to score with BLEU, PINC and METEOR as soon as a corpus and its table exist, not a good
paraphraser.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from paracrowd_metrics.meteor import ParaphraseTable

BACKOFF = 0.4
START, END = "<s>", "</s>"


class TrigramModel:
    """Word trigram counts of a corpus, scored with stupid backoff."""

    def __init__(self, sentences: Iterable[Sequence[str]]):
        self.unigrams: Counter[str] = Counter()
        self.bigrams: Counter[tuple[str, str]] = Counter()
        self.trigrams: Counter[tuple[str, str, str]] = Counter()
        for sentence in sentences:
            words = [START, START, *sentence, END]
            self.unigrams.update(words[2:])
            self.bigrams.update(zip(words[1:], words[2:], strict=False))
            self.trigrams.update(zip(words, words[1:], words[2:], strict=False))
        self.contexts2 = Counter()
        for (a, b, _), count in self.trigrams.items():
            self.contexts2[a, b] += count
        self.contexts1 = Counter()
        for (a, _), count in self.bigrams.items():
            self.contexts1[a] += count
        self.total = sum(self.unigrams.values())

    def log_probability(self, first: str, second: str, word: str) -> float:
        found = self.trigrams.get((first, second, word))
        if found:
            return math.log(found / self.contexts2[first, second])
        found = self.bigrams.get((second, word))
        if found:
            return math.log(BACKOFF * found / self.contexts1[second])
        unigram = (self.unigrams.get(word, 0) + 1) / (self.total + len(self.unigrams) + 1)
        return math.log(BACKOFF * BACKOFF * unigram)

    def score(self, words: Sequence[str]) -> float:
        padded = [START, START, *words, END]
        return sum(
            self.log_probability(padded[n - 2], padded[n - 1], padded[n])
            for n in range(2, len(padded))
        )


@dataclass(frozen=True)
class Rewrite:
    words: tuple[str, ...]
    substitutions: int
    table_log_probability: float
    score: float

    @property
    def text(self) -> str:
        return " ".join(self.words)


def paraphrase(
    words: Sequence[str],
    *,
    table: ParaphraseTable,
    model: TrigramModel,
    beam: int = 20,
    count: int = 1,
) -> list[Rewrite]:
    """The ``count`` best rewrites of ``words`` (lowercased tokens) with at least one
    substitution; an empty list when the table offers none."""
    words = tuple(words)
    longest = table.max_length
    # (words so far, substitutions, Σ log P(table)) per position reached.
    states: list[list[tuple[tuple[str, ...], int, float]]] = [[] for _ in range(len(words) + 1)]
    states[0].append(((), 0, 0.0))
    for position in range(len(words)):
        if len(states[position]) > beam:
            states[position].sort(key=lambda s: -(s[2] + model.score(s[0])))
            del states[position][beam:]
        for prefix, substitutions, logp in states[position]:
            states[position + 1].append(((*prefix, words[position]), substitutions, logp))
            for end in range(position + 1, min(len(words), position + longest) + 1):
                for other, probability in table.paraphrases(words[position:end]).items():
                    states[end].append(
                        ((*prefix, *other), substitutions + 1, logp + math.log(probability))
                    )
    rewrites = {
        state[0]: Rewrite(state[0], state[1], state[2], state[2] + model.score(state[0]))
        for state in states[len(words)]
        if state[1] > 0 and state[0] != words
    }
    return sorted(rewrites.values(), key=lambda rewrite: -rewrite.score)[:count]
