"""The stored agreement report keys its per-annotator sums and edit models by the annotator's
name, which for a worker changed from the username (or platform id) to ``Worker.label``. A
stored report would mix old and new names as pairs are updated one by one, so it is marked
not computed: the next update or the periodic sweep (``agreement_refresh``) then recomputes
every pair under the new names. Going back does the same, for the old names."""

from django.db import migrations


def mark_not_computed(apps, schema_editor):
    AgreementReport = apps.get_model("annotations", "AgreementReport")
    PairAgreement = apps.get_model("annotations", "PairAgreement")
    PairAgreement.objects.all().delete()
    AgreementReport.objects.update(
        table=None,
        totals=None,
        edit_models={},
        through_alignment=0,
        computed_at=None,
        calibrated_at=None,
        seconds=None,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0009_aligner_identical_words"),
    ]

    operations = [
        migrations.RunPython(mark_not_computed, mark_not_computed),
    ]
