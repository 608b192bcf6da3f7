"""A destination that remembers, for every file written through it, its size and SHA-256,
taken from the bytes as they are sent (nothing is read back, from disk or from S3)."""

import hashlib
import io
from contextlib import contextmanager

from research.destinations import Destination


class _Hashing(io.RawIOBase):
    """Passes bytes on to ``file`` unchanged, counting and hashing them."""

    def __init__(self, file):
        super().__init__()
        self.file = file
        self.digest = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        self.digest.update(data)
        self.size += size
        self.file.write(data)
        return size

    def tell(self) -> int:
        return self.size


class RecordingDestination(Destination):
    def __init__(self, location, *, s3_client=None, written: dict | None = None):
        super().__init__(location, s3_client=s3_client)
        # Where each file went → (bytes, SHA-256 in hex); shared with the folder's files.
        self.written = {} if written is None else written

    @classmethod
    def of(cls, destination: Destination) -> "RecordingDestination":
        return cls(destination.location, s3_client=destination.s3_client)

    def inside(self, name: str) -> "RecordingDestination":
        return RecordingDestination(self.path(name), s3_client=self.s3_client, written=self.written)

    @contextmanager
    def open(self, name: str | None = None, *, binary: bool = False):
        with super().open(name, binary=True) as file:
            hashing = _Hashing(file)
            if binary:
                yield hashing
            else:
                # As Destination.open writes text: UTF-8, line ends as they are given.
                text = io.TextIOWrapper(io.BufferedWriter(hashing), encoding="utf-8", newline="")
                yield text
                text.close()  # flushes into ``file``, which its own block closes
        self.written[self.path(name)] = (hashing.size, hashing.digest.hexdigest())

    def relative(self, where: str) -> str:
        """``where`` (a path this folder wrote) relative to the folder."""
        return where.removeprefix(self.path().rstrip("/") + "/")
