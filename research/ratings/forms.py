"""The form that makes a rating batch on the ratings page."""

from django import forms

from ..models import RatingBatch, SystemScoreJob
from .batches import (
    MAX_ITEMS,
    MAX_JUDGES,
    BatchRefused,
    items_from_corpus,
    items_from_csv,
    items_from_system,
)

# Scoring jobs offered as sources of items: the newest this many the researcher may see.
JOBS_OFFERED = 50
MAX_FILE_BYTES = 5 * 1024 * 1024


class RatingBatchForm(forms.Form):
    name = forms.CharField(max_length=200)
    origin = forms.ChoiceField(
        choices=RatingBatch.Origin.choices, widget=forms.RadioSelect, label="Items come from"
    )
    language = forms.CharField(max_length=16, initial="en", help_text="a language code, such as en")
    judges = forms.IntegerField(
        min_value=1, max_value=MAX_JUDGES, initial=2, label="Judges per item"
    )
    system = forms.CharField(
        required=False,
        max_length=100,
        label="System label",
        help_text="the system whose outputs these are; for corpus pairs, human",
    )
    show_video = forms.BooleanField(
        required=False, label="Show judges the video of the item's cluster"
    )
    count = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ITEMS,
        initial=100,
        label="Pairs to draw (corpus)",
    )
    seed = forms.IntegerField(required=False, initial=0, label="Seed (corpus)")
    file = forms.FileField(
        required=False,
        label="CSV file (upload)",
        help_text="columns source, candidate, and optionally cluster (a segment id) and language",
    )
    job_system = forms.ChoiceField(
        required=False, label="Scoring job and system (a system's outputs)"
    )

    def __init__(self, *args, jobs=None, **kwargs):
        super().__init__(*args, **kwargs)
        jobs = (jobs if jobs is not None else SystemScoreJob.objects.none())[:JOBS_OFFERED]
        self.jobs = {job.pk: job for job in jobs}
        self.fields["job_system"].choices = [("", "—")] + [
            (f"{job.pk}:{name}", f"Job {job.pk} · {name}")
            for job in self.jobs.values()
            for name in job.system_names
        ]

    def clean(self):
        data = super().clean()
        origin, language = data.get("origin"), data.get("language")
        if not origin or not language:
            return data
        try:
            data["items"] = self._items(origin, language, data)
        except BatchRefused as refusal:
            self.add_error(self._field_of(origin), str(refusal))
        return data

    def _items(self, origin, language, data):
        if origin == RatingBatch.Origin.CORPUS:
            if data.get("count") is None:
                raise BatchRefused("Say how many pairs to draw.")
            data["system"] = data.get("system") or "human"
            return items_from_corpus(language=language, count=data["count"], seed=data["seed"] or 0)
        if origin == RatingBatch.Origin.UPLOAD:
            upload = data.get("file")
            if upload is None:
                raise BatchRefused("Choose a CSV file to upload.")
            if upload.size > MAX_FILE_BYTES:
                raise BatchRefused("The file is larger than 5 MB.")
            try:
                text = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise BatchRefused(f"{upload.name} is not UTF-8 text.") from None
            return items_from_csv(text, language=language, name=upload.name)
        job_id, _, name = (data.get("job_system") or "").partition(":")
        if not name:
            raise BatchRefused("Choose a scoring job and one of its systems.")
        data["system"] = data.get("system") or name
        return items_from_system(job=self.jobs[int(job_id)], system=name, language=language)

    @staticmethod
    def _field_of(origin) -> str:
        return {
            RatingBatch.Origin.CORPUS: "count",
            RatingBatch.Origin.UPLOAD: "file",
            RatingBatch.Origin.SYSTEM: "job_system",
        }[origin]
