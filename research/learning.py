"""Learning from the corpus without seeing its test clusters: which sides of the split a
learner (a paraphrase table, a language model) learns from, what it records of them, and
whether a system scored on the test split learned from the clusters it is scored on.

A learner takes the sides it may learn from (train by default) and the split's definition
(seed, test and dev fractions; ``research.splits``). What it learned carries a *learned-from
record*: the sides, the definition, how many clusters, and a digest of which. Because a side is
drawn from the video alone, a record tells for any video whether the learner could have seen it
(``LearnedFrom.saw``), whatever split the system is later scored on. A record counts the
videos of its sides as they were drawn, not as they were stored: a cluster added after the
learning, on a learned side, counts as seen.
"""

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from collector.models import Segment
from paracrowd.wording import counted

from .splits import (
    DEFAULT_DEV_FRACTION,
    DEFAULT_SEED,
    DEFAULT_TEST_FRACTION,
    SPLITS,
    SplitOptions,
    video_key,
)

DEFAULT_LEARNING_SPLITS = ("train",)
EVERY_SPLIT = "all"
# How a learned-from record is declared at the top of a system's outputs (TSV).
DECLARATION_PREFIX = "# learned-from: "
# How it is kept in a paraphrase table's gzip header comment.
TABLE_COMMENT_PREFIX = "paracrowd learned-from "


def parse_splits(text: str) -> tuple[str, ...]:
    """``"train"``, ``"train,dev"`` or ``"all"`` as sides in split order; ValueError naming a
    side that is not one."""
    names = {name.strip() for name in text.split(",") if name.strip()}
    if names == {EVERY_SPLIT}:
        return SPLITS
    unknown = sorted(names - set(SPLITS))
    if unknown or not names:
        raise ValueError(
            f"--splits: {', '.join(unknown) or 'nothing'} is not a side of the split; give "
            f"{', '.join(SPLITS)} (comma-separated) or {EVERY_SPLIT}"
        )
    return tuple(side for side in SPLITS if side in names)


@dataclass(frozen=True)
class LearnedFrom:
    """What one learned part of a system (``what``: "paraphrase table", "language model") was
    learned from. ``splits`` None: it records nothing (an older table, or one from elsewhere)."""

    what: str
    splits: tuple[str, ...] | None = None
    seed: int = DEFAULT_SEED
    test_fraction: float = DEFAULT_TEST_FRACTION
    dev_fraction: float = DEFAULT_DEV_FRACTION
    clusters: int = 0
    # The first 16 hex digits of the SHA-256 of the sorted cluster names learned from.
    digest: str = ""

    @property
    def split(self) -> SplitOptions:
        return SplitOptions(
            seed=self.seed, test_fraction=self.test_fraction, dev_fraction=self.dev_fraction
        )

    def saw(self, video: str) -> bool | None:
        """Whether the video keyed ``video`` was on a side learned from; None: unrecorded."""
        if self.splits is None:
            return None
        return self.split.side(video) in self.splits

    def describe(self) -> str:
        """What it was learned from, in words: "train (by video, seed 0, …; 12 clusters,
        digest …)", or "no recorded splits"."""
        if self.splits is None:
            return "no recorded splits"
        return (
            f"{', '.join(self.splits)} ({self.split.describe()}; "
            f"{counted(self.clusters, 'cluster')}, "
            f"digest {self.digest or '—'})"
        )

    def as_dict(self) -> dict:
        return {
            "what": self.what,
            "splits": None if self.splits is None else list(self.splits),
            "seed": self.seed,
            "test_fraction": self.test_fraction,
            "dev_fraction": self.dev_fraction,
            "clusters": self.clusters,
            "digest": self.digest,
        }

    @classmethod
    def from_dict(cls, data) -> "LearnedFrom":
        """The inverse of ``as_dict``; ValueError saying what is wrong with a bad record."""
        if not isinstance(data, dict) or not isinstance(data.get("what"), str):
            raise ValueError("a learned-from record is an object with at least a 'what'")
        splits = data.get("splits")
        try:
            if splits is not None:
                if not isinstance(splits, list) or not all(isinstance(s, str) for s in splits):
                    raise ValueError("'splits' is a list of train, dev, test (or null)")
                splits = parse_splits(",".join(splits))
            record = cls(
                what=data["what"][:100],
                splits=splits,
                seed=int(data.get("seed", DEFAULT_SEED)),
                test_fraction=float(data.get("test_fraction", DEFAULT_TEST_FRACTION)),
                dev_fraction=float(data.get("dev_fraction", DEFAULT_DEV_FRACTION)),
                clusters=int(data.get("clusters", 0)),
                digest=str(data.get("digest", ""))[:64],
            )
            _ = record.split  # refuses fractions that make no split
        except (TypeError, ValueError) as error:
            raise ValueError(f"a learned-from record: {error}") from None
        return record

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "LearnedFrom":
        try:
            data = json.loads(text)
        except ValueError:
            raise ValueError("a learned-from record is not JSON") from None
        return cls.from_dict(data)


