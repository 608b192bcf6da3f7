"""The matchers: every candidate word or phrase match between a hypothesis and a reference.

Sentences are lowercased and tokenised with sacrebleu's 13a, as PINC sees them (languages
written without spaces, such as Chinese or Japanese, are split into characters, as BLEU
scores them). Four matchers run in order, and a word pair matched by an earlier one is not
matched again by a later one:

- exact: the same token;
- stem: the same Snowball stem (snowballstemmer's stemmer for the language; no stem
  matches in a language without one);
- synonym: the two words share a synonym set of a ``SynonymSource``. No maintained package
  ships WordNet data that works without a download at run time, so there is no built-in
  source: pass one (any callable from a word to its synonym-set ids) to use this matcher;
- paraphrase: a phrase of one sentence is listed as a paraphrase of a phrase of the other
  in the ``ParaphraseTable`` (both directions are tried).

A matcher whose weight is 0 is switched off.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

import snowballstemmer

from paracrowd_metrics.tokens import CHARACTER, default_tokenize, sentence_units

from .parameters import MATCHERS, MeteorParameters
from .table import ParaphraseTable

EXACT, STEM, SYNONYM, PARAPHRASE = range(4)

# A word's synonym-set ids (WordNet synsets or anything else two words can share).
SynonymSource = Callable[[str], Iterable[Hashable]]

_LANGUAGE_CODE = re.compile(r"^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{1,8})*$")

# ISO 639 codes of the languages snowballstemmer has a stemmer for.
_SNOWBALL = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "eo": "esperanto",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fa": "persian",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "nn": "norwegian",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
STEMMED_LANGUAGES = frozenset(_SNOWBALL)


class Match(NamedTuple):
    """Words hypothesis[hyp_start:hyp_start + hyp_length] match the reference's span."""

    hyp_start: int
    hyp_length: int
    ref_start: int
    ref_length: int
    matcher: int  # EXACT, STEM, SYNONYM or PARAPHRASE

    @property
    def matcher_name(self) -> str:
        return MATCHERS[self.matcher]


def primary_language(language: str) -> str:
    """The primary subtag of a BCP 47 code ("pt-BR" → "pt"); ValueError if it is not one."""
    if not isinstance(language, str) or not _LANGUAGE_CODE.match(language):
        raise ValueError(f"unknown language {language!r}: expected a code such as 'en'")
    return language.replace("_", "-").split("-", 1)[0].lower()


@lru_cache(maxsize=65536)
def _tokens(sentence: str, unspaced: bool) -> tuple[str, ...]:
    if unspaced:
        return tuple(sentence_units(sentence, tokenize=CHARACTER, lowercase=True))
    return tuple(sentence_units(sentence, tokenize="13a", lowercase=True))


def meteor_tokens(sentence: str, language: str = "en") -> tuple[str, ...]:
    """The lowercased tokens the matchers compare."""
    if not isinstance(sentence, str):
        raise TypeError(f"a sentence must be a string, not {type(sentence).__name__}")
    return _tokens(sentence, default_tokenize(primary_language(language)) == CHARACTER)


def clear_caches() -> None:
    """Forget remembered tokens and stems (for benchmarks that time a cold start)."""
    _tokens.cache_clear()
    Stemmer._instances.clear()


