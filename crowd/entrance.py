"""The platform entrance: what every task page a crowd platform opens has in common.

Mechanical Turk frames the page with ``workerId``, ``assignmentId``, ``hitId`` and
``turkSubmitTo`` (an ExternalQuestion); Prolific opens it with ``PROLIFIC_PID``, ``STUDY_ID`` and
``SESSION_ID``. Whatever the task, an arrival is checked the same way: ids that a platform could
have sent, work that one of our campaigns published (once a connector is configured), the tier
the campaign asks for, and one local assignment per platform assignment. The task's form is
posted back with a signed token bound to worker and assignment, and after saving the worker is
sent straight back to the platform.

On Prolific and study-link platforms an arrival opens a work session of several tasks, with
its progress above each task and the completion code at the end. Each app describes its own
task by subclassing ``PlatformTask`` (how to preview, show and save it) and writes a view that
calls ``enter``; ``crowd.arrivals`` checks the arrivals, and everything else lives here.
"""

from functools import wraps
from urllib.parse import urlencode

from csp.decorators import csp_replace
from django.conf import global_settings, settings
from django.core import signing
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt

from paracrowd.throttling import client_address

from . import platforms, services
from .access import own_assignment
from .arrivals import (
    PREVIEW_ASSIGNMENT_ID,
    TOKEN_MAX_AGE,
    Arrival,
    Refusal,
    arrival_admit,
    arrival_parse,
    session_admit,
    submit_address,
    task_fields,
    task_from_token,
)
from .models import Assignment, Hit, WorkSession
from .next_task import draft_stored
from .services.pay import session_pay

__all__ = ["PREVIEW_ASSIGNMENT_ID", "PlatformTask", "Refusal", "enter", "platform_page"]

# The consent page's button is signed for its session (a task token names a task).
CONSENT_SALT = "crowd.entrance.consent"


class PlatformTask:
    """One kind of task as a platform opens it. Each app subclasses it with its own pages;
    ``enter`` does the rest."""

    kind: str
    # Relations to load with the assignment (the item the task is about).
    related: tuple = ()

    def preview(self, request) -> HttpResponse:
        """The task as a platform shows it before the worker accepts: nothing to submit."""
        raise NotImplementedError

    def preview_hit(self, item: str, nothing_yet: str) -> Hit:
        """The HIT a preview shows: the first of this kind, with ``item`` (its relation to
        what is offered, e.g. "item__segment") loaded; 404 saying ``nothing_yet`` if none."""
        hit = (
            Hit.objects.filter(hit_type__kind=self.kind)
            .select_related(item, "hit_type")
            .order_by("id")
            .first()
        )
        if hit is None:
            raise Http404(nothing_yet)
        return hit

    def show(self, request, assignment: Assignment, *, hidden: dict) -> HttpResponse:
        """The task to do, its form carrying ``hidden`` inputs."""
        raise NotImplementedError

    def save(self, request, assignment: Assignment, *, hidden: dict) -> bool | HttpResponse:
        """Store the posted work: True when stored now, False when it had been stored before,
        or the task again with what is wrong (nothing stored)."""
        raise NotImplementedError


def platform_page(view):
    """A page crowd platforms open: framed only by the origins in PLATFORM_FRAME_ANCESTORS
    (none by default, and then not at all); its POSTs carry the signed task token instead of a
    CSRF token."""

    @csrf_exempt  # the signed token, bound to worker and assignment, does CSRF's job
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        # The site-wide policy (django-csp), with the platforms' pages the participant is sent
        # back to, and the origins allowed to frame the page (and to take its form's POST).
        framing = settings.PLATFORM_FRAME_ANCESTORS
        back = [
            origin
            for platform in platforms.REGISTRY.values()
            for origin in platform.return_origins()
        ]
        policy = {"form-action": ["'self'", *framing, *back]}
        if framing:
            policy["frame-ancestors"] = ["'self'", *framing]
            response = xframe_options_exempt(csp_replace(policy)(view))(request, *args, **kwargs)
        else:
            response = csp_replace(policy)(view)(request, *args, **kwargs)
        return response

    return wrapper


