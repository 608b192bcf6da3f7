"""Checks of one description's text: spelling, the shape of the sentence, and whether it reads
as the language the worker declared. Each depends on the text and the declared language only,
so ``text_checks`` is computed once per description and kept (review.models.DescriptionCheck).

The language tools ship their data (nothing is downloaded): py3langid identifies the language,
pyspellchecker's dictionaries count unknown words, lemminflect's tables tell English verb forms.
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from django.conf.locale import LANG_INFO

from paracrowd_metrics import default_tokenize

WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")

# Languages that a short sentence cannot tell apart; identifying one of a group as another of
# the same group is not a mismatch.
CONFUSABLE = [
    {"no", "nb", "nn", "da"},
    {"hr", "bs", "sr"},
    {"ms", "id"},
    {"zh", "yue", "wuu"},
    {"es", "gl", "ext"},
    {"pt", "gl"},
    {"ar", "ary", "arz"},
    {"uz", "uzs"},
    {"nl", "af", "fy"},
]
# The declared language must be among the identifier's first few guesses, and not its first.
LANGUAGE_TOP = 3

# English words after which the next word is a noun or adjective, not the sentence's verb.
# fmt: off
NOT_BEFORE_VERB = {
    "a", "an", "the", "this", "that", "these", "those", "some", "any", "every", "each", "no",
    "another", "his", "her", "its", "their", "my", "your", "our", "one", "two", "three", "four",
    "five", "six", "seven", "eight", "nine", "ten", "several", "many", "few", "of", "in", "on",
    "at", "with", "by", "for", "from", "to", "into", "onto", "over", "under", "near", "behind",
    "beside", "between", "through", "about", "around", "across", "along", "against", "without",
}
AUXILIARIES = {
    "am", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "does", "do",
    "did", "can", "could", "will", "would", "shall", "should", "may", "might", "must", "isn't",
    "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "can't", "won't", "he's",
    "she's", "it's", "there's", "that's", "they're", "we're", "you're", "i'm",
}
PLURAL_SUBJECTS = {
    "they", "we", "you", "i", "people", "men", "women", "children", "kids", "persons", "folks",
}
# fmt: on


@dataclass(frozen=True, slots=True)
class TextChecks:
    """What the checks of one description's text found. They depend on the text and the
    declared language only, which never change, so they can be computed once and stored."""

    words: int  # words checked for spelling (0 without a dictionary)
    misspelt: tuple[str, ...] | None  # None: no dictionary for the declared language
    shape: tuple[tuple[str, str], ...]  # (kind, note) of each problem with its shape
    language_checked: bool  # False: the identifier does not know the declared language
    reads_as: str = ""  # the language it reads as, when not plausibly the declared one


# Raise when the checks change, so that stored ones are computed again.
CHECKS_VERSION = 2


def text_checks(text: str, language: str) -> TextChecks:
    code = language_code(language)
    has_dictionary = code in SPELLING_LANGUAGES
    identifiable = code in _identifiable()
    return TextChecks(
        words=sum(1 for _ in WORD.finditer(text)) if has_dictionary else 0,
        misspelt=tuple(misspelt_words(text, code)) if has_dictionary else None,
        shape=tuple(shape_problems(text, language)),
        language_checked=identifiable,
        reads_as=(identified_language(text, code) or "") if identifiable else "",
    )


def language_code(declared: str) -> str:
    """The ISO 639 code of a declared language: 'en-gb' → 'en', 'Hindi' → 'hi', '' if unknown."""
    declared = declared.strip().lower()
    if declared in LANG_INFO or re.fullmatch(r"[a-z]{2,3}", declared):
        return declared.split("-")[0]
    if re.fullmatch(r"[a-z]{2,3}-[a-z]+", declared):
        return declared.split("-")[0]
    return _language_names().get(declared, "")


@lru_cache(maxsize=1)
def _language_names() -> dict[str, str]:
    names = {}
    for code, info in LANG_INFO.items():
        if "name" in info:
            names.setdefault(info["name"].lower(), code.split("-")[0])
            names.setdefault(info["name_local"].lower(), code.split("-")[0])
    names.update({"tagalog": "tl", "filipino": "tl", "swahili": "sw", "yoruba": "yo"})
    return names


def language_name(code: str) -> str:
    info = LANG_INFO.get(code)
    return info["name"] if info and "name" in info else code


# Spelling ---------------------------------------------------------------------------------

# pyspellchecker's bundled dictionaries.
SPELLING_LANGUAGES = {"en", "es", "fr", "it", "pt", "de", "ru", "ar", "eu", "lv", "nl", "fa"}


@cache
def _spellchecker(code: str):
    from spellchecker import SpellChecker

    return SpellChecker(language=code)


def misspelt_words(text: str, code: str) -> list[str]:
    """Words of ``text`` the dictionary of ``code`` does not know. Capitalised words inside
    the sentence are taken for names and skipped."""
    words = [
        match.group()
        for position, match in enumerate(WORD.finditer(text))
        if position == 0 or not match.group()[:1].isupper()
    ]
    checker = _spellchecker(code)
    unknown = checker.unknown(words)
    if code == "en":
        # The dictionary spells American; British, Canadian and Australian spellings are
        # English too, so a word is known when an American form of it is.
        unknown = {word for word in unknown if not checker.known(_american(word))}
    return [word for word in words if word.lower() in unknown]


# British → American endings, longest first; each word tries every one that fits.
AMERICAN_ENDINGS = (
    ("ellery", "elry"),
    ("isation", "ization"),
    ("ising", "izing"),
    ("ysing", "yzing"),
    ("ised", "ized"),
    ("ysed", "yzed"),
    ("ises", "izes"),
    ("yses", "yzes"),
    ("ours", "ors"),
    ("ogue", "og"),
    ("ise", "ize"),
    ("yse", "yze"),
    ("our", "or"),
    ("tre", "ter"),
    ("tres", "ters"),
    ("ence", "ense"),
    ("amme", "am"),
    ("ium", "um"),
    ("que", "ck"),
    ("elled", "eled"),
    ("elling", "eling"),
    ("ller", "ler"),
)


def _american(word: str) -> list[str]:
    word = word.lower()
    forms = [
        word[: -len(british)] + american
        for british, american in AMERICAN_ENDINGS
        if word.endswith(british)
    ]
    # "our" inside a word: favourite, colourful, neighbourhood.
    if "our" in word[1:]:
        forms.append(word[0] + word[1:].replace("our", "or"))
    return forms


# Sentence shape ---------------------------------------------------------------------------

MIN_WORDS, MAX_WORDS = 2, 35
MIN_CHARACTERS, MAX_CHARACTERS = 4, 80  # for languages written without spaces


def shape_problems(text: str, language: str) -> list[tuple[str, str]]:
    """What keeps ``text`` from being one plain sentence, as (kind, note) pairs: its length,
    its capitals and, in English, the lack of a verb."""
    problems = []
    code = language_code(language)
    text = text.strip()
    if default_tokenize(code or language) == "char":
        length = sum(1 for c in text if not c.isspace() and unicodedata.category(c)[0] != "P")
        if length < MIN_CHARACTERS:
            problems.append(("too short", f"only {length} characters"))
        elif length > MAX_CHARACTERS:
            problems.append(("too long", f"{length} characters"))
    else:
        words = len(text.split())
        if words < MIN_WORDS:
            problems.append(("too short", f"only {words} word{'' if words == 1 else 's'}"))
        elif words > MAX_WORDS:
            problems.append(("too long", f"{words} words"))
    letters = [c for c in text if c.lower() != c.upper()]
    if len(letters) > 3 and all(c.isupper() for c in letters):
        problems.append(("in capitals", "written in capitals"))
    elif text.lstrip("\"'“‘¿¡(")[:1].islower():
        problems.append(("small first letter", "starts with a small letter"))
    if code == "en" and not has_english_verb(text):
        problems.append(("no verb", "no verb"))
    return problems


def has_english_verb(text: str) -> bool:
    """Whether an English sentence seems to have a verb: an auxiliary; a word that can be read
    as an inflected verb where it stands ("slices", "sat", "running"); or a base form after a
    plural subject ("people dance"). A heuristic without a tagger, meant to catch fragments
    such as "a man on a horse" or "nice video"."""
    from lemminflect import getAllLemmas

    words = [word.lower() for word in WORD.findall(text)]
    for position, word in enumerate(words):
        if word in AUXILIARIES:
            return True
        previous = words[position - 1] if position else ""
        # After "a", "the", "with", "his", "man's"… comes a noun or an adjective.
        if previous in NOT_BEFORE_VERB or previous.endswith(("'s", "’s")):
            continue
        lemmas = getAllLemmas(word, upos="VERB").get("VERB", ())
        if not lemmas:
            continue
        if any(lemma != word for lemma in lemmas) and (position > 0 or word.endswith("ing")):
            return True
        if previous in PLURAL_SUBJECTS or (position > 1 and previous.endswith("s")):
            return True
    return False


# Language identification ------------------------------------------------------------------


def _ranked_languages(text: str) -> list[str]:
    import py3langid

    return [code for code, _ in py3langid.rank(text)[:LANGUAGE_TOP]]


def _same_language(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in CONFUSABLE)


def identified_language(text: str, declared_code: str) -> str | None:
    """None when ``text`` plausibly is in ``declared_code``; else the language it reads as."""
    ranked = _ranked_languages(text)
    if _same_language(ranked[0], declared_code):
        return None
    if any(_same_language(code, declared_code) for code in ranked[1:]):
        return None
    return ranked[0]


@lru_cache(maxsize=1)
def _identifiable() -> frozenset[str]:
    from py3langid.langid import _get_identifier

    return frozenset(_get_identifier().labels) | {"nb"}
