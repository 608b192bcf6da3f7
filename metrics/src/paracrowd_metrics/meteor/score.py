"""The METEOR-style score (Denkowski & Lavie 2010) from a chosen alignment.

With t hypothesis words, r reference words, and for each matcher i of weight wᵢ the words
mᵢ(t), mᵢ(r) its matches cover in each sentence:

    P = Σ wᵢ·mᵢ(t) / |t|        R = Σ wᵢ·mᵢ(r) / |r|
    Fmean = P·R / (α·P + (1 − α)·R)
    Pen = γ·(ch / m)^β           score = (1 − Pen)·Fmean

ch is the number of chunks and m the number of matched words; a phrase match may cover a
different number of words in each sentence, so m is the mean of the two sentences' matched
words (METEOR 1.5 does the same; for word matches it is simply the number of matches).
Scores are reported ×100, like the project's other metrics. An empty hypothesis or reference,
or no match at all, scores 0. With several references the best score is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from paracrowd_metrics.tokens import CHARACTER, default_tokenize

from .alignment import DEFAULT_BEAM, choose_alignment
from .matchers import (
    Match,
    Stemmer,
    SynonymSource,
    candidate_matches,
    meteor_tokens,
    primary_language,
)
from .parameters import ENGLISH, MATCHERS, MeteorParameters
from .table import ParaphraseTable


@dataclass(frozen=True)
class MeteorAlignment:
    """One hypothesis aligned with one reference, and the score's parts."""

    hypothesis: tuple[str, ...]
    reference: tuple[str, ...]
    matches: tuple[Match, ...]
    chunks: int
    precision: float
    recall: float
    fmean: float
    penalty: float
    score: float  # 0-100

    def matched_words(self, matcher: str | None = None) -> tuple[int, int]:
        """Words covered in (hypothesis, reference), by one matcher or by all."""
        wanted = None if matcher is None else MATCHERS.index(matcher)
        hyp = sum(m.hyp_length for m in self.matches if wanted in (None, m.matcher))
        ref = sum(m.ref_length for m in self.matches if wanted in (None, m.matcher))
        return hyp, ref


def meteor_from_matches(
    matches: Sequence[Match], chunks: int, hyp_length: int, ref_length: int, p: MeteorParameters
) -> tuple[float, float, float, float, float]:
    """(precision, recall, Fmean, penalty, score 0-100) of an alignment."""
    if not hyp_length or not ref_length or not matches:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    weights = (p.exact, p.stem, p.synonym, p.paraphrase)
    weighted_hyp = sum(weights[m.matcher] * m.hyp_length for m in matches)
    weighted_ref = sum(weights[m.matcher] * m.ref_length for m in matches)
    precision = weighted_hyp / hyp_length
    recall = weighted_ref / ref_length
    denominator = p.alpha * precision + (1.0 - p.alpha) * recall
    if precision == 0.0 or recall == 0.0 or denominator == 0.0:
        return precision, recall, 0.0, 0.0, 0.0
    fmean = precision * recall / denominator
    matched = sum(m.hyp_length + m.ref_length for m in matches) / 2.0
    penalty = p.gamma * (chunks / matched) ** p.beta
    return precision, recall, fmean, penalty, 100.0 * (1.0 - penalty) * fmean


def score_ceiling(hyp_weights: Sequence[float], ref_weights: Sequence[float], p) -> float:
    """A score (0-100) no alignment can exceed when each word is matched at most at its
    weight here (0: the word cannot be matched): every such word counted, in one chunk.
    Fmean rises with precision and recall and the penalty falls as matched words grow, so
    each relaxation only raises the score."""
    if not hyp_weights or not ref_weights:
        return 0.0
    precision = sum(hyp_weights) / len(hyp_weights)
    recall = sum(ref_weights) / len(ref_weights)
    denominator = p.alpha * precision + (1.0 - p.alpha) * recall
    if precision == 0.0 or recall == 0.0 or denominator == 0.0:
        return 0.0
    matched = (len(hyp_weights) - hyp_weights.count(0.0) + len(ref_weights)) / 2.0
    matched -= ref_weights.count(0.0) / 2.0
    penalty = p.gamma * (1.0 / matched) ** p.beta
    return 100.0 * (1.0 - penalty) * precision * recall / denominator


