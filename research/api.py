"""The research API: the corpus read-only, export jobs, and jobs scoring paraphrase systems
(both started by POST).

Security behaviour, for every endpoint here: staff and members of the "researchers" group,
by token (``Authorization: Token <key>``) or session; anyone else is refused (401 without
credentials, 403 for a worker). Corpus endpoints only read. A researcher sees and downloads
only the export and scoring jobs they started (someone else's answers 404); staff see every
job.
"""

from collections import defaultdict

from django.core.files.storage import default_storage
from django.db.models import Count, Q
from django.http import FileResponse, Http404, HttpResponseRedirect
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from collector.models import Paraphrase, Segment

from . import services
from .correlation_serializers import CorrelationReportSerializer, CorrelationRequestSerializer
from .exports.text import cluster_record, stored_cluster_scores
from .models import CorrelationReport, ExportJob, SystemScoreJob
from .permissions import IsResearcher
from .selection import ROW_FIELDS, Cluster, worker_label
from .serializers import (
    AlignmentSerializer,
    ClusterSerializer,
    CorpusFilterSerializer,
    DirectParaphraseSerializer,
    ExportJobSerializer,
    ExportRequestSerializer,
    SegmentSerializer,
    StatisticsSerializer,
    SystemScoreJobSerializer,
    SystemScoreRequestSerializer,
    corpus_filter_from,
)
from .statistics import corpus_statistics


class ResearchAPIView:
    permission_classes = [IsResearcher]


class ById(CursorPagination):
    ordering = "id"


class ByCluster(CursorPagination):
    ordering = ("segment_id", "language")


class Newest(CursorPagination):
    ordering = "-id"


@extend_schema(parameters=[CorpusFilterSerializer])
class SegmentList(ResearchAPIView, generics.ListAPIView):
    """Segments with at least one selected description, and their clusters' sizes."""

    serializer_class = SegmentSerializer
    pagination_class = ById

    def get_queryset(self):
        self.corpus_filter = corpus_filter_from(self.request.query_params)
        return Segment.objects.filter(self.corpus_filter.in_segment())

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(
            self.get_serializer(segments_with_clusters(page, self.corpus_filter), many=True).data
        )


@extend_schema(parameters=[CorpusFilterSerializer])
class SegmentDetail(ResearchAPIView, generics.RetrieveAPIView):
    """One segment and the sizes of its clusters under the filters."""

    serializer_class = SegmentSerializer
    queryset = Segment.objects.all()

    def retrieve(self, request, *args, **kwargs):
        corpus_filter = corpus_filter_from(request.query_params)
        segment = self.get_object()
        (row,) = segments_with_clusters([segment], corpus_filter)
        return Response(self.get_serializer(row).data)


def segments_with_clusters(segments, corpus_filter) -> list[dict]:
    sizes = defaultdict(list)
    counts = (
        corpus_filter.descriptions(segment_ids=[segment.pk for segment in segments])
        .values("segment_id", "language")
        .annotate(size=Count("pk"))
        .order_by("segment_id", "language")
    )
    for row in counts:
        sizes[row["segment_id"]].append({"language": row["language"], "size": row["size"]})
    return [
        {
            "id": segment.pk,
            "video": segment.video_label,
            "source": segment.source,
            "start": float(segment.start),
            "end": float(segment.end),
            "title": segment.title,
            "created_at": segment.created_at,
            "clusters": sizes[segment.pk],
        }
        for segment in segments
    ]


@extend_schema(parameters=[CorpusFilterSerializer])
class ClusterList(ResearchAPIView, generics.ListAPIView):
    """Clusters (a segment's selected descriptions in one language) with the segment, the
    cluster's stored scores and every description with its own: a line of the jsonl export."""

    serializer_class = ClusterSerializer
    pagination_class = ByCluster

    def get_queryset(self):
        self.corpus_filter = corpus_filter_from(self.request.query_params)
        return self.corpus_filter.cluster_sizes()

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        keys = [(row["segment_id"], row["language"]) for row in page]
        members = defaultdict(list)
        if keys:
            wanted = Q()
            for segment_id, language in keys:
                wanted |= Q(segment_id=segment_id, language=language)
            segment_ids = {segment_id for segment_id, _ in keys}
            for row in self.corpus_filter.rows(ROW_FIELDS, segment_ids=segment_ids).filter(wanted):
                members[row.segment_id, row.language].append(row)
        clusters = [Cluster(s, language, members[s, language]) for s, language in keys]
        scores = stored_cluster_scores(clusters)
        records = [cluster_record(c, scores.get(c.key)) for c in clusters if c.members]
        return self.get_paginated_response(self.get_serializer(records, many=True).data)