def enter(request, task: PlatformTask) -> HttpResponse:
    """The whole platform entrance for ``task``: preview, arrival, the task, the submission,
    and the way back to the platform. Refusals become the refusal page."""
    try:
        if request.method == "POST" and "consent" in request.POST:
            return session_consent_post(request)
        if request.method == "POST":
            submit_to = submit_address(request.POST)
            assignment = task_from_token(request.POST, kind=task.kind, related=task.related)
            if assignment.session_id:
                return session_post(request, task, assignment)
            hidden = task_fields(assignment, kind=task.kind, submit_to=submit_to)
            saved = task.save(request, assignment, hidden=hidden)
            if isinstance(saved, HttpResponse):
                return saved
            draft_stored(request, assignment.pk)
            return finished(request, assignment, submit_to=submit_to, already_submitted=not saved)
        arrival = arrival_parse(request.GET)
        if arrival.is_preview:
            return task.preview(request)
        if platforms.get(arrival.platform).pays_by_session:
            return session_get(request, task, arrival)
        assignment = arrival_admit(arrival, kind=task.kind, address=client_address(request))
        if assignment.status == Assignment.Status.SUBMITTED:
            return finished(
                request, assignment, submit_to=arrival.submit_to, already_submitted=True
            )
        assignment = own_assignment(
            assignment.pk, assignment.worker_id, task.kind, related=task.related
        )
        hidden = task_fields(assignment, kind=task.kind, submit_to=arrival.submit_to)
        return task.show(request, assignment, hidden=hidden)
    except Refusal as refusal:
        return refused(request, refusal)


def finished(request, assignment: Assignment, *, submit_to: str, already_submitted: bool):
    """Back to the platform with the finished work: the platform's completion address with
    the campaign's code where it has one; for a framed task (Mechanical Turk) a page that
    posts the assignment to ``submit_to`` by itself (a button where scripts are off). A
    reload sends it again."""
    platform = platforms.get(assignment.worker.platform)
    if assignment.campaign_id and assignment.campaign.completion_code:
        back = platform.completion(
            code=assignment.campaign.completion_code,
            worker_id=assignment.worker.external_id,
            session_id=assignment.external_assignment_id,
            config=_study_link_config(assignment.campaign.external_id),
        )
        if back.redirect:
            return redirect(back.address)
    context = {
        "assignment": assignment,
        "done_advice": platform.done_advice,
        "submit_to": submit_to,
        "already_submitted": already_submitted,
    }
    return render(request, "crowd/platform_done.html", context)


def refused(request, refusal: Refusal) -> HttpResponse:
    """The styled refusal page: what went wrong and what to do on the platform."""
    context = {
        "heading": Refusal.HEADINGS[refusal.status],
        "message": refusal.message,
        "advice": refusal.advice,
    }
    return render(request, "crowd/platform_refused.html", context, status=refusal.status)


# Work sessions (Prolific, study links): one arrival, up to K tasks, then back to the platform.


def session_get(request, task: PlatformTask, arrival: Arrival) -> HttpResponse:
    session = session_admit(arrival, kind=task.kind, address=client_address(request))
    if session.state != WorkSession.State.OPEN:
        return session_finished(request, session)
    if services.session_consent_due(session):
        return _consent_page(request, session)
    try:
        assignment = services.session_task(session=session)
    except services.WorkRefused as refusal:
        # Stopped by the quality rules: the session ends with the failed-check code (where
        # the platform has one), on a page that says why, not silently.
        if services.quality_stop_message(session.worker):
            finished = services.session_finish(session=session, failed_check=True)
            return session_finished(request, finished, notice=str(refusal))
        # Stopped by staff mid-session: what was done still completes the session, with the
        # reason on the page instead of a silent redirect.
        if not services.session_done(session):
            raise Refusal(403, str(refusal), platform=arrival.platform) from None
        finished = services.session_finish(session=session)
        return session_finished(request, finished, notice=str(refusal))
    if assignment is None:
        if not services.session_done(session):
            raise Refusal(
                200, "There are no tasks left for you at the moment.", platform=arrival.platform
            )
        # Nothing left to give: what was done completes the session.
        return session_finished(request, services.session_finish(session=session))
    assignment = own_assignment(
        assignment.pk, assignment.worker_id, task.kind, related=task.related
    )
    hidden = task_fields(assignment, kind=task.kind)
    _show_progress(request, session, hidden)
    return task.show(request, assignment, hidden=hidden)