class _Sentence(NamedTuple):
    """A sentence's tokens, with what the ceilings need: the sets of its tokens and stems,
    and per word (token, stem, the most the word can weigh if the other sentence has the
    same token, if it has the same stem only, and otherwise)."""

    tokens: tuple[str, ...]
    token_set: frozenset[str]
    stem_set: frozenset[str]
    words: tuple[tuple[str, str, float, float, float], ...]


class Meteor:
    """A configured scorer: language, parameters, paraphrase table, synonym source.

    Build one and call ``score`` many times (stems and tokens are remembered across calls);
    ``meteor_score`` builds one per call.
    """

    def __init__(
        self,
        *,
        paraphrases: ParaphraseTable | None = None,
        language: str = "en",
        parameters: MeteorParameters | None = None,
        synonyms: SynonymSource | None = None,
        beam: int = DEFAULT_BEAM,
    ):
        primary_language(language)  # refuses a malformed code
        if parameters is None:
            parameters = ENGLISH
        elif isinstance(parameters, dict):
            parameters = MeteorParameters.from_dict(parameters)
        if beam < 1:
            raise ValueError("beam must be at least 1")
        self.language = language
        self.parameters = parameters
        self.paraphrases = paraphrases
        self.synonyms = synonyms
        self.stemmer = Stemmer.for_language(language)
        self.beam = beam
        stem = parameters.stem if self.stemmer is not None else 0.0
        # The most a word can weigh when the other sentence has the same word, or only the
        # same stem (a synonym or paraphrase match may weigh more: see _loose_weights).
        self._ceiling_weights = (max(parameters.exact, stem), stem)
        self._sentences: dict[str, _Sentence] = {}
        self._table_phrases: frozenset | None = None

    def _sentence(self, text: str) -> _Sentence:
        found = self._sentences.get(text)
        if found is None:
            tokens = meteor_tokens(text, self.language)
            stems = self.stemmer.stems(tokens) if self.stemmer else tokens
            same_word, same_stem = self._ceiling_weights
            words = tuple(
                (token, stem, max(same_word, loose), max(same_stem, loose), loose)
                for token, stem, loose in zip(tokens, stems, self._loose_weights(tokens))  # noqa: B905
            )
            found = _Sentence(tokens, frozenset(tokens), frozenset(stems), words)
            if len(self._sentences) < 200_000:
                self._sentences[text] = found
        return found

    def _loose_weights(self, tokens: tuple[str, ...]) -> tuple[float, ...]:
        """Per word, the synonym weight if the word has a synonym set, and the paraphrase
        weight if it lies in a phrase the table lists on either side (matching tries both
        directions), whichever is more."""
        p = self.parameters
        weights = [0.0] * len(tokens)
        if p.synonym > 0 and self.synonyms is not None:
            for i, token in enumerate(tokens):
                if any(True for _ in self.synonyms(token)):
                    weights[i] = p.synonym
        table = self.paraphrases
        if p.paraphrase > 0 and table is not None and table.entries:
            if self._table_phrases is None:
                # Read once: a scorer's table does not change while it is in use.
                self._table_phrases = frozenset(
                    (*table.entries, *(q for row in table.entries.values() for q in row))
                )
            longest = table.max_length
            for start in range(len(tokens)):
                for end in range(start + 1, min(len(tokens), start + longest) + 1):
                    if tokens[start:end] in self._table_phrases:
                        for i in range(start, end):
                            weights[i] = max(weights[i], p.paraphrase)
        return tuple(weights)

    def _word_weights(self, sentence: _Sentence, other: _Sentence) -> list[float]:
        """The most each word of ``sentence`` can weigh in a match with ``other``."""
        tokens, stems = other.token_set, other.stem_set
        return [
            if_token if token in tokens else if_stem if stem in stems else otherwise
            for token, stem, if_token, if_stem, otherwise in sentence.words
        ]

    def _candidates(self, hyp: Sequence[str], ref: Sequence[str]) -> list[Match]:
        return candidate_matches(
            hyp,
            ref,
            parameters=self.parameters,
            stemmer=self.stemmer,
            synonyms=self.synonyms,
            paraphrases=self.paraphrases,
        )

    def align(self, hypothesis: str, reference: str) -> MeteorAlignment:
        """The chosen alignment of one hypothesis with one reference, and its score."""
        hyp = meteor_tokens(hypothesis, self.language)
        ref = meteor_tokens(reference, self.language)
        return self._aligned(hyp, ref, self._candidates(hyp, ref))

    def _aligned(self, hyp, ref, candidates: Sequence[Match]) -> MeteorAlignment:
        chosen = choose_alignment(candidates, len(hyp), len(ref), beam=self.beam)
        parts = meteor_from_matches(
            chosen.matches, chosen.chunks, len(hyp), len(ref), self.parameters
        )
        return MeteorAlignment(hyp, ref, chosen.matches, chosen.chunks, *parts)

    def score(self, hypothesis: str, references: Sequence[str] | str) -> float:
        """The best score (0-100) of ``hypothesis`` against any of ``references``."""
        if isinstance(references, str):
            references = [references]
        hyp = self._sentence(hypothesis)
        ceilings = []
        for reference in references:
            ref = self._sentence(reference)
            ceiling = score_ceiling(
                self._word_weights(hyp, ref), self._word_weights(ref, hyp), self.parameters
            )
            ceilings.append((ceiling, ref.tokens))
        # Highest ceilings first: once the best score reaches the next ceiling, no reference
        # left can beat it, and their matches and alignments (most of the cost) are skipped.
        # The margin covers the last bits of floating-point rounding.
        ceilings.sort(key=lambda item: item[0], reverse=True)
        best = 0.0
        for ceiling, ref in ceilings:
            if ceiling * (1.0 + 1e-9) <= best:
                break
            candidates = self._candidates(hyp.tokens, ref)
            best = max(best, self._aligned(hyp.tokens, ref, candidates).score)
        return best


