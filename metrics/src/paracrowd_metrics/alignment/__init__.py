"""Word alignment between paraphrases: formats, measures, phrase pairs, agreement, aligner.

A pure-Python library (numpy for the heavy parts); nothing here imports Django.
"""

from .agreement import (
    AgreementSummary,
    AgreementTable,
    AnnotatedPair,
    ChanceCorrected,
    LengthBin,
    chance_corrected,
    fit_edit_models,
)
from .agreement_totals import (
    AgreementTotals,
    agreement_table,
    c_hat,
    corpus_totals,
    pair_share,
    pair_totals,
    share_totals,
    table_from_totals,
)
from .aligner import Aligner, train_aligner
from .brockett import BrockettAgreement, brockett_fleiss_kappa
from .chance import EditModel, fit_edit_model
from .consensus import (
    ConsensusAlignment,
    ConsensusLink,
    annotator_weights,
    consensus_alignment,
)
from .corpora import (
    edinburgh_partner,
    read_edinburgh,
    read_multimwa,
    write_edinburgh,
    write_multimwa,
)
from .formats import (
    format_pharaoh,
    parse_pharaoh,
    read_msr_annotator,
    read_msr_majority,
    read_naacl,
    read_pharaoh,
    read_wpt,
    write_naacl,
    write_pharaoh,
)
from .kappa import cohen_kappa, fleiss_kappa, link_cohen_kappa, link_fleiss_kappa
from .links import AlignedPair, Alignment, Link, identical_word_links
from .measures import (
    LinkCounts,
    PrecisionRecall,
    aer,
    corpus_link_counts,
    link_counts,
    precision_recall,
)
from .phrases import (
    PhraseCounts,
    PhrasePair,
    PhrasePairs,
    extract_phrase_pairs,
    phrase_counts,
    phrase_precision_recall,
)

__all__ = [
    "AgreementSummary",
    "Aligner",
    "AgreementTable",
    "AgreementTotals",
    "AlignedPair",
    "Alignment",
    "AnnotatedPair",
    "BrockettAgreement",
    "ChanceCorrected",
    "ConsensusAlignment",
    "ConsensusLink",
    "EditModel",
    "LengthBin",
    "Link",
    "LinkCounts",
    "PhraseCounts",
    "PhrasePair",
    "PhrasePairs",
    "PrecisionRecall",
    "aer",
    "agreement_table",
    "annotator_weights",
    "corpus_totals",
    "pair_share",
    "pair_totals",
    "share_totals",
    "table_from_totals",
    "brockett_fleiss_kappa",
    "c_hat",
    "chance_corrected",
    "cohen_kappa",
    "consensus_alignment",
    "corpus_link_counts",
    "edinburgh_partner",
    "extract_phrase_pairs",
    "fit_edit_model",
    "fit_edit_models",
    "fleiss_kappa",
    "format_pharaoh",
    "identical_word_links",
    "link_cohen_kappa",
    "link_counts",
    "link_fleiss_kappa",
    "parse_pharaoh",
    "phrase_counts",
    "phrase_precision_recall",
    "precision_recall",
    "read_edinburgh",
    "read_msr_annotator",
    "read_msr_majority",
    "read_multimwa",
    "read_naacl",
    "read_pharaoh",
    "read_wpt",
    "train_aligner",
    "write_edinburgh",
    "write_multimwa",
    "write_naacl",
    "write_pharaoh",
]
