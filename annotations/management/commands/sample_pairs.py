from django.core.management.base import BaseCommand, CommandError

from annotations.services import PairFilters, pairs_draw


class Command(BaseCommand):
    help = (
        "Draw sentence pairs for alignment from the descriptions of each cluster (seeded, "
        "filtered by length, length ratio and near-duplicates) and offer them as alignment HITs."
    )

    def add_arguments(self, parser):
        defaults = PairFilters()
        parser.add_argument(
            "--per-cluster",
            type=int,
            default=1,
            help="pairs drawn from each cluster (default %(default)s)",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=0,
            help="seed of the order pairings are tried in (default %(default)s)",
        )
        parser.add_argument(
            "--language", default="en", help="clusters in this language (default %(default)s)"
        )
        parser.add_argument("--no-hits", action="store_true", help="store pairs, offer no HITs")
        parser.add_argument(
            "--min-length",
            type=int,
            default=defaults.min_length,
            help="fewest tokens of the shorter sentence (default %(default)s)",
        )
        parser.add_argument(
            "--max-length",
            type=int,
            default=defaults.max_length,
            help="most tokens of the longer sentence (default %(default)s)",
        )
        parser.add_argument(
            "--max-ratio",
            type=float,
            default=defaults.max_ratio,
            help=(
                "longest allowed ratio of the longer sentence's length to the shorter's "
                "(default %(default)s)"
            ),
        )

    def handle(self, *args, per_cluster, seed, language, no_hits, **options):
        if per_cluster < 1:
            raise CommandError("--per-cluster must be at least 1")
        try:
            filters = PairFilters(
                min_length=options["min_length"],
                max_length=options["max_length"],
                max_ratio=options["max_ratio"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        draw = pairs_draw(
            per_cluster=per_cluster,
            seed=seed,
            language=language,
            open_hits=not no_hits,
            filters=filters,
        )
        pre_aligned = sum(1 for pair in draw.pairs if pair.pre_alignment)
        self.stdout.write(f"{len(draw.pairs)} sentence pairs drawn, {pre_aligned} pre-aligned.")
        self.stdout.write(
            "Dropped: " + ", ".join(f"{reason} {count}" for reason, count in draw.dropped.items())
        )