def session_post(request, task: PlatformTask, assignment: Assignment) -> HttpResponse:
    """A task of a session posted, skipped, or the worker ending the session early."""
    session = WorkSession.objects.select_related("campaign", "worker").get(pk=assignment.session_id)
    hidden = task_fields(assignment, kind=task.kind)
    if request.POST.get("finish"):
        try:
            session = services.session_finish(session=session, early=True)
        except services.WorkRefused as refusal:
            raise Refusal(403, str(refusal), platform=session.platform) from None
        return session_finished(request, session)
    if request.POST.get("skip"):
        # The task goes back to be given to someone else; the count of tasks done stays.
        services.session_skip(session=session, assignment=assignment)
        return redirect(request.path + "?" + urlencode(_arrival_query(session)))
    _show_progress(request, session, hidden)
    saved = task.save(request, assignment, hidden=hidden)
    if isinstance(saved, HttpResponse):
        return saved
    draft_stored(request, assignment.pk)
    session = services.session_after_submit(session=session)
    if session.state != WorkSession.State.OPEN:
        return session_finished(request, session)
    # The next task is the same address's next answer, so a reload resumes there too.
    return redirect(request.path + "?" + urlencode(_arrival_query(session)))


def _consent_page(request, session) -> HttpResponse:
    """The campaign's consent and instructions page, once before a session's first task; its
    button posts a token signed for the session (the page has no task token yet)."""
    context = {
        "session": session,
        "campaign": session.campaign,
        "pay": session_pay(session.campaign),
        "consent_token": signing.dumps({"session": session.pk}, salt=CONSENT_SALT),
        "advice": platforms.get(session.platform).return_advice,
    }
    return render(request, "crowd/session_consent.html", context)


def session_consent_post(request) -> HttpResponse:
    """The participant agreed: the session's first task follows (at its usual address, so a
    reload resumes there)."""
    try:
        claims = signing.loads(
            request.POST.get("consent", ""), salt=CONSENT_SALT, max_age=TOKEN_MAX_AGE
        )
        session = WorkSession.objects.select_related("worker").get(pk=claims["session"])
    except (signing.BadSignature, KeyError, TypeError, WorkSession.DoesNotExist):
        raise Refusal(403, "This page is out of date. Reload it from the study.") from None
    services.session_consent(session=session)
    return redirect(request.path + "?" + urlencode(_arrival_query(session)))


def _show_progress(request, session, hidden: dict) -> None:
    """What the task page shows of the session (see templates/crowd/session_progress.html)."""
    names = dict(global_settings.LANGUAGES)
    languages = session.campaign.languages if session.campaign_id else []
    request.work_session = {
        "progress": services.session_progress(session),
        "token": hidden["token"],
        "demo": session.campaign_id is None,
        "languages": [str(names.get(code, code)) for code in languages],
        # What the platform pays for the session, as it pays it (not the HIT type's pay).
        "pay": session_pay(session.campaign) if session.campaign_id else None,
    }


def _study_link_config(listing_id: str):
    # How the study-link campaign ``listing_id`` reads its ids (its platform's preset); other
    # platforms ignore it.
    return services.study_link_arrival_config(listing_id=listing_id)


def _arrival_query(session) -> dict:
    """The parameters that bring the participant back into ``session``, in the names its
    platform sent them with."""
    query = platforms.get(session.platform).session_query(
        worker_id=session.worker.external_id,
        session_id=session.external_id,
        listing_id=session.listing_id,
        config=_study_link_config(session.listing_id),
    )
    if session.campaign_id is None:
        query["tier"] = session.tier
    return query


def session_finished(request, session, *, notice: str = "") -> HttpResponse:
    """Back to the platform with the session's completion code: Prolific's completion
    address; a study link's redirect when one is configured, else a page with the code and
    the session's verification code for the participant to paste. With a ``notice`` (why the
    session ended early), a page says it, with a link back instead of a redirect."""
    campaign = session.campaign
    context = {
        "session": session,
        "progress": services.session_progress(session),
        "notice": notice,
        "failed_check": session.failed_check,
    }
    if campaign is None:
        # A demo session ends as a real one does, with a code that is plainly a demo's.
        context.update(completion_code=settings.PLATFORM_DEMO_COMPLETION_CODE, demo=True)
        return render(request, "crowd/session_done.html", context)
    code = campaign.completion_code
    if session.failed_check and platforms.get(session.platform).failed_check_code:
        code = campaign.failed_check_code or code
    back = platforms.get(session.platform).completion(
        code=code,
        worker_id=session.worker.external_id,
        session_id=session.external_id,
        config=_study_link_config(session.listing_id),
    )
    if back.redirect and not notice:
        return redirect(back.address)
    context.update(
        completion_code=back.code,
        verification=back.verification,
        back_address=back.address,
    )
    return render(request, "crowd/session_done.html", context)
