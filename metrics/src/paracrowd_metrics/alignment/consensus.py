"""A consensus alignment of several annotators of one sentence pair, each annotator weighted
by what is known of their reliability (their agreement with the other annotators, their
score on the trial set), each link with a confidence.

A link's **confidence** is the weighted share of the annotators who marked it (sure or
possible): 1 when everyone did, 0.5 when annotators of equal weight split evenly. A link is
in the consensus when its confidence is above one half, and sure there when the weighted
share who marked it *sure* is above one half too; so S ⊆ P holds, as for any alignment.
With equal weights this is the majority vote; with weights, the more reliable annotators
settle the links the others disagree on. Links nobody outweighs stay listed, below the
threshold, for whoever adjudicates.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

from .links import Alignment, Link

THRESHOLD = 0.5
# The least weight an annotator gets: a low score lowers a vote, it does not silence it.
MIN_WEIGHT = 0.05


@dataclass(frozen=True)
class ConsensusLink:
    link: Link
    confidence: float  # the weighted share of annotators who marked the link
    sure_confidence: float  # the weighted share who marked it sure
    included: bool  # in the consensus alignment
    sure: bool  # sure in the consensus alignment


@dataclass(frozen=True)
class ConsensusAlignment:
    alignment: Alignment  # the consensus links
    links: tuple[ConsensusLink, ...]  # every link anyone marked, most confident first
    weights: dict[str, float]  # the annotators' weights, as used

    def confidence(self, link: Link) -> float:
        """The confidence of ``link`` (0 when nobody marked it)."""
        return next((each.confidence for each in self.links if each.link == link), 0.0)


def annotator_weight(evidence: Sequence[float | None]) -> float | None:
    """An annotator's weight from scores between 0 and 1 (agreement F1 with the others, F1
    on the trial set): their mean, at least ``MIN_WEIGHT``; None when no score is known."""
    known = [score for score in evidence if score is not None]
    if not known:
        return None
    return max(fmean(known), MIN_WEIGHT)


def annotator_weights(evidence: Mapping[str, Sequence[float | None]]) -> dict[str, float]:
    """Each annotator's weight (``annotator_weight``). An annotator nothing is known about
    gets the mean weight of the others, neither trusted more nor less than a typical one;
    1 when nothing is known about anybody (every vote equal)."""
    weights = {name: annotator_weight(scores) for name, scores in evidence.items()}
    known = [weight for weight in weights.values() if weight is not None]
    typical = fmean(known) if known else 1.0
    return {name: typical if weight is None else weight for name, weight in weights.items()}


def consensus_alignment(
    alignments: Mapping[str, Alignment],
    weights: Mapping[str, float] | None = None,
    *,
    threshold: float = THRESHOLD,
) -> ConsensusAlignment:
    """The weighted consensus of ``alignments`` (annotator → alignment) with ``weights``
    (annotator → weight above 0; None: every annotator weighs the same). ValueError for an
    annotator with no weight, or a weight of 0 or less."""
    weights = {name: 1.0 if weights is None else weights.get(name) for name in alignments}
    for name, weight in weights.items():
        if weight is None or not weight > 0:
            raise ValueError(f"annotator {name!r} needs a weight above 0, not {weight!r}")
    total = sum(weights.values())
    marked: dict[Link, float] = {}
    marked_sure: dict[Link, float] = {}
    for name, alignment in alignments.items():
        for link in alignment.possible:
            marked[link] = marked.get(link, 0.0) + weights[name]
        for link in alignment.sure:
            marked_sure[link] = marked_sure.get(link, 0.0) + weights[name]
    links = []
    for link, weight in marked.items():
        confidence = weight / total
        sure_confidence = marked_sure.get(link, 0.0) / total
        included = confidence > threshold
        links.append(
            ConsensusLink(
                link,
                confidence,
                sure_confidence,
                included,
                included and sure_confidence > threshold,
            )
        )
    links.sort(key=lambda each: (-each.confidence, each.link))
    return ConsensusAlignment(
        alignment=Alignment(
            sure={each.link for each in links if each.sure},
            possible={each.link for each in links if each.included},
        ),
        links=tuple(links),
        weights=weights,
    )
