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

from scoring.metrics.tokens import CHARACTER, default_tokenize

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

    def align(self, hypothesis: str, reference: str) -> MeteorAlignment:
        """The chosen alignment of one hypothesis with one reference, and its score."""
        hyp = meteor_tokens(hypothesis, self.language)
        ref = meteor_tokens(reference, self.language)
        candidates = candidate_matches(
            hyp,
            ref,
            parameters=self.parameters,
            stemmer=self.stemmer,
            synonyms=self.synonyms,
            paraphrases=self.paraphrases,
        )
        chosen = choose_alignment(candidates, len(hyp), len(ref), beam=self.beam)
        parts = meteor_from_matches(
            chosen.matches, chosen.chunks, len(hyp), len(ref), self.parameters
        )
        return MeteorAlignment(hyp, ref, chosen.matches, chosen.chunks, *parts)

    def score(self, hypothesis: str, references: Sequence[str] | str) -> float:
        """The best score (0-100) of ``hypothesis`` against any of ``references``."""
        if isinstance(references, str):
            references = [references]
        return max(
            (self.align(hypothesis, reference).score for reference in references), default=0.0
        )


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
