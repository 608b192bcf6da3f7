"""English synonyms from the WordNet 3.0 database files, read offline.

Debian's ``wordnet-base`` package puts the database in ``/usr/share/wordnet``; only its
``index.{noun,verb,adj,adv}`` files (each lemma's synonym sets) and the ``*.exc`` files
(irregular forms: ``went`` → ``go``) are read. A word is reduced to its lemmas as WordNet's
own ``morphy`` does: the exception lists, then the regular suffix rules of each part of
speech, keeping the forms the index knows.

``WordNet.synsets`` is a ``SynonymSource`` (``paracrowd_metrics.meteor.matchers``): two words
are synonyms when they share a synonym set. Licence: WordNet 3.0 licence (permissive, with
its copyright notice kept), see ``/usr/share/doc/wordnet-base/copyright``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

DEFAULT_PATH = Path("/usr/share/wordnet")
PARTS_OF_SPEECH = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
# WordNet's morphy suffix rules (wnintro(5WN), "morphy"): (ending, replacement) per part.
SUFFIX_RULES = {
    "n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh")]
    + [("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", "")]
    + [("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}


class WordNet:
    """The synonym sets of English words, from a WordNet database folder."""

    def __init__(self, folder: str | os.PathLike = DEFAULT_PATH):
        folder = Path(folder)
        self.folder = folder
        self._index: dict[str, dict[str, tuple[str, ...]]] = {}
        self._exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
        for name, pos in PARTS_OF_SPEECH.items():
            index = folder / f"index.{name}"
            if not index.is_file():
                raise FileNotFoundError(
                    f"no WordNet index at {index} (install Debian's wordnet-base package)"
                )
            self._index[pos] = _read_index(index, pos)
            self._exceptions[pos] = _read_exceptions(folder / f"{name}.exc")
        self.synsets = lru_cache(maxsize=200_000)(self._synsets)

    def lemmas(self, word: str, pos: str) -> set[str]:
        """The base forms of ``word`` as a ``pos`` (n, v, a, r) that WordNet lists."""
        word = word.lower()
        index = self._index[pos]
        forms = {word, *self._exceptions[pos].get(word, ())}
        for ending, replacement in SUFFIX_RULES[pos]:
            if word.endswith(ending) and len(word) > len(ending):
                forms.add(word[: -len(ending)] + replacement)
        return {form for form in forms if form in index}

    def _synsets(self, word: str) -> frozenset[str]:
        """Every synonym set of any lemma of ``word``, as "pos:offset" ids."""
        found = set()
        for pos, index in self._index.items():
            for lemma in self.lemmas(word, pos):
                found.update(f"{pos}:{offset}" for offset in index[lemma])
        return frozenset(found)

    def synonyms(self, first: str, second: str) -> bool:
        """Whether the two words share a synonym set."""
        return bool(self.synsets(first) & self.synsets(second))


def _read_index(path: Path, pos: str) -> dict[str, tuple[str, ...]]:
    """lemma → synset offsets. A line: lemma pos synset_cnt p_cnt [ptr]… sense_cnt
    tagsense_cnt offset…; the last synset_cnt fields are the offsets. Header lines start with
    spaces."""
    index = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith(" "):
                continue
            fields = line.split()
            count = int(fields[2])
            index[fields[0].replace("_", " ")] = tuple(fields[-count:])
    return index


def _read_exceptions(path: Path) -> dict[str, tuple[str, ...]]:
    """inflected form → base forms, from a ``*.exc`` file (absent for none)."""
    if not path.is_file():
        return {}
    exceptions = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            form, *bases = line.split()
            exceptions[form] = tuple(bases)
    return exceptions
