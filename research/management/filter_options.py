"""The corpus filters as command-line options, shared by export_corpus and score_system."""

from research.selection import STATUS_CHOICES, TIER_CHOICES, CorpusFilter


def add_filter_arguments(parser) -> None:
    parser.add_argument("--language", action="append", default=[], help="repeatable")
    parser.add_argument("--tier", action="append", default=[], choices=TIER_CHOICES)
    parser.add_argument(
        "--status",
        action="append",
        default=[],
        choices=STATUS_CHOICES,
        help="repeatable; default accepted",
    )
    parser.add_argument("--since", help="created on or after this date (YYYY-MM-DD, UTC)")
    parser.add_argument("--until", help="created on or before this date (YYYY-MM-DD, UTC)")
    parser.add_argument("--min-cluster-size", default="1", help="descriptions per cluster")


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
