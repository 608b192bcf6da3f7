"""Turning a sentence into the units BLEU and PINC count: words or characters.

Tokenisation is sacrebleu's (13a, zh, intl, none, char), so our scores agree with
sacrebleu's. Three things are added: ``keep_spaces`` for character n-grams, which sacrebleu
does not offer, a way around 13a for sentences it would not change, and ``tokenize_13a``,
the same tokens as sacrebleu's 13a in a fraction of the time (tests compare the two).
"""

import re

from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_none import NoneTokenizer
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

CHARACTER = "char"

# One instance each: sacrebleu's tokenizers memoise their results per instance.
_TOKENIZERS = {
    "13a": Tokenizer13a(),
    "zh": TokenizerZh(),
    "intl": TokenizerV14International(),
    "none": NoneTokenizer(),
    CHARACTER: TokenizerChar(),
}
TOKENIZERS = frozenset(_TOKENIZERS)

# Languages whose writing does not put spaces between words: word n-grams would be whole
# clauses, so they are scored with character n-grams (Denoual & Lepage).
_UNSPACED_LANGUAGES = frozenset({"zh", "ja", "th", "lo", "km", "my", "bo"})

# Character BLEU of order 18 is about as demanding as word BLEU of order 4.
CHARACTER_MAX_ORDER = 18
WORD_MAX_ORDER = 4


def default_tokenize(language_code: str | None) -> str:
    """Return the tokenizer to use for text in ``language_code`` (BCP 47, e.g. "zh-Hans").

    "char" for languages written without spaces between words, else "13a".
    """
    if not language_code:
        return "13a"
    primary = language_code.replace("_", "-").split("-", 1)[0].lower()
    return CHARACTER if primary in _UNSPACED_LANGUAGES else "13a"


def default_max_order(tokenize: str) -> int:
    """Return the default highest n-gram order: 18 for characters, 4 for words."""
    return CHARACTER_MAX_ORDER if tokenize == CHARACTER else WORD_MAX_ORDER


def check_tokenize(tokenize: str) -> None:
    """Raise ValueError unless ``tokenize`` names a supported tokenizer."""
    if tokenize not in _TOKENIZERS:
        raise ValueError(f"Unknown tokenize {tokenize!r}; choose one of {sorted(TOKENIZERS)}")


def sentence_units(
    sentence: str, *, tokenize: str = "13a", lowercase: bool = False, keep_spaces: bool = False
) -> list[str] | str:
    """Split ``sentence`` into the units that n-grams are made of.

    Word tokenizers give a list of tokens. ``char`` gives a string, one unit per character:
    whitespace dropped as sacrebleu's char tokenizer does, or, with ``keep_spaces``, each run
    of whitespace kept as a single space. The preprocessing is sacrebleu's: lowercase first
    (if asked), strip trailing whitespace, then tokenize.
    """
    if lowercase:
        sentence = sentence.lower()
    sentence = sentence.rstrip()
    if tokenize == CHARACTER:
        if keep_spaces:
            return " ".join(sentence.split())
        return "".join(_TOKENIZERS[CHARACTER](sentence).split())
    check_tokenize(tokenize)
    if tokenize == "13a":
        if _untouched_by_13a(sentence):
            return sentence.split()
        return tokenize_13a(sentence)
    return _TOKENIZERS[tokenize](sentence).split()


def lowercased_units(
    sentence: str, units: list[str] | str, *, tokenize: str = "13a", keep_spaces: bool = False
) -> list[str] | str:
    """What ``sentence_units(sentence, lowercase=True)`` gives, from ``units``, the units of
    ``sentence`` as typed: for ASCII text, those units lowercased, without tokenising again.

    Lowercasing ASCII maps letters to letters one by one and touches no space, digit or
    punctuation mark, which are all that 13a, "none" and "char" look at; the exceptions are
    13a's case-sensitive entities and <skipped> tag, so text with "&" or "<" is tokenised
    again, as is any other text (non-ASCII lowercasing may depend on context, as a final
    sigma does). A test compares both ways on any text.
    """
    if sentence.isascii():
        if tokenize == CHARACTER:
            return units.lower()
        if tokenize == "none" or (
            tokenize == "13a" and "&" not in sentence and "<" not in sentence
        ):
            return " ".join(units).lower().split()
    return sentence_units(sentence, tokenize=tokenize, lowercase=True, keep_spaces=keep_spaces)


def _untouched_by_13a(sentence: str) -> bool:
    """True when 13a would only normalise the spaces of ``sentence``: it is letters, digits
    and ASCII spaces only. 13a's rules all concern ASCII punctuation and symbols, line breaks
    and entities, none of which is a letter or a digit, so splitting on spaces gives the
    same tokens (a test checks this against sacrebleu). Most descriptions without
    punctuation take this path and skip four regular-expression passes.
    """
    return sentence.replace(" ", "").isalnum()


# 13a's first rule puts spaces around every ASCII symbol and punctuation mark but the
# apostrophe, full stop, comma and hyphen (sacrebleu's TokenizerRegexp). Each match is one
# character, so one str.translate does what the regular expression does, in one C pass.
_SYMBOLS = "".join(chr(code) for code in range(0x21, 0x7F) if not chr(code).isalnum())
_SPACED = {ord(symbol): f" {symbol} " for symbol in _SYMBOLS if symbol not in "',.-"}
# Without ASCII digits, rules 2 and 3 (full stops and commas, kept inside numbers) split off
# every full stop and comma, and rule 4 (a hyphen after a digit) never applies: the same
# single pass then does all four.
_SPACED_WITHOUT_DIGITS = {**_SPACED, ord("."): " . ", ord(","): " , "}
_ASCII_DIGIT = re.compile("[0-9]").search
_STOP_OR_COMMA = re.compile(r"([^0-9])([\.,])")
_STOP_OR_COMMA_BEFORE = re.compile(r"([\.,])([^0-9])")
_HYPHEN_AFTER_DIGIT = re.compile(r"([0-9])(-)")


def tokenize_13a(line: str) -> list[str]:
    """The tokens sacrebleu's 13a tokenizer gives for ``line`` (what ``.split()`` of its
    output gives), computed without its four regular-expression passes where possible."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&")
        line = line.replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    if _ASCII_DIGIT(line) is None:
        return line.translate(_SPACED_WITHOUT_DIGITS).split()
    line = line.translate(_SPACED)
    # With digits, the remaining rules run exactly as sacrebleu runs them.
    if "." in line or "," in line:
        line = _STOP_OR_COMMA.sub(r"\1 \2 ", line)
        line = _STOP_OR_COMMA_BEFORE.sub(r" \1 \2", line)
    if "-" in line:
        line = _HYPHEN_AFTER_DIGIT.sub(r"\1 \2 ", line)
    return line.split()
