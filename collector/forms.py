import functools

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.template.loader import get_template

from .models import SegmentProposal
from .provenance import KEY_PAUSE_MS, LEFT_AFTER_COPY_MINIMUM_MS, TypingRecord
from .services.paraphrase_sources import MAX_SENTENCES
from .services.typing import PasteForbidden
from .spans import LengthRule, parse_time
from .validators import (
    LANGUAGE_CODES,
    LANGUAGES,
    validate_has_words,
    validate_language_name,
    validate_no_markup,
    validate_no_url,
    validate_not_a_copy,
    validate_not_instructions,
    validate_one_sentence,
    validate_starts_like_a_sentence,
)
from .youtube import parse_youtube_link

OTHER_LANGUAGE = "other"
LANGUAGE_CHOICES = (
    ("", "Choose a language…"),
    *LANGUAGES,
    (OTHER_LANGUAGE, "Another language…"),
)


def language_choices():
    """The language picker's choices. Given as a function, the one tuple is shared: a list of
    choices would be deep-copied with the form's fields for every form."""
    return LANGUAGE_CHOICES


class LanguageSelect(forms.Select):
    """The language picker. Its hundred options, each rendered through Django's option
    template, were most of the task page's rendering time; they are the same on every page but
    for the one selected, so each selection's list is rendered once per process."""

    template_name = "collector/widgets/language_select.html"

    def get_context(self, name, value, attrs):
        # The widget's own context, without the per-option dictionaries of ChoiceWidget.
        context = forms.Widget.get_context(self, name, value, attrs)
        selected = next(iter(context["widget"]["value"]), None)
        # A posted value that is no choice selects nothing, and is never a key of the cache.
        if not any(selected == choice for choice, _ in LANGUAGE_CHOICES):
            selected = None
        context["widget"]["options"] = _language_options(selected)
        return context


@functools.lru_cache(maxsize=len(LANGUAGE_CHOICES) + 1)
def _language_options(selected: str | None) -> str:
    template = get_template("collector/widgets/language_options.html")
    return template.render({"choices": LANGUAGE_CHOICES, "selected": selected})


