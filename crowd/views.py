"""Pages every worker shares, whatever the task: signing up, asking for a password reset, taking
the next task, giving one back.

Security behaviour: sign-up is open to anyone, SIGNUPS_PER_HOUR attempts per network address
(then 429 with Retry-After); so is asking for a password reset, PASSWORD_RESETS_PER_HOUR per
network address and PASSWORD_RESETS_PER_EMAIL_PER_HOUR per e-mail address; a login locked out
by django-axes gets the lockout page (429); the task views need a login and a worker profile,
take POST only (CSRF-checked), and act on the worker's own assignments only (another worker's
assignment id answers 404). The admin's log-in is the site's: a visitor goes to the site's
log-in page, anyone logged in without staff status gets the refusal page.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME, login
from django.contrib.auth.views import PasswordResetView, redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from paracrowd.throttling import (
    PasswordResetEmailThrottle,
    PasswordResetThrottle,
    SignUpThrottle,
    retry_after_seconds,
)

from . import services
from .access import is_staff, own_assignment, worker_required
from .forms import SignUpForm
from .models import HitType, Tier
from .next_task import DASHBOARD, TASK_PAGES, draft_stored, next_task


def signup(request):
    """Anyone may create a local worker account; they start in Tier 1. Every POST counts
    against its address's hourly limit, so a script cannot mint accounts by the thousand."""
    if request.method == "POST":
        throttle = SignUpThrottle()
        if not throttle.allow_request(request, None):
            return _too_many(
                request,
                "Too many sign-ups from your network in the last hour. Please try again later.",
                retry_after_seconds(throttle),
            )
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        worker = services.worker_create(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
        )
        login(request, worker.user, backend="crowd.auth_backend.WorkerProfileBackend")
        return redirect(DASHBOARD)
    return render(request, "registration/signup.html", {"form": form})


TOO_MANY_RESETS = "Too many password resets were asked for in the last hour. Please try later."


class PasswordReset(PasswordResetView):
    """Anyone may ask for a reset link. The answer, and the work the request does, are the same
    whether or not an account has the address: the request queues one task with the address
    (crowd.services.password_reset), and a Celery worker looks it up and mails the link. Every
    POST counts against its network address's hourly limit, and a well-formed one against the
    e-mail address's, before anything else is done; over either, 429 with Retry-After."""

    def post(self, request, *args, **kwargs):
        throttle = PasswordResetThrottle()
        if not throttle.allow_request(request, None):
            return _too_many(request, TOO_MANY_RESETS, retry_after_seconds(throttle))
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        email = form.cleaned_data["email"]
        throttle = PasswordResetEmailThrottle(email)
        if not throttle.allow_request(self.request, None):
            return _too_many(self.request, TOO_MANY_RESETS, retry_after_seconds(throttle))
        services.password_reset_request(
            email=email, domain=self.request.get_host(), use_https=self.request.is_secure()
        )
        return HttpResponseRedirect(self.get_success_url())


@require_POST
@worker_required
def task_next(request, worker):
    """Claim the next task of the kind and tier asked for (the worker must hold the tier)."""
    kind = request.POST.get("kind", HitType.Kind.DESCRIPTION)
    try:
        tier = int(request.POST.get("tier", Tier.ONE))
        if tier not in Tier.values or kind not in TASK_PAGES:
            raise ValueError
    except ValueError:
        messages.error(request, "There is no such task.")
        return redirect(DASHBOARD)
    return next_task(request, worker, kind=kind, tier=tier)


@require_POST
@worker_required
def skip(request, pk, worker):
    """Give the worker's own assignment back, without doing it, and go straight on to the next
    segment or sentence pair of the same kind and tier (or say that none is left)."""
    assignment = own_assignment(pk, worker)
    try:
        services.assignment_return(assignment_id=assignment.pk, worker=worker)
    except services.WorkRefused as refusal:
        messages.error(request, str(refusal))
        return redirect(DASHBOARD)
    messages.info(request, "Skipped. You will not be shown that task again.")
    draft_stored(request, assignment.pk)
    if assignment.hit.hit_type.kind == HitType.Kind.VIDEO_COLLECTION:
        return redirect(DASHBOARD)  # each such task opens a new one: nothing to go on to
    return next_task(request, worker, kind=assignment.hit.hit_type.kind, tier=assignment.hit.tier)


def admin_log_in(request):
    """Where Django's admin sends anyone it will not serve (every admin page, the campaign
    pages included, redirects to admin:login): the answer every other page of the site gives
    them, not a second log-in form in the admin's style."""
    then = request.GET.get(REDIRECT_FIELD_NAME, "")
    if not url_has_allowed_host_and_scheme(then, allowed_hosts={request.get_host()}):
        then = reverse("admin:index")
    if not request.user.is_authenticated:
        return redirect_to_login(then)
    if not is_staff(request.user):
        raise PermissionDenied("This page is for staff.")
    return redirect(then)


def login_locked_out(request, original_response=None, credentials=None):
    """django-axes calls this when a username has failed too often from one address: a page
    saying so, 429 with Retry-After, and the login form is not tried again."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    return _too_many(
        request,
        f"Too many failed log-ins for this account from your network: it is locked for "
        f"{_duration(seconds)}. Staff can lift the lock sooner.",
        seconds,
    )


def _too_many(request, message: str, retry_after: int):
    context = {"message": message, "wait": _duration(retry_after)}
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(retry_after)
    return response


def _duration(seconds: int) -> str:
    """A wait in the unit a person counts it in: seconds under two minutes, then minutes."""
    if seconds < 120:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    return f"{-(-seconds // 60)} minutes"
