"""Annotator agreement for the alignments: from stored (or read) alignments to the table of
Cohn, Callison-Burch & Lapata (2008) — word and phrase precision/recall/F1, AER, Ĉ beside
Kupper–Hafner, Cohen's and Fleiss' κ over links, and the same by sentence length.

``table_rows`` turns a table into plain rows: what the command prints, what is stored, and
what the agreement page shows are the same numbers.
"""

import math
from collections import defaultdict

from paracrowd_metrics.alignment import (
    AnnotatedPair,
    agreement_table,
    parse_pharaoh,
    train_aligner,
)

from .models import SentencePair

# (key, printed title, format). Precision and recall are split as in Cohn et al. (2008):
# "poss" counts the other side's possible links as right, "sure" only its sure links; F1 is
# of precision (poss) and recall (sure).
COLUMNS = [
    ("items", "pairs", "{:d}"),
    ("word_precision", "wP poss", "{:.3f}"),
    ("word_precision_sure", "wP sure", "{:.3f}"),
    ("word_recall_possible", "wR poss", "{:.3f}"),
    ("word_recall", "wR sure", "{:.3f}"),
    ("word_f1", "word F1", "{:.3f}"),
    ("aer", "AER", "{:.3f}"),
    ("phrase_precision", "pP poss", "{:.3f}"),
    ("phrase_precision_sure", "pP sure", "{:.3f}"),
    ("phrase_recall_possible", "pR poss", "{:.3f}"),
    ("phrase_recall", "pR sure", "{:.3f}"),
    ("phrase_f1", "phrase F1", "{:.3f}"),
    ("observed", "π̂", "{:.3f}"),
    ("chance", "π̂₀", "{:.3f}"),
    ("c_hat", "Ĉ", "{:.3f}"),
    ("kupper_hafner_chance", "π₀ (K–H)", "{:.3f}"),
    ("kupper_hafner_c_hat", "Ĉ (K–H)", "{:.3f}"),
    ("link_kappa", "κ links", "{:.3f}"),
]


def summary_row(label: str, summary) -> dict:
    agreement = summary.agreement
    words, phrases = summary.words, summary.phrases
    return {
        "label": label,
        "items": agreement.items,
        "word_precision": words.precision,
        "word_precision_sure": words.precision_sure,
        "word_recall_possible": words.recall_possible,
        "word_recall": words.recall,
        "word_f1": words.f1,
        "aer": words.aer,
        "phrase_precision": phrases.precision_possible,
        "phrase_precision_sure": phrases.precision_sure,
        "phrase_recall_possible": phrases.recall_possible,
        "phrase_recall": phrases.recall_sure,
        "phrase_f1": phrases.tiered_f1,
        "observed": agreement.observed,
        "chance": agreement.chance,
        "c_hat": agreement.c_hat,
        "kupper_hafner_chance": agreement.kupper_hafner_chance,
        "kupper_hafner_c_hat": agreement.kupper_hafner_c_hat,
        "link_kappa": summary.link_kappa,
    }


def aligner_row(label: str, summary) -> dict:
    """A row of the pre-aligner against humans: counts and P/R/F1/AER, no chance terms."""
    row = summary_row(label, summary)
    for key in ("observed", "chance", "c_hat", "kupper_hafner_chance", "kupper_hafner_c_hat"):
        row[key] = None
    return row


def brockett_rows(brockett) -> dict | None:
    """Brockett's Fleiss' κ, its item counts and Cohen's κ per pair, JSON-ready."""
    if brockett is None:
        return None
    annotators = len(brockett.annotators)
    return {
        "annotators": list(brockett.annotators),
        "sentence_pairs": brockett.sentence_pairs,
        "items": brockett.items,
        "kappa": brockett.kappa,
        "kappa_null_apart": brockett.kappa_null_apart,
        "agreeing": [
            {
                "label": _agreeing_label(size, annotators),
                "items": brockett.agreeing.get(size, 0),
            }
            for size in range(annotators, 0, -1)
            if size > 1 or annotators > 2
        ],
        "categories": brockett.categories,
        "pairwise": [
            {"label": f"{a} – {b}", "kappa": kappa}
            for (a, b), kappa in sorted(brockett.pairwise.items())
        ],
    }


def _agreeing_label(size: int, annotators: int) -> str:
    if size == annotators:
        return f"all {annotators} agree" if annotators > 2 else "both agree"
    if size == 1:
        return "no two agree"
    return f"{size} of {annotators} agree"


