"""Seeded choices the exports and system scoring share: which side of the train/dev/test split
a video is on, and which other descriptions each sentence is paired with.

The side is drawn per *video* (a YouTube id, or a hosted file), from a hash of the seed and the
video alone: every segment of a video, and its clusters in every language, land on the same
side, whatever order clusters are read in and whatever else is in the corpus. A video never
moves side when others are added, so scoring a system later finds the same test clusters again.
"""

import hashlib
import random
from dataclasses import dataclass

DEFAULT_TEST_FRACTION = 0.1
DEFAULT_DEV_FRACTION = 0.0
DEFAULT_SEED = 0
# The largest seed a request may give (a signed 32-bit integer).
SEED_MAX = 2**31 - 1
SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class SplitOptions:
    """How the corpus is split and what the test side's references are.

    ``tier2_references``: a test sentence's references are the Tier-2 descriptions of its
    cluster only (the paper's clean setting). ``source_as_reference``: the source is also a
    reference for itself (the paper's §5.1 setting; it favours outputs close to the source)."""

    seed: int = DEFAULT_SEED
    test_fraction: float = DEFAULT_TEST_FRACTION
    dev_fraction: float = DEFAULT_DEV_FRACTION
    tier2_references: bool = False
    source_as_reference: bool = False

    def __post_init__(self):
        if not 0.0 <= self.test_fraction < 1.0:
            raise ValueError("test_fraction must be at least 0 and below 1")
        if not 0.0 <= self.dev_fraction < 1.0:
            raise ValueError("dev_fraction must be at least 0 and below 1")
        if self.test_fraction + self.dev_fraction >= 1.0:
            raise ValueError("test_fraction and dev_fraction together must stay below 1")

    def side(self, video: str) -> str:
        """``"train"``, ``"dev"`` or ``"test"`` for the video keyed ``video`` (see
        ``video_key``). Test takes the lowest draws, dev the next ones: changing the dev
        fraction never moves a video in or out of test."""
        draw = _uniform(self.seed, video)
        if draw < self.test_fraction:
            return "test"
        if draw < self.test_fraction + self.dev_fraction:
            return "dev"
        return "train"

    def side_of_segment(self, segment) -> str:
        """The side of a ``collector.models.Segment`` (anything with ``source`` and
        ``video_label``)."""
        return self.side(video_key(segment.source, segment.video_label))

    def references(self, members, index: int) -> list[str]:
        """The references of member ``index`` of a cluster (rows with ``text`` and
        ``tier``): the other members (Tier 2 only when asked), with the source first when it
        is a reference for itself."""
        others = [
            row.text
            for j, row in enumerate(members)
            if j != index and (not self.tier2_references or row.tier == 2)
        ]
        if self.source_as_reference and others:
            return [members[index].text, *others]
        return others

    def describe(self) -> str:
        parts = [
            f"by video, seed {self.seed}, test {self.test_fraction:g}, dev {self.dev_fraction:g}"
        ]
        if self.tier2_references:
            parts.append("test references from Tier 2 only")
        if self.source_as_reference:
            parts.append("the source is a reference for itself")
        return "; ".join(parts)


def video_key(source: str, video: str) -> str:
    """The name a split draws by: ``youtube:<id>`` or ``file:<file name>`` (``video`` is the
    label exports show; hosted files are stored under names the storage keeps unique)."""
    return f"{source}:{video}"


def _uniform(seed: int, video: str) -> float:
    digest = hashlib.sha256(f"split:{seed}:{video}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def cluster_random(seed: int, segment_id: int, language: str) -> random.Random:
    """A random generator for one cluster, the same on every run and every machine."""
    return random.Random(f"{seed}:{segment_id}:{language}")


def paraphrase_partners(size: int, per_sentence: int | None, rng: random.Random):
    """For each member i of a cluster of ``size``, the members it is paired with:
    ``per_sentence`` others drawn without replacement, or every other member when None."""
    for i in range(size):
        others = [j for j in range(size) if j != i]
        if per_sentence is not None and per_sentence < len(others):
            others = sorted(rng.sample(others, per_sentence))
        yield i, others
