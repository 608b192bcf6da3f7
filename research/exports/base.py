"""What an export is asked to do, and what it reports back."""

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

from django.conf import global_settings
from django.db.models import Case, CharField, DecimalField, F, Func, Value, When
from django.db.models.functions import Cast, Coalesce

from collector.corpus_formats import LANGUAGE_ALIASES, LANGUAGE_CODES
from collector.provenance import CLEAN, signals_text
from paracrowd.spreadsheets import spreadsheet_cell, spreadsheet_cell_sql
from paracrowd.wording import counted
from research.selection import TYPING_FIELDS, CorpusFilter
from research.splits import (
    DEFAULT_DEV_FRACTION,
    DEFAULT_SEED,
    DEFAULT_TEST_FRACTION,
    SplitOptions,
)

# How often (in descriptions) an export reports progress.
PROGRESS_EVERY = 1000


@dataclass(frozen=True)
class ExportOptions:
    format: str
    filter: CorpusFilter = field(default_factory=CorpusFilter)
    # Paraphrase pairs: how many other descriptions each sentence is paired with; None: all.
    pairs_per_sentence: int | None = None
    seed: int = DEFAULT_SEED
    test_fraction: float = DEFAULT_TEST_FRACTION
    # The split and its test references (see research.splits.SplitOptions).
    dev_fraction: float = DEFAULT_DEV_FRACTION
    tier2_references: bool = False
    source_as_reference: bool = False

    def __post_init__(self):
        if self.pairs_per_sentence is not None and self.pairs_per_sentence < 1:
            raise ValueError("pairs_per_sentence must be at least 1 (or None for all)")
        _ = self.split  # refuses fractions that do not make a split

    @property
    def split(self) -> SplitOptions:
        return SplitOptions(
            seed=self.seed,
            test_fraction=self.test_fraction,
            dev_fraction=self.dev_fraction,
            tier2_references=self.tier2_references,
            source_as_reference=self.source_as_reference,
        )

    def as_dict(self) -> dict:
        return {
            "format": self.format,
            "filter": self.filter.as_dict(),
            "pairs_per_sentence": self.pairs_per_sentence,
            "seed": self.seed,
            "test_fraction": self.test_fraction,
            "dev_fraction": self.dev_fraction,
            "tier2_references": self.tier2_references,
            "source_as_reference": self.source_as_reference,
        }

    @classmethod
    def from_dict(cls, params: dict) -> "ExportOptions":
        return cls(
            format=params["format"],
            filter=CorpusFilter.from_dict(params.get("filter") or {}),
            pairs_per_sentence=params.get("pairs_per_sentence"),
            seed=params.get("seed", DEFAULT_SEED),
            test_fraction=params.get("test_fraction", DEFAULT_TEST_FRACTION),
            dev_fraction=params.get("dev_fraction", DEFAULT_DEV_FRACTION),
            tier2_references=params.get("tier2_references", False),
            source_as_reference=params.get("source_as_reference", False),
        )


@dataclass
class ExportReport:
    """What an export wrote, and what the filters or the format left out (with why)."""

    format: str
    files: dict[str, int] = field(default_factory=dict)  # location → rows (lines, records)
    descriptions: int = 0
    clusters: int = 0
    pairs: int = 0
    aligned_pairs: int | None = None  # set by the alignment formats
    left_out: Counter = field(default_factory=Counter)  # reason → descriptions
    # Split formats: side → {"videos", "clusters", "descriptions"}.
    split_sizes: dict[str, dict[str, int]] = field(default_factory=dict)

    def count_split(self, side: str, video: str, descriptions: int) -> None:
        sizes = self.split_sizes.setdefault(
            side, {"videos": 0, "clusters": 0, "descriptions": 0, "_seen": set()}
        )
        if video not in sizes["_seen"]:
            sizes["_seen"].add(video)
            sizes["videos"] += 1
        sizes["clusters"] += 1
        sizes["descriptions"] += descriptions

    def lines(self) -> list[str]:
        """The report in words, as the command prints it and an export job stores it."""
        if self.aligned_pairs is not None:
            done = [counted(self.aligned_pairs, "aligned sentence pair")]
        else:
            done = [
                f"{counted(self.descriptions, 'description')} in "
                f"{counted(self.clusters, 'cluster')}"
            ]
        if self.pairs:
            done.append(counted(self.pairs, "pair"))
        lines = [f"Exported {', '.join(done)} ({self.format})."]
        lines += [f"  {location}: {counted(rows, 'row')}" for location, rows in self.files.items()]
        lines += [
            f"  {side}: {counted(sizes['videos'], 'video')}, "
            f"{counted(sizes['clusters'], 'cluster')}, "
            f"{counted(sizes['descriptions'], 'description')}"
            for side, sizes in self.public_split_sizes().items()
        ]
        lines += [f"Left out: {n:,} {reason}" for reason, n in self.left_out.items() if n]
        return lines

    def public_split_sizes(self) -> dict[str, dict[str, int]]:
        return {
            side: {k: v for k, v in sizes.items() if k != "_seen"}
            for side, sizes in sorted(self.split_sizes.items())
        }

    def as_dict(self) -> dict:
        return {
            "format": self.format,
            "files": self.files,
            "descriptions": self.descriptions,
            "clusters": self.clusters,
            "pairs": self.pairs,
            "aligned_pairs": self.aligned_pairs,
            "left_out": dict(self.left_out),
            "split_sizes": self.public_split_sizes(),
        }


