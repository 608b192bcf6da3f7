"""Made-up data for testing code built on this library; the library itself never uses it.

``simulated_ratings`` gives human-style ratings of paraphrase pairs that follow BLEU against
held-out sentences, plus noise, so that the ratings analysis (``ratings_analysis``) and the code
that stores and shows its results have something to find.
"""

import random

from paracrowd_metrics.bleu import sentence_bleu
from paracrowd_metrics.ratings import RatingRecord

_WORDS = [
    "a",
    "man",
    "woman",
    "is",
    "cutting",
    "slicing",
    "playing",
    "the",
    "guitar",
    "tomato",
    "onion",
    "dog",
    "runs",
    "on",
]


def _sentence(rng, length=6):
    return " ".join(rng.choice(_WORDS) for _ in range(length))


def _variant(rng, scene):
    """One of the scene's sentences with one word changed."""
    words = rng.choice(scene).split()
    words[rng.randrange(len(words))] = rng.choice(_WORDS)
    return " ".join(words)


def simulated_ratings(count=120, references=20, seed=3, judges=("A", "B")):
    """Ratings that follow BLEU against held-out sentences of the same 'scene', plus noise:
    only so that the analysis has something to find."""
    rng = random.Random(seed)
    records = []
    for n in range(count):
        scene = [_sentence(rng) for _ in range(3)]
        candidate = rng.choice([_variant(rng, scene), _sentence(rng)])
        quality = sentence_bleu(candidate, [_variant(rng, scene) for _ in range(10)]) / 100
        source = _variant(rng, scene)
        found = [_variant(rng, scene) for _ in range(references)]
        for judge in judges:
            value = min(4, max(1, round(1 + 3 * quality + rng.gauss(0, 0.4))))
            records.append(
                RatingRecord(
                    source,
                    candidate,
                    found,
                    dict.fromkeys(("semantic", "dissimilarity", "overall"), value),
                    judge,
                    where=f"pair {n}",
                )
            )
    return records