def table_rows(table) -> dict:
    """The whole table as JSON-ready rows."""
    return {
        "samples": table.samples,
        "link_fleiss_kappa": table.link_fleiss_kappa,
        "brockett": brockett_rows(table.brockett),
        "corpus": summary_row("corpus", table.corpus),
        "pairwise": [
            summary_row(f"{a} – {b}", summary) for (a, b), summary in sorted(table.pairwise.items())
        ],
        "per_annotator": [
            summary_row(name, summary) for name, summary in sorted(table.per_annotator.items())
        ],
        "aligner": [
            aligner_row(f"pre-aligner vs {name}", summary)
            for name, summary in table.aligner.items()
        ],
        "by_corpus": [
            summary_row(corpus or "(no corpus)", summary)
            for corpus, summary in sorted(table.by_corpus.items())
        ],
        "by_length": [
            {
                **summary_row(
                    f"{b.shortest}–{b.longest}" if b.longest else f"{b.shortest}+", b.summary
                ),
                "pairs": b.pairs,
            }
            for b in table.by_length
        ],
        "edit_models": {
            name: [model.intercept, model.per_source_word, model.per_target_word]
            for name, model in sorted(table.edit_models.items())
        },
    }


def format_rows(rows: dict) -> str:
    """The table as fixed-width text, one section per grouping."""
    lines = []
    every_row = [
        rows["corpus"],
        *rows["pairwise"],
        *rows["per_annotator"],
        *rows.get("by_corpus", []),
        *rows.get("aligner", []),
        *rows["by_length"],
    ]
    width = max(len(row["label"]) for row in every_row) + 2
    header = f"{'':<{width}}" + "".join(f"{title:>10}" for _, title, _ in COLUMNS)
    sections = [
        ("Corpus", [rows["corpus"]]),
        ("Pairs of annotators", rows["pairwise"]),
        ("Each annotator against the others", rows["per_annotator"]),
        ("By corpus", rows.get("by_corpus", [])),
        ("The pre-aligner against the annotators", rows.get("aligner", [])),
        ("By length of the shorter sentence", rows["by_length"]),
    ]
    for title, section in sections:
        if not section:
            continue
        lines += ["", title, header]
        for row in section:
            cells = ["—" if row[key] is None else fmt.format(row[key]) for key, _, fmt in COLUMNS]
            lines.append(f"{row['label']:<{width}}" + "".join(f"{c:>10}" for c in cells))
    lines += format_brockett(rows.get("brockett"))
    lines += [
        "",
        "Precision and recall: 'poss' counts the other annotator's possible links as right, "
        "'sure' only the sure ones; F1 is of P (poss) and R (sure) (Cohn et al. 2008).",
    ]
    kappa = rows["link_fleiss_kappa"]
    lines += [
        "",
        "Fleiss' κ over non-identical links, NULL on both sides (three or more annotators): "
        + ("—" if kappa is None else f"{kappa:.5f}"),
        f"Chance agreement π̂₀ from {rows['samples']} Monte Carlo samples per annotator and pair.",
    ]
    return "\n".join(lines)


def format_brockett(brockett: dict | None) -> list[str]:
    """Brockett's κ section of the printed table, each figure with the labelling it uses; κ to
    five decimals, as the published figures are given."""
    if brockett is None:
        return []
    lines = [
        "",
        f"Brockett's Fleiss' κ over link items (Brockett 2007): {brockett['kappa']:.5f}",
        "  labelled sure, possible or none: a link to NULL counts as no link, as in the "
        "published κ",
        f"  {brockett['items']} items in the {brockett['sentence_pairs']} sentence pairs aligned "
        f"by all of {', '.join(brockett['annotators'])}",
        "  Items by agreement, labelled sure, possible, aligned to NULL or not linked (Table 1):",
    ]
    lines += [f"  {row['label']:<16}{row['items']:>8}" for row in brockett["agreeing"]]
    null_apart = brockett.get("kappa_null_apart")
    if null_apart is not None:
        lines.append(f"  Fleiss' κ with NULL kept apart (four categories): {null_apart:.5f}")
    lines.append("  Cohen's κ on the same items (sure, possible or none):")
    lines += [f"  {row['label']:<16}{row['kappa']:>8.5f}" for row in brockett["pairwise"]]
    return lines


