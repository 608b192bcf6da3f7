"""A baseline paraphrase system: rewrite sentences with a paraphrase table, fluent under a
trigram model of the corpus. Prints ``source<TAB>output`` lines that ``score_system`` reads
(``source<TAB>output<TAB>segment_id`` when the sources carry their segment, as the split
export's ``test.jsonl`` does: a source whose text is in several test clusters is scored only
when its segment is named),
after one ``# learned-from:`` line each for the table and the model (research.learning): the
model learns from the sides ``--splits`` names only (train by default), and the table's own
record is read from its gzip header.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from paracrowd.wording import shortened
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


def read_sources(path: Path) -> list[tuple[str, int | None]]:
    """(sentence, segment id or None) per line of ``path``: the split export's ``test.jsonl``
    (its ``source`` and ``segment_id``), or text, one sentence a line, optionally followed by
    a tab and its segment id."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"Cannot read {path}: {error}") from None
    sources = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if path.suffix == ".jsonl":
            try:
                record = json.loads(line)
                sources.append((record["source"], record.get("segment_id")))
            except (ValueError, KeyError, TypeError):
                raise CommandError(
                    f"{path}:{number}: expected a test.jsonl record with a source"
                ) from None
            continue
        sentence, tab, segment = line.partition("\t")
        if not tab:
            sources.append((sentence, None))
            continue
        try:
            sources.append((sentence, int(segment)))
        except ValueError:
            raise CommandError(f"{path}:{number}: {segment!r} is not a segment id") from None
    return sources


class Command(BaseCommand):
    help = (
        "Paraphrase sentences by substituting paraphrase-table phrases, ranked by the table's "
        "probabilities and a trigram model of the corpus; prints source<TAB>output lines."
    )

    def add_arguments(self, parser):
        parser.add_argument("sentences", nargs="*", help="sentences to paraphrase")
        parser.add_argument(
            "--sources",
            type=Path,
            help="a file of sentences, one a line (optionally <TAB>segment_id), or the split "
            "export's test.jsonl; their segment ids are carried to the output",
        )
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
        sentences = [(sentence, None) for sentence in sentences]
        if sources is not None:
            sentences.extend(read_sources(sources))
        sentences = [(sentence, segment) for sentence, segment in sentences if sentence.strip()]
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
        with_segments = any(segment is not None for _, segment in sentences)
        self.stdout.write("source\toutput\tsegment_id" if with_segments else "source\toutput")
        for sentence, segment in sentences:
            rewrites = paraphrase(
                meteor_tokens(sentence, language), table=paraphrases, model=model, count=count
            )
            if not rewrites:
                self.stderr.write(f"No paraphrase in the table for: {shortened(sentence, 80)}")
            # A sentence without a segment keeps an empty column: score_system then finds it
            # by its text, as it does in a two-column file.
            suffix = f"\t{'' if segment is None else segment}" if with_segments else ""
            for rewrite in rewrites:
                self.stdout.write(f"{tsv_field(sentence)}\t{rewrite.text}{suffix}")
