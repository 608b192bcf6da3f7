"""What a release is asked to hold: its formats, the filter and the split."""

from dataclasses import dataclass, field

from research.exports import ALIGNMENT_FORMATS, FORMATS, ExportOptions
from research.selection import CorpusFilter
from research.splits import (
    DEFAULT_DEV_FRACTION,
    DEFAULT_SEED,
    DEFAULT_TEST_FRACTION,
    SplitOptions,
)

# Parquet is in every release (it is what the datasets library loads); the others are the
# one-file description formats, written once per split.
RELEASE_FORMATS = (
    "parquet",
    *(
        name
        for name, export_format in FORMATS.items()
        if export_format.file_name and name not in ALIGNMENT_FORMATS
    ),
)


class ReleaseError(ValueError):
    """A release that cannot be made as asked; the message says why."""


@dataclass(frozen=True)
class ReleaseOptions:
    formats: tuple[str, ...] = ("parquet",)
    filter: CorpusFilter = field(default_factory=CorpusFilter)
    seed: int = DEFAULT_SEED
    test_fraction: float = DEFAULT_TEST_FRACTION
    dev_fraction: float = DEFAULT_DEV_FRACTION

    def __post_init__(self):
        for name in self.formats:
            if name not in RELEASE_FORMATS:
                raise ReleaseError(
                    f"{name!r} is not a release format; a release holds "
                    f"{', '.join(RELEASE_FORMATS)} (parquet always)"
                )
        chosen = {"parquet", *self.formats}
        object.__setattr__(self, "formats", tuple(f for f in RELEASE_FORMATS if f in chosen))
        try:
            _ = self.split
        except ValueError as error:
            raise ReleaseError(str(error)) from None

    @property
    def split(self) -> SplitOptions:
        return SplitOptions(
            seed=self.seed, test_fraction=self.test_fraction, dev_fraction=self.dev_fraction
        )

    def export(self, name: str, corpus_filter: CorpusFilter | None = None) -> ExportOptions:
        """The export options of one of the release's formats (over ``corpus_filter``, one
        split's part of the filter, when given)."""
        return ExportOptions(
            format=name,
            filter=corpus_filter or self.filter,
            seed=self.seed,
            test_fraction=self.test_fraction,
            dev_fraction=self.dev_fraction,
        )

    def as_dict(self) -> dict:
        return {
            "formats": list(self.formats),
            "filter": self.filter.as_dict(),
            "seed": self.seed,
            "test_fraction": self.test_fraction,
            "dev_fraction": self.dev_fraction,
        }

    @classmethod
    def from_dict(cls, params: dict) -> "ReleaseOptions":
        return cls(
            formats=tuple(params["formats"]),
            filter=CorpusFilter.from_dict(params.get("filter") or {}),
            seed=params.get("seed", DEFAULT_SEED),
            test_fraction=params.get("test_fraction", DEFAULT_TEST_FRACTION),
            dev_fraction=params.get("dev_fraction", DEFAULT_DEV_FRACTION),
        )
