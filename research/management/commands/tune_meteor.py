"""Tune the METEOR-style score to human ratings, with and without a paraphrase table.

RATINGS.csv is the file ``correlate_ratings`` reads (source, candidate, a ``rating`` or an
``overall`` column, and references joined with " ||| " or a stored cluster); a candidate's
own copy among its references is left out (leave-one-out). Prints Pearson's r with the ratings of
sentence BLEU and of the score with the paper's parameters and tuned ones, exact+stem only and
with the table, each as the mean over the same k held-out folds.

Only the ratings of clusters on the sides ``--splits`` names (train by default) are tuned on,
and ratings naming no stored cluster (research.learning); ``--store`` keeps what the ratings
and the table were learned from with the parameters. (In research, not scoring, because the
split is research's.)
"""

from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

import paracrowd_metrics as metrics
from paracrowd_metrics.meteor import ENGLISH, ParaphraseTable, TableFormatError
from paracrowd_metrics.meteor.table import header_comment
from paracrowd_metrics.meteor.tuning import (
    Grid,
    RatedPairs,
    cross_validate,
    grid_points,
    held_out_mean,
)
from paracrowd_metrics.ratings import SINGLE, RatingError, leave_one_out
from research.learning import ratings_on_splits, table_learned_from
from research.management.filter_options import add_split_arguments, learning_from_options
from scoring.ratings_file import read_ratings
from scoring.services import meteor_setting_store


class Command(BaseCommand):
    help = "Grid-search the METEOR-style parameters on human ratings, with k-fold CV."

    def add_arguments(self, parser):
        parser.add_argument(
            "ratings",
            type=Path,
            help="a ratings CSV as correlate_ratings reads it (its rating, or overall)",
        )
        parser.add_argument("--table", type=Path, help="a paraphrase table (METEOR format)")
        parser.add_argument(
            "--language", default="en", help="the ratings' language (default %(default)s)"
        )
        parser.add_argument(
            "--folds",
            type=int,
            default=5,
            help="cross-validation folds; scores are means over held-out folds "
            "(default %(default)s)",
        )
        parser.add_argument(
            "--seed", type=int, default=1, help="seed of the folds (default %(default)s)"
        )
        parser.add_argument(
            "--store",
            action="store_true",
            help="make the tuned parameters the site's (with the table, if given)",
        )
        add_split_arguments(parser, learning=True, seed_option="--split-seed")

    def handle(self, *args, ratings, table, language, folds, seed, store, **options):
        try:
            learning = learning_from_options(options)
        except ValueError as error:
            raise CommandError(str(error)) from None
        paraphrases = table_record = None
        if table is not None:
            try:
                paraphrases = ParaphraseTable.load(table)
                table_record = table_learned_from(header_comment(table))
            except (OSError, TableFormatError) as error:
                raise CommandError(f"Cannot read the table: {error}") from None
        try:
            records, dimensions = read_ratings(ratings)
        except RatingError as error:
            raise CommandError(str(error)) from None
        on_splits = ratings_on_splits(records, learning, "METEOR-style parameters' ratings")
        records = on_splits.kept
        if not records:
            raise CommandError(f"No ratings on {', '.join(learning.splits)} to tune on.")
        # The one rating these parameters are tuned to: the overall one of three.
        dimension = SINGLE if SINGLE in dimensions else "overall"
        candidates = [record.candidate for record in records]
        references, human = [], []
        for record in records:
            found = leave_one_out(record.references, record.candidate)
            if not found:
                raise CommandError(f"{record.where}: no references for this candidate")
            references.append(found)
            try:
                human.append(float(record.ratings[dimension]))
            except ValueError:
                raise CommandError(
                    f"{record.where}: {dimension} {record.ratings[dimension]!r} is not a number"
                ) from None
        try:
            rated = RatedPairs(
                candidates, references, human, paraphrases=paraphrases, language=language
            )
            if not 2 <= folds <= len(human):
                raise ValueError(f"--folds must be between 2 and {len(human)}")
        except ValueError as error:
            raise CommandError(str(error)) from None

        def fixed(scores) -> float:
            return held_out_mean(rated, np.asarray(scores), folds=folds, seed=seed)

        bleu = [
            metrics.sentence_bleu(c, refs) for c, refs in zip(candidates, references, strict=True)
        ]
        lines = [("sentence BLEU", fixed(bleu), "")]
        plain = ENGLISH.with_changes(paraphrase=0.0, synonym=0.0)
        lines.append(("exact+stem, the paper's parameters", fixed(rated.scores(plain)), ""))
        tuned_plain = cross_validate(
            rated, grid_points(Grid(), paraphrases=False), folds=folds, seed=seed
        )
        lines.append(
            ("exact+stem, tuned", tuned_plain.held_out, tuned_plain.parameters.signature_fields())
        )
        best = tuned_plain
        if paraphrases is not None:
            lines.append(
                ("+ paraphrases, the paper's parameters", fixed(rated.scores(ENGLISH)), "")
            )
            tuned = cross_validate(
                rated, grid_points(Grid(), paraphrases=True), folds=folds, seed=seed
            )
            lines.append(
                ("+ paraphrases, tuned", tuned.held_out, tuned.parameters.signature_fields())
            )
            if not tuned.held_out <= best.held_out:
                best = tuned
        for line in on_splits.lines():
            self.stdout.write(line)
        self.stdout.write(f"{len(human)} ratings, Pearson r, mean of {folds} held-out folds")
        self.stdout.write(f"{'metric':<40}{'r':>8}  parameters (tuned on all ratings)")
        for name, value, parameters in lines:
            self.stdout.write(f"{name:<40}{value:>8.4f}  {parameters}")
        if store:
            uses_table = best.parameters.paraphrase > 0 and paraphrases is not None
            meteor_setting_store(
                parameters=best.parameters,
                language=language,
                table_path=str(table.resolve()) if uses_table else "",
                table_checksum=paraphrases.checksum() if uses_table else "",
                ratings=len(human),
                held_out_correlation=best.held_out,
                learned_from=[
                    on_splits.learned_from.as_dict(),
                    *([table_record.as_dict()] if uses_table else []),
                ],
            )
            self.stdout.write(
                f"Stored as the site's parameters: {best.parameters.signature_fields()}"
            )