class Progress:
    """Calls ``report(n)`` every ``PROGRESS_EVERY`` steps, and once more at the end."""

    def __init__(self, report=None):
        self.report = report
        self.pending = 0

    def step(self, n: int = 1) -> None:
        self.pending += n
        if self.report and self.pending >= PROGRESS_EVERY:
            self.report(self.pending)
            self.pending = 0

    def finish(self) -> None:
        if self.report and self.pending:
            self.report(self.pending)
        self.pending = 0


def seconds_text(value: Decimal) -> str:
    """A segment time as the corpus writes it: "5", "4.5", "12.25"."""
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def duration_seconds(value: timedelta | None) -> float | None:
    return None if value is None else value.total_seconds()


def seconds_sql(field: str) -> Cast:
    """``seconds_text`` in SQL, for a decimal column: no trailing zeros, no lone point."""
    return Cast(Func(F(field), function="TRIM_SCALE"), CharField())


def duration_sql(field: str) -> Cast:
    """A duration column as seconds, exact to the microsecond and without trailing zeros
    ("12.345678", "5"); NULL when unknown."""
    epoch = Func(
        F(field), template="EXTRACT(EPOCH FROM %(expressions)s)", output_field=DecimalField()
    )
    return Cast(Func(epoch, function="TRIM_SCALE", output_field=DecimalField()), CharField())


# The language names the MSVD CSV uses ("English"), where the importer reads them back as the
# same code; other codes are written as they are.
_DJANGO_NAMES = {
    code: name
    for code, name in global_settings.LANGUAGES
    if LANGUAGE_CODES.get(name.lower()) == code
}
LANGUAGE_NAMES = {
    **{code: alias.title() for alias, code in LANGUAGE_ALIASES.items()},
    **_DJANGO_NAMES,
}


def language_cell_sql(field: str) -> Coalesce:
    """A language code column as the MSVD CSV's cell, in SQL: the name the importer reads
    back ("English"), looked up in one JSON object (parsed once per query), or the code as it
    is; formula-safe either way (see paracrowd.spreadsheets)."""
    names = {code: spreadsheet_cell(name) for code, name in LANGUAGE_NAMES.items()}
    name = Func(
        Value(json.dumps(names)),
        F(field),
        template="(%(expressions)s)",
        arg_joiner="::jsonb ->> ",
        output_field=CharField(),
    )
    return Coalesce(name, spreadsheet_cell_sql(F(field)), output_field=CharField())


def typing_sql() -> Case:
    """A description's typing signals as one export cell, in SQL, as
    ``collector.provenance.signals_text`` writes them: ``clean``, ``unknown`` or the signals
    joined by ``+``."""
    return Case(
        When(typing_signals=[], then=Value(CLEAN)),
        default=Func(F("typing_signals"), Value("+"), function="ARRAY_TO_STRING"),
        output_field=CharField(),
    )


def typing_record(row) -> dict:
    """A description's typing provenance in a JSON export: the signals as one string (see
    ``typing_sql``) and the task page's counts, null when the page sent none."""
    signals, *figures = (getattr(row, name) for name in TYPING_FIELDS)
    names = [name.removeprefix("typing_") for name in TYPING_FIELDS[1:]]
    return {"signals": signals_text(signals), **dict(zip(names, figures, strict=True))}
