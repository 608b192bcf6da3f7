"""Staff pages of gold items: the list (with each item's answers and how many passed), making
a gold item from existing work in one click, and retiring one."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from crowd import services as crowd
from crowd.access import staff_required
from crowd.models import GoldItem, HitType, QualityCheck

from .gold import GOLD, gold_candidate, gold_from_work

PAGE = 50


@staff_required
def gold_items(request):
    """Gold items, newest first, with how often each was answered and passed, and the HIT
    types' gold rates. Security behavior: staff only."""
    checks = QualityCheck.objects.filter(kind=GOLD)
    answered = {
        row["details__gold"]: row
        for row in checks.values("details__gold")
        .annotate(n=Count("pk"), passed=Count("pk", filter=Q(passed=True)))
        .order_by()
    }
    page = Paginator(GoldItem.objects.select_related("created_by").order_by("-pk"), PAGE)
    page = page.get_page(request.GET.get("page"))
    for gold in page:
        row = answered.get(gold.pk, {})
        gold.answered, gold.passed = row.get("n", 0), row.get("passed", 0)
    context = {
        "page": page,
        "hit_types": HitType.objects.order_by("kind"),
        "rules": [crowd.quality_rule(GOLD)],
        "kinds": [(k, label) for k, label in HitType.Kind.choices if k != "video_collection"],
    }
    return render(request, "review/gold.html", context)


# What becomes gold, in the words of each kind of work: (the item, "its item" in a sentence).
ITEMS = {
    HitType.Kind.DESCRIPTION: "the segment it describes",
    HitType.Kind.PARAPHRASE: "the sentence it paraphrases",
    HitType.Kind.ALIGNMENT: "the sentence pair it aligns",
    HitType.Kind.RATING: "the pair it rates",
}


@require_http_methods(["GET", "POST"])
@staff_required
def gold_make(request):
    """GET: what making the item that the work ``work`` of ``kind`` answered a gold item does,
    and a button to confirm it (or why this work cannot become gold). POST: make it, with that
    work (and the item's other accepted work) as its known answer; back to ``next``. Security
    behavior: staff only; bad input changes nothing and says why."""
    data = request.POST if request.method == "POST" else request.GET
    kind, work = data.get("kind", ""), data.get("work", "").strip()
    try:
        if not work.isdecimal() or len(work) > 18:
            raise crowd.WorkRefused("Give the number of the work to make gold from.")
        if request.method == "GET":
            return _confirm(request, kind=kind, work_id=int(work))
        gold = gold_from_work(kind=kind, work_id=int(work), created_by=request.user)
    except crowd.WorkRefused as refusal:
        messages.error(request, str(refusal))
    else:
        rate = HitType.objects.for_kind(kind).gold_percent
        messages.success(
            request,
            f"{kind.capitalize()} {work} is now gold item {gold.pk}: {ITEMS[kind]} is handed out "
            f"as a check ({rate}% of each worker's tasks, and to anyone with nothing else left).",
        )
    return _back(request, data)


def _confirm(request, *, kind, work_id):
    """The confirmation page of making ``work_id`` of ``kind`` gold."""
    work = gold_candidate(kind=kind, work_id=work_id)
    context = {
        "kind": kind,
        "work": work,
        "item": ITEMS[kind],
        "hit_type": HitType.objects.for_kind(kind),
        "next": _next_page(request, request.GET),
    }
    return render(request, "review/gold_confirm.html", context)


@require_POST
@staff_required
def gold_retire(request, pk):
    """Stop handing out gold item ``pk``. Security behavior: staff only."""
    try:
        crowd.gold_item_retire(gold_id=pk)
    except crowd.WorkRefused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, f"Gold item {pk} retired.")
    return redirect("review:gold")


def _next_page(request, data) -> str:
    """The page to go back to, if it is one of ours."""
    target = data.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _back(request, data):
    return redirect(_next_page(request, data) or "review:gold")
