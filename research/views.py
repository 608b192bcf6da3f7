"""The researcher page: corpus statistics, exports, system comparisons and the API token.

Security behaviour: staff and members of the "researchers" group only; a visitor who is not
logged in is sent to log in, a worker gets 403. A researcher sees their own export and
scoring jobs and API token; staff see every job. The one exception: the files of a release
the operator made public, which anyone may download (release_file).
"""

from pathlib import PurePosixPath

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from crowd.access import researcher_required

from . import services
from .api import (
    correlation_reports_visible_to,
    jobs_visible_to,
    stored_file_response,
    system_score_jobs_visible_to,
)
from .correlation import CONSENSUS_LABELS, combined_fit, correlation_chart
from .forms import CorrelationForm, ExportForm, FilterForm, SystemComparisonForm
from .models import ExportJob, Release
from .releases import downloads
from .releases import services as releases
from .releases.forms import ReleaseForm
from .releases.options import ReleaseError
from .statistics import corpus_statistics

JOBS_SHOWN = 20
# The research page lists exports and comparisons a page at a time (a comparison's table and
# plots are tall): each list costs one count and one page of rows, however many there are.
EXPORTS_PER_PAGE = 10
COMPARISONS_PER_PAGE = 3


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
def release_start(request):
    """Number the next release of the filtered corpus and queue its writing; the page lists
    it, and its files once they are written. Refused with the reason (nothing recorded) when
    the site has no licence set or nothing is selected."""
    filters, release = FilterForm(request.POST), ReleaseForm(request.POST)
    if not (filters.is_valid() and release.is_valid()):
        return _page(request, filters, ExportForm(), release=release, status=400)
    try:
        made = releases.release_create(
            user=request.user, options=release.options(filters.corpus_filter())
        )
    except ReleaseError as error:
        release.add_error(None, f"No release made: {error}.")
        return _page(request, filters, ExportForm(), release=release, status=400)
    messages.success(request, f"Release {made.number} is queued.")
    return redirect(f"{reverse('research:home')}?{filters.query_string()}#releases-heading")


def release_file(request, number, name):
    """One file of a finished release, from the site's storage; from local storage only while
    it matches the release's manifest (research.releases.downloads: what is checked, and why
    nothing is on S3). A file that does not is refused with a page that says so (409).

    Security behaviour: a public release's files (Release.public, set by the operator in the
    admin) anyone may download, logged in or not. Every other release's, researchers and staff
    only, as every research page: a visitor who is not logged in is sent to log in and a worker
    gets 403, whether or not such a release exists."""
    release = Release.objects.filter(number=number, public=True).first()
    if release is None:
        return _private_release_file(request, number, name)
    return _release_file_response(request, release, name)


@researcher_required
def _private_release_file(request, number, name):
    return _release_file_response(request, get_object_or_404(Release, number=number), name)


def _release_file_response(request, release, name):
    if getattr(default_storage, "bucket_name", None):
        return stored_file_response(downloads.release_file_name(release, name))
    try:
        file = downloads.release_file_open(release=release, name=name)
    except downloads.ReleaseFileAltered:
        context = {"release": release, "name": name}
        return render(request, "research/release_file_altered.html", context, status=409)
    if file is None:
        raise Http404
    return FileResponse(file, as_attachment=True, filename=PurePosixPath(name).name)


@researcher_required
def correlations(request):
    """Upload a ratings CSV to correlate with the metrics (correlate_ratings' analysis, run
    by a Celery worker); lists your analyses (staff: everyone's). A file with a bad line is
    refused naming it, and nothing is stored."""
    form = CorrelationForm()
    status = 200
    if request.method == "POST":
        form = CorrelationForm(request.POST, request.FILES)
        if form.is_valid():
            report = services.correlation_report_create(
                user=request.user,
                name=form.cleaned_data["name"],
                ratings_csv=form.cleaned_data["text"],
                parameters=form.cleaned_data["parameters"],
            )
            messages.success(request, f"Analysis {report.pk} of {report.name} is queued.")
            return redirect("research:correlation", pk=report.pk)
        status = 400
    reports = correlation_reports_visible_to(request.user).select_related("requested_by")
    context = {
        "form": form,
        "reports": list(reports.defer("ratings_csv", "result").order_by("-id")[:JOBS_SHOWN]),
    }
    return render(request, "research/correlations.html", context, status=status)


@researcher_required
def correlation(request, pk):
    """One analysis: how its judges were combined (with Dawid–Skene, each judge's
    reliability), Table 4 with intervals, the fitted combined score and the Figure 4 curves.
    Someone else's analysis answers 404 (staff see all)."""
    report = get_object_or_404(
        correlation_reports_visible_to(request.user).defer("ratings_csv"), pk=pk
    )
    context = {"report": report, "consensus": CONSENSUS_LABELS[report.consensus]}
    if report.result:
        context["chart"] = correlation_chart(report.result)
        dimensions = report.result["dimensions"]
        context["dimensions"] = dimensions
        context["rows"] = [
            (row["label"], [row["cells"][d] for d in dimensions]) for row in report.result["table"]
        ]
        # What the staff button would store: offered only when there is a fit to store.
        context["store_dimension"], store_fit = combined_fit(report.result)
        context["storable"] = store_fit["centre"] is not None
        context["reliabilities"] = [
            (row["judge"], row["ratings"], [row["reliability"][d] for d in dimensions])
            for row in report.result.get("judge_reliability", [])
        ]
    return render(request, "research/correlation.html", context)


@researcher_required
@require_POST
def correlation_store_combined(request, pk):
    """Staff only: make the analysis's fitted centre and slope the site's combined score."""
    if not request.user.is_staff:
        raise PermissionDenied("Only staff change the site's combined score.")
    report = get_object_or_404(correlation_reports_visible_to(request.user), pk=pk)
    try:
        setting = services.correlation_combined_store(report=report)
    except ValueError as error:
        messages.error(request, f"Not stored: {error}.")
    else:
        messages.success(
            request,
            f"The site's combined score now uses centre {setting.centre:.2f} and slope "
            f"{setting.slope:.4f}.",
        )
    return redirect("research:correlation", pk=report.pk)


@researcher_required
@require_POST
def token_reset(request):
    """Issue a new API token; the old one stops working."""
    token = services.researcher_token_reset(user=request.user)
    if token.replaced:
        messages.success(request, "Your new API token is below. The old one no longer works.")
    else:
        messages.success(request, "Your API token is below.")
    return redirect(f"{reverse('research:home')}#api-heading")


def _page(request, filters, export, *, comparison=None, release=None, status=200):
    corpus_filter = filters.corpus_filter()
    jobs = jobs_visible_to(request.user).select_related("requested_by").order_by("-id")
    jobs = Paginator(jobs, EXPORTS_PER_PAGE).get_page(request.GET.get("exports_page"))
    comparisons = system_score_jobs_visible_to(request.user).select_related("requested_by")
    comparisons = Paginator(comparisons.order_by("-id"), COMPARISONS_PER_PAGE).get_page(
        request.GET.get("comparisons_page")
    )
    context = {
        "filters": filters,
        "filters_query": filters.query_string() if filters.is_bound else "",
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
        "release_form": release or ReleaseForm(),
        "releases": list(
            Release.objects.select_related("created_by").order_by("-number")[:JOBS_SHOWN]
        ),
        "release_licence": settings.RELEASE_LICENSE,
    }
    return render(request, "research/home.html", context, status=status)
