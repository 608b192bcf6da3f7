"""The MSVD S2VT sentence files the benchmarks read, and seeded clusters in their place when
the files are not there. Not a benchmark itself (`make bench` skips files starting with an
underscore).
"""

import os
import random
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FOLDER = ROOT.parent / "shared" / "data" / "msvd-s2vt-sents"
# The generated sentences' words: MSVD-like descriptions of one action.
WORDS = [
    "a",
    "man",
    "woman",
    "is",
    "slicing",
    "cutting",
    "playing",
    "the",
    "guitar",
    "tomato",
    "onion",
    "dog",
    "runs",
    "on",
]


def msvd_folder() -> Path:
    """$PARACROWD_DATA, else ../shared/data/msvd-s2vt-sents (which may not exist)."""
    return Path(os.environ.get("PARACROWD_DATA", DEFAULT_FOLDER))


def msvd_clusters(folder: Path) -> list[list[str]]:
    """Each clip's sentences, from the folder's sents_*_lc_nopunc.txt files."""
    found = defaultdict(list)
    for path in sorted(folder.glob("sents_*_lc_nopunc.txt")):
        for line in path.open(encoding="utf-8"):
            clip, _, sentence = line.rstrip("\n").partition("\t")
            found[clip].append(sentence)
    return list(found.values())


def random_clusters(rng: random.Random, count: int, size: int) -> list[list[str]]:
    """``count`` clusters of ``size`` sentences of 5 to 10 random WORDS."""
    return [
        [" ".join(rng.choices(WORDS, k=rng.randint(5, 10))) for _ in range(size)]
        for _ in range(count)
    ]
