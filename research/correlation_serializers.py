"""What the research API reads and writes for an analysis of human ratings: the request (a
ratings file and correlate_ratings' options) and the report."""

from django.urls import reverse
from rest_framework import serializers

from paracrowd_metrics import TOKENIZERS
from paracrowd_metrics.correlation import DEFAULT_RESAMPLES
from paracrowd_metrics.rating_consensus import METHODS as CONSENSUS_METHODS
from paracrowd_metrics.ratings import DIMENSIONS as RATING_DIMENSIONS
from paracrowd_metrics.ratings import SINGLE as SINGLE_RATING
from paracrowd_metrics.ratings import RatingError

from .correlation import (
    DRAWS_MAX,
    FOLDS_MAX,
    RATINGS_TEXT_MAX,
    RESAMPLES_MAX,
    ConsensusError,
    analysis_options,
    correlation_parameters,
)
from .splits import SEED_MAX


class CorrelationRequestSerializer(serializers.Serializer):
    """A ratings file (its CSV text) and the analysis options, as correlate_ratings takes
    them; checked line by line before anything is stored."""

    name = serializers.CharField(max_length=200, default="ratings.csv")
    ratings_csv = serializers.CharField(
        max_length=RATINGS_TEXT_MAX,
        trim_whitespace=False,
        help_text="source, candidate, rating (or semantic, dissimilarity, overall), references "
        "joined with ' ||| ' or cluster (a segment id); optionally judge and language",
    )
    references = serializers.CharField(default="1,2,4,8,16,all", help_text="curve counts")
    with_source = serializers.BooleanField(default=False)
    dimension = serializers.ChoiceField(
        choices=[*RATING_DIMENSIONS, SINGLE_RATING], required=False, allow_null=True
    )
    folds = serializers.IntegerField(default=5, min_value=2, max_value=FOLDS_MAX)
    draws = serializers.IntegerField(default=10, min_value=1, max_value=DRAWS_MAX)
    bootstrap = serializers.IntegerField(
        default=DEFAULT_RESAMPLES, min_value=0, max_value=RESAMPLES_MAX
    )
    seed = serializers.IntegerField(default=1, min_value=0, max_value=SEED_MAX)
    tokenize = serializers.ChoiceField(choices=sorted(TOKENIZERS), required=False)
    meteor = serializers.BooleanField(default=True)
    consensus = serializers.ChoiceField(
        choices=CONSENSUS_METHODS,
        default="mean",
        help_text="how one pair's judges are combined: their mean, or dawid-skene, weighting "
        "each judge by their estimated reliability (needs the judge column and ratings on a "
        "scale of at most 21 steps)",
        error_messages={
            "invalid_choice": f'"{{input}}" is not a consensus; choose '
            f"{' or '.join(CONSENSUS_METHODS)}."
        },
    )

    def validate(self, attrs):
        try:
            options = analysis_options(attrs)
        except RatingError as error:
            raise serializers.ValidationError({"references": [str(error)]}) from None
        try:
            attrs["parameters"] = correlation_parameters(
                text=attrs["ratings_csv"],
                name=attrs["name"],
                options=options,
                dimension=attrs.get("dimension"),
                meteor=attrs["meteor"],
                consensus=attrs["consensus"],
            )
        except ConsensusError as error:
            raise serializers.ValidationError({"consensus": [str(error)]}) from None
        except RatingError as error:
            raise serializers.ValidationError({"ratings_csv": [str(error)]}) from None
        return attrs


class CorrelationReportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.SerializerMethodField()
    name = serializers.CharField()
    state = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    requested_at = serializers.DateTimeField()
    computed_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True)
    error = serializers.CharField(allow_blank=True)
    parameters = serializers.DictField()
    consensus = serializers.ChoiceField(
        choices=CONSENSUS_METHODS,
        read_only=True,
        help_text="how one pair's judges were combined; with dawid-skene the result's "
        "judge_reliability gives each judge's reliability per dimension",
    )
    result = serializers.DictField(
        allow_null=True,
        help_text="when done: correlate_ratings --json's object (table, combined, "
        "by_references, reference_curves, consensus, judge_reliability with dawid-skene, …)",
    )

    def get_url(self, report) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("research-api:correlation", args=[report.pk])
        )
