from csp.decorators import csp_update
from django.urls import path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from . import api
from .ratings import api as ratings
from .refusals import not_found
from .schema import SchemaView

app_name = "research-api"
urlpatterns = [
    path("", api.Root.as_view(), name="root"),
    path("segments/", api.SegmentList.as_view(), name="segments"),
    path("segments/<int:pk>/", api.SegmentDetail.as_view(), name="segment"),
    path("clusters/", api.ClusterList.as_view(), name="clusters"),
    path("alignments/", api.AlignmentList.as_view(), name="alignments"),
    path("direct-paraphrases/", api.DirectParaphraseList.as_view(), name="direct-paraphrases"),
    path("statistics/", api.Statistics.as_view(), name="statistics"),
    path("exports/", api.ExportJobList.as_view(), name="exports"),
    path("exports/<int:pk>/", api.ExportJobDetail.as_view(), name="export"),
    path("exports/<int:pk>/files/<path:name>", api.ExportFile.as_view(), name="export-file"),
    path("system-scores/", api.SystemScoreJobList.as_view(), name="system-scores"),
    path("system-scores/<int:pk>/", api.SystemScoreJobDetail.as_view(), name="system-score"),
    path("ratings/", ratings.RatingList.as_view(), name="ratings"),
    path("rating-batches/", ratings.RatingBatchList.as_view(), name="rating-batches"),
    path("correlations/", api.CorrelationReportList.as_view(), name="correlations"),
    path("correlations/<int:pk>/", api.CorrelationReportDetail.as_view(), name="correlation"),
    path("schema/", SchemaView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file, so no inline script is
    # needed; its page does carry a <style> element, allowed here alone (nothing a user typed
    # is shown on this page).
    path(
        "docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(
            SpectacularSwaggerSplitView.as_view(url_name="research-api:schema")
        ),
        name="docs",
    ),
    # Anything else under /api/ answers a JSON 404 (so no slash-appending redirects here).
    re_path(r"", not_found),
]
