from pathlib import PurePath

from django import forms
from django.utils.http import urlencode

from paracrowd_metrics.correlation import DEFAULT_RESAMPLES
from paracrowd_metrics.ratings import DIMENSIONS, SINGLE, RatingError
from paracrowd_metrics.significance import DEFAULT_SAMPLES
from scoring.services import combined_parameters

from .correlation import (
    CONSENSUS_LABELS,
    DRAWS_MAX,
    FOLDS_MAX,
    RATINGS_TEXT_MAX,
    RESAMPLES_MAX,
    ConsensusError,
    analysis_options,
    correlation_parameters,
)
from .exports import FORMATS, ExportOptions
from .selection import TIER_UNRECORDED, CorpusFilter, FilterError
from .serializers import SYSTEM_NAME_MAX, SYSTEM_PAIRS_MAX, SYSTEMS_MAX, TEXT_MAX
from .splits import DEFAULT_DEV_FRACTION, DEFAULT_SEED, DEFAULT_TEST_FRACTION, SplitOptions
from .system_comparison import HUMAN, SystemOutputs, job_parameters, job_systems
from .system_scoring import system_tsv


class FilterForm(forms.Form):
    """The corpus filters on the researcher page (the API takes several values of each)."""

    language = forms.CharField(
        required=False, max_length=40, help_text="a language code, such as en; empty for all"
    )
    tier = forms.ChoiceField(
        required=False,
        choices=[
            ("", "Any tier"),
            ("1", "Tier 1"),
            ("2", "Tier 2"),
            (TIER_UNRECORDED, "Not recorded"),
        ],
    )
    status = forms.ChoiceField(
        choices=[
            ("accepted", "Accepted"),
            ("pending", "Pending review"),
            ("rejected", "Rejected"),
            ("all", "Any status"),
        ],
        initial="accepted",
        required=False,
    )
    since = forms.DateField(
        required=False, label="Created on or after", widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False, label="Created on or before", widget=forms.DateInput(attrs={"type": "date"})
    )
    min_cluster_size = forms.IntegerField(
        required=False, min_value=1, max_value=100_000, label="Smallest cluster"
    )

    def clean(self):
        data = super().clean()
        params = {name: [str(data[name])] for name in CorpusFilter.PARAMETERS if data.get(name)}
        try:
            data["corpus_filter"] = CorpusFilter.from_params(lambda name: params.get(name, []))
        except FilterError as error:
            name, _, message = str(error).partition(": ")
            self.add_error(name if name in self.fields else None, message)
        return data

    def query_string(self) -> str:
        """The valid filters as a query string, to come back to the same view of the corpus."""
        if not self.is_valid():
            return ""
        return urlencode(
            {name: self.cleaned_data[name] for name in self.fields if self.cleaned_data.get(name)}
        )

    def corpus_filter(self) -> CorpusFilter:
        return self.cleaned_data["corpus_filter"] if self.is_valid() else CorpusFilter()


class ExportForm(forms.Form):
    format = forms.ChoiceField(
        choices=[(name, f"{name}: {format.description}") for name, format in FORMATS.items()]
    )
    pairs_per_sentence = forms.ChoiceField(
        choices=[("all", "all"), ("1", "1"), ("5", "5"), ("10", "10")],
        initial="all",
        label="Pairs per sentence",
        help_text="pairs and split: how many other descriptions each sentence is paired with",
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=DEFAULT_SEED)
    test_fraction = forms.FloatField(
        min_value=0.0,
        max_value=0.99,
        initial=DEFAULT_TEST_FRACTION,
        label="Test fraction",
        help_text="split and parquet: the share of videos drawn into the test split",
    )
    dev_fraction = forms.FloatField(
        required=False,
        min_value=0.0,
        max_value=0.99,
        initial=DEFAULT_DEV_FRACTION,
        label="Dev fraction",
        help_text="split and parquet: the share of videos drawn into a dev split (0: none)",
    )
    tier2_references = forms.BooleanField(
        required=False,
        label="Test references from Tier 2 only",
        help_text="split: score test sentences against their cluster's Tier-2 descriptions",
    )
    source_as_reference = forms.BooleanField(
        required=False,
        label="Source as a reference",
        help_text="split: each test sentence is also a reference for itself",
    )

    def clean(self):
        data = super().clean()
        if (data.get("test_fraction") or 0) + (data.get("dev_fraction") or 0) >= 1:
            self.add_error("dev_fraction", "Test and dev fractions together must stay below 1.")
        return data

    def options(self, corpus_filter: CorpusFilter) -> ExportOptions:
        data = self.cleaned_data
        per_sentence = data["pairs_per_sentence"]
        return ExportOptions(
            format=data["format"],
            filter=corpus_filter,
            pairs_per_sentence=None if per_sentence == "all" else int(per_sentence),
            seed=data["seed"],
            test_fraction=data["test_fraction"],
            dev_fraction=data["dev_fraction"] or 0.0,
            tier2_references=data["tier2_references"],
            source_as_reference=data["source_as_reference"],
        )


