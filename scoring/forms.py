"""The corpus page's request for a reference curve: the sample it is computed on."""

from django import forms


class ReferenceCurveForm(forms.Form):
    # Bounded so that one request cannot ask a worker to score the whole corpus 6 times over.
    language = forms.CharField(label="Language", max_length=40, initial="en")
    clusters = forms.IntegerField(
        label="Clusters sampled", min_value=1, max_value=2000, initial=100
    )
    per_cluster = forms.IntegerField(
        label="Descriptions scored per cluster", min_value=1, max_value=20, initial=3
    )
    seed = forms.IntegerField(label="Seed", min_value=0, max_value=2**31 - 1, initial=0)
