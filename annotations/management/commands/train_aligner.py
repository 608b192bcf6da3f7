from django.conf import settings
from django.core.management.base import BaseCommand

from annotations.services import aligner_train, pairs_prealign


class Command(BaseCommand):
    help = (
        "Train the automatic aligner on pairings of descriptions within clusters (plus every "
        "word aligned to itself) and pre-align the pairs nobody has annotated yet."
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

    def handle(self, *args, max_pairs, iterations, seed, **options):
        model = aligner_train(max_pairs=max_pairs, seed=seed, iterations=iterations)
        self.stdout.write(f"Trained on {model.training_pairs} sentence pairs.")
        if model.training_pairs < settings.ALIGNER_MIN_TRAINING_PAIRS:
            self.stdout.write(
                f"Fewer than ALIGNER_MIN_TRAINING_PAIRS ({settings.ALIGNER_MIN_TRAINING_PAIRS}): "
                "no pair is pre-aligned with this aligner; annotators start from an empty grid."
            )
            return
        self.stdout.write(f"{pairs_prealign(aligner_model=model)} pairs pre-aligned.")
