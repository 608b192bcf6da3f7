"""Imported sentence pairs are keyed by their id and their sentences: a corpus may use one id
for different sentence pairs, and each must be kept."""

import hashlib
import json

from django.db import migrations, models


def digest_imported_pairs(apps, schema_editor):
    # As annotations.models.pair_content at the time of writing: a migration keeps its own copy.
    SentencePair = apps.get_model("annotations", "SentencePair")
    pairs = SentencePair.objects.exclude(import_key="").only("tokens_a", "tokens_b")
    changed = []
    for pair in pairs.iterator(chunk_size=2000):
        sentences = json.dumps([list(pair.tokens_a), list(pair.tokens_b)], ensure_ascii=False)
        pair.import_content = hashlib.sha256(sentences.encode("utf-8")).hexdigest()
        changed.append(pair)
        if len(changed) >= 2000:
            SentencePair.objects.bulk_update(changed, ["import_content"])
            changed = []
    SentencePair.objects.bulk_update(changed, ["import_content"])


class Migration(migrations.Migration):

    dependencies = [
        ('annotations', '0004_review_contract'),
        ('crowd', '0007_work_sessions'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='sentencepair',
            name='pair_import_once',
        ),
        migrations.AddField(
            model_name='sentencepair',
            name='import_content',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(digest_imported_pairs, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='sentencepair',
            constraint=models.UniqueConstraint(condition=models.Q(('import_key', ''), _negated=True), fields=('import_key', 'import_content'), name='pair_import_once_per_sentences'),
        ),
    ]
