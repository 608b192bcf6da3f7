"""Loads the demo: four logins (an admin, two workers, a researcher), a hosted clip that plays
offline (offered first) and four YouTube segments (one on the test side of the split)
described by demo writers, and something real behind every page: sentence pairs pre-aligned
by a pre-aligner trained on the demo's own gold, some aligned by three writers,
a rating batch partly rated, sentences to paraphrase and
paraphrases waiting for review, a gold item, a draft campaign, a finished export and a
finished ratings analysis, and the corpus measures computed (annotator agreement, reference
curve, direct paraphrases against descriptions) (demo/loaders, from the hand-written files of
demo/data). Safe to run again: it only adds what is missing. It records the demo's version
when done, so that ``prepare_demo`` (``make run``) loads it again only when it changed."""

from django.core.management.base import BaseCommand
from django.db import transaction

from demo.loaders.accounts import LOGINS, accounts_load
from demo.loaders.alignment import alignment_load, alignments_load
from demo.loaders.corpus import corpus_load
from demo.loaders.research import (
    analysis_load,
    batch_ratings_load,
    export_load,
    rating_batch_load,
)
from demo.loaders.scores import (
    agreement_load,
    paraphrase_comparison_load,
    reference_curve_load,
)
from demo.loaders.segments import segments_load
from demo.loaders.work import campaign_load, paraphrase_sentences_load, paraphrases_load
from demo.version import demo_loaded_record, demo_version


class Command(BaseCommand):
    help = (
        "Load the demo: logins, segments (the offline clip first), the demo writers' "
        "descriptions, and data for every feature (idempotent)."
    )

    def handle(self, *args, **options):
        version = demo_version()
        with transaction.atomic():
            accounts = accounts_load()
            segments = segments_load()
            corpus_load(accounts=accounts, segments=segments)
            alignment_load()
            alignments_load(writers=accounts.writers)
            batch = rating_batch_load(created_by=accounts.researcher)
            batch_ratings_load(batch=batch, writers=accounts.writers)
            paraphrases_load(accounts=accounts)
            paraphrase_sentences_load(chosen_by=accounts.admin)
            campaign_load(created_by=accounts.admin)
        # Outside the transaction above: each job claims its row as a worker would, and reads
        # (or writes files of) the work committed above.
        export_load(researcher=accounts.researcher)
        analysis_load(researcher=accounts.researcher)
        agreement_load()
        reference_curve_load()
        paraphrase_comparison_load()
        demo_loaded_record(version=version)
        self.stdout.write("Demo loaded. Logins:")
        for username, password, role in LOGINS:
            self.stdout.write(f"  {role:<14} {username} / {password}")