@extend_schema(parameters=[CorpusFilterSerializer])
class AlignmentList(ResearchAPIView, generics.ListAPIView):
    """Word alignments with their sentence pairs, by the language of the pair's descriptions,
    the annotator's tier and when they were made (status and cluster size do not apply)."""

    serializer_class = AlignmentSerializer
    pagination_class = ById

    def get_queryset(self):
        return (
            corpus_filter_from(self.request.query_params)
            .alignments()
            .annotate(worker_label=worker_label())
            .select_related("pair", "assignment__hit")
        )


@extend_schema(
    parameters=[OpenApiParameter("language", str, description="only paraphrases in this language")]
)
class DirectParaphraseList(ResearchAPIView, generics.ListAPIView):
    """Accepted direct paraphrases (workers shown a sentence, not a video), each with the
    sentence it paraphrases, that sentence's segment when it came from the corpus, and its
    PINC against the sentence."""

    serializer_class = DirectParaphraseSerializer
    pagination_class = ById

    def get_queryset(self):
        paraphrases = Paraphrase.objects.filter(status=Paraphrase.Status.ACCEPTED)
        # No NUL reaches here: paracrowd.request_text refuses it at the edge.
        language = self.request.query_params.get("language", "")
        if language:
            paraphrases = paraphrases.filter(language=language[:40])
        return paraphrases.annotate(worker_label=worker_label()).select_related("source")


class Statistics(ResearchAPIView, APIView):
    """Corpus statistics as the study reports them, overall and for Tier 2 alone, with how
    many descriptions each review status holds."""

    @extend_schema(parameters=[CorpusFilterSerializer], responses=StatisticsSerializer)
    def get(self, request):
        statistics = corpus_statistics(corpus_filter_from(request.query_params))
        return Response(StatisticsSerializer(statistics).data)


class ExportJobList(ResearchAPIView, generics.ListCreateAPIView):
    """Your export jobs, newest first; POST starts one, run in the background. Poll the job
    until its state is done (download links appear) or failed."""

    serializer_class = ExportJobSerializer
    pagination_class = Newest

    def get_queryset(self):
        return jobs_visible_to(self.request.user)

    @extend_schema(request=ExportRequestSerializer, responses={201: ExportJobSerializer})
    def post(self, request, *args, **kwargs):
        export = ExportRequestSerializer(data=request.data)
        export.is_valid(raise_exception=True)
        job = services.export_job_create(
            user=request.user, options=export.validated_data["options"]
        )
        data = ExportJobSerializer(job, context={"request": request}).data
        return Response(data, status=status.HTTP_201_CREATED)


class ExportJobDetail(ResearchAPIView, generics.RetrieveAPIView):
    """One export job: its state, its report and, when done, its download links."""

    serializer_class = ExportJobSerializer

    def get_queryset(self):
        return jobs_visible_to(self.request.user)


def stored_file_response(stored: str | None):
    """A file of the default storage as a download: redirected to a short-lived S3 link when
    the storage is S3, else sent from local storage; 404 when ``stored`` is None or missing."""
    if stored is None:
        raise Http404
    if getattr(default_storage, "bucket_name", None):
        return HttpResponseRedirect(default_storage.url(stored))
    if not default_storage.exists(stored):
        raise Http404
    return FileResponse(
        default_storage.open(stored, "rb"),
        as_attachment=True,
        filename=stored.rsplit("/", 1)[-1],
    )


def jobs_visible_to(user):
    jobs = ExportJob.objects.all()
    return jobs if user.is_staff else jobs.filter(requested_by=user)


class ExportFile(ResearchAPIView, APIView):
    """One file of a finished export: redirected to a short-lived S3 link when the files are
    on S3, else sent from local storage."""

    @extend_schema(
        responses={
            (200, "application/octet-stream"): OpenApiTypes.BINARY,
            302: OpenApiResponse(description="to a presigned S3 link"),
            404: OpenApiResponse(description="no such job of yours, or no such file"),
        }
    )
    def get(self, request, pk, name):
        job = jobs_visible_to(request.user).filter(pk=pk).first()
        return stored_file_response(services.export_file_name(job, name) if job else None)


