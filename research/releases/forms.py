from django import forms

from research.exports import FORMATS
from research.selection import CorpusFilter
from research.splits import DEFAULT_DEV_FRACTION, DEFAULT_SEED, DEFAULT_TEST_FRACTION

from .options import RELEASE_FORMATS, ReleaseError, ReleaseOptions


class ReleaseForm(forms.Form):
    """The research page's release: formats besides parquet and the split by video; the
    corpus filters come from the page's filter form."""

    prefix = "release"  # the export form on the same page has a seed and fractions too

    formats = forms.MultipleChoiceField(
        required=False,
        choices=[(name, f"{name}: {FORMATS[name].description}") for name in RELEASE_FORMATS[1:]],
        widget=forms.CheckboxSelectMultiple,
        label="Formats besides parquet",
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=DEFAULT_SEED)
    test_fraction = forms.FloatField(
        min_value=0.0, max_value=0.99, initial=DEFAULT_TEST_FRACTION, label="Test fraction"
    )
    dev_fraction = forms.FloatField(
        min_value=0.0, max_value=0.99, initial=DEFAULT_DEV_FRACTION, label="Dev fraction"
    )

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            data["options"] = ReleaseOptions(
                formats=tuple(data["formats"]),
                seed=data["seed"],
                test_fraction=data["test_fraction"],
                dev_fraction=data["dev_fraction"],
            )
        except ReleaseError as error:
            self.add_error("dev_fraction", str(error))
        return data

    def options(self, corpus_filter: CorpusFilter) -> ReleaseOptions:
        options = self.cleaned_data["options"]
        return ReleaseOptions(**{**vars(options), "filter": corpus_filter})
