"""A baseline paraphrase system: rewrite sentences with a paraphrase table, fluent under a
trigram model of the corpus. Prints ``source<TAB>output`` lines that ``score_system`` reads,
after one ``# learned-from:`` line each for the table and the model (research.learning): the
model learns from the sides ``--splits`` names only (train by default), and the table's own
record is read from its gzip header.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from paracrowd_metrics.meteor import ParaphraseTable, TableFormatError, meteor_tokens
from paracrowd_metrics.meteor.matchers import primary_language
from paracrowd_metrics.meteor.table import header_comment
from research.learning import declaration_line, table_learned_from
from research.management.commands.extract_paraphrases import read_clusters, stored_clusters
from research.management.filter_options import (
    add_filter_arguments,
    add_split_arguments,
    filter_from_options,
    learning_from_options,
)
from research.paraphraser import TrigramModel, paraphrase
from research.selection import FilterError


def tsv_field(text: str) -> str:
    return " ".join(text.split())


class Command(BaseCommand):
    help = (
        "Paraphrase sentences by substituting paraphrase-table phrases, ranked by the table's "
        "probabilities and a trigram model of the corpus; prints source<TAB>output lines."
    )

    def add_arguments(self, parser):
        parser.add_argument("sentences", nargs="*", help="sentences to paraphrase")
        parser.add_argument("--sources", type=Path, help="a file of sentences, one a line")
        parser.add_argument("--table", type=Path, required=True, help="a paraphrase table")
        parser.add_argument("--corpus", type=Path, help="a jsonl cluster export for the model")
        parser.add_argument("--from-db", action="store_true", help="model the stored corpus")
        add_filter_arguments(parser)
        add_split_arguments(parser, learning=True)
        parser.add_argument(
            "--target-language",
            default="en",
            help="the sentences' language, for tokenising (default %(default)s)",
        )
        parser.add_argument("--count", type=int, default=1, help="rewrites per sentence")

    def handle(
        self, *args, sentences, sources, table, corpus, from_db, target_language, count, **options
    ):
        if bool(corpus) == bool(from_db):
            raise CommandError("Give either --corpus CLUSTERS.jsonl or --from-db for the model.")
        if count < 1:
            raise CommandError("--count must be at least 1.")
        try:
            language = primary_language(target_language)
        except ValueError as error:
            raise CommandError(str(error)) from None
        if sources is not None:
            try:
                sentences = [*sentences, *sources.read_text(encoding="utf-8").splitlines()]
            except (OSError, UnicodeDecodeError) as error:
                raise CommandError(f"Cannot read {sources}: {error}") from None
        sentences = [sentence for sentence in sentences if sentence.strip()]
        if not sentences:
            raise CommandError("Nothing to paraphrase: give sentences or --sources FILE.")
        try:
            learning = learning_from_options(options)
        except ValueError as error:
            raise CommandError(str(error)) from None
        try:
            paraphrases = ParaphraseTable.load(table)
            table_record = table_learned_from(header_comment(table))
        except (OSError, TableFormatError) as error:
            raise CommandError(f"Cannot read the table: {error}") from None
        if from_db:
            try:
                clusters = stored_clusters(filter_from_options(options), learning)
            except FilterError as error:
                raise CommandError(str(error)) from None
        else:
            clusters = read_clusters(corpus, learning)
        model = TrigramModel(
            meteor_tokens(text, language)
            for cluster in clusters
            for code, text in cluster
            if primary_language(code) == language
        )
        self.stdout.write(declaration_line(table_record))
        self.stdout.write(declaration_line(learning.learned_from("language model")))
        self.stdout.write("source\toutput")
        for sentence in sentences:
            rewrites = paraphrase(
                meteor_tokens(sentence, language), table=paraphrases, model=model, count=count
            )
            if not rewrites:
                self.stderr.write(f"No paraphrase in the table for: {sentence[:80]}")
            for rewrite in rewrites:
                self.stdout.write(f"{tsv_field(sentence)}\t{rewrite.text}")