class DescriptionForm(forms.Form):
    """A description as the worker typed it. The server is authoritative on every rule."""

    text = forms.CharField(
        label="Your one-sentence description",
        widget=forms.Textarea(attrs={"rows": 2}),
        validators=[
            validate_starts_like_a_sentence,
            validate_has_words,
            validate_no_markup,
            validate_not_instructions,
            validate_one_sentence,
            validate_no_url,
        ],
        error_messages={"required": "Write one sentence describing the main action."},
    )
    language = forms.ChoiceField(
        label="Language of your description",
        choices=language_choices,
        widget=LanguageSelect,
        initial="en",
        error_messages={"required": "Say which language you wrote in."},
    )
    other_language = forms.CharField(
        label="Which language?", required=False, max_length=40, strip=True
    )
    comment = forms.CharField(
        label="Comments (optional)",
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    TYPING_FIELDS = tuple(f"typing_{name}" for name in TypingRecord.field_names())
    TYPING_UNREADABLE = (
        "The page's record of how your text was typed could not be read, so nothing was "
        "stored. Reload the page, then submit again."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # How the text came into the box, filled in by the page's script (typing-record.js);
        # empty when scripts are off. Checked in clean(), where an error can be shown.
        for name in self.TYPING_FIELDS:
            self.fields[name] = forms.CharField(required=False, widget=forms.HiddenInput)
        # The page's script takes its bounds from here, so the server and the page agree.
        self.fields["typing_left_after_copy"].widget.attrs["data-minimum-ms"] = (
            LEFT_AFTER_COPY_MINIMUM_MS
        )
        self.fields["typing_key_intervals"].widget.attrs["data-pause-ms"] = KEY_PAUSE_MS
        # Read per form, not at import, so the limit follows settings (and tests can change it).
        # No maxlength attribute: the browser would cut a pasted text silently and the worker
        # would never read why. The page counts characters instead, and the server says.
        limit = settings.DESCRIPTION_MAX_LENGTH
        self.fields["text"].validators.append(
            MaxLengthValidator(
                limit,
                message=f"Keep it to one short sentence: at most {limit} characters "
                "(you wrote %(show_value)d).",
            )
        )

    def clean(self):
        cleaned = super().clean()
        cleaned["typing"] = self._typing_record(cleaned)
        if cleaned.get("language") == OTHER_LANGUAGE:
            name = cleaned.get("other_language", "")
            if not name:
                self.add_error("other_language", "Type the name of the language you wrote in.")
            else:
                try:
                    validate_language_name(name)
                except forms.ValidationError as error:
                    self.add_error("other_language", error)
        return cleaned

    def _typing_record(self, cleaned) -> TypingRecord | None:
        """The page's record: None when it sent none (every field empty); a record with each
        figure clamped to its bound when every field is a whole number; otherwise (a forged or
        broken record) an error, and nothing is stored."""
        names = TypingRecord.field_names()
        values = {name: cleaned.get(f"typing_{name}", "").strip() for name in names}
        if not any(values.values()):
            return None
        # A page opened before a figure was counted does not send it: it takes its default.
        values = {
            name: value
            for name, value in values.items()
            if value or name not in (*TypingRecord.OPTIONAL, *TypingRecord.UNKNOWN_WHEN_ABSENT)
        }
        # isascii: int() would also read other scripts' digits; the length bounds the parse.
        if not all(v.isascii() and v.isdigit() and len(v) <= 20 for v in values.values()):
            self.add_error(None, self.TYPING_UNREADABLE)
            return None
        return TypingRecord.bounded(**{name: int(value) for name, value in values.items()})

    def show_refusal(self, refusal) -> None:
        """Show why the service stored nothing. A text pasted where pasting is forbidden is
        emptied, with its record, so that the page asks for it to be typed afresh."""
        if isinstance(refusal, PasteForbidden):
            self.data = self.data.copy()
            for name in ("text", *self.TYPING_FIELDS):
                self.data[name] = ""
        self.add_error(None, str(refusal))

    @property
    def declared_language(self) -> str:
        """An ISO code when the language was picked from the list, else the name as typed."""
        language = self.cleaned_data["language"]
        if language == OTHER_LANGUAGE:
            return self.cleaned_data["other_language"]
        assert language in LANGUAGE_CODES
        return language


class ParaphraseForm(DescriptionForm):
    """A direct paraphrase of ``source`` (a ParaphraseSource): a description's rules, in the
    sentence's own language, and not the sentence again."""

    EMPTY = "Write the sentence again, with the same meaning, in your own words."
    comment = None

    def __init__(self, *args, source, **kwargs):
        super().__init__(*args, initial={"language": source.language}, **kwargs)
        self.source = source
        text = self.fields["text"]
        text.label = "The same meaning in your own words"
        text.error_messages["required"] = self.EMPTY
        self.fields["language"].label = "Language of your sentence"

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        if self.declared_language != self.source.language:
            self.add_error(
                "language",
                f"Write in the language of the sentence you were given ({self.source.language}).",
            )
            return cleaned
        try:
            validate_not_a_copy(cleaned["text"], self.source.text, self.source.language)
        except ValidationError as error:
            self.add_error("text", error)
        return cleaned


class TimeField(forms.CharField):
    """A time in a video, typed as seconds (75) or minutes and seconds (1:15); a Decimal."""

    widget = forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false", "size": 9})

    def to_python(self, value):
        value = super().to_python(value)
        return parse_time(value) if value else None


class SegmentSpanForm(forms.Form):
    """Where a segment starts and ends, checked against the length rule (spans.LengthRule).

    Whether it overlaps another segment of the same video is for the service to say: only it
    can look while holding the video's lock.
    """

    start = TimeField(
        label="Start",
        error_messages={"required": "Mark or type where the segment starts."},
    )
    end = TimeField(
        label="End",
        error_messages={"required": "Mark or type where the segment ends."},
    )

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("start"), cleaned.get("end")
        if start is not None and end is not None:
            try:
                LengthRule.from_settings().check(start, end)
            except ValidationError as error:
                self.add_error("end", error)
        return cleaned


class ProposalForm(SegmentSpanForm):
    """A proposed segment of a YouTube video, as the worker marked or typed it."""

    url = forms.CharField(
        label="YouTube link",
        max_length=500,
        help_text="Paste the video's address, e.g. https://youtu.be/… or "
        "https://www.youtube.com/watch?v=…",
        widget=forms.URLInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
        error_messages={"required": "Paste the address of a YouTube video."},
    )
    event = forms.CharField(
        label="What happens, in a few words",
        max_length=SegmentProposal._meta.get_field("event").max_length,
        help_text="For the reviewer, e.g. “a dog catches a frisbee”.",
        error_messages={"required": "Say in a few words what happens in the segment."},
    )

    field_order = ["url", "start", "end", "event"]

    def clean_url(self):
        return parse_youtube_link(self.cleaned_data["url"])


class ParaphraseCorpusChoiceForm(forms.Form):
    """Staff choose sentences for direct paraphrasing from the corpus."""

    count = forms.IntegerField(
        label="How many sentences", min_value=1, max_value=MAX_SENTENCES, initial=100
    )
    seed = forms.IntegerField(label="Seed", min_value=0, initial=0)
    tier2_only = forms.BooleanField(label="Tier-2 workers' descriptions only", required=False)
    language = forms.CharField(
        label="Language (empty: any)", required=False, max_length=40, initial="en"
    )


class ParaphraseUploadForm(forms.Form):
    """Staff upload sentences for direct paraphrasing: text, one per line, or CSV."""

    file = forms.FileField(
        label="File of sentences",
        help_text="UTF-8 text with one sentence per line, or CSV with a header naming "
        "“text” and (unless a language is given) “language” columns.",
    )
    language = forms.CharField(
        label="Language of the sentences (for a CSV, empty: its language column)",
        required=False,
        max_length=40,
    )
