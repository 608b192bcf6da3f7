"""Word alignment in the demo: hand-made gold alignments of short English pairs, a supervised
pre-aligner learnt from them, and sentence pairs drawn from the demo's clusters, offered as
alignment tasks that open already pre-aligned.

The site trains its supervised aligner once it holds ALIGNER_MIN_GOLD_ALIGNMENTS human
alignments (200 by default); the demo has a handful (``gold-alignments.tsv``), so it asks for
a training on those (``min_gold``), after training the unsupervised aligner on its clusters.
Training takes well under a second. The supervised model is judged as any model on the site
is (``annotations.prealigner.judgement``): a few of the demo's pairs are held out, far fewer
than PREALIGNER_HELD_OUT_MINIMUM, so it does not take over, and the admin shows why. The
unsupervised model or identical words linked one to one pre-align instead, whichever does
better on those held-out pairs (``unsupervised_or_identical_choose``).

Three demo writers then align three of those pairs (``alignments.tsv``), through the alignment
task, so the agreement page has pairs with several annotators to compare; the other pairs stay
for the demo's own workers."""

import csv

from annotations.alignment_files import alignments_import
from annotations.models import AlignerModel, SentencePair
from annotations.prealigner import (
    aligner_usable,
    supervised_aligner_train,
    unsupervised_or_identical_choose,
)
from annotations.services import aligner_train, alignment_submit, pairs_sample, tokens_of
from crowd.models import HitType
from paracrowd_metrics.alignment import AlignedPair, parse_pharaoh

from . import DATA
from .accounts import WRITERS
from .tasks import tasks_do

GOLD = DATA / "gold-alignments.tsv"
ALIGNMENTS = DATA / "alignments.tsv"
GOLD_CORPUS = "demo-gold"
GOLD_ANNOTATOR = "demo"
PAIRS_PER_CLUSTER = 2


def gold_read() -> list[AlignedPair]:
    """The pairs of ``gold-alignments.tsv`` in the site's tokens, with their links."""
    with GOLD.open(encoding="utf-8", newline="") as rows:
        return [
            AlignedPair(
                str(number),
                tokens_of(row["sentence_a"], "en"),
                tokens_of(row["sentence_b"], "en"),
                parse_pharaoh(row["links"]),
            )
            for number, row in enumerate(csv.DictReader(rows, delimiter="\t"), start=1)
        ]


def alignment_load() -> list[SentencePair]:
    """Import the gold, train and choose the pre-aligner once, and offer the cluster pairs to
    align (pre-aligned as they are stored); returns the pairs offered."""
    gold = gold_read()
    alignments_import({GOLD_ANNOTATOR: gold}, corpus=GOLD_CORPUS)
    if not AlignerModel.objects.exists():
        aligner_train(seed=0)
        supervised_aligner_train(force=True, min_gold=len(gold))
        unsupervised_or_identical_choose()
    if aligner_usable() is None:
        raise RuntimeError("the demo has no pre-aligner; check demo/data")
    return pairs_sample(per_cluster=PAIRS_PER_CLUSTER, seed=0, language="en", open_hits=True)


def alignments_load(*, writers) -> None:
    """The demo writers align the cluster pairs of ``alignments.tsv`` (the pair's two
    descriptions, the writer, the links), each in their tier, as an annotator does."""
    pairs = {
        (pair.description_a.text, pair.description_b.text): pair
        for pair in SentencePair.objects.filter(origin=SentencePair.Origin.CLUSTER).select_related(
            "description_a", "description_b"
        )
    }
    by_writer = {}
    with ALIGNMENTS.open(encoding="utf-8", newline="") as rows:
        for line, row in enumerate(csv.DictReader(rows, delimiter="\t"), start=2):
            pair = pairs.get((row["sentence_a"], row["sentence_b"]))
            if pair is None:
                raise ValueError(f"{ALIGNMENTS}:{line}: no demo sentence pair has these sentences")
            by_writer.setdefault(row["writer"], {})[pair.item_id] = row["links"]
    for name, links in by_writer.items():
        writer = writers[name]
        tasks_do(
            worker=writer,
            tier=WRITERS[name],
            kind=HitType.Kind.ALIGNMENT,
            answers=links,
            submit=lambda assignment, links, writer=writer: alignment_submit(
                assignment_id=assignment.pk, worker=writer, links=links
            ),
        )
