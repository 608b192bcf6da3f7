"""The researcher page: corpus statistics, exports, system comparisons and the API token.

Security behaviour: staff and members of the "researchers" group only; a visitor who is not
logged in is sent to log in, a worker gets 403. A researcher sees their own export and
scoring jobs and API token; staff see every job.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from . import services
from .api import jobs_visible_to, system_score_jobs_visible_to
from .forms import ExportForm, FilterForm, SystemComparisonForm
from .models import ExportJob
from .permissions import researcher_required
from .statistics import corpus_statistics

JOBS_SHOWN = 20


@researcher_required
def home(request):
    """Statistics for the filters in the query string, the export form and recent jobs."""
    filters = FilterForm(request.GET or None)
    return _page(request, filters, ExportForm())


@researcher_required
@require_POST
def comparison_start(request):
    """Queue a scoring job for the uploaded systems' outputs on the filtered corpus; nothing
    is scored in the request. The page lists the job, and its table once a worker is done."""
    filters = FilterForm(request.POST)
    comparison = SystemComparisonForm(request.POST, request.FILES)
    if not (filters.is_valid() and comparison.is_valid()):
        return _page(request, filters, ExportForm(), comparison=comparison, status=400)
    systems, parameters = comparison.job(filters.corpus_filter())
    job = services.system_score_job_create(
        user=request.user, systems=systems, parameters=parameters
    )
    messages.success(request, f"Comparison {job.pk} is queued.")
    return redirect(f"{reverse('research:home')}?{filters.query_string()}#compare-heading")


@researcher_required
@require_POST
def export_start(request):
    """Queue an export of the filtered corpus; the page lists it until its files are ready."""
    filters, export = FilterForm(request.POST), ExportForm(request.POST)
    if not (filters.is_valid() and export.is_valid()):
        return _page(request, filters, export, status=400)
    job = services.export_job_create(
        user=request.user, options=export.options(filters.corpus_filter())
    )
    messages.success(request, f"Export {job.pk} ({job.format}) is queued.")
    return redirect(f"{reverse('research:home')}?{filters.query_string()}#exports-heading")


@researcher_required
@require_POST
def token_reset(request):
    """Issue a new API token; the old one stops working."""
    services.researcher_token_reset(user=request.user)
    messages.success(request, "Your new API token is below. The old one no longer works.")
    return redirect(f"{reverse('research:home')}#api-heading")


def _page(request, filters, export, *, comparison=None, status=200):
    corpus_filter = filters.corpus_filter()
    jobs = jobs_visible_to(request.user).select_related("requested_by").order_by("-id")
    jobs = list(jobs[:JOBS_SHOWN])
    comparisons = system_score_jobs_visible_to(request.user).select_related("requested_by")
    comparisons = list(comparisons.order_by("-id")[:JOBS_SHOWN])
    context = {
        "filters": filters,
        "export": export,
        "corpus_filter": corpus_filter,
        "statistics": corpus_statistics(corpus_filter),
        "jobs": jobs,
        "jobs_pending": any(not job.is_finished for job in jobs),
        "token": Token.objects.filter(user=request.user).first(),
        "states": ExportJob.State,
        "comparison": comparison or SystemComparisonForm(),
        "comparisons": comparisons,
        "comparisons_pending": any(job.is_pending for job in comparisons),
    }
    return render(request, "research/home.html", context, status=status)