def annotated_pairs_from(
    aligned_pairs_by_annotator: dict[str, list], *, pre_alignment="trained", corpus: str = ""
) -> tuple[list[AnnotatedPair], list[str]]:
    """Group files' pairs by pair id into AnnotatedPairs (pairs two or more annotators share).

    Links are word positions, so annotators must agree on the number of words; where a file
    spells a word differently (the RTE files have "." and ".." for one token) the first
    annotator's words are kept and the pair is listed in the returned notes.

    The chance model flips cells of an automatic pre-alignment: ``trained`` trains the aligner
    on these sentence pairs (with the identity lexicon), ``none`` starts from no links.
    """
    by_id = defaultdict(dict)
    tokens = {}
    notes = []
    for annotator, pairs in aligned_pairs_by_annotator.items():
        # A file may use one id for several pairs (MultiMWA's test file does): the n-th pair
        # with an id is "id#n" from the second on, so none overwrites another.
        seen = defaultdict(int)
        for pair in pairs:
            seen[pair.pair_id] += 1
            pid = (
                pair.pair_id if seen[pair.pair_id] == 1 else f"{pair.pair_id}#{seen[pair.pair_id]}"
            )
            known = tokens.setdefault(pid, (pair.source, pair.target))
            if (len(known[0]), len(known[1])) != (len(pair.source), len(pair.target)):
                raise ValueError(f"pair {pid}: {annotator} has a different number of words")
            if known != (pair.source, pair.target):
                notes.append(f"pair {pid}: {annotator} spells some words differently")
            by_id[pid][annotator] = pair.alignment
    shared = {pid: alignments for pid, alignments in by_id.items() if len(alignments) > 1}
    aligner = None
    if pre_alignment == "trained":
        aligner = train_aligner([tokens[pid] for pid in shared])
    annotated = [
        AnnotatedPair(
            pair_id=pid,
            source=tokens[pid][0],
            target=tokens[pid][1],
            pre_alignment=aligner.prealign(*tokens[pid]) if aligner else parse_pharaoh(""),
            alignments=alignments,
            corpus=corpus,
            pre_aligned=aligner is not None,
        )
        for pid, alignments in sorted(shared.items())
    ]
    return annotated, notes


def pair_corpus(pair: SentencePair) -> str:
    """Which corpus a stored pair belongs to: the import's corpus name, or the clusters."""
    if pair.origin == SentencePair.Origin.CLUSTER:
        return "clusters"
    return pair.import_key.rsplit(":", 1)[0] if ":" in pair.import_key else "imported"


def annotated_pair(pair: SentencePair) -> AnnotatedPair | None:
    """A stored pair (alignments prefetched with their workers) ready for the agreement
    measures, or None when fewer than two annotators aligned it."""
    alignments = {a.annotator_name: parse_pharaoh(a.links) for a in pair.alignments.all()}
    if len(alignments) < 2:
        return None
    return AnnotatedPair(
        pair_id=str(pair.pk),
        source=tuple(pair.tokens_a),
        target=tuple(pair.tokens_b),
        pre_alignment=parse_pharaoh(pair.pre_alignment),
        alignments=alignments,
        corpus=pair_corpus(pair),
        pre_aligned=pair.aligner_id is not None,
    )


def stored_pairs():
    """Stored pairs with their alignments and annotators, in the order the table adds them."""
    return SentencePair.objects.prefetch_related("alignments__worker__user").order_by("pk")


def stored_annotated_pairs(pairs=None) -> list[AnnotatedPair]:
    """Every stored pair (or those of ``pairs``) with two or more annotations."""
    pairs = stored_pairs() if pairs is None else pairs
    annotated = (annotated_pair(pair) for pair in pairs.filter(alignments__isnull=False).distinct())
    return [pair for pair in annotated if pair is not None]


def corpus_agreement(*, samples: int = 1000, seed: int = 0, models=None) -> dict | None:
    """The agreement table of the stored alignments, computed afresh, as rows; None with
    nothing to compare. ``models`` are the edit models behind π̂₀ (default: fitted anew)."""
    pairs = stored_annotated_pairs()
    if not pairs:
        return None
    return stored_rows(
        table_rows(agreement_table(pairs, samples=samples, seed=seed, models=models))
    )


def stored_rows(rows):
    """Rows as they can be stored: NaN (κ when every label is one category, Ĉ with no
    item) becomes None, shown as "—", since JSON in PostgreSQL has no NaN."""
    if isinstance(rows, dict):
        return {key: stored_rows(value) for key, value in rows.items()}
    if isinstance(rows, list):
        return [stored_rows(value) for value in rows]
    if isinstance(rows, float) and math.isnan(rows):
        return None
    return rows
