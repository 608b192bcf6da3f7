"""Ratings through the research API: the batches with their progress, and every rating.

Security behaviour: staff and members of the "researchers" group (token or session), as every
research endpoint; anyone else is refused (401 without credentials, 403 for a worker). Rating
batches are shared research data: every researcher sees every batch. Judges are named as
exports name workers, never by username or platform id. Read only.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError

from ..api import ById, ResearchAPIView
from ..models import Rating, RatingBatch
from .exports import ratings_for_export
from .selectors import batches_with_progress


class RatingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    batch = serializers.IntegerField(source="batch_id")
    batch_name = serializers.CharField()
    item = serializers.IntegerField(source="item_id")
    source = serializers.CharField()
    candidate = serializers.CharField()
    cluster = serializers.IntegerField(allow_null=True, help_text="segment id of the references")
    judge = serializers.CharField(help_text="the judge as exports name workers")
    semantic = serializers.IntegerField(min_value=1, max_value=4)
    dissimilarity = serializers.IntegerField(min_value=1, max_value=4)
    overall = serializers.IntegerField(min_value=1, max_value=4)
    status = serializers.ChoiceField(choices=Rating.Status.choices)


class RatingBatchSerializer(serializers.ModelSerializer):
    items = serializers.IntegerField(source="item_count")
    ratings = serializers.IntegerField(source="rated", help_text="accepted and pending ratings")

    class Meta:
        model = RatingBatch
        fields = ["id", "name", "origin", "system", "judges", "language", "created_at"]
        fields += ["items", "ratings"]


class RatingList(ResearchAPIView, generics.ListAPIView):
    """Every rating, one judge's three ratings of one item per row (rejected ones with their
    status), oldest first; ``batch`` keeps one batch's."""

    serializer_class = RatingSerializer
    pagination_class = ById

    @extend_schema(
        parameters=[OpenApiParameter("batch", int, description="only this batch's ratings")]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        batch = self.request.query_params.get("batch")
        ratings = ratings_for_export().order_by()
        if batch is not None:
            try:
                ratings = ratings.filter(item__batch_id=int(batch))
            except ValueError:
                raise ValidationError({"batch": "A batch is named by its number."}) from None
        return ratings


class RatingBatchList(ResearchAPIView, generics.ListAPIView):
    """The rating batches, oldest first, with how many items and counted ratings each has."""

    serializer_class = RatingBatchSerializer
    pagination_class = ById

    def get_queryset(self):
        return batches_with_progress().order_by()
