"""What the research API reads and writes. Output serializers mirror the export formats (a
cluster here is exactly a line of the jsonl export), so the schema documents both."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from paracrowd_metrics.significance import DEFAULT_SAMPLES
from scoring.services import combined_parameters

from .exports import FORMATS, ExportOptions
from .learning_serializers import learned_from_field
from .selection import STATUS_CHOICES, TIER_CHOICES, CorpusFilter, FilterError
from .splits import (
    DEFAULT_DEV_FRACTION,
    DEFAULT_SEED,
    DEFAULT_TEST_FRACTION,
    SEED_MAX,
    SplitOptions,
)
from .system_comparison import HUMAN, SystemOutputs, job_parameters, job_systems
from .system_scoring import SystemPair

BIGINT_MAX = 2**63 - 1
# Pairs of one system in a scoring job; more go through the score_system command.
SYSTEM_PAIRS_MAX = 2000
# Systems one scoring job compares, and the bootstrap resamples it may ask for.
SYSTEMS_MAX = 8
SYSTEM_NAME_MAX = 100
BOOTSTRAP_SAMPLES_MAX = 10_000
TEXT_MAX = 2000


class CorpusFilterSerializer(serializers.Serializer):
    """The corpus filters, as query parameters (repeat a parameter for several values) or as
    a JSON object."""

    language = serializers.ListField(
        child=serializers.CharField(min_length=1, max_length=40),
        required=False,
        max_length=50,
        help_text="declared language codes (e.g. en); repeatable",
    )
    tier = serializers.ListField(
        child=serializers.ChoiceField(choices=TIER_CHOICES),
        required=False,
        max_length=3,
        help_text="1, 2, or unrecorded (imported without a tier); repeatable",
    )
    status = serializers.ListField(
        child=serializers.ChoiceField(choices=STATUS_CHOICES),
        required=False,
        max_length=4,
        help_text="review status; default accepted; `all` for every status",
    )
    since = serializers.DateField(required=False, help_text="created on or after (UTC)")
    until = serializers.DateField(required=False, help_text="created on or before (UTC)")
    min_cluster_size = serializers.IntegerField(
        required=False, min_value=1, max_value=100_000, help_text="descriptions per cluster"
    )

    # A date or a size given empty (?until=) is refused rather than read as "no filter".
    SCALARS = ("since", "until", "min_cluster_size")

    def to_internal_value(self, data):
        getlist = getattr(data, "getlist", None)
        for name in self.SCALARS:
            given = getlist(name) if getlist else [data.get(name)] if hasattr(data, "get") else []
            if "" in given:
                raise serializers.ValidationError({name: ["Give a value, or leave it out."]})
        return super().to_internal_value(data)

    def validate(self, attrs):
        params = {
            key: [str(v) for v in value] if isinstance(value, list) else [str(value)]
            for key, value in attrs.items()
        }
        try:
            attrs["corpus_filter"] = CorpusFilter.from_params(lambda name: params.get(name, []))
        except FilterError as error:
            name, _, message = str(error).partition(": ")
            raise serializers.ValidationError({name: [message]}) from None
        return attrs


def corpus_filter_from(data) -> CorpusFilter:
    """The filter from query parameters or a JSON object; a bad value is a 400 naming it."""
    filters = CorpusFilterSerializer(data=data)
    filters.is_valid(raise_exception=True)
    return filters.validated_data["corpus_filter"]


class SegmentClusterSerializer(serializers.Serializer):
    language = serializers.CharField()
    size = serializers.IntegerField(help_text="selected descriptions in this language")


class SegmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    video = serializers.CharField(help_text="YouTube id, or the hosted file's name")
    source = serializers.ChoiceField(choices=["youtube", "file"])
    start = serializers.FloatField(help_text="seconds")
    end = serializers.FloatField(help_text="seconds")
    title = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    clusters = SegmentClusterSerializer(many=True)


class ClusterSegmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    video = serializers.CharField()
    source = serializers.ChoiceField(choices=["youtube", "file"])
    start = serializers.FloatField()
    end = serializers.FloatField()
    title = serializers.CharField(allow_blank=True)


class ClusterScoresSerializer(serializers.Serializer):
    size = serializers.IntegerField(
        help_text="accepted descriptions: the scores are over these alone, and null below 2"
    )
    pending = serializers.IntegerField(
        allow_null=True,
        help_text="descriptions awaiting review when scored, not counted in the scores; null: "
        "scored before such work was kept out (the scores may count it until scored again)",
    )
    corpus_bleu = serializers.FloatField(allow_null=True)
    mean_bleu = serializers.FloatField(allow_null=True)
    mean_pinc = serializers.FloatField(allow_null=True)
    bleu_signature = serializers.CharField()
    pinc_signature = serializers.CharField()


class DescriptionScoresSerializer(serializers.Serializer):
    bleu = serializers.FloatField(
        allow_null=True,
        help_text="leave-one-out sentence BLEU: an accepted description against the other "
        "accepted ones, one awaiting review against every other description not rejected",
    )
    pinc = serializers.FloatField(allow_null=True, help_text="mean PINC against the others")
    references = serializers.IntegerField()


class DescriptionTypingSerializer(serializers.Serializer):
    """How the text came into its box (collector.provenance); counts null when not recorded."""

    signals = serializers.CharField(
        help_text="clean, unknown (no record), or the signals raised joined by + "
        "(pasted, too_fast, background, copy_then_paste, inserted_no_keys, synthetic_events, "
        "webdriver, left_after_copy, even_keys, canary)"
    )
    key_presses = serializers.IntegerField(allow_null=True)
    pastes = serializers.IntegerField(allow_null=True, help_text="paste and drop events")
    pasted_characters = serializers.IntegerField(allow_null=True)
    first_key_ms = serializers.IntegerField(allow_null=True, help_text="page opened to first key")
    writing_ms = serializers.IntegerField(allow_null=True, help_text="first change to last")
    focus_losses = serializers.IntegerField(allow_null=True, help_text="page left while writing")
    background_ms = serializers.IntegerField(allow_null=True, help_text="time the page was left")
    input_method_characters = serializers.IntegerField(
        allow_null=True, help_text="written by an input method: IME, swipe, dictation"
    )
    # Counted later: null also when the page did not count them.
    prompt_copies = serializers.IntegerField(allow_null=True, help_text="task's text copied")
    pastes_after_copy = serializers.IntegerField(allow_null=True, help_text="pastes after that")
    inserted_without_keys = serializers.IntegerField(
        allow_null=True, help_text="words inserted with no key press: drop, autofill, extension"
    )
    untrusted_events = serializers.IntegerField(
        allow_null=True, help_text="input events made by a script"
    )
    webdriver = serializers.IntegerField(allow_null=True, help_text="1: navigator.webdriver true")
    left_after_copy = serializers.IntegerField(
        allow_null=True,
        help_text="page left for 15 s or more right after a copy of the task's text",
    )
    key_intervals = serializers.IntegerField(
        allow_null=True, help_text="times between key presses in the rhythm"
    )
    key_interval_variation = serializers.IntegerField(
        allow_null=True, help_text="their coefficient of variation, in thousandths"
    )


class DescriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    worker = serializers.CharField(allow_blank=True, help_text="an opaque worker label")
    tier = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    time_spent = serializers.FloatField(allow_null=True, help_text="seconds")
    created_at = serializers.CharField(help_text="ISO 8601, UTC")
    scores = DescriptionScoresSerializer(allow_null=True)
    typing = DescriptionTypingSerializer()


class ClusterSerializer(serializers.Serializer):
    """One segment's selected descriptions in one language (a line of the jsonl export)."""

    segment = ClusterSegmentSerializer()
    language = serializers.CharField()
    size = serializers.IntegerField()
    scores = ClusterScoresSerializer(allow_null=True)
    descriptions = DescriptionSerializer(many=True)


class PairSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    origin = serializers.CharField()
    tokens_a = serializers.ListField(child=serializers.CharField())
    tokens_b = serializers.ListField(child=serializers.CharField())
    description_a = serializers.IntegerField(allow_null=True, source="description_a_id")
    description_b = serializers.IntegerField(allow_null=True, source="description_b_id")


class AlignmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    pair = PairSerializer()
    annotator = serializers.SerializerMethodField()
    tier = serializers.IntegerField(allow_null=True, source="assignment.hit.tier", default=None)
    links = serializers.CharField(allow_blank=True, help_text="Pharaoh form: 0-0 1-2 3p4")
    unchanged_suggestion = serializers.BooleanField(
        help_text="the pre-alignment shown was sent back unchanged: the pre-aligner's links, "
        "not the annotator's"
    )
    created_at = serializers.DateTimeField()

    def get_annotator(self, alignment) -> str:
        return alignment.annotator or alignment.worker_label


class DirectParaphraseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    source = serializers.CharField(source="source.text", help_text="the sentence paraphrased")
    source_segment = serializers.IntegerField(
        source="source.segment_id",
        allow_null=True,
        help_text="the segment whose description it is; null for an uploaded sentence",
    )
    text = serializers.CharField()
    language = serializers.CharField()
    tier = serializers.IntegerField()
    worker = serializers.CharField(source="worker_label")
    pinc = serializers.FloatField(allow_null=True, help_text="PINC against the sentence, 0-100")
    pinc_signature = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class CorpusCountsSerializer(serializers.Serializer):
    segments = serializers.IntegerField()
    descriptions = serializers.IntegerField()
    mean_per_segment = serializers.FloatField(allow_null=True)
    reached_by_95_percent = serializers.IntegerField(
        allow_null=True, help_text="descriptions that 95% of segments have at least"
    )


