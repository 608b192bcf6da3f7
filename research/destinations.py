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

    def holds_files(self) -> bool:
        """Whether anything is written here already: a file or a folder that is not empty, or
        on S3 an object at the key or under it as a prefix."""
        if not self.is_s3:
            where = Path(self.location)
            return where.is_file() or (where.is_dir() and any(where.iterdir()))
        bucket, _, key = self.location.removeprefix("s3://").partition("/")
        key = key.rstrip("/")

        def first_key(prefix: str) -> str | None:
            found = self.s3_client.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
            return next((item["Key"] for item in found.get("Contents", [])), None)

        # The key itself, when it exists, comes first of all the keys it begins.
        return first_key(f"{key}/" if key else "") is not None or (
            bool(key) and first_key(key) == key
        )

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
