"""Loading an existing corpus: its segments, its workers and their descriptions.

The rows come from ``collector.corpus_formats``; this module only writes them.

Imports are keyed by content, never by file name: a row is "already present" when a
description with the same text is stored for the same segment (and, when the file names a
worker, by the same worker); anything else is added. Counting is by occurrence, so a cluster in
which two people wrote the same sentence keeps both: the file's n-th row with a given content
is present only when n such descriptions are stored. Re-importing the corpus, or the product's
own export of it, therefore adds nothing, and a file under a known name with new sentences adds
them. ``import_key`` (format, file, line) only records where a description came from.

Rows are staged in a temporary table as they are read (memory stays bounded, whatever the size
of the file), and the comparison with what is stored, and the writing, happen in one
transaction under an advisory lock: two imports at once, or a re-run of an interrupted one,
neither double nor drop a description. No unique constraint can say "at most n copies", so the
lock is what guards it.
"""

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from psycopg2.extras import execute_values

from crowd.models import Worker

from .corpus_formats import DescriptionRecord, MalformedRow, Row
from .models import Description, Segment
from .services import segments_offer

BATCH_SIZE = 5000
# pg_advisory_xact_lock key held while an import compares its rows with the stored ones.
IMPORT_LOCK = 0x636F72707573  # "corpus"
STAGED = "corpus_import_rows"

SegmentKey = tuple[str, object, object]  # (youtube_id, start, end)


class CorpusImportRefused(Exception):
    """A strict import met a row it cannot load; nothing was written."""

    def __init__(self, row: MalformedRow):
        super().__init__(f"{row} (--strict: nothing was imported)")
        self.row = row


@dataclass
class ImportReport:
    """What a load changed. Segments count once each, however many rows name them."""

    rows: int = 0
    segments_new: int = 0
    segments_existing: int = 0
    workers_new: int = 0
    descriptions_added: int = 0
    descriptions_present: int = 0
    hits_opened: int = 0
    refused: list[MalformedRow] = field(default_factory=list)