def meteor_score(
    hypothesis: str,
    references: Sequence[str] | str,
    *,
    paraphrases: ParaphraseTable | None = None,
    language: str = "en",
    parameters: MeteorParameters | dict | None = None,
    synonyms: SynonymSource | None = None,
) -> float:
    """The METEOR-style score (0-100) of ``hypothesis`` against its best reference.

    ``paraphrases`` enables the paraphrase matcher, ``synonyms`` the synonym matcher;
    ``parameters`` (a MeteorParameters or a dict of its fields) defaults to Denkowski &
    Lavie's English ones. Raises ValueError for a malformed language code or parameter.
    """
    scorer = Meteor(
        paraphrases=paraphrases, language=language, parameters=parameters, synonyms=synonyms
    )
    return scorer.score(hypothesis, references)


def meteor_signature(
    *,
    nrefs: int | str,
    language: str = "en",
    parameters: MeteorParameters | None = None,
    paraphrases: ParaphraseTable | None = None,
    synonyms: str | None = None,
) -> str:
    """E.g. ``metric:meteor|nrefs:1|lang:en|case:lc|tok:13a|stem:snowball|syn:none|
    para:3f2a9c0b1d7e|a:0.75,b:0.6,g:0.35,w:1/0.8/0.8/0.6``: the table named by its
    checksum, the synonym source by the name given."""
    parameters = parameters or ENGLISH
    stemmed = Stemmer.for_language(language) is not None
    return "|".join(
        [
            "metric:meteor",
            f"nrefs:{nrefs}",
            f"lang:{primary_language(language)}",
            "case:lc",
            f"tok:{'char' if default_tokenize(language) == CHARACTER else '13a'}",
            f"stem:{'snowball' if stemmed else 'none'}",
            f"syn:{synonyms or 'none'}",
            f"para:{paraphrases.checksum() if paraphrases else 'none'}",
            parameters.signature_fields(),
        ]
    )
