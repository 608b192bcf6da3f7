"""Turning a sentence into the units BLEU and PINC count: words or characters.

Tokenisation is sacrebleu's own (13a, zh, intl, none, char), so our scores agree with
sacrebleu's by construction. Two things are added: ``keep_spaces`` for character n-grams,
which sacrebleu does not offer, and a way around 13a for sentences it would not change.
"""

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
    if tokenize == "13a" and _untouched_by_13a(sentence):
        return sentence.split()
    return _TOKENIZERS[tokenize](sentence).split()


def _untouched_by_13a(sentence: str) -> bool:
    """True when 13a would only normalise the spaces of ``sentence``: it is letters, digits
    and ASCII spaces only. 13a's rules all concern ASCII punctuation and symbols, line breaks
    and entities, none of which is a letter or a digit, so splitting on spaces gives the
    same tokens (a test checks this against sacrebleu). Most descriptions without
    punctuation take this path and skip four regular-expression passes.
    """
    return sentence.replace(" ", "").isalnum()
