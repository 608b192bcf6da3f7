"""The campaign pages in the admin: create a campaign, publish it, watch it, stop or extend it.

Security behaviour: staff only (the admin site); changing anything needs the crowd.change_campaign
permission, and every change goes through the campaign services, which audit-log it. Publishing
and reading back talk to the platform in the background (Celery), so no page waits on it.
"""

from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, Sum
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from paracrowd.celery import enqueue
from paracrowd.wording import counted

from . import platforms, services
from .models import (
    Assignment,
    Campaign,
    CampaignEvent,
    HitType,
    LedgerEntry,
    PlatformAction,
    Tier,
)
from .platforms.studylink import links as studylink

# What staff read of platforms that only keep their history (Mechanical Turk's campaigns stay
# readable, but it takes no new work).
_ARCHIVED = [platform for platform in platforms.REGISTRY.values() if platform.archived]
NOT_OFFERED = " ".join(platform.not_offered for platform in _ARCHIVED)
CLOSED_NOTICE = " ".join(platform.closure_notice for platform in _ARCHIVED)


class CampaignCreateForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Shown to workers.")
    # Prolific first and by default; a platform that takes no new work is not offered at all.
    platform = forms.ChoiceField(
        choices=[
            (value, label)
            for value, label in Campaign.Platform.choices
            if value in platforms.REGISTRY and platforms.get(value).takes_new_work()
        ],
        initial=next(iter(platforms.REGISTRY)),
        error_messages={"invalid_choice": f"Choose a platform listed. {NOT_OFFERED}"},
    )
    kind = forms.ChoiceField(choices=HitType.Kind.choices, label="Task")
    tier = forms.TypedChoiceField(choices=Tier.choices, coerce=int)
    size = forms.IntegerField(
        min_value=1,
        max_value=5000,
        label="HITs",
        help_text=(
            "How many HITs (segments, sentence pairs or sentences; for video collection, "
            "videos) the campaign offers, not how many workers: its places (work sessions) follow "
            "from the tasks these HITs want and the tasks per session."
        ),
    )
    tasks_per_session = forms.IntegerField(
        min_value=1,
        max_value=200,
        initial=20,
        required=False,
        help_text="A place is a session of up to this many tasks (20 descriptions: ~15 minutes).",
    )
    tasks_minimum = forms.IntegerField(
        min_value=1,
        max_value=200,
        required=False,
        help_text="Tasks a worker must do before finishing early; the place's reward pays "
        "these, and each further task is a bonus. Empty: the whole session.",
    )
    task_cents = forms.IntegerField(
        min_value=1,
        max_value=10_000,
        required=False,
        label="Pay per task (cents)",
        help_text="Empty: the least that reaches the platform's minimum hourly rate.",
    )
    languages = forms.CharField(
        max_length=200,
        required=False,
        help_text="ISO 639-1 codes, comma-separated (es, zh-hans): the study reaches only "
        "participants fluent in one of them. Empty: any language.",
    )
    lifetime_days = forms.IntegerField(min_value=1, max_value=365, initial=7)
    study_link_preset = forms.ChoiceField(
        choices=[(name, preset.label) for name, preset in studylink.PRESETS.items()],
        initial="generic",
        required=False,
        label="Study-link platform",
        help_text="For a study link: the platform its link is pasted into.",
    )
    confirm_hours = forms.IntegerField(
        min_value=1,
        max_value=24 * 90,
        initial=48,
        required=False,
        label="Confirm within (hours)",
        help_text="For a study link: work its platform's export has not confirmed this long "
        "after its session started gives its place back.",
    )

    def clean_languages(self):
        return [code.strip() for code in self.cleaned_data["languages"].split(",") if code.strip()]


