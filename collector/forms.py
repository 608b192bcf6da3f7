import functools

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.template.loader import get_template

from .models import SegmentProposal
from .spans import LengthRule, parse_time
from .validators import (
    LANGUAGE_CODES,
    LANGUAGES,
    validate_has_words,
    validate_language_name,
    validate_no_markup,
    validate_no_url,
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
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

    @property
    def declared_language(self) -> str:
        """An ISO code when the language was picked from the list, else the name as typed."""
        language = self.cleaned_data["language"]
        if language == OTHER_LANGUAGE:
            return self.cleaned_data["other_language"]
        assert language in LANGUAGE_CODES
        return language


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
