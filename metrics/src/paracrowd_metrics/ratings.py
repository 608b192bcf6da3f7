"""Human ratings of paraphrases, as Chen & Dolan (2011, §5) collect them, made ready to
correlate with the metrics.

A rating says how one judge rated one candidate paraphrase of a source sentence, in one
column (``rating``) or in the study's three dimensions: ``semantic`` (the meaning kept),
``dissimilarity`` (how far the wording moved) and ``overall``. The study rates on 1 to 4 (4 the
best), as the site's rating tasks do; other data sets use other scales (STS-B 0 to 5), and
Pearson's and Spearman's correlations do not depend on it, so any numeric scale is taken:
stated (``RatingScale``, checked on every rating) or read from the data (``scale_of``).
Ratings of one pair by several judges are averaged, as the study averages its two judges;
named judges' own ratings are kept to measure how well they agree.
"""

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

DIMENSIONS = ("semantic", "dissimilarity", "overall")
SINGLE = "rating"


class RatingError(ValueError):
    """Ratings that cannot be analysed; the message names where the bad one came from."""


@dataclass(frozen=True)
class RatingScale:
    """The lowest and highest rating; ``stated`` is False when it was read from the data."""

    lowest: float
    highest: float
    stated: bool = True

    def __str__(self):
        return f"{self.lowest:g}–{self.highest:g}"

    def as_dict(self) -> dict:
        return {"lowest": self.lowest, "highest": self.highest, "stated": self.stated}


# The scale of Chen & Dolan's study and of the site's rating tasks.
SITE_SCALE = RatingScale(1.0, 4.0)
_SCALE = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|:|to)\s*(-?\d+(?:\.\d+)?)\s*")


def parse_scale(text: str) -> RatingScale:
    """A stated scale such as "0-5", "1–4" or "-3:3"; RatingError otherwise."""
    match = _SCALE.fullmatch(text)
    if match is None:
        raise RatingError(f"scale {text!r}: expected LOWEST-HIGHEST, e.g. 0-5")
    lowest, highest = float(match[1]), float(match[2])
    if not lowest < highest:
        raise RatingError(f"scale {text!r}: the lowest rating must be below the highest")
    return RatingScale(lowest, highest)


def scale_of(pairs: Iterable["RatedPair"]) -> RatingScale:
    """The scale the ratings themselves suggest: whole numbers around the lowest and highest
    rating seen (0.4 … 4.8 → 0–5), marked as not stated."""
    values = [
        value
        for pair in pairs
        for each in (*pair.judges.values(), *pair.unnamed)
        for value in each.values()
    ]
    if not values:
        raise RatingError("no ratings")
    return RatingScale(float(math.floor(min(values))), float(math.ceil(max(values))), False)


@dataclass(frozen=True)
class RatingRecord:
    """One judge's rating of one candidate. ``where`` names the record in messages
    ("ratings.csv:7"); ``judge`` is empty when the input does not say who rated; ``cluster``
    names the stored cluster (a segment id) the references come from, when they do."""

    source: str
    candidate: str
    references: Sequence[str]
    ratings: Mapping[str, float]
    judge: str = ""
    language: str = ""
    where: str = ""
    cluster: int | None = None


@dataclass
class RatedPair:
    """A candidate with its references (leave-one-out applied), its mean rating in each
    dimension, each named judge's ratings, and the ratings no judge is named for (these
    count in the mean, never in the judges' agreement)."""

    source: str
    candidate: str
    references: tuple[str, ...]
    ratings: dict[str, float]
    judges: dict[str, dict[str, float]] = field(default_factory=dict)
    where: str = ""
    unnamed: list[dict[str, float]] = field(default_factory=list)


def leave_one_out(references: Iterable[str], candidate: str) -> list[str]:
    """The references without *one* copy of the candidate: a description scored against its
    own cluster does not count itself, but another description with the same words does."""
    references = list(references)
    if candidate in references:
        references.remove(candidate)
    return references


def dimensions_of(columns: Iterable[str]) -> tuple[str, ...]:
    """The rating dimensions a set of columns holds: the study's three, or ``rating``.
    RatingError when it holds neither, or both."""
    columns = set(columns)
    three = set(DIMENSIONS) <= columns
    if three == (SINGLE in columns):
        raise RatingError(
            "give either a rating column or the three columns semantic, dissimilarity, "
            f"overall{'' if three else '; missing: ' + _missing(columns)}"
        )
    return DIMENSIONS if three else (SINGLE,)


def _missing(columns: set[str]) -> str:
    return ", ".join(name for name in (SINGLE, *DIMENSIONS) if name not in columns)


def rating_value(
    text: str, *, dimension: str, where: str, scale: RatingScale | None = None
) -> float:
    """A rating read from text: a finite number, within ``scale`` when one is stated; else
    RatingError naming it."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise RatingError(f"{where}: {dimension} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise RatingError(f"{where}: {dimension} {text!r} is not a number")
    if scale is not None and not scale.lowest <= value <= scale.highest:
        raise RatingError(f"{where}: {dimension} {text!r} is outside the scale {scale}")
    return value


def rated_pairs(
    records: Iterable[RatingRecord],
    dimensions: Sequence[str],
    *,
    scale: RatingScale | None = None,
) -> list[RatedPair]:
    """Group the records by (source, candidate, references) in the order they first come,
    averaging the ratings. Refused with RatingError naming the record: a rating that is no
    number, outside ``scale`` (when stated) or missing, no reference left once the
    candidate's own copy is out, a judge rating one pair twice, or records in more than one
    language."""
    pairs: dict[tuple, RatedPair] = {}
    language = None
    for record in records:
        where = record.where or "a rating"
        if language is None:
            language = record.language
        elif record.language != language:
            raise RatingError(
                f"{where}: in {record.language or 'an unnamed language'}, earlier ratings in "
                f"{language or 'an unnamed language'}; correlate one language at a time"
            )
        ratings = {}
        for dimension in dimensions:
            value = record.ratings.get(dimension)
            if value is None:
                raise RatingError(f"{where}: no {dimension} rating")
            ratings[dimension] = rating_value(value, dimension=dimension, where=where, scale=scale)
        if not record.candidate.strip():
            raise RatingError(f"{where}: the candidate is empty")
        references = tuple(r for r in leave_one_out(record.references, record.candidate))
        if not any(r.strip() for r in references):
            raise RatingError(f"{where}: no references for this candidate")
        key = (record.source, record.candidate, references)
        pair = pairs.get(key)
        if pair is None:
            pair = pairs[key] = RatedPair(
                record.source, record.candidate, references, {}, {}, where
            )
        if not record.judge:
            # Without a judge, a second row of the same pair is not a second judge.
            pair.unnamed.append(ratings)
            continue
        if record.judge in pair.judges:
            raise RatingError(f"{where}: {record.judge} already rated this pair ({pair.where})")
        pair.judges[record.judge] = ratings
    for pair in pairs.values():
        every = [*pair.judges.values(), *pair.unnamed]
        pair.ratings = {
            dimension: sum(each[dimension] for each in every) / len(every)
            for dimension in dimensions
        }
    return list(pairs.values())