class ConfirmForm(forms.Form):
    export = forms.FileField(help_text="The platform's export of the study, as CSV.")
    participant_column = forms.CharField(max_length=100)
    session_column = forms.CharField(max_length=100, required=False)
    code_column = forms.CharField(max_length=100, required=False)

    # The largest export read (a few hundred thousand rows of ids and codes).
    MAX_BYTES = 20 * 1024 * 1024

    def clean_export(self):
        upload = self.cleaned_data["export"]
        if upload.size > self.MAX_BYTES:
            raise forms.ValidationError("The export is larger than 20 MB.")
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError("The export is not UTF-8 text.") from None


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=500)
    days = forms.IntegerField(min_value=1, max_value=365, required=False)


class CampaignEventInline(admin.TabularInline):
    model = CampaignEvent
    extra = 0
    can_delete = False
    fields = ["at", "problem", "message"]
    readonly_fields = fields
    ordering = ["-at"]

    def has_add_permission(self, request, obj=None):
        return False

    # Not the admin's boolean icons: a red cross beside every ordinary event read as a failure.
    @admin.display(description="Error")
    def problem(self, event):
        return "Error" if event.is_error else ""


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "platform", "test_copy", "hit_type", "tier", "state", "synced_at"]
    list_filter = ["platform", "state", "tier", "hit_type"]
    search_fields = ["name", "external_id"]
    list_select_related = ["hit_type"]
    inlines = [CampaignEventInline]
    change_form_template = "admin/crowd/campaign/change_form.html"
    change_list_template = "admin/crowd/campaign/change_list.html"
    readonly_fields = [
        "platform",
        "sandbox",
        "hit_type",
        "tier",
        "state",
        "reward_cents",
        "fee_cents",
        "lifetime",
        "external_id",
        "completion_code",
        "study_link_preset",
        "confirm_hours",
        "created_by",
        "created_at",
        "published_at",
        "expires_at",
        "synced_at",
    ]
    # Staff set the name and the consent and instructions page; the rest is fixed.
    fields = ["name", "consent_text", *readonly_fields]

    def has_delete_permission(self, request, obj=None):
        return False

    # Sandbox or live only means something where the platform has a sandbox.
    @admin.display(description="Sandbox")
    def test_copy(self, campaign):
        if not platforms.get(campaign.platform).has_sandbox:
            return ""
        return "Sandbox" if campaign.sandbox else "Live"

    def get_fields(self, request, obj=None):
        return [name for name in super().get_fields(request, obj) if _shown(name, obj)]

    def get_readonly_fields(self, request, obj=None):
        return [name for name in super().get_readonly_fields(request, obj) if _shown(name, obj)]

    def get_urls(self):
        own = [
            path(
                "create/",
                self.admin_site.admin_view(self.create_view),
                name="crowd_campaign_create",
            ),
            path(
                "<int:pk>/prolific-<str:sheet>.csv",
                self.admin_site.admin_view(self.sheet_view),
                name="crowd_campaign_sheet",
            ),
            path(
                "<int:pk>/state.json",
                self.admin_site.admin_view(self.state_view),
                name="crowd_campaign_state",
            ),
            path(
                "<int:pk>/confirm/",
                self.admin_site.admin_view(require_POST(self.confirm_view)),
                name="crowd_campaign_confirm",
            ),
            path(
                "<int:pk>/do/<str:action>/",
                self.admin_site.admin_view(require_POST(self.action_view)),
                name="crowd_campaign_action",
            ),
        ]
        return own + super().get_urls()

    def add_view(self, request, form_url="", extra_context=None):
        return redirect("admin:crowd_campaign_create")

    def create_view(self, request):
        """A draft campaign from the form; nothing reaches the platform until it is published."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = CampaignCreateForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                campaign = services.campaign_create(
                    name=data["name"],
                    platform=data["platform"],
                    kind=data["kind"],
                    tier=data["tier"],
                    size=data["size"],
                    lifetime=timedelta(days=data["lifetime_days"]),
                    created_by=request.user,
                    tasks_per_session=data["tasks_per_session"] or 20,
                    tasks_minimum=data["tasks_minimum"],
                    task_cents=data["task_cents"],
                    languages=data["languages"],
                    study_link_preset=data["study_link_preset"] or "generic",
                    confirm_hours=data["confirm_hours"] or 48,
                )
            except services.WorkRefused as refusal:
                form.add_error(None, str(refusal))
            else:
                messages.success(request, "The campaign is ready to publish; check its cost.")
                shortfall = services.campaign_shortfall(campaign=campaign, asked=data["size"])
                if shortfall:
                    messages.warning(request, shortfall)
                return redirect("admin:crowd_campaign_change", campaign.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "form": form,
            "title": "New campaign",
            "mturk_not_offered": NOT_OFFERED,
        }
        return TemplateResponse(request, "admin/crowd/campaign/create.html", context)

    def action_view(self, request, pk, action):
        """Publish, read back now, expire early or extend one campaign."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        campaign = get_object_or_404(Campaign, pk=pk)
        form = ReasonForm(request.POST)
        try:
            if action == "publish":
                services.campaign_publish_check(campaign=campaign)
                enqueue("crowd.tasks.publish_campaign", campaign.pk)
                messages.success(request, "Publishing in the background; this page shows how.")
                change = reverse("admin:crowd_campaign_change", args=[campaign.pk])
                return redirect(f"{change}?publishing=1")
            elif action == "sync":
                services.campaign_sync(campaign=campaign)
                messages.success(request, "Read back from the platform.")
            elif action in ("expire", "extend") and not form.is_valid():
                messages.error(request, "Give a reason (and, to extend, a number of days).")
            elif action == "expire":
                services.campaign_expire(
                    campaign=campaign, expired_by=request.user, reason=form.cleaned_data["reason"]
                )
                messages.success(request, "Expired: no new worker can take its HITs.")
            elif action == "extend" and form.cleaned_data["days"]:
                services.campaign_extend(
                    campaign=campaign,
                    extended_by=request.user,
                    by=timedelta(days=form.cleaned_data["days"]),
                    reason=form.cleaned_data["reason"],
                )
                messages.success(request, "Extended.")
            else:
                messages.error(request, "Say by how many days to extend.")
        except services.WorkRefused as refusal:
            messages.error(request, str(refusal))
        return redirect("admin:crowd_campaign_change", campaign.pk)

    def sheet_view(self, request, pk, sheet):
        """The files a platform's own pages take. Prolific: bulk approve and bulk bonus text
        for what the outbox has not done (every approval still waiting or refused, since
        approving twice is harmless, and only the bonuses the outbox gave up on, which it
        never pays again). A study link: the approvals and bonuses files for every session
        with paid work (the platform has no API; these files are how it is paid)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        campaign = get_object_or_404(
            Campaign,
            pk=pk,
            platform__in=[name for name, p in platforms.REGISTRY.items() if not p.archived],
        )
        if sheet not in ("approvals", "bonuses"):
            raise Http404("No such sheet.")
        if platforms.get(campaign.platform).prints_links:
            try:
                text = services.study_link_sheets(campaign=campaign)[sheet]
            except services.WorkRefused as refusal:
                messages.error(request, str(refusal))
                return redirect("admin:crowd_campaign_change", campaign.pk)
        else:
            text = _platform_sheet(campaign, sheet)
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="campaign-{campaign.pk}-{campaign.platform}-{sheet}.csv"'
        )
        return response

    def confirm_view(self, request, pk):
        """A study-link campaign's sessions confirmed from its platform's export (uploaded
        CSV, the names of its participant, session and code columns)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        campaign = get_object_or_404(
            Campaign,
            pk=pk,
            platform__in=[name for name, p in platforms.REGISTRY.items() if p.prints_links],
        )
        form = ConfirmForm(request.POST, request.FILES)
        if not form.is_valid():
            messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
            return redirect("admin:crowd_campaign_change", campaign.pk)
        data = form.cleaned_data
        try:
            counts = services.study_link_confirm(
                campaign=campaign,
                text=data["export"],
                participant_column=data["participant_column"],
                session_column=data["session_column"] or None,
                code_column=data["code_column"] or None,
            )
        except services.WorkRefused as refusal:
            messages.error(request, str(refusal))
        else:
            messages.success(
                request,
                f"{counted(counts['sessions'], 'session')} confirmed "
                f"({counted(counts['tasks'], 'task')}); refused: "
                f"{counts['unknown']} unknown, {counts['someone_else']} someone else's, "
                f"{counts['bad_code']} with a wrong verification code.",
            )
        return redirect("admin:crowd_campaign_change", campaign.pk)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        campaign = get_object_or_404(Campaign, pk=object_id)
        extra_context = {**(extra_context or {}), **campaign_summary(campaign)}
        extra_context["action_urls"] = {
            name: reverse("admin:crowd_campaign_action", args=[campaign.pk, name])
            for name in ("publish", "sync", "expire", "extend")
        }
        platform = platforms.get(campaign.platform)
        if platform.archived:
            extra_context["closure_notice"] = platform.closure_notice
        if platform.prints_links and campaign.external_id:
            extra_context["study_links"] = _study_links(campaign)
            extra_context["confirm_url"] = reverse(
                "admin:crowd_campaign_confirm", args=[campaign.pk]
            )
        elif platform.prints_links:
            problem = studylink.public_address_problem(settings.PLATFORM_PUBLIC_URL)
            extra_context["study_link_note"] = "Its link to paste is made when it is published" + (
                f"; it will not be shown while {problem}, which participants cannot reach."
                if problem
                else "."
            )
        # A draft has nothing to pay, and its study-link sheets name a link it does not have.
        if not platform.archived and campaign.external_id:
            extra_context["sheet_urls"] = {
                name: reverse("admin:crowd_campaign_sheet", args=[campaign.pk, name])
                for name in ("approvals", "bonuses")
            }
            extra_context["sheet_wording"] = platform.sheet_wording
        # While it is being published (or was just asked to be), the page follows it.
        if campaign.state == Campaign.State.PUBLISHING or (
            campaign.state == Campaign.State.DRAFT and "publishing" in request.GET
        ):
            extra_context["state_url"] = reverse("admin:crowd_campaign_state", args=[campaign.pk])
            extra_context["state_now"] = campaign_state(campaign)
        return super().change_view(request, object_id, form_url, extra_context)

    def state_view(self, request, pk):
        """The campaign's state and how many events it has, as JSON, for its page to notice
        a change while it is published in the background. Staff who may view campaigns."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        return JsonResponse(campaign_state(get_object_or_404(Campaign, pk=pk)))

    def changelist_view(self, request, extra_context=None):
        extra_context = dict(extra_context or {})
        archived = [name for name, p in platforms.REGISTRY.items() if p.archived]
        if Campaign.objects.filter(platform__in=archived).exists():
            extra_context["closure_notice"] = CLOSED_NOTICE
        return super().changelist_view(request, extra_context)


def campaign_state(campaign: Campaign) -> dict:
    """What the page compares to notice that publishing moved on: the state and the events."""
    return {"state": campaign.state, "events": campaign.events.count()}


def _shown(field: str, campaign: Campaign | None) -> bool:
    return field != "sandbox" or (
        campaign is not None and platforms.get(campaign.platform).has_sandbox
    )


def _platform_sheet(campaign: Campaign, sheet: str) -> str:
    """What the outbox has not done, as the file the campaign's platform takes."""
    platform = platforms.get(campaign.platform)
    unsent = PlatformAction.objects.filter(campaign=campaign).select_related("worker")
    if sheet == "approvals":
        waiting = unsent.filter(
            kind=PlatformAction.Kind.APPROVE,
            state__in=[PlatformAction.State.PENDING, PlatformAction.State.FAILED],
        ).order_by("pk")
        return platform.approvals_sheet(action.worker.external_id for action in waiting)
    owed = {}
    # Only bonuses the platform confirmed unpaid (see ``platform_bonuses_check``): one whose
    # answer was lost may have been paid, and listing it would invite a second payment.
    for action in unsent.filter(
        kind=PlatformAction.Kind.BONUS,
        state=PlatformAction.State.FAILED,
        details__has_key="unpaid_confirmed",
    ).order_by("pk"):
        owed[action.worker.external_id] = (
            owed.get(action.worker.external_id, 0) + action.details["cents"]
        )
    return platform.bonuses_sheet(owed.items())


