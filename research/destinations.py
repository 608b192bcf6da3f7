"""Where an export goes: a local path or an ``s3://bucket/key`` URL, written as it is produced.

One-file formats write to the location itself; folder formats write named files under it (a
folder, or a key prefix on S3). Writing streams: to S3 as a multipart upload sent in parts of
``S3_PART_SIZE`` bytes, so memory stays flat whatever the size of the corpus. A name ending in
``.gz`` or ``.bz2`` is compressed on the way (smart_open decides by the extension).
"""

from contextlib import contextmanager
from pathlib import Path

import boto3
import smart_open
from django.conf import settings
from django.core.files.storage import default_storage

# S3 takes parts of at least 5 MiB; each open file holds one part in memory.
S3_PART_SIZE = 8 * 1024 * 1024


class Destination:
    def __init__(self, location: str | Path, *, s3_client=None):
        self.location = str(location)
        self.is_s3 = self.location.startswith("s3://")
        if self.is_s3 and len(self.location) <= len("s3://"):
            raise ValueError("an s3:// destination needs a bucket")
        self.s3_client = s3_client

    @classmethod
    def for_url(cls, url: str) -> "Destination":
        """A path, or an s3:// URL reached with boto3 and the EXPORT_S3_* settings."""
        if not str(url).startswith("s3://"):
            return cls(url)
        client = boto3.client(
            "s3",
            endpoint_url=settings.EXPORT_S3_ENDPOINT_URL or None,
            region_name=settings.EXPORT_S3_REGION or None,
        )
        return cls(url, s3_client=client)

    @classmethod
    def in_storage(cls, prefix: str) -> "Destination":
        """A folder of the default storage: under MEDIA_ROOT, or under the media S3 bucket
        (through django-storages' own boto3 client, so its settings apply)."""
        bucket = getattr(default_storage, "bucket_name", None)
        if bucket:
            key = "/".join(part.strip("/") for part in (default_storage.location, prefix) if part)
            client = default_storage.connection.meta.client
            return cls(f"s3://{bucket}/{key}", s3_client=client)
        return cls(default_storage.path(prefix))

    def inside(self, name: str) -> "Destination":
        """The destination of one file in this folder."""
        return Destination(self.path(name), s3_client=self.s3_client)

    def path(self, name: str | None = None) -> str:
        """Where ``name`` (or, for one-file formats, the export itself) is written."""
        if name is None:
            return self.location
        if self.is_s3:
            return f"{self.location.rstrip('/')}/{name}"
        return str(Path(self.location) / name)

    @contextmanager
    def open(self, name: str | None = None, *, binary: bool = False):
        """A file open for writing; on S3 the upload completes when it closes, and an error
        inside the block aborts it (nothing half-written is left behind)."""
        where = self.path(name)
        if self.is_s3:
            transport = {"client": self.s3_client, "min_part_size": S3_PART_SIZE}
        else:
            transport = {}
            Path(where).parent.mkdir(parents=True, exist_ok=True)
        text = {} if binary else {"encoding": "utf-8", "newline": ""}
        with smart_open.open(
            where, "wb" if binary else "w", transport_params=transport, **text
        ) as file:
            yield file
