"""Staff pages of gold items: the list (with each item's answers and how many passed), making
a gold item from existing work in one click, and retiring one."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from crowd import services as crowd
from crowd.access import staff_required
from crowd.models import GoldItem, HitType, QualityCheck

from .gold import GOLD, gold_from_work

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


@require_POST
@staff_required
def gold_make(request):
    """Make the item that the work ``work`` of ``kind`` answered a gold item, with that work
    (and the item's other accepted work) as its known answer; back to ``next``. Security
    behavior: staff only; bad input changes nothing and says why."""
    kind, work = request.POST.get("kind", ""), request.POST.get("work", "").strip()
    try:
        if not work.isdecimal() or len(work) > 18:
            raise crowd.WorkRefused("Give the number of the work to make gold from.")
        gold = gold_from_work(kind=kind, work_id=int(work), created_by=request.user)
    except crowd.WorkRefused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, f"Gold item {gold.pk} made from {gold.source}.")
    return _back(request)


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


def _back(request):
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("review:gold")