def _study_links(campaign: Campaign) -> list[tuple[str, str]]:
    """The link to paste into the campaign's platform (its participants arrive with that
    platform's parameter names), or why it cannot be shown with these settings."""
    label = studylink.PRESETS[campaign.study_link_preset].label
    try:
        return [(label, services.study_link_address(campaign=campaign))]
    except services.WorkRefused as refusal:
        return [(label, str(refusal))]


def campaign_summary(campaign: Campaign) -> dict:
    """What the campaign page shows: the platform's counts, ours, and the money, which is
    the ledger's: what workers earned (rewards and bonuses), and what the platform was paid
    (those with its fees), and the last reconciliation with the platform."""
    work = Assignment.objects.filter(campaign=campaign).aggregate(
        arrived=Count("pk"),
        submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
        verified=Count("pk", filter=Q(verified_at__isnull=False)),
        unverified=Count("pk", filter=Q(status=Assignment.Status.UNVERIFIED)),
        rejected=Count("pk", filter=Q(status=Assignment.Status.REJECTED)),
    )
    booked = dict(
        LedgerEntry.objects.filter(campaign=campaign)
        .values_list("kind")
        .annotate(cents=Sum("amount_cents"))
        .order_by()
    )
    kinds = LedgerEntry.Kind
    ledger = {
        "rewards": booked.get(kinds.REWARD, 0) + booked.get(kinds.TASK, 0),
        "bonuses": booked.get(kinds.BONUS, 0),
        "fees": booked.get(kinds.FEE, 0),
    }
    actions = PlatformAction.objects.filter(campaign=campaign)
    reconciliation = campaign.reconciliation or {}
    earned = ledger["rewards"] + ledger["bonuses"]
    money = platforms.get(campaign.platform).money
    return {
        # Every amount the page and the command show, in the platform's currency.
        "amounts": {
            name: money(cents)
            for name, cents in {
                "reward": campaign.reward_cents,
                "fee": campaign.fee_cents,
                "task": campaign.task_cents,
                "bonus_per_place": campaign.bonus_cents_per_place,
                "bonus_fee": campaign.bonus_fee_cents,
                "committed": campaign.cost_cents,
                "earned": earned,
                "spent": sum(ledger.values()),
                **ledger,
            }.items()
        },
        "campaign": campaign,
        "places": campaign.places,
        "pay": services.pay_summary(campaign=campaign),
        "platform_counts": campaign.platform_counts,
        "work": work,
        "committed_cents": campaign.cost_cents,
        "earned_cents": earned,
        "ledger": ledger,
        # What the platform is paid for the workers' pay: rewards, bonuses and its fees.
        "spent_cents": sum(ledger.values()),
        "reconciliation": reconciliation,
        "reconciliation_lines": services.reconciliation_lines(reconciliation)
        if reconciliation
        else [],
        "pending_actions": actions.filter(state=PlatformAction.State.PENDING).count(),
        "failed_actions": actions.filter(state=PlatformAction.State.FAILED).count(),
        "unverified_work": Assignment.objects.filter(
            campaign=campaign, status=Assignment.Status.UNVERIFIED
        ).select_related("worker")[:50],
    }