def corpus_import(
    *,
    records: Iterable[Row],
    status: str = Description.Status.ACCEPTED,
    batch_size: int = BATCH_SIZE,
    strict: bool = False,
    open_hits: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Load ``records`` and say what changed. Safe to run again on the same corpus.

    Segments are matched on (YouTube id, start, end) and created when new; platform workers
    ("import", external id) likewise. Descriptions are matched by content (see the module's
    docstring): what is already stored is counted as present, the rest added. Malformed rows
    are refused and listed in the report with their line and reason; with ``strict`` the first
    one raises ``CorpusImportRefused`` and the whole load rolls back. With ``open_hits`` every
    segment of the corpus is offered for description in both tiers. ``progress`` is called
    with the number of rows handled after each batch.
    """
    if status not in Description.Status.values:
        raise ValueError(f"status must be one of {', '.join(Description.Status.values)}")
    loader = _CorpusLoader(status=status, strict=strict, batch_size=batch_size)
    with transaction.atomic() if strict else nullcontext(), _staging_table():
        for rows in _batches(records, batch_size):
            with transaction.atomic():
                loader.load(rows)
            if progress:
                progress(len(rows))
        with transaction.atomic():
            loader.write_descriptions()
        if open_hits and loader.segment_ids:
            segments = Segment.objects.filter(pk__in=loader.segment_ids.values())
            loader.report.hits_opened = segments_offer(segments=segments)
    return loader.report


@contextmanager
def _staging_table():
    """A temporary table of this connection for the rows read, dropped however the load ends
    (after a failed transaction its rollback, or the end of the session, drops it)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {STAGED}")
        cursor.execute(
            f"CREATE TEMPORARY TABLE {STAGED} ("
            " position bigint PRIMARY KEY, segment_id bigint NOT NULL, worker_id bigint,"
            " text text NOT NULL, language text NOT NULL, tier smallint,"
            " time_spent interval, import_key text NOT NULL, added boolean NOT NULL"
            " DEFAULT false)"
        )
    try:
        yield
    finally:
        if not connection.needs_rollback:
            with connection.cursor() as cursor:
                cursor.execute(f"DROP TABLE IF EXISTS {STAGED}")


def _batches(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class _CorpusLoader:
    """Writes batches of rows, remembering the segments and workers it has already resolved."""

    def __init__(self, *, status: str, strict: bool, batch_size: int = BATCH_SIZE):
        self.status = status
        self.strict = strict
        self.batch_size = batch_size
        self.staged = 0
        self.report = ImportReport()
        self.segment_ids: dict[SegmentKey, int] = {}
        self.worker_ids: dict[str, int] = {}

    def load(self, rows: list[Row]) -> None:
        self.report.rows += len(rows)
        records = []
        for row in rows:
            if isinstance(row, MalformedRow):
                self.skip(row)
            else:
                records.append(row)
        self.resolve_segments({segment_key(record) for record in records})
        self.resolve_workers({r.worker_external_id for r in records if r.worker_external_id})
        self.stage(records)

    def skip(self, row: MalformedRow) -> None:
        if self.strict:
            raise CorpusImportRefused(row)
        self.report.refused.append(row)

    def resolve_segments(self, keys: set[SegmentKey]) -> None:
        wanted = keys - self.segment_ids.keys()
        if not wanted:
            return
        found = self.stored_segments(wanted)
        self.report.segments_existing += len(found)
        missing = wanted - found.keys()
        if missing:
            Segment.objects.bulk_create(
                [
                    Segment(source=Segment.Source.YOUTUBE, youtube_id=y, start=s, end=e)
                    for y, s, e in missing
                ],
                ignore_conflicts=True,
            )
            # ignore_conflicts returns no ids: read them back (a concurrent import may have won).
            created = self.stored_segments(missing)
            self.report.segments_new += len(created)
            found |= created
        self.segment_ids |= found

    @staticmethod
    def stored_segments(keys: set[SegmentKey]) -> dict[SegmentKey, int]:
        stored = Segment.objects.filter(
            source=Segment.Source.YOUTUBE, youtube_id__in={youtube_id for youtube_id, _, _ in keys}
        ).values_list("youtube_id", "start", "end", "pk")
        return {
            (youtube_id, start, end): pk
            for youtube_id, start, end, pk in stored
            if (youtube_id, start, end) in keys
        }

    def resolve_workers(self, external_ids: set[str]) -> None:
        """The bulk form of ``services.worker_from_platform(platform="import", ...)``; the
        site's own workers, as its exports name them, are themselves."""
        wanted = external_ids - self.worker_ids.keys()
        if not wanted:
            return
        found = site_workers(wanted)
        wanted -= found.keys()
        self.worker_ids |= found
        if not wanted:
            return
        found = self.stored_workers(wanted)
        missing = wanted - found.keys()
        if missing:
            user_model = get_user_model()
            usernames = {
                external_id: user_model.normalize_username(
                    f"{Worker.Platform.IMPORT}:{external_id}"
                )
                for external_id in missing
            }
            # make_password(None) is what create_user stores for an account with no password.
            user_model.objects.bulk_create(
                [
                    user_model(username=name, password=make_password(None))
                    for name in usernames.values()
                ],
                ignore_conflicts=True,
            )
            user_ids = dict(
                user_model.objects.filter(username__in=usernames.values()).values_list(
                    "username", "pk"
                )
            )
            Worker.objects.bulk_create(
                [
                    Worker(
                        user_id=user_ids[name],
                        platform=Worker.Platform.IMPORT,
                        external_id=external_id,
                    )
                    for external_id, name in usernames.items()
                ],
                ignore_conflicts=True,
            )
            created = self.stored_workers(missing)
            self.report.workers_new += len(created)
            found |= created
        self.worker_ids |= found

    @staticmethod
    def stored_workers(external_ids: set[str]) -> dict[str, int]:
        return dict(
            Worker.objects.filter(
                platform=Worker.Platform.IMPORT, external_id__in=external_ids
            ).values_list("external_id", "pk")
        )

    def stage(self, records: list[DescriptionRecord]) -> None:
        staged = []
        for record in records:
            worker_id = None
            if record.worker_external_id:
                worker_id = self.worker_ids.get(record.worker_external_id)
                if worker_id is None:
                    # The account name "import:<id>" belongs to a worker of another platform.
                    self.skip(
                        MalformedRow(
                            record.source,
                            record.line,
                            f"no import worker could be made for {record.worker_external_id!r}: "
                            "its account name is taken",
                        )
                    )
                    continue
            self.staged += 1
            staged.append(
                (
                    self.staged,
                    self.segment_ids[segment_key(record)],
                    worker_id,
                    record.text,
                    record.language,
                    record.tier,
                    record.time_spent,
                    record.import_key,
                )
            )
        with connection.cursor() as cursor:
            execute_values(
                cursor.cursor,
                f"""INSERT INTO {STAGED} (position, segment_id, worker_id, text, language, tier,
                time_spent, import_key) VALUES %s""",  # noqa: S608 (our table name; values apart)
                staged,
                page_size=1000,
            )

    def write_descriptions(self) -> None:
        """Mark the staged rows that are not yet stored, then write them, a batch at a time."""
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [IMPORT_LOCK])
            # The n-th staged row with some content is added when fewer than n stored
            # descriptions have it. A row without a worker matches any worker's description.
            cursor.execute(f"ANALYZE {STAGED}")  # temporary tables have no statistics
            cursor.execute(
                f"""
                WITH numbered AS (
                    SELECT position, segment_id, worker_id, text, row_number() OVER (
                        PARTITION BY segment_id, worker_id, text ORDER BY position
                    ) AS occurrence
                    FROM {STAGED}
                ), stored AS (
                    SELECT content.segment_id, content.worker_id, content.text,
                        count(description.id) AS copies
                    FROM (SELECT DISTINCT segment_id, worker_id, text FROM {STAGED}) AS content
                    LEFT JOIN {Description._meta.db_table} AS description
                        ON description.segment_id = content.segment_id
                        AND description.text = content.text
                        AND (content.worker_id IS NULL
                             OR description.worker_id = content.worker_id)
                    GROUP BY content.segment_id, content.worker_id, content.text
                )
                UPDATE {STAGED} AS staged SET added = true
                FROM numbered JOIN stored
                    ON stored.segment_id = numbered.segment_id
                    AND stored.text = numbered.text
                    AND stored.worker_id IS NOT DISTINCT FROM numbered.worker_id
                WHERE staged.position = numbered.position AND numbered.occurrence > stored.copies
                """  # noqa: S608 (table names from this module and the model; no values)
            )
            self.report.descriptions_added = cursor.rowcount
        self.report.descriptions_present = self.staged - self.report.descriptions_added
        after = 0
        while True:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"""SELECT position, segment_id, worker_id, text, language, tier, time_spent,
                    import_key FROM {STAGED} WHERE added AND position > %s
                    ORDER BY position LIMIT %s""",  # noqa: S608 (our table name; values apart)
                    [after, self.batch_size],
                )
                rows = cursor.fetchall()
            if not rows:
                return
            after = rows[-1][0]
            Description.objects.bulk_create(
                Description(
                    segment_id=segment_id,
                    worker_id=worker_id,
                    tier=tier,
                    text=text,
                    language=language,
                    time_spent=time_spent,
                    status=self.status,
                    import_key=import_key,
                )
                for _, segment_id, worker_id, text, language, tier, time_spent, import_key in rows
            )


# How the research exports name a worker of the site: "<platform>-<our id>" (an imported
# corpus's workers keep their own ids, and come back as the import workers they are).
SITE_WORKER_LABEL = re.compile(
    "({})-([0-9]{{1,18}})".format(
        "|".join(p for p in Worker.Platform.values if p != Worker.Platform.IMPORT)
    )
)


def site_workers(labels: set[str]) -> dict[str, int]:
    """The labels that name an existing worker of the site, with that worker's id, so that
    re-importing an export matches the descriptions by the same worker."""
    named = {
        label: (match[1], int(match[2]))
        for label in labels
        if (match := SITE_WORKER_LABEL.fullmatch(label))
    }
    if not named:
        return {}
    existing = set(
        Worker.objects.filter(pk__in={pk for _, pk in named.values()}).values_list("platform", "pk")
    )
    return {label: pk for label, (platform, pk) in named.items() if (platform, pk) in existing}


def segment_key(record: DescriptionRecord) -> SegmentKey:
    return (record.youtube_id, record.start, record.end)