class StatusCountsSerializer(serializers.Serializer):
    pending = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()


class LanguageCountSerializer(serializers.Serializer):
    language = serializers.CharField()
    descriptions = serializers.IntegerField()
    segments = serializers.IntegerField()


class StatisticsSerializer(serializers.Serializer):
    filter = serializers.DictField()
    overall = CorpusCountsSerializer()
    tier2 = CorpusCountsSerializer()
    status_counts = StatusCountsSerializer(
        help_text="descriptions of each status under the other filters, selected or not"
    )
    languages = LanguageCountSerializer(many=True)


class ExportRequestSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=list(FORMATS))
    filter = CorpusFilterSerializer(required=False)
    pairs_per_sentence = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=100_000,
        help_text="pairs and split: other descriptions per sentence; null for all",
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=SEED_MAX)
    test_fraction = serializers.FloatField(
        required=False, min_value=0.0, max_value=0.99, help_text="split and parquet"
    )
    dev_fraction = serializers.FloatField(
        required=False, min_value=0.0, max_value=0.99, help_text="split and parquet; 0: no dev"
    )
    tier2_references = serializers.BooleanField(
        required=False, default=False, help_text="split: test references from Tier 2 only"
    )
    source_as_reference = serializers.BooleanField(
        required=False, default=False, help_text="split: a test sentence is its own reference"
    )

    def validate(self, attrs):
        corpus_filter = (attrs.get("filter") or {}).get("corpus_filter", CorpusFilter())
        try:
            attrs["options"] = export_options(attrs, corpus_filter)
        except ValueError as error:
            raise serializers.ValidationError({"dev_fraction": [str(error)]}) from None
        return attrs


def export_options(attrs, corpus_filter) -> ExportOptions:
    return ExportOptions(
        format=attrs["format"],
        filter=corpus_filter,
        pairs_per_sentence=attrs.get("pairs_per_sentence"),
        seed=attrs.get("seed", DEFAULT_SEED),
        test_fraction=attrs.get("test_fraction", DEFAULT_TEST_FRACTION),
        dev_fraction=attrs.get("dev_fraction", DEFAULT_DEV_FRACTION),
        tier2_references=attrs["tier2_references"],
        source_as_reference=attrs["source_as_reference"],
    )


