from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from paracrowd.wording import counted
from research.models import RatingBatch, SystemScoreJob
from research.ratings.batches import (
    BatchRefused,
    items_from_corpus,
    items_from_csv,
    items_from_system,
    rating_batch_create,
)
from research.ratings.exports import ratings_csv_write


class Command(BaseCommand):
    help = (
        "Offer paraphrases to judges as a rating batch (each item rated 1–4 on semantic "
        "equivalence, dissimilarity and overall by --judges workers, in Tier 1). Items come "
        "from exactly one of: --csv FILE (columns source, candidate[, cluster][, language]), "
        "--corpus N (N seeded pairs of descriptions of one cluster), or --job ID --job-system "
        "NAME (a stored scoring job's outputs of one system). With --export BATCH, write that "
        "batch's ratings as CSV instead (to --output, or standard output)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", help="the batch's name")
        parser.add_argument("--by", help="username of the researcher or staff member asking")
        parser.add_argument(
            "--language", default="en", help="the items' language (default %(default)s)"
        )
        parser.add_argument(
            "--judges", type=int, default=2, help="judges wanted per item (default %(default)s)"
        )
        parser.add_argument("--system", default="", help="label of the system rated")
        parser.add_argument(
            "--show-video", action="store_true", help="show judges the video of the item's cluster"
        )
        parser.add_argument(
            "--csv",
            type=Path,
            help="items from a CSV with the columns source, candidate[, cluster][, language]",
        )
        parser.add_argument(
            "--corpus",
            type=int,
            metavar="N",
            help="items: N seeded pairs of two descriptions of one cluster",
        )
        parser.add_argument(
            "--seed", type=int, default=0, help="seed of the --corpus draw (default %(default)s)"
        )
        parser.add_argument(
            "--job", type=int, help="items: the outputs of a stored scoring job (with --job-system)"
        )
        parser.add_argument("--job-system", help="the system of --job whose outputs are rated")
        parser.add_argument(
            "--export", type=int, metavar="BATCH", help="write this batch's ratings as CSV instead"
        )
        parser.add_argument(
            "--output", type=Path, help="--export: the CSV file to write (default: standard output)"
        )

    def handle(self, *args, **options):
        if options["export"] is not None:
            return self._export(options["export"], options["output"])
        chosen = [o for o in ("csv", "corpus", "job") if options[o] is not None]
        if len(chosen) != 1:
            raise CommandError("Give exactly one of --csv, --corpus and --job.")
        if not options["name"] or not options["by"]:
            raise CommandError("Give the batch a --name and say who asks for it with --by.")
        user = get_user_model().objects.filter(username=options["by"]).first()
        if user is None:
            raise CommandError(f"There is no user {options['by']!r}.")
        language, system = options["language"], options["system"]
        try:
            if options["csv"] is not None:
                origin = "upload"
                items = items_from_csv(
                    _read(options["csv"]), language=language, name=str(options["csv"])
                )
            elif options["corpus"] is not None:
                origin, system = "corpus", system or "human"
                items = items_from_corpus(
                    language=language, count=options["corpus"], seed=options["seed"]
                )
            else:
                origin = "system"
                job = SystemScoreJob.objects.filter(pk=options["job"]).first()
                if job is None:
                    raise CommandError(f"There is no scoring job {options['job']}.")
                if not options["job_system"]:
                    raise CommandError(f"Name one of {job.system_names} with --job-system.")
                system = system or options["job_system"]
                items = items_from_system(job=job, system=options["job_system"], language=language)
            batch = rating_batch_create(
                name=options["name"],
                origin=origin,
                language=language,
                items=items,
                created_by=user,
                system=system,
                judges=options["judges"],
                show_video=options["show_video"],
            )
        except BatchRefused as refusal:
            raise CommandError(str(refusal)) from None
        self.stdout.write(
            f"Batch {batch.pk} ({batch.name}): {counted(len(items), 'item')} offered to "
            f"{counted(batch.judges, 'judge')} each."
        )

    def _export(self, batch_id: int, output: Path | None):
        batch = RatingBatch.objects.filter(pk=batch_id).first()
        if batch is None:
            raise CommandError(f"There is no rating batch {batch_id}.")
        if output is None:
            ratings_csv_write(self.stdout, batch)
            return
        with output.open("w", encoding="utf-8", newline="") as file:
            rows = ratings_csv_write(file, batch)
        self.stderr.write(f"{counted(rows, 'rating')} written to {output}.")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"{path}: cannot be read as UTF-8 text ({error}).") from None