@dataclass
class LearningSplits:
    """The sides a learner learns from, and the names of the clusters it took, for its record.

    ``takes(video)`` says whether a cluster of that video may be learned from; ``take`` also
    notes the cluster (by video, segment and language) in the digest."""

    splits: tuple[str, ...] = DEFAULT_LEARNING_SPLITS
    split: SplitOptions = field(default_factory=SplitOptions)
    taken: set[str] = field(default_factory=set)

    def takes(self, video: str | None) -> bool:
        """``video`` None: a cluster whose video is unknown, which only ``all`` takes."""
        if video is None:
            return self.splits == SPLITS
        return self.split.side(video) in self.splits

    def take(self, video: str | None, segment, language: str) -> bool:
        if not self.takes(video):
            return False
        self.taken.add(f"{video}|{segment}|{language}")
        return True

    def learned_from(self, what: str) -> LearnedFrom:
        digest = hashlib.sha256("\n".join(sorted(self.taken)).encode()).hexdigest()[:16]
        return LearnedFrom(
            what=what,
            splits=self.splits,
            seed=self.split.seed,
            test_fraction=self.split.test_fraction,
            dev_fraction=self.split.dev_fraction,
            clusters=len(self.taken),
            digest=digest,
        )


@dataclass(frozen=True)
class Leakage:
    """Whether a system's learned parts saw the clusters it was scored on."""

    # True: some part saw some scored cluster; False: every part records its splits and none
    # did; None: nothing declared, or a part records no splits and none that records saw any.
    saw_scored_clusters: bool | None
    warnings: tuple[str, ...] = ()


def leakage(learned_from: Sequence[LearnedFrom], scored_videos: Iterable[str]) -> Leakage:
    """Check each learned part against the videos of the scored sources (one per source)."""
    videos = list(scored_videos)
    warnings, saw, unknown = [], False, not learned_from
    for record in learned_from:
        if record.splits is None:
            unknown = True
            warnings.append(
                f"the {record.what} records no splits: whether it saw the scored clusters "
                "cannot be told"
            )
            continue
        seen = sum(1 for video in videos if record.saw(video))
        if seen:
            saw = True
            warnings.append(
                f"test leakage: the {record.what} was learned from {', '.join(record.splits)} "
                f"({record.split.describe()}) and saw the clusters of {seen:,} of the "
                f"{len(videos):,} scored sources"
            )
    return Leakage(
        saw_scored_clusters=True if saw else (None if unknown else False), warnings=tuple(warnings)
    )


def declarations(text: str, name: str) -> tuple[list[LearnedFrom], int]:
    """The learned-from records declared on the first lines of a system's outputs
    (``# learned-from: {json}``), and how many lines they take; ValueError naming ``name``
    and the line of a malformed one."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith(DECLARATION_PREFIX):
            return found, number - 1
        try:
            found.append(LearnedFrom.from_json(line[len(DECLARATION_PREFIX) :]))
        except ValueError as error:
            raise ValueError(f"{name}:{number}: {error}") from None
    return found, len(found)


def declaration_line(record: LearnedFrom) -> str:
    return DECLARATION_PREFIX + record.to_json()


def table_comment(record: LearnedFrom) -> str:
    """The record as a paraphrase table's gzip header comment (ASCII: gzip's is Latin-1)."""
    return TABLE_COMMENT_PREFIX + json.dumps(record.as_dict(), sort_keys=True, ensure_ascii=True)


def table_learned_from(comment: str) -> LearnedFrom:
    """The record of a table's header comment; a table without one records no splits."""
    if comment.startswith(TABLE_COMMENT_PREFIX):
        try:
            return LearnedFrom.from_json(comment[len(TABLE_COMMENT_PREFIX) :])
        except ValueError:
            pass
    return LearnedFrom(what="paraphrase table")


@dataclass
class RatingsOnSplits:
    """The ratings a learner tuned on human ratings may use: those of clusters on the sides
    it learns from, and those naming no stored cluster (their references come with them, from
    outside the corpus's clusters)."""

    kept: list
    left_out: int
    outside: int
    learned_from: LearnedFrom

    def lines(self) -> list[str]:
        kept = counted(len(self.kept), "rating")
        lines = [f"Learned from {self.learned_from.describe()}: {kept}"]
        if self.left_out:
            left_out = counted(self.left_out, "rating")
            lines.append(f"Left out: {left_out} of clusters on other sides")
        if self.outside:
            names = "names" if self.outside == 1 else "name"
            lines.append(
                f"{counted(self.outside, 'rating')} {names} no stored cluster: used, as outside "
                "the corpus"
            )
        return lines


def ratings_on_splits(records: Sequence, learning: LearningSplits, what: str) -> RatingsOnSplits:
    """``records`` (``paracrowd_metrics.ratings.RatingRecord``) of the sides ``learning``
    takes, by the video of the cluster each names; the record says which clusters."""
    named = {record.cluster for record in records if record.cluster is not None}
    segments = Segment.objects.filter(pk__in=named).only("source", "youtube_id", "video_file")
    videos = {
        segment.pk: video_key(segment.source, segment.video_label)
        for segment in segments.iterator(chunk_size=5000)
    }
    kept, left_out, outside = [], 0, 0
    for record in records:
        if record.cluster is None:
            outside += 1
            kept.append(record)
        elif learning.take(videos.get(record.cluster), record.cluster, record.language):
            kept.append(record)
        else:
            left_out += 1
    return RatingsOnSplits(kept, left_out, outside, learning.learned_from(what))