class ExportFileSerializer(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.CharField(help_text="download link, for whoever started the export")


class ExportJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    format = serializers.CharField()
    parameters = serializers.DictField()
    state = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    report = serializers.DictField(allow_null=True)
    error = serializers.CharField(allow_blank=True)
    files = serializers.SerializerMethodField()

    @extend_schema_field(ExportFileSerializer(many=True))
    def get_files(self, job) -> list[dict]:
        if job.state != job.State.DONE:
            return []
        request = self.context["request"]
        return [
            {
                "name": name,
                "url": request.build_absolute_uri(
                    reverse("research-api:export-file", args=[job.pk, name])
                ),
            }
            for name in job.files
        ]


class SystemPairSerializer(serializers.Serializer):
    source = serializers.CharField(max_length=TEXT_MAX, trim_whitespace=False)
    output = serializers.CharField(max_length=TEXT_MAX, trim_whitespace=False, allow_blank=True)
    segment_id = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=BIGINT_MAX
    )


class SystemOutputsSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=SYSTEM_NAME_MAX)
    pairs = SystemPairSerializer(many=True, min_length=1, max_length=SYSTEM_PAIRS_MAX)
    learned_from = learned_from_field()


class SystemScoreRequestSerializer(serializers.Serializer):
    pairs = SystemPairSerializer(
        many=True,
        required=False,
        min_length=1,
        max_length=SYSTEM_PAIRS_MAX,
        help_text="one system's outputs (or give systems)",
    )
    learned_from = learned_from_field()
    systems = SystemOutputsSerializer(
        many=True,
        required=False,
        min_length=1,
        max_length=SYSTEMS_MAX,
        help_text="several systems' outputs, scored side by side",
    )
    baseline = serializers.CharField(
        required=False,
        max_length=SYSTEM_NAME_MAX,
        help_text="the system the others are compared with; the first by default",
    )
    filter = CorpusFilterSerializer(required=False)
    seed = serializers.IntegerField(required=False, min_value=0, max_value=SEED_MAX)
    test_fraction = serializers.FloatField(required=False, min_value=0.01, max_value=0.99)
    dev_fraction = serializers.FloatField(required=False, min_value=0.0, max_value=0.98)
    tier2_references = serializers.BooleanField(required=False, default=False)
    source_as_reference = serializers.BooleanField(required=False, default=False)
    centre = serializers.FloatField(required=False, min_value=-1000.0, max_value=1000.0)
    slope = serializers.FloatField(required=False, min_value=-1000.0, max_value=1000.0)
    per_pair = serializers.BooleanField(required=False, default=False)
    bootstrap_samples = serializers.IntegerField(
        required=False, default=DEFAULT_SAMPLES, min_value=1, max_value=BOOTSTRAP_SAMPLES_MAX
    )
    bootstrap_seed = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=SEED_MAX
    )

    def validate(self, attrs):
        split = split_from(attrs)
        if ("pairs" in attrs) == ("systems" in attrs):
            raise serializers.ValidationError(
                {"systems": ["Give either pairs (one system) or systems, not both."]}
            )
        if "systems" in attrs and "learned_from" in attrs:
            raise serializers.ValidationError(
                {"learned_from": ["With systems, give each system its own learned_from."]}
            )
        systems = attrs.get("systems") or [
            {"name": "system", "pairs": attrs["pairs"], "learned_from": attrs.get("learned_from")}
        ]
        names = [system["name"] for system in systems]
        if len(set(names)) < len(names):
            raise serializers.ValidationError({"systems": ["Each system needs its own name."]})
        if HUMAN in names:
            raise serializers.ValidationError(
                {"systems": [f"{HUMAN!r} names the corpus's own row; call the system otherwise."]}
            )
        baseline = attrs.get("baseline", names[0])
        if baseline not in names:
            raise serializers.ValidationError({"baseline": ["Name one of the systems."]})
        corpus_filter = (attrs.get("filter") or {}).get("corpus_filter", CorpusFilter())
        centre, slope = combined_parameters()
        attrs["job_systems"] = job_systems(
            [
                SystemOutputs(
                    name=system["name"],
                    pairs=[SystemPair(**pair) for pair in system["pairs"]],
                    learned_from=system.get("learned_from") or [],
                )
                for system in systems
            ]
        )
        attrs["parameters"] = job_parameters(
            baseline=baseline,
            corpus_filter=corpus_filter,
            split=split,
            centre=attrs.get("centre", centre),
            slope=attrs.get("slope", slope),
            samples=attrs["bootstrap_samples"],
            bootstrap_seed=attrs["bootstrap_seed"],
            per_pair=attrs["per_pair"],
        )
        return attrs


