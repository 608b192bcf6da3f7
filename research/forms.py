from django import forms
from django.utils.http import urlencode

from .exports import FORMATS, ExportOptions
from .selection import TIER_UNRECORDED, CorpusFilter, FilterError
from .splits import DEFAULT_DEV_FRACTION, DEFAULT_SEED, DEFAULT_TEST_FRACTION


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