class Stemmer:
    """Snowball stems of one language, remembered (descriptions reuse a small vocabulary)."""

    _instances: dict[str, Stemmer] = {}

    def __init__(self, algorithm: str):
        self._stemmer = snowballstemmer.stemmer(algorithm)
        self._stems: dict[str, str] = {}
        self._sentences: dict[tuple[str, ...], tuple[str, ...]] = {}

    @classmethod
    def for_language(cls, language: str) -> Stemmer | None:
        algorithm = _SNOWBALL.get(primary_language(language))
        if algorithm is None:
            return None
        if algorithm not in cls._instances:
            cls._instances[algorithm] = cls(algorithm)
        return cls._instances[algorithm]

    def stems(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """The stems of a sentence's words, remembered by sentence (references recur)."""
        found = self._sentences.get(words)
        if found is None:
            found = tuple(self.stem(word) for word in words)
            if len(self._sentences) < 200_000:
                self._sentences[words] = found
        return found

    def stem(self, word: str) -> str:
        found = self._stems.get(word)
        if found is None:
            found = self._stemmer.stemWord(word)
            if len(self._stems) < 500_000:
                self._stems[word] = found
        return found


def _positions(words: Sequence[Hashable]) -> dict[Hashable, list[int]]:
    index: dict[Hashable, list[int]] = {}
    for position, word in enumerate(words):
        index.setdefault(word, []).append(position)
    return index


def _phrase_positions(words: Sequence[str], longest: int) -> dict[tuple[str, ...], list[int]]:
    index: dict[tuple[str, ...], list[int]] = {}
    for start in range(len(words)):
        for end in range(start + 1, min(len(words), start + longest) + 1):
            index.setdefault(tuple(words[start:end]), []).append(start)
    return index


def _paraphrase_matches(
    first: Sequence[str], second: Sequence[str], table: ParaphraseTable, longest: int
) -> Iterable[tuple[int, int, int, int]]:
    """(start, length) in ``first`` and in ``second`` of each table phrase of ``first``
    whose paraphrase occurs in ``second``."""
    entries = table.entries
    found_in_second = _phrase_positions(second, longest)
    for start in range(len(first)):
        for end in range(start + 1, min(len(first), start + longest) + 1):
            row = entries.get(tuple(first[start:end]))
            if not row:
                continue
            for paraphrase in row:
                for other in found_in_second.get(paraphrase, ()):
                    yield start, end - start, other, len(paraphrase)


def candidate_matches(
    hypothesis: Sequence[str],
    reference: Sequence[str],
    *,
    parameters: MeteorParameters,
    stemmer: Stemmer | None = None,
    synonyms: SynonymSource | None = None,
    paraphrases: ParaphraseTable | None = None,
) -> list[Match]:
    """Every match the enabled matchers find, word pairs matched once by the first matcher."""
    matches: list[Match] = []
    matched: set[tuple[int, int]] = set()

    def add_words(hyp_keys: Sequence[Hashable], ref_keys: tuple[Hashable, ...], matcher: int):
        index = _positions(ref_keys)
        for i, key in enumerate(hyp_keys):
            for j in index.get(key, ()):
                if (i, j) not in matched:
                    matched.add((i, j))
                    matches.append(Match(i, 1, j, 1, matcher))

    hypothesis, reference = tuple(hypothesis), tuple(reference)
    if parameters.exact > 0:
        add_words(hypothesis, reference, EXACT)
    if parameters.stem > 0 and stemmer is not None:
        add_words(stemmer.stems(hypothesis), stemmer.stems(reference), STEM)
    if parameters.synonym > 0 and synonyms is not None:
        _add_synonyms(hypothesis, reference, synonyms, matched, matches)
    if parameters.paraphrase > 0 and paraphrases is not None and paraphrases.entries:
        longest = paraphrases.max_length
        found = set(_paraphrase_matches(hypothesis, reference, paraphrases, longest))
        found.update(
            (i, il, j, jl)
            for j, jl, i, il in _paraphrase_matches(reference, hypothesis, paraphrases, longest)
        )
        for i, il, j, jl in sorted(found):
            if il == jl == 1 and (i, j) in matched:
                continue
            matches.append(Match(i, il, j, jl, PARAPHRASE))
    return matches


def _add_synonyms(hypothesis, reference, synonyms, matched, matches) -> None:
    ref_sets: dict[Hashable, list[int]] = {}
    for j, word in enumerate(reference):
        for synset in synonyms(word):
            ref_sets.setdefault(synset, []).append(j)
    for i, word in enumerate(hypothesis):
        for j in sorted({j for synset in synonyms(word) for j in ref_sets.get(synset, ())}):
            if (i, j) not in matched:
                matched.add((i, j))
                matches.append(Match(i, 1, j, 1, SYNONYM))
