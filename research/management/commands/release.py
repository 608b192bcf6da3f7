from botocore.exceptions import BotoCoreError, ClientError
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from paracrowd.wording import counted
from research.management.filter_options import (
    add_filter_arguments,
    add_split_arguments,
    filter_from_options,
)
from research.releases.options import RELEASE_FORMATS, ReleaseError, ReleaseOptions
from research.releases.services import release_create, release_run
from research.selection import FilterError


class Command(BaseCommand):
    help = (
        "Make the next numbered release of the corpus, here and now: parquet (what "
        "datasets.load_dataset reads) and the other formats asked for, one file per split "
        "(by video), a manifest (counts, every file's SHA-256, the filter, the split, every "
        "score's signature), the dataset card with the site's licence and citation, and the "
        "descriptions added and removed since the release before. A release is written only "
        "to an empty place and never changes. Accepted descriptions only unless --status "
        "says otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--format",
            dest="formats",
            action="append",
            default=[],
            metavar="FORMAT",
            help=f"a format besides parquet, repeatable: {', '.join(RELEASE_FORMATS[1:])}",
        )
        parser.add_argument(
            "--output",
            help="a local folder or s3://bucket/prefix to write to (it must be empty); "
            "default: the site's storage, releases/<number>-<random>, downloadable from the "
            "research page",
        )
        parser.add_argument("--by", help="the username recorded as making the release")
        add_filter_arguments(parser)
        add_split_arguments(parser, references=False)

    def handle(self, *args, formats, output, by, **options):
        try:
            user = get_user_model().objects.get(username=by) if by else None
        except get_user_model().DoesNotExist:
            raise CommandError(f"--by: there is no user {by!r}") from None
        try:
            release_options = ReleaseOptions(
                formats=tuple(formats),
                filter=filter_from_options(options),
                seed=options["seed"],
                test_fraction=options["test_fraction"],
                dev_fraction=options["dev_fraction"],
            )
            release = release_create(user=user, options=release_options, output=output, queue=False)
        except (FilterError, ReleaseError) as error:
            raise CommandError(str(error)) from None
        except (OSError, ValueError, BotoCoreError, ClientError) as error:
            raise CommandError(f"Could not use {output}: {error}") from None
        if release_run(release_id=release.pk) is None:
            release.refresh_from_db()
            raise CommandError(f"Release {release.number} failed: {release.error}")
        release.refresh_from_db()
        for line in release_lines(release):
            self.stdout.write(line)


def release_lines(release) -> list[str]:
    """A finished release in words: where, how much per split, what changed."""
    manifest = release.manifest
    counts = manifest["counts"]
    lines = [
        f"Release {release.number}: {counted(counts['descriptions'], 'description')} in "
        f"{counted(counts['clusters'], 'cluster')} ({', '.join(manifest['formats'])}), "
        f"written to {release.location}."
    ]
    lines += [
        f"  {side}: {counted(sizes['videos'], 'video')}, "
        f"{counted(sizes['clusters'], 'cluster')}, "
        f"{counted(sizes['descriptions'], 'description')}"
        for side, sizes in counts["splits"].items()
    ]
    changes = manifest["changes"]
    if changes["since"] is None:
        lines.append("The first release.")
    else:
        lines.append(f"Since release {changes['since']}:")
        lines += [
            f"  {side}: {n['added']:,} added, {n['removed']:,} removed"
            for side, n in changes["splits"].items()
        ] or ["  nothing changed"]
    return lines
