"""What makes a description acceptable. The server form enforces these rules; the task page hands
the same patterns to the browser so it can say what is wrong before anything is sent."""

import re
import threading
from difflib import SequenceMatcher

from django.conf import global_settings
from django.core.exceptions import ValidationError

from paracrowd.spreadsheets import FORMULA_STARTS, starts_like_a_formula
from paracrowd_metrics import default_tokenize, pinc

# Sentence-final marks: Latin, CJK full-width, Devanagari danda, Arabic question mark.
SENTENCE_END = ".!?。！？।؟"
# A sentence end followed by more words means a second sentence. Full-width and danda marks need
# no space after them; a Latin full stop needs a space and a capital (so "2.5 metres" passes).
SECOND_SENTENCE = re.compile(
    r"[!?。！？।؟]\s*\w|(?<!\b\w)(?<!\bMr|\bMs|\bDr|\bSt|\bJr|\bvs)(?<!\bMrs)\.\s+[A-Z]"
)
# Written without \w inside [...] so the browser can swap \w for a Unicode class (describe.js).
URL = re.compile(r"(https?://|www\.)\S+|\b(?:\w|-)+\.(com|org|net|edu|gov|io|ly|be|tv|co)\b", re.I)
LANGUAGE_FREE_TEXT = re.compile(r"^[^\W\d_][^\W\d_ ()-]*(?:[ ()-]+[^\W\d_]+)*\)?$")

MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!][^>]*>")
# What the task page tells workers (templates/collector/describe.html says the same): a text
# that is mostly one of these was pasted back, not written about the video.
INSTRUCTIONS = (
    "Describe the main action in one sentence",
    "Watch the segment and describe its main action in one sentence.",
    "Write in any language you write well, and say which language it is.",
    "Describe what you see, not the video itself, not your opinion, and without unnecessary "
    "detail.",
    "If you do not understand what is happening in the segment, skip it.",
)
INSTRUCTION_LIKENESS = 0.8

# Languages offered in the picker; anything else may be typed in.
LANGUAGES = sorted(global_settings.LANGUAGES, key=lambda item: item[1])
LANGUAGE_CODES = {code for code, _ in LANGUAGES}


def validate_one_sentence(text: str) -> None:
    if "\n" in text.strip() or SECOND_SENTENCE.search(
        text.strip().rstrip(SENTENCE_END + " \"'”’)")
    ):
        raise ValidationError(
            "Write exactly one sentence. This looks like more than one.", code="one_sentence"
        )


def validate_starts_like_a_sentence(text: str) -> None:
    # A sentence never starts with these, and a spreadsheet opening an export would run the
    # text as a formula: refused here so the corpus stays exact and safe in every format.
    if starts_like_a_formula(text):
        raise ValidationError(
            "Start your sentence with a word, not with "
            + " ".join(mark for mark in FORMULA_STARTS if mark.isprintable())
            + ".",
            code="formula",
        )


def validate_no_url(text: str) -> None:
    if URL.search(text):
        raise ValidationError(
            "Describe what happens in the video; do not include links or web addresses.",
            code="url",
        )


def validate_language_name(name: str) -> None:
    if not 2 <= len(name) <= 40 or not LANGUAGE_FREE_TEXT.match(name):
        raise ValidationError(
            "Name the language in letters, for example “Tagalog” or “Swiss German”.",
            code="language",
        )


def validate_has_words(text: str) -> None:
    if not any(character.isalpha() for character in text):
        raise ValidationError("Describe the action in words; this has no letters.", code="no_words")


def validate_no_markup(text: str) -> None:
    if MARKUP.search(text):
        raise ValidationError("Write plain text, without HTML or other markup.", code="markup")


# One matcher per instruction sentence and thread: a matcher indexes its second sequence (the
# sentence) when given it, which was most of the check's cost; only the first changes per text.
_instruction_matchers = threading.local()


def validate_not_instructions(text: str) -> None:
    written = _plain(text)
    matchers = getattr(_instruction_matchers, "matchers", None)
    if matchers is None:
        matchers = [SequenceMatcher(None, "", _plain(sentence)) for sentence in INSTRUCTIONS]
        _instruction_matchers.matchers = matchers
    for likeness in matchers:
        likeness.set_seq1(written)
        # The two quick ratios bound the ratio from above: most texts are ruled out by them.
        if (
            likeness.real_quick_ratio() >= INSTRUCTION_LIKENESS
            and likeness.quick_ratio() >= INSTRUCTION_LIKENESS
            and likeness.ratio() >= INSTRUCTION_LIKENESS
        ):
            raise ValidationError(
                "Describe what you see in this segment in your own words; this repeats the "
                "task's instructions.",
                code="instructions",
            )


# A paraphrase that reuses nearly every n-gram of its sentence (PINC below this, on 0-100) is
# the sentence again with a word or two changed, not the same meaning in new words.
NEAR_COPY_PINC = 20.0


def validate_not_a_copy(text: str, source: str, language: str) -> None:
    """Refuse a paraphrase that is its sentence again: the same words (case, spacing and
    punctuation aside), or so nearly the same that it adds no new wording."""
    if _plain(text) == _plain(source):
        raise ValidationError(
            "This is the sentence you were given. Write the same meaning in your own words.",
            code="copy",
        )
    if pinc(source, text, tokenize=default_tokenize(language)) < NEAR_COPY_PINC:
        raise ValidationError(
            "This is almost the sentence you were given. Change more than a word or two: "
            "write the same meaning in your own words.",
            code="near_copy",
        )


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())
