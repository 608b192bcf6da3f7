"""What a system declares its learned parts were learned from, as the research API reads and
writes it (research.learning)."""

from rest_framework import serializers

from .learning import LearnedFrom
from .splits import SEED_MAX, SPLITS

# Learned parts one system may declare (a table, a model, …).
LEARNED_PARTS_MAX = 10


class LearnedFromSerializer(serializers.Serializer):
    """What one learned part of a system was learned from (research.learning); the
    ``# learned-from:`` lines ``paraphrase`` writes hold the same object."""

    what = serializers.CharField(
        max_length=100, help_text="the learned part: paraphrase table, language model, …"
    )
    splits = serializers.ListField(
        child=serializers.ChoiceField(choices=SPLITS),
        allow_null=True,
        required=False,
        max_length=len(SPLITS),
        help_text="the sides of the split it learned from; null: not recorded",
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=SEED_MAX)
    test_fraction = serializers.FloatField(required=False, min_value=0.0, max_value=0.99)
    dev_fraction = serializers.FloatField(required=False, min_value=0.0, max_value=0.99)
    clusters = serializers.IntegerField(required=False, min_value=0)
    digest = serializers.CharField(required=False, allow_blank=True, max_length=64)

    def validate(self, attrs):
        try:
            return LearnedFrom.from_dict(dict(attrs))
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None


def learned_from_field(**kwargs) -> LearnedFromSerializer:
    return LearnedFromSerializer(
        many=True,
        required=False,
        max_length=LEARNED_PARTS_MAX,
        help_text="what the system's learned parts were learned from",
        **kwargs,
    )
