"""Human ratings of paraphrases, as Chen & Dolan (2011, §5) collect them, made ready to
correlate with the metrics.

A rating says how one judge rated one candidate paraphrase of a source sentence, on 1 to 4
(4 the best), in one column (``rating``) or in the study's three dimensions: ``semantic``
(the meaning kept), ``dissimilarity`` (how far the wording moved) and ``overall``. Ratings
of one pair by several judges are averaged, as the study averages its two judges, and the
judges' own ratings are kept to measure how well they agree.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

DIMENSIONS = ("semantic", "dissimilarity", "overall")
SINGLE = "rating"
LOWEST, HIGHEST = 1.0, 4.0


class RatingError(ValueError):
    """Ratings that cannot be analysed; the message names where the bad one came from."""


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
    dimension, and each judge's ratings."""

    source: str
    candidate: str
    references: tuple[str, ...]
    ratings: dict[str, float]
    judges: dict[str, dict[str, float]] = field(default_factory=dict)
    where: str = ""


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


def rating_value(text: str, *, dimension: str, where: str) -> float:
    """A rating read from text: a number from 1 to 4, else RatingError naming it."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise RatingError(f"{where}: {dimension} {text!r} is not a number") from None
    if not LOWEST <= value <= HIGHEST:
        raise RatingError(f"{where}: {dimension} {text!r} is outside 1–4")
    return value


def rated_pairs(records: Iterable[RatingRecord], dimensions: Sequence[str]) -> list[RatedPair]:
    """Group the records by (source, candidate, references) in the order they first come,
    averaging the judges' ratings. Refused with RatingError naming the record: a rating
    outside 1–4 or missing, no reference left once the candidate's own copy is out, a judge
    rating one pair twice, or records in more than one language."""
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
            ratings[dimension] = rating_value(value, dimension=dimension, where=where)
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
        judge = record.judge or f"rating {len(pair.judges) + 1}"
        if judge in pair.judges:
            raise RatingError(f"{where}: {judge} already rated this pair ({pair.where})")
        pair.judges[judge] = ratings
    for pair in pairs.values():
        pair.ratings = {
            dimension: sum(each[dimension] for each in pair.judges.values()) / len(pair.judges)
            for dimension in dimensions
        }
    return list(pairs.values())
