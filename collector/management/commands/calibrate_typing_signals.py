from django.core.management.base import BaseCommand, CommandError

from collector.typing_calibration import CANARY_FOLLOWS, calibrate, calibration_table


class Command(BaseCommand):
    help = (
        "Calibrate the typing signals: simulate honest typists (fast, slow, IME, swipe, phone) "
        "and dishonest writers (pasters, copy-prompt-paste, automation, canary-followers), run "
        "their typing records through the site's own signals, and print per signal the share "
        "of honest texts flagged and of dishonest texts caught, with the thresholds in use "
        "(Markdown; seeded, so the same options print the same table). Reads no database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--seed", type=int, default=0, help="seed of the simulation (default %(default)s)"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=200,
            help="simulated workers in each population (default %(default)s)",
        )
        parser.add_argument(
            "--texts", type=int, default=10, help="texts each worker writes (default %(default)s)"
        )
        parser.add_argument(
            "--canary-follows",
            type=float,
            default=CANARY_FOLLOWS,
            help=(
                "assumed share of a language model's answers that include the canary's marker, "
                "0 to 1 (default %(default)s): an assumption, not a measurement"
            ),
        )

    def handle(self, *args, seed, workers, texts, canary_follows, **options):
        if workers < 1 or texts < 1:
            raise CommandError("--workers and --texts must be at least 1")
        if not 0 <= canary_follows <= 1:
            raise CommandError("--canary-follows must be between 0 and 1")
        result = calibrate(seed=seed, workers=workers, texts=texts, canary_follows=canary_follows)
        self.stdout.write(calibration_table(result))
