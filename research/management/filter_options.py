"""The corpus filters and the split as command-line options, shared by export_corpus,
score_system and compare_systems, and the sides a learner learns from (extract_paraphrases,
paraphrase)."""

from research.learning import DEFAULT_LEARNING_SPLITS, LearningSplits, parse_splits
from research.selection import STATUS_CHOICES, TIER_CHOICES, CorpusFilter
from research.splits import DEFAULT_DEV_FRACTION, DEFAULT_SEED, DEFAULT_TEST_FRACTION, SplitOptions


def add_filter_arguments(parser) -> None:
    parser.add_argument(
        "--language",
        action="append",
        default=[],
        help="descriptions in this language (a code such as en); repeatable",
    )
    parser.add_argument(
        "--tier",
        action="append",
        default=[],
        choices=TIER_CHOICES,
        help="descriptions written in this tier (unrecorded: no tier recorded, as in some imported "
        "corpora); repeatable",
    )
    parser.add_argument(
        "--status",
        action="append",
        default=[],
        choices=STATUS_CHOICES,
        help="repeatable; default accepted",
    )
    parser.add_argument("--since", help="created on or after this date (YYYY-MM-DD, UTC)")
    parser.add_argument("--until", help="created on or before this date (YYYY-MM-DD, UTC)")
    parser.add_argument(
        "--min-cluster-size", default="1", help="fewest descriptions per cluster (default 1)"
    )


def filter_from_options(options: dict) -> CorpusFilter:
    """The filter the options ask for; raises FilterError naming a bad one."""
    params = {
        "language": options["language"],
        "tier": options["tier"],
        "status": options["status"],
        "since": [options["since"]] if options["since"] else [],
        "until": [options["until"]] if options["until"] else [],
        "min_cluster_size": [options["min_cluster_size"]],
    }
    return CorpusFilter.from_params(params.__getitem__)


def add_split_arguments(
    parser,
    *,
    learning: bool = False,
    seed_option: str = "--seed",
    only_when_storing=False,
    references: bool = True,
) -> None:
    """The split's options; ``learning``: those of a learner, which takes ``--splits`` and
    the split's definition, not the test side's references. ``seed_option`` names the split's
    seed where ``--seed`` already seeds something else. ``only_when_storing``: a command that
    learns only when it stores what it learned, and otherwise reads every side by default
    (``--splits`` is then None unless given). ``references``: False for a command that draws
    the split alone (a release), without the test side's references."""
    if learning:
        default = ",".join(DEFAULT_LEARNING_SPLITS)
        parser.add_argument(
            "--splits",
            default=None if only_when_storing else default,
            help="the sides of the split to learn from: train, dev, test, comma-separated, or "
            + (
                f"all (default {default} when storing what is learned, all otherwise)"
                if only_when_storing
                else f"all (default {default})"
            )
            + "; recorded with what is learned",
        )
    parser.add_argument(
        seed_option,
        dest="split_seed" if learning else "seed",
        type=int,
        default=DEFAULT_SEED,
        help="seed of the split"
        + (" and of the pairs drawn" if references and not learning else "")
        + " (default %(default)s)",
    )
    parser.add_argument(
        "--test-fraction",
        type=float,
        default=DEFAULT_TEST_FRACTION,
        help="share of videos drawn into the test split (default 0.1)",
    )
    parser.add_argument(
        "--dev-fraction",
        type=float,
        default=DEFAULT_DEV_FRACTION,
        help="share of videos drawn into a dev split (default 0: none)",
    )
    if learning or not references:
        return
    parser.add_argument(
        "--tier2-references",
        action="store_true",
        help="a test sentence's references are its cluster's Tier-2 descriptions only",
    )
    parser.add_argument(
        "--source-as-reference",
        action="store_true",
        help="each test sentence is also a reference for itself (the study's §5.1 setting)",
    )


def split_from_options(options: dict) -> SplitOptions:
    """The split the options ask for; raises ValueError naming a bad fraction."""
    return SplitOptions(
        seed=options["seed"],
        test_fraction=options["test_fraction"],
        dev_fraction=options["dev_fraction"],
        tier2_references=options["tier2_references"],
        source_as_reference=options["source_as_reference"],
    )


def learning_from_options(options: dict) -> LearningSplits:
    """The sides to learn from and the split they are drawn by; ValueError naming a bad one."""
    return LearningSplits(
        splits=parse_splits(options["splits"]),
        split=SplitOptions(
            seed=options["split_seed"],
            test_fraction=options["test_fraction"],
            dev_fraction=options["dev_fraction"],
        ),
    )
