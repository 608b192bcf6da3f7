from decimal import Decimal

from django import forms
from django.core.validators import FileExtensionValidator
from django.utils import timezone

from collector.forms import SegmentSpanForm
from collector.models import Description, SegmentProposal
from crowd.models import Tier

from .reports import Period
from .worker_signals import SIGNALS

REASON_HELP = "Required. It goes into the audit log."


class PeriodForm(forms.Form):
    """Filters by whole days; an empty form means all time."""

    since = forms.DateField(
        label="From", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="To", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            self.add_error("until", "The end of the period comes before its start.")
        return cleaned

    @property
    def period(self) -> Period:
        if not self.is_valid():
            return Period()
        return Period(self.cleaned_data["since"], self.cleaned_data["until"])


class QueueFilterForm(PeriodForm):
    language = forms.CharField(
        label="Language (code)", required=False, max_length=40, help_text="For example hi or en."
    )
    signal = forms.ChoiceField(
        label="Signal",
        required=False,
        choices=[
            ("", "Any worker"),
            ("any", "Flagged by any signal"),
            ("none", "Flagged by none"),
            *((key, f"Flagged: {label}") for key, label in SIGNALS.items()),
        ],
    )
    blocked = forms.BooleanField(label="Include blocked workers", required=False)

    def value(self, name, default=""):
        return self.cleaned_data.get(name) or default if self.is_valid() else default


class StandingForm(forms.Form):
    """Promote, demote, block or unblock one worker, or grant or revoke their access to
    word-alignment tasks."""

    ACTIONS = {
        "promote": "Promote to Tier 2",
        "demote": "Demote to Tier 1",
        "block": "Block",
        "unblock": "Unblock",
        "grant_alignment": "Grant word alignment",
        "revoke_alignment": "Revoke word alignment",
    }
    action = forms.ChoiceField(choices=list(ACTIONS.items()), widget=forms.HiddenInput)
    reason = forms.CharField(
        label="Reason",
        max_length=2000,
        help_text=REASON_HELP,
        widget=forms.TextInput(attrs={"list": "reason-suggestions", "autocomplete": "off"}),
        error_messages={"required": "Give a reason; it goes into the audit log."},
    )


class BonusForm(forms.Form):
    amount = forms.DecimalField(
        label="Bonus in dollars",
        min_value=Decimal("0.01"),
        max_value=Decimal("1000"),
        decimal_places=2,
        widget=forms.NumberInput(attrs={"step": "0.01"}),
    )
    reason = forms.CharField(
        label="Reason for the bonus",
        max_length=2000,
        help_text="Required. The worker sees it.",
        error_messages={"required": "Give a reason; the worker sees it."},
    )
    token = forms.CharField(widget=forms.HiddenInput, max_length=64)

    @property
    def amount_cents(self) -> int:
        return int(self.cleaned_data["amount"] * 100)


class DescriptionFilterForm(PeriodForm):
    status = forms.ChoiceField(
        label="Status",
        required=False,
        choices=[("", "Any status"), *Description.Status.choices],
        initial=Description.Status.PENDING,
    )
    worker = forms.IntegerField(label="Worker id", required=False, min_value=1)
    tier = forms.TypedChoiceField(
        label="Tier", required=False, coerce=int, choices=[("", "Both tiers"), *Tier.choices]
    )
    language = forms.CharField(label="Language (code)", required=False, max_length=40)


class ReviewForm(forms.Form):
    """One decision with one reason for the ticked items of a review page (descriptions,
    alignments): ``field`` names the POST field carrying their ids, ``noun`` the item."""

    decision = forms.ChoiceField(
        label="Decision",
        choices=[
            (Description.Status.ACCEPTED, "Accept"),
            (Description.Status.REJECTED, "Reject"),
        ],
        widget=forms.RadioSelect,
        error_messages={"required": "Choose accept or reject."},
    )
    reason = forms.CharField(
        label="Reason",
        max_length=2000,
        required=False,
        help_text="Required to reject; optional to accept. The worker sees it.",
        widget=forms.TextInput(attrs={"list": "review-suggestions", "autocomplete": "off"}),
    )
    # What a worker reads when work was accepted without a word.
    DEFAULT_ACCEPT_REASON = "Accepted."

    def __init__(self, *args, ids=(), field="description", noun="description", **kwargs):
        super().__init__(*args, **kwargs)
        self.field = field
        # Any id may be posted; the service decides what can change.
        self.fields[field] = forms.TypedMultipleChoiceField(
            coerce=int,
            choices=[(i, i) for i in ids],
            error_messages={"required": f"Tick at least one {noun}."},
        )

    @property
    def ticked(self):
        """The bound field of the ticked ids (its errors go above the list)."""
        return self[self.field]

    @property
    def accept(self) -> bool:
        return self.cleaned_data["decision"] == Description.Status.ACCEPTED

    def clean(self):
        data = super().clean()
        if not data.get("reason", "").strip():
            if data.get("decision") == Description.Status.REJECTED:
                self.add_error("reason", "Give a reason to reject; the worker sees it.")
            else:
                data["reason"] = self.DEFAULT_ACCEPT_REASON
        return data


class PayoutForm(forms.Form):
    through = forms.DateField(
        label="Pay everything credited up to and including",
        widget=forms.DateInput(attrs={"type": "date"}),
        initial=timezone.localdate,
    )
    reason = forms.CharField(
        label="Reason",
        max_length=2000,
        help_text=REASON_HELP,
        initial="Paid through the crowd platform.",
    )


class SegmentCutForm(SegmentSpanForm):
    title = forms.CharField(
        label="Title (optional)",
        required=False,
        max_length=200,
        help_text="For admins only; describers never see it. Defaults to the video's title.",
    )


class VideoUploadForm(forms.Form):
    VIDEO_EXTENSIONS = ["mp4", "m4v", "webm", "ogv", "ogg", "mov"]

    title = forms.CharField(label="Title", max_length=200)
    file = forms.FileField(
        label="Video file",
        help_text="MP4, WebM, Ogg or QuickTime.",
        validators=[FileExtensionValidator(VIDEO_EXTENSIONS)],
        widget=forms.ClearableFileInput(attrs={"accept": "video/*"}),
    )


class ProposalReviewForm(forms.Form):
    """A reviewer's reasons; which button was pressed (approve or reject) says the decision."""

    reasons = forms.MultipleChoiceField(
        label="Reasons for rejecting",
        required=False,
        choices=SegmentProposal.Reason.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    note = forms.CharField(
        label="Note (optional when a reason is ticked)",
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
