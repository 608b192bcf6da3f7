from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import MaxLengthValidator

from .validators import (
    LANGUAGE_CODES,
    LANGUAGES,
    validate_language_name,
    validate_no_url,
    validate_one_sentence,
)

OTHER_LANGUAGE = "other"


class DescriptionForm(forms.Form):
    """A description as the worker typed it. The server is authoritative on every rule."""

    text = forms.CharField(
        label="Your one-sentence description",
        widget=forms.Textarea(attrs={"rows": 2}),
        validators=[validate_one_sentence, validate_no_url],
        error_messages={"required": "Write one sentence describing the main action."},
    )
    language = forms.ChoiceField(
        label="Language of your description",
        choices=[("", "Choose a language…"), *LANGUAGES, (OTHER_LANGUAGE, "Another language…")],
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
        limit = settings.DESCRIPTION_MAX_LENGTH
        self.fields["text"].widget.attrs["maxlength"] = limit
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


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label="Email (optional)", required=False)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
