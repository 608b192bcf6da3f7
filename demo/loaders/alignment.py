"""Word alignment in the demo: hand-made gold alignments of short English pairs, a supervised
pre-aligner learnt from them, and sentence pairs drawn from the demo's clusters, offered as
alignment tasks that open already pre-aligned.

The site trains its supervised aligner once it holds ALIGNER_MIN_GOLD_ALIGNMENTS human
alignments (200 by default); the demo has a handful (``gold-alignments.tsv``), so it asks for
a training on those (``min_gold``). Training takes well under a second. The model pre-aligns
only if it does at least as well as linking identical words on the gold held out of its
training, as any model on the site must (``annotations.prealigner.judgement``)."""

import csv

from annotations.alignment_files import alignments_import
from annotations.models import AlignerModel, SentencePair
from annotations.prealigner import aligner_usable, supervised_aligner_train
from annotations.services import pairs_sample, tokens_of
from paracrowd_metrics.alignment import AlignedPair, parse_pharaoh

from . import DATA

GOLD = DATA / "gold-alignments.tsv"
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
    """Import the gold, train the pre-aligner once, and offer the cluster pairs to align
    (pre-aligned as they are stored); returns the pairs offered."""
    gold = gold_read()
    alignments_import({GOLD_ANNOTATOR: gold}, corpus=GOLD_CORPUS)
    if not AlignerModel.objects.filter(kind=AlignerModel.Kind.SUPERVISED).exists():
        supervised_aligner_train(force=True, min_gold=len(gold))
    if aligner_usable() is None:
        raise RuntimeError("the demo's pre-aligner did not take over; check demo/data")
    return pairs_sample(per_cluster=PAIRS_PER_CLUSTER, seed=0, language="en", open_hits=True)
