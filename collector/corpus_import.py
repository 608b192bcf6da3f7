"""Loading an existing corpus: its segments, its workers and their descriptions.

The rows come from ``collector.corpus_formats``; this module only writes them. Every description
carries its ``import_key`` (format, file, line) and the database refuses a second row with the
same key, so loading the same corpus again adds nothing.
"""

from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction

from crowd.models import Worker

from .corpus_formats import DescriptionRecord, MalformedRow, Row
from .models import Description, Segment
from .services import segments_offer

BATCH_SIZE = 5000

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
    descriptions_new: int = 0
    descriptions_present: int = 0
    hits_opened: int = 0
    skipped: list[MalformedRow] = field(default_factory=list)


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
    ("import", external id) likewise. Descriptions whose ``import_key`` is already stored are
    left alone. Each batch is written in its own transaction, so an interrupted load keeps what
    it wrote and a re-run completes it. Malformed rows are skipped and listed in the report;
    with ``strict`` the first one raises ``CorpusImportRefused`` and the whole load rolls back.
    With ``open_hits`` every segment of the corpus is offered for description in both tiers.
    ``progress`` is called with the number of rows handled after each batch.
    """
    if status not in Description.Status.values:
        raise ValueError(f"status must be one of {', '.join(Description.Status.values)}")
    loader = _CorpusLoader(status=status, strict=strict)
    with transaction.atomic() if strict else nullcontext():
        for rows in _batches(records, batch_size):
            with transaction.atomic():
                loader.load(rows)
            if progress:
                progress(len(rows))
        if open_hits and loader.segment_ids:
            segments = Segment.objects.filter(pk__in=loader.segment_ids.values())
            loader.report.hits_opened = segments_offer(segments=segments)
    return loader.report


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

    def __init__(self, *, status: str, strict: bool):
        self.status = status
        self.strict = strict
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
        self.write_descriptions(records)

    def skip(self, row: MalformedRow) -> None:
        if self.strict:
            raise CorpusImportRefused(row)
        self.report.skipped.append(row)

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
        """The bulk form of ``services.worker_from_platform(platform="import", ...)``."""
        wanted = external_ids - self.worker_ids.keys()
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

    def write_descriptions(self, records: list[DescriptionRecord]) -> None:
        present = set(
            Description.objects.filter(
                import_key__in=[record.import_key for record in records]
            ).values_list("import_key", flat=True)
        )
        descriptions = {}
        for record in records:
            if record.import_key in present or record.import_key in descriptions:
                self.report.descriptions_present += 1
                continue
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
            descriptions[record.import_key] = Description(
                segment_id=self.segment_ids[segment_key(record)],
                worker_id=worker_id,
                tier=record.tier,
                text=record.text,
                language=record.language,
                time_spent=record.time_spent,
                status=self.status,
                import_key=record.import_key,
            )
        Description.objects.bulk_create(descriptions.values(), ignore_conflicts=True)
        self.report.descriptions_new += len(descriptions)


def segment_key(record: DescriptionRecord) -> SegmentKey:
    return (record.youtube_id, record.start, record.end)
