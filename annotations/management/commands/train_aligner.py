from django.conf import settings
from django.core.management.base import BaseCommand

from annotations.prealigner import aligner_usable, pairs_prealign, supervised_aligner_train
from annotations.services import aligner_train


class Command(BaseCommand):
    help = (
        "Train the unsupervised aligner on pairings of descriptions within clusters (plus every "
        "word aligned to itself), train the supervised aligner again on the human alignments "
        "when there are ALIGNER_MIN_GOLD_ALIGNMENTS of them (its features use the new model), "
        "and pre-align the pairs nobody has annotated yet with the better of the two. "
        "Imported benchmark test sets (a corpus whose name has the word 'test') are left out "
        "of both unless --include-test-sets."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--max-pairs",
            type=int,
            default=200_000,
            help="most cluster pairings to train on, sampled evenly (default %(default)s)",
        )
        parser.add_argument(
            "--iterations",
            type=int,
            default=5,
            help="training iterations of each model (default %(default)s)",
        )
        parser.add_argument(
            "--seed", type=int, default=0, help="seed of the pairings drawn (default %(default)s)"
        )

        parser.add_argument(
            "--include-test-sets",
            action="store_true",
            help="also learn from imported benchmark test sets (a corpus named with the word "
            "'test', e.g. gold.test or RTE2_test); then the aligner cannot be measured on them",
        )

    def handle(self, *args, max_pairs, iterations, seed, include_test_sets, **options):
        model = aligner_train(
            max_pairs=max_pairs,
            seed=seed,
            iterations=iterations,
            include_test_sets=include_test_sets,
        )
        self.stdout.write(f"Trained on {model.training_pairs} sentence pairs.")
        supervised = supervised_aligner_train(force=True, include_test_sets=include_test_sets)
        if supervised:
            self.stdout.write(
                f"Supervised aligner trained on {supervised.training_pairs} human alignments; "
                f"{supervised.judgement['reason']}."
            )
        usable = aligner_usable()
        if usable is None:
            self.stdout.write(
                f"Fewer than ALIGNER_MIN_TRAINING_PAIRS ({settings.ALIGNER_MIN_TRAINING_PAIRS}): "
                "no pair is pre-aligned with this aligner; annotators start from an empty grid."
            )
            return
        count = pairs_prealign(aligner_model=usable)
        self.stdout.write(f"{count} pairs pre-aligned by the {usable.kind} aligner.")