def split_from(attrs) -> SplitOptions:
    """The split options of a validated request; a bad combination is a validation error."""
    try:
        return SplitOptions(
            seed=attrs.get("seed", DEFAULT_SEED),
            test_fraction=attrs.get("test_fraction", DEFAULT_TEST_FRACTION),
            dev_fraction=attrs.get("dev_fraction", DEFAULT_DEV_FRACTION),
            tier2_references=attrs.get("tier2_references", False),
            source_as_reference=attrs.get("source_as_reference", False),
        )
    except ValueError as error:
        raise serializers.ValidationError({"dev_fraction": [str(error)]}) from None


class PairScoreSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="position in the request, from 1")
    segment_id = serializers.IntegerField()
    language = serializers.CharField()
    references = serializers.IntegerField()
    bleu = serializers.FloatField()
    pinc = serializers.FloatField()
    combined = serializers.FloatField()
    meteor = serializers.FloatField(allow_null=True, help_text="METEOR-style, 0-100")
    description_id = serializers.IntegerField(help_text="the source's description")


class UnscoredSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    reason = serializers.CharField()


class SystemScoreSerializer(serializers.Serializer):
    name = serializers.CharField()
    pairs = serializers.IntegerField()
    scored = serializers.IntegerField()
    bleu = serializers.FloatField(allow_null=True, help_text="corpus BLEU of the outputs")
    mean_bleu = serializers.FloatField(allow_null=True)
    pinc = serializers.FloatField(allow_null=True)
    combined = serializers.FloatField(allow_null=True, help_text="mean PINC × sigmoid(BLEU)")
    centre = serializers.FloatField()
    slope = serializers.FloatField()
    bleu_signature = serializers.CharField(allow_blank=True)
    pinc_signature = serializers.CharField(allow_blank=True)
    meteor = serializers.FloatField(allow_null=True, help_text="mean METEOR-style score")
    meteor_signature = serializers.CharField(
        allow_blank=True, help_text="its parameters and the paraphrase table's checksum"
    )
    learned_from = learned_from_field()
    saw_scored_clusters = serializers.BooleanField(
        allow_null=True,
        required=False,
        help_text="whether a learned part saw the clusters it is scored on (test leakage); "
        "null when nothing is declared or a part records no splits",
    )
    leakage = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="the warnings, in words"
    )
    unscored = UnscoredSerializer(many=True)
    scores = PairScoreSerializer(many=True, required=False)


class PairedComparisonSerializer(serializers.Serializer):
    items = serializers.IntegerField(help_text="sources both were scored on")
    difference = serializers.FloatField(help_text="mean of the system minus the baseline's")
    low = serializers.FloatField(help_text="95% interval of the difference, from")
    high = serializers.FloatField(help_text="… to")
    p_value = serializers.FloatField(help_text="paired bootstrap, two-sided")


class MetricComparisonSerializer(serializers.Serializer):
    bleu = PairedComparisonSerializer(allow_null=True, help_text="sentence BLEU")
    pinc = PairedComparisonSerializer(allow_null=True)
    combined = PairedComparisonSerializer(allow_null=True)
    meteor = PairedComparisonSerializer(allow_null=True)


class SystemComparisonSerializer(serializers.Serializer):
    baseline = serializers.CharField()
    samples = serializers.IntegerField(help_text="bootstrap resamples")
    seed = serializers.IntegerField(help_text="bootstrap seed (also draws the human row)")
    split = serializers.CharField()
    filter = serializers.CharField()
    systems = SystemScoreSerializer(many=True)
    human = SystemScoreSerializer(
        allow_null=True, help_text="another description of each source's cluster as output"
    )
    comparisons = serializers.DictField(
        child=MetricComparisonSerializer(), help_text="by system name, against the baseline"
    )


class SystemScoreJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.SerializerMethodField()
    state = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    requested_at = serializers.DateTimeField()
    computed_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True, help_text="how long the scoring took")
    error = serializers.CharField(allow_blank=True)
    parameters = serializers.DictField()
    result = SystemComparisonSerializer(allow_null=True, help_text="when done")

    def get_url(self, job) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("research-api:system-score", args=[job.pk])
        )
