"""Direct paraphrasing: the worker's task (signed-in and as a crowd platform opens it), and the
staff pages that choose the sentences and review the paraphrases.

Security behaviour: a worker opens and submits only their own paraphrasing assignments (any
other id answers 404) and never sees anyone else's paraphrases; the platform entrance
authenticates each submission with a signed token bound to worker and assignment. Choosing
sentences and reviewing are staff only (a visitor is sent to log in, anyone else gets 403), as POSTs
protected by Django's CSRF middleware; a review needs a reason to reject and is audit-logged.
Worker-typed text is escaped by the templates.
"""

from django.conf import settings
from django.contrib import messages
from django.db.models import Count
from django.shortcuts import redirect, render
from django.urls import reverse

from crowd import entrance
from crowd.access import own_assignment, staff_required, worker_required
from crowd.models import Assignment, HitType
from crowd.next_task import after_submit, shows_task
from paracrowd.wording import counted

from . import services
from .forms import ParaphraseCorpusChoiceForm, ParaphraseForm, ParaphraseUploadForm
from .models import Paraphrase, ParaphraseSource
from .validators import SECOND_SENTENCE, URL

RELATED = ("hit__item__paraphrasesource", "hit__hit_type")


@worker_required
def paraphrase(request, pk, worker):
    """The direct-paraphrasing task for the worker's own assignment ``pk``; POST submits it.
    Reopened after submitting, it shows what was sent."""
    if request.method != "POST":
        return paraphrase_page(request, pk, worker)
    assignment = own_assignment(pk, worker, HitType.Kind.PARAPHRASE, related=RELATED)
    form = ParaphraseForm(request.POST, source=assignment.hit.item.paraphrasesource)
    created = _submit(assignment, worker, form)
    if created is None:
        return _own_task_page(request, assignment, form)
    return after_submit(
        request,
        worker,
        assignment_id=assignment.pk,
        kind=HitType.Kind.PARAPHRASE,
        tier=assignment.hit.tier,
        created=created,
        thanks="Your paraphrase was saved.",
    )


@shows_task(HitType.Kind.PARAPHRASE)
def paraphrase_page(request, pk, worker):
    """The direct-paraphrasing task page: an empty form, or what was sent once submitted."""
    assignment = own_assignment(pk, worker, HitType.Kind.PARAPHRASE, related=RELATED)
    form = ParaphraseForm(None, source=assignment.hit.item.paraphrasesource)
    return _own_task_page(request, assignment, form)


def _own_task_page(request, assignment, form):
    return _task_page(
        request,
        assignment.hit,
        form,
        assignment=assignment,
        action=reverse("collector:paraphrase", args=[assignment.pk]),
    )


def _submit(assignment, worker, form) -> bool | None:
    """Validate and store; on refusal, attach the reason to the form. Whether it was stored
    now (or before), or None when nothing was stored."""
    if not form.is_valid():
        return None
    try:
        _, created = services.paraphrase_submit(
            assignment_id=assignment.pk,
            worker=worker,
            text=form.cleaned_data["text"],
            language=form.declared_language,
            typing=form.cleaned_data["typing"],
        )
    except services.WorkRefused as refusal:
        form.show_refusal(refusal)
        return None
    return created


def _task_page(request, hit, form, *, assignment=None, action="", hidden=None, preview=False):
    submitted = assignment is not None and assignment.status == Assignment.Status.SUBMITTED
    context = {
        "hit": hit,
        "source": hit.item.paraphrasesource,
        "assignment": assignment,
        "form": form,
        "pay_cents": hit.hit_type.pay_cents(hit.tier),
        "preview": preview,
        # A crowd platform's page: framed, no site header, the signed token instead of CSRF's.
        "platform": bool(hidden) or preview,
        "action": action,
        "hidden": hidden or {},
        "paste_allowed": hit.hit_type.paste_allowed,
        "submitted": Paraphrase.objects.filter(assignment=assignment).first()
        if submitted
        else None,
        "rules": {
            "maxLength": settings.DESCRIPTION_MAX_LENGTH,
            "secondSentence": SECOND_SENTENCE.pattern,
            "url": URL.pattern,
            "emptyText": ParaphraseForm.EMPTY,
        },
    }
    return render(request, "collector/paraphrase.html", context)