# Outputs the page takes: one TSV file per system, each at most this large.
SYSTEM_FILE_MAX_BYTES = 1_000_000


class SystemFilesInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class SystemFilesField(forms.FileField):
    """Several files in one input; each is checked as a file of its own."""

    def __init__(self, **kwargs):
        kwargs.setdefault("widget", SystemFilesInput(attrs={"accept": ".tsv,.txt"}))
        super().__init__(**kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else [data]
        return [super(SystemFilesField, self).clean(file, initial) for file in files]


class SystemComparisonForm(forms.Form):
    """Several systems' outputs, one TSV file each (source, output and optionally segment id
    per line, as score_system reads them), named after their files, for one scoring job."""

    outputs = SystemFilesField(
        label="System outputs",
        help_text="one TSV file per system (source<TAB>output[<TAB>segment_id]), opening "
        "with any '# learned-from:' lines paraphrase writes; "
        f"up to {SYSTEMS_MAX} files of {SYSTEM_PAIRS_MAX:,} lines",
    )
    baseline = forms.CharField(
        required=False,
        max_length=SYSTEM_NAME_MAX,
        help_text="the file name (without .tsv) the others are compared with; the first if empty",
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=DEFAULT_SEED)
    test_fraction = forms.FloatField(
        min_value=0.01, max_value=0.99, initial=DEFAULT_TEST_FRACTION, label="Test fraction"
    )
    tier2_references = forms.BooleanField(required=False, label="Test references from Tier 2 only")
    source_as_reference = forms.BooleanField(required=False, label="Source as a reference")

    def __init__(self, *args, **kwargs):
        # The research page shows this form beside the export form, whose fields share some
        # names: ids of their own keep every label pointing at its own control.
        kwargs.setdefault("auto_id", "id_compare_%s")
        super().__init__(*args, **kwargs)

    def clean(self):
        data = super().clean()
        files = data.get("outputs") or []
        if len(files) > SYSTEMS_MAX:
            self.add_error("outputs", f"Compare at most {SYSTEMS_MAX} systems at once.")
            return data
        systems = []
        for file in files:
            name = PurePath(file.name).stem[:SYSTEM_NAME_MAX]
            if file.size > SYSTEM_FILE_MAX_BYTES:
                self.add_error("outputs", f"{name}: larger than {SYSTEM_FILE_MAX_BYTES:,} bytes.")
                return data
            try:
                pairs, learned_from = system_tsv(file.read().decode("utf-8"), name)
            except UnicodeDecodeError:
                self.add_error("outputs", f"{name}: not UTF-8 text.")
                return data
            except ValueError as error:
                self.add_error("outputs", str(error))
                return data
            if not 1 <= len(pairs) <= SYSTEM_PAIRS_MAX:
                self.add_error("outputs", f"{name}: give 1 to {SYSTEM_PAIRS_MAX:,} pairs.")
                return data
            if any(len(p.source) > TEXT_MAX or len(p.output) > TEXT_MAX for p in pairs):
                self.add_error("outputs", f"{name}: a sentence is over {TEXT_MAX:,} characters.")
                return data
            systems.append(SystemOutputs(name=name, pairs=pairs, learned_from=learned_from))
        names = [system.name for system in systems]
        if len(set(names)) < len(names) or HUMAN in names:
            self.add_error("outputs", "Give each system's file a name of its own.")
            return data
        baseline = data.get("baseline") or (names[0] if names else "")
        if names and baseline not in names:
            self.add_error("baseline", f"Name one of the files: {', '.join(names)}.")
        data["systems"] = systems
        data["baseline"] = baseline
        return data

    def job(self, corpus_filter: CorpusFilter) -> tuple[list[dict], dict]:
        """The systems and parameters of the scoring job the valid form asks for."""
        data = self.cleaned_data
        split = SplitOptions(
            seed=data["seed"],
            test_fraction=data["test_fraction"],
            tier2_references=data["tier2_references"],
            source_as_reference=data["source_as_reference"],
        )
        centre, slope = combined_parameters()
        parameters = job_parameters(
            baseline=data["baseline"],
            corpus_filter=corpus_filter,
            split=split,
            centre=centre,
            slope=slope,
            samples=DEFAULT_SAMPLES,
            bootstrap_seed=0,
            per_pair=False,
        )
        return job_systems(data["systems"]), parameters


class CorrelationForm(forms.Form):
    """A ratings CSV and the analysis options, as correlate_ratings takes them."""

    ratings = forms.FileField(
        label="Ratings CSV",
        help_text="source, candidate, rating (or semantic, dissimilarity, overall), references "
        "joined with ' ||| ' or a cluster (segment id); optionally judge and language",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.txt"}),
    )
    references = forms.CharField(
        initial="1,2,4,8,16,all", label="Reference counts", help_text="of the curve"
    )
    with_source = forms.BooleanField(required=False, label="Also with the source as a reference")
    dimension = forms.ChoiceField(
        required=False,
        choices=[("", "Every dimension"), *[(d, d) for d in (*DIMENSIONS, SINGLE)]],
    )
    folds = forms.IntegerField(min_value=2, max_value=FOLDS_MAX, initial=5)
    draws = forms.IntegerField(min_value=1, max_value=DRAWS_MAX, initial=10)
    bootstrap = forms.IntegerField(
        min_value=0, max_value=RESAMPLES_MAX, initial=DEFAULT_RESAMPLES, label="Resamples"
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=1)
    meteor = forms.BooleanField(required=False, initial=True, label="METEOR-style row")
    consensus = forms.ChoiceField(
        choices=CONSENSUS_LABELS.items(),
        initial="mean",
        required=False,
        label="Combine a pair's judges by",
        help_text="Dawid–Skene needs the judge column and ratings on a scale of at most 21 "
        "steps; the result then gives each judge's reliability",
    )

    def clean_consensus(self):
        # Left out, as by a form posted before the choice existed: the judges' mean.
        return self.cleaned_data["consensus"] or "mean"

    def clean(self):
        data = super().clean()
        file = data.get("ratings")
        if file is None or self.errors:
            return data
        name = PurePath(file.name).name[:200]
        if file.size > RATINGS_TEXT_MAX:
            self.add_error("ratings", f"{name}: larger than {RATINGS_TEXT_MAX:,} bytes.")
            return data
        try:
            text = file.read().decode("utf-8")
        except UnicodeDecodeError:
            self.add_error("ratings", f"{name}: not UTF-8 text.")
            return data
        try:
            data["parameters"] = correlation_parameters(
                text=text,
                name=name,
                options=analysis_options(data),
                dimension=data["dimension"] or None,
                meteor=data["meteor"],
                consensus=data["consensus"],
            )
        except ConsensusError as error:
            self.add_error("consensus", str(error))
            return data
        except (RatingError, ValueError) as error:
            self.add_error("references" if "--references" in str(error) else "ratings", str(error))
            return data
        data["name"], data["text"] = name, text
        return data