class SystemScoreJobList(ResearchAPIView, generics.ListAPIView):
    """Your system-scoring jobs, newest first. POST scores one system (``pairs``) or compares
    several (``systems``, with a ``baseline``) on sources of the test split (the same split
    options and filters as the export): BLEU against the source's references, PINC against the
    source, PINC × sigmoid(BLEU) and the METEOR-style score, the corpus's own descriptions as a
    reference row, and each row against the baseline by paired bootstrap (95% intervals and
    p-values, seeded). The request is only checked and stored: it answers 202 with the job and
    its address (``Location``); a Celery worker scores it, and GET on that address gives the
    state and, once done, the result. Security behaviour: researchers and staff; a researcher
    sees only their own jobs (someone else's answers 404), staff see every job."""

    serializer_class = SystemScoreJobSerializer
    pagination_class = Newest

    def get_queryset(self):
        return system_score_jobs_visible_to(self.request.user)

    @extend_schema(request=SystemScoreRequestSerializer, responses={202: SystemScoreJobSerializer})
    def post(self, request):
        asked = SystemScoreRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        job = services.system_score_job_create(
            user=request.user,
            systems=asked.validated_data["job_systems"],
            parameters=asked.validated_data["parameters"],
        )
        data = SystemScoreJobSerializer(job, context={"request": request}).data
        return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


class SystemScoreJobDetail(ResearchAPIView, generics.RetrieveAPIView):
    """One system-scoring job: its state (queued, running, done, failed), its error when it
    failed (a job over SYSTEM_SCORE_WORK_LIMIT for one system fails before scoring it), and
    its result when done."""

    serializer_class = SystemScoreJobSerializer

    def get_queryset(self):
        return system_score_jobs_visible_to(self.request.user)


def system_score_jobs_visible_to(user):
    jobs = SystemScoreJob.objects.all()
    return jobs if user.is_staff else jobs.filter(requested_by=user)


class CorrelationReportList(ResearchAPIView, generics.ListAPIView):
    """Your ratings analyses, newest first. POST sends a ratings CSV (as text) and the options
    of ``correlate_ratings``; the file is checked line by line (a bad line answers 400 naming
    it, and nothing is stored), then a Celery worker computes Table 4 and Figure 4: 202 with
    the analysis and its address (``Location``); GET there gives its state and, once done,
    the result (``correlate_ratings --json``'s object). Security behaviour: researchers and
    staff; a researcher sees only their own analyses (someone else's answers 404)."""

    serializer_class = CorrelationReportSerializer
    pagination_class = Newest

    def get_queryset(self):
        return correlation_reports_visible_to(self.request.user).defer("ratings_csv")

    @extend_schema(
        request=CorrelationRequestSerializer, responses={202: CorrelationReportSerializer}
    )
    def post(self, request):
        asked = CorrelationRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        report = services.correlation_report_create(
            user=request.user,
            name=asked.validated_data["name"],
            ratings_csv=asked.validated_data["ratings_csv"],
            parameters=asked.validated_data["parameters"],
        )
        data = CorrelationReportSerializer(report, context={"request": request}).data
        return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


class CorrelationReportDetail(ResearchAPIView, generics.RetrieveAPIView):
    """One ratings analysis: its state, its error when it failed, its result when done."""

    serializer_class = CorrelationReportSerializer

    def get_queryset(self):
        return correlation_reports_visible_to(self.request.user).defer("ratings_csv")


def correlation_reports_visible_to(user):
    reports = CorrelationReport.objects.all()
    return reports if user.is_staff else reports.filter(requested_by=user)


# What /api/ lists, in the order a newcomer would read them.
ROOT_LINKS = (
    "segments",
    "clusters",
    "alignments",
    "direct-paraphrases",
    "statistics",
    "exports",
    "system-scores",
    "ratings",
    "rating-batches",
    "correlations",
    "schema",
    "docs",
)


class Root(ResearchAPIView, APIView):
    """Where everything is: the address of every endpoint, the schema and its documentation."""

    @extend_schema(responses={200: OpenApiResponse(OpenApiTypes.OBJECT, "name: address")})
    def get(self, request):
        return Response(
            {name: reverse(f"research-api:{name}", request=request) for name in ROOT_LINKS}
        )