class _ParaphraseTask(entrance.PlatformTask):
    kind = HitType.Kind.PARAPHRASE
    related = RELATED

    def preview(self, request):
        hit = self.preview_hit(
            "item__paraphrasesource", "There are no sentences to paraphrase yet."
        )
        form = ParaphraseForm(source=hit.item.paraphrasesource)
        return _task_page(request, hit, form, preview=True)

    def show(self, request, assignment, *, hidden, form=None):
        form = form or ParaphraseForm(source=assignment.hit.item.paraphrasesource)
        return _task_page(
            request,
            assignment.hit,
            form,
            assignment=assignment,
            action=reverse("collector:platform_paraphrase"),
            hidden=hidden,
        )

    def save(self, request, assignment, *, hidden):
        form = ParaphraseForm(request.POST, source=assignment.hit.item.paraphrasesource)
        created = _submit(assignment, assignment.worker, form)
        if created is None:
            return self.show(request, assignment, hidden=hidden, form=form)
        return created


@entrance.platform_page
def platform_paraphrase(request):
    """The direct-paraphrasing task as a crowd platform opens it.

    Security behaviour: as ``platform_describe`` — malformed ids 400, too many new workers
    from one address 429, work no published campaign offers 403, one local assignment per
    platform assignment (another worker with the same assignment id: 403), POSTs only with
    the signed token bound to worker and assignment, framed only by known platforms."""
    return entrance.enter(request, _ParaphraseTask())


@staff_required
def paraphrase_sources(request):
    """Choose sentences for direct paraphrasing: a seeded sample of accepted descriptions from
    the corpus, or an uploaded file. A refusal names what is wrong (the line, for a file) and
    stores nothing."""
    # Both forms ask for a language: ids of their own keep each label on its own control.
    corpus_form = ParaphraseCorpusChoiceForm(
        request.POST if request.POST.get("from") == "corpus" else None, auto_id="id_corpus_%s"
    )
    upload_form = ParaphraseUploadForm(
        *((request.POST, request.FILES) if request.POST.get("from") == "file" else ()),
        auto_id="id_file_%s",
    )
    if request.method == "POST":
        choice = None
        try:
            if corpus_form.is_bound and corpus_form.is_valid():
                choice = services.paraphrase_sources_from_corpus(
                    **corpus_form.cleaned_data, chosen_by=request.user
                )
            elif upload_form.is_bound and upload_form.is_valid():
                upload = upload_form.cleaned_data["file"]
                choice = services.paraphrase_sources_from_file(
                    content=upload.read(),
                    name=upload.name,
                    language=upload_form.cleaned_data["language"],
                    chosen_by=request.user,
                )
        except services.WorkRefused as refusal:
            messages.error(request, f"Nothing was stored. {refusal}")
        if choice is not None:
            skipped = (
                f" ({choice.already_offered} already offered were left out)"
                if choice.already_offered
                else ""
            )
            messages.success(
                request,
                f"{counted(len(choice.sources), 'sentence')} offered for paraphrasing{skipped}.",
            )
            return redirect("collector:paraphrase_sources")
    sources = ParaphraseSource.objects.values("origin").annotate(n=Count("pk")).order_by("origin")
    context = {
        "corpus_form": corpus_form,
        "upload_form": upload_form,
        "counts": {row["origin"]: row["n"] for row in sources},
        "recent": ParaphraseSource.objects.annotate(written=Count("paraphrases")).order_by(
            "-created_at", "-pk"
        )[:20],
    }
    return render(request, "collector/paraphrase_sources.html", context)
