"""What cluster scoring takes and gives: its settings, and plain result records."""

from dataclasses import dataclass

from paracrowd_metrics.bleu import check_smooth
from paracrowd_metrics.signature import bleu_signature, pinc_signature
from paracrowd_metrics.tokens import check_tokenize, default_max_order


@dataclass(frozen=True)
class ClusterSettings:
    """How a cluster is scored. ``pinc_max_order`` defaults to ``max_order``, which
    defaults to 4 for words and 18 for characters."""

    tokenize: str = "13a"
    max_order: int | None = None
    pinc_max_order: int | None = None
    smooth: str = "exp"
    smooth_value: float | None = None
    lowercase: bool = False
    keep_spaces: bool = False

    def __post_init__(self):
        check_tokenize(self.tokenize)
        check_smooth(self.smooth)
        if self.max_order is None:
            object.__setattr__(self, "max_order", default_max_order(self.tokenize))
        if self.pinc_max_order is None:
            object.__setattr__(self, "pinc_max_order", self.max_order)

    def bleu_signature(self, nrefs: int) -> str:
        """Signature of the leave-one-out BLEU scores of a cluster with ``nrefs`` references."""
        return bleu_signature(
            nrefs=nrefs,
            tokenize=self.tokenize,
            max_order=self.max_order,
            smooth=self.smooth,
            smooth_value=self.smooth_value,
            lowercase=self.lowercase,
            keep_spaces=self.keep_spaces,
        )

    def pinc_signature(self, nsources: int) -> str:
        """Signature of the mean PINC scores of a cluster where each has ``nsources``."""
        return pinc_signature(
            nsources=nsources,
            tokenize=self.tokenize,
            max_order=self.pinc_max_order,
            keep_spaces=self.keep_spaces,
        )


@dataclass(slots=True)
class SentenceScores:
    """Scores of one description within its cluster.

    ``bleu``: sentence BLEU against every other description (and the source, if any);
    ``pinc``: mean PINC of this description against each other description as source.
    Either is None when there is nothing to compare with.
    """

    position: int
    bleu: float | None
    pinc: float | None


@dataclass(frozen=True)
class ClusterScores:
    """Scores of a whole cluster.

    ``corpus_bleu`` is corpus BLEU of every description against the others (statistics
    summed, no effective order, as sacrebleu's corpus_bleu); ``mean_bleu`` the mean of the
    sentence scores; ``mean_pinc`` the mean PINC over all ordered pairs of descriptions.
    """

    size: int
    corpus_bleu: float | None
    mean_bleu: float | None
    mean_pinc: float | None
    sentences: tuple[SentenceScores, ...]
    bleu_signature: str
    pinc_signature: str


@dataclass(frozen=True)
class Addition:
    """What adding one description changed: its own scores, and the other descriptions
    whose BLEU or PINC moved (in position order)."""

    scores: SentenceScores
    changed: tuple[SentenceScores, ...]
