from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from collector import services


class Command(BaseCommand):
    help = (
        "Offer sentences for direct paraphrasing (Chen & Dolan 2011, §5.3): a seeded sample of "
        "accepted descriptions from the corpus, one per segment, or the sentences of a file. "
        "A refusal names what is wrong (the line, for a file) and stores nothing."
    )

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument(
            "--count", type=int, help="how many descriptions to draw from the corpus"
        )
        source.add_argument(
            "--file",
            type=Path,
            help="UTF-8 text, one sentence per line, or CSV with a “text” (and “language”) column",
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
        parser.add_argument(
            "--tier2-only", action="store_true", help="draw Tier-2 workers' descriptions only"
        )
        parser.add_argument(
            "--language",
            default="",
            help="draw descriptions in this language only; for a file, the sentences' language",
        )

    def handle(self, *args, count, file, seed, tier2_only, language, **options):
        try:
            if file is not None:
                if tier2_only:
                    raise CommandError("--tier2-only chooses from the corpus, not from a file.")
                try:
                    content = file.read_bytes()
                except OSError as error:
                    raise CommandError(f"{file}: {error.strerror}") from None
                choice = services.paraphrase_sources_from_file(
                    content=content, name=file.name, language=language
                )
            else:
                choice = services.paraphrase_sources_from_corpus(
                    count=count, seed=seed, tier2_only=tier2_only, language=language
                )
        except services.WorkRefused as refusal:
            raise CommandError(f"{refusal} Nothing was stored.") from None
        self.stdout.write(f"Offered {len(choice.sources)} sentences for paraphrasing.")
        if file is None and len(choice.sources) < count:
            self.stdout.write(
                f"Only {len(choice.sources)} segments had an accepted description that could be "
                f"chosen (of {count} asked for)."
            )
        if choice.already_offered:
            self.stdout.write(f"{choice.already_offered} were offered before and left out.")
