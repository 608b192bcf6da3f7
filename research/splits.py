"""Seeded choices made cluster by cluster: which side of the train/test split a cluster is on,
and which other descriptions each sentence is paired with.

Both depend only on the seed and the cluster itself (its segment and language), never on the order
clusters are read in or on what else is selected, so an export can decide them while streaming,
a cluster stays on its side as the corpus grows, and scoring a system later finds the same test
clusters again.
"""

import hashlib
import random

DEFAULT_TEST_FRACTION = 0.1
DEFAULT_SEED = 0


def cluster_random(seed: int, segment_id: int, language: str) -> random.Random:
    """A random generator for one cluster, the same on every run and every machine."""
    return random.Random(f"{seed}:{segment_id}:{language}")


def in_test_split(seed: int, segment_id: int, test_fraction: float) -> bool:
    """Whether a segment's clusters are in the test split: each segment is drawn independently
    with probability ``test_fraction``, from a hash of the seed and the segment. Splitting by
    segment keeps a video's clusters in every language on one side, so no cluster, and no
    video, is on both sides."""
    digest = hashlib.sha256(f"split:{seed}:{segment_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < test_fraction * 2**64


def paraphrase_partners(size: int, per_sentence: int | None, rng: random.Random):
    """For each member i of a cluster of ``size``, the members it is paired with:
    ``per_sentence`` others drawn without replacement, or every other member when None."""
    for i in range(size):
        others = [j for j in range(size) if j != i]
        if per_sentence is not None and per_sentence < len(others):
            others = sorted(rng.sample(others, per_sentence))
        yield i, others
