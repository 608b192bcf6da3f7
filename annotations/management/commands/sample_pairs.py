from django.core.management.base import BaseCommand, CommandError

from annotations.services import pairs_sample


class Command(BaseCommand):
    help = (
        "Draw sentence pairs for alignment from the descriptions of each cluster (seeded, "
        "skipping near-identical pairs) and offer them as alignment HITs."
    )

    def add_arguments(self, parser):
        parser.add_argument("--per-cluster", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--language", default="en")
        parser.add_argument("--no-hits", action="store_true", help="store pairs, offer no HITs")

    def handle(self, *args, per_cluster, seed, language, no_hits, **options):
        if per_cluster < 1:
            raise CommandError("--per-cluster must be at least 1")
        pairs = pairs_sample(
            per_cluster=per_cluster, seed=seed, language=language, open_hits=not no_hits
        )
        pre_aligned = sum(1 for pair in pairs if pair.pre_alignment)
        self.stdout.write(f"{len(pairs)} sentence pairs drawn, {pre_aligned} pre-aligned.")
