"""Learn a paraphrase table for the METEOR-style score from the corpus's clusters.

Reads the JSON-lines cluster export (``export_corpus --format jsonl``, compressed or not; of
each line only the segment's id, source and video, the language and the descriptions' texts
are used) or, with ``--from-db``, the stored corpus under the usual export filters, plus the
collected word alignments; either way only the clusters of the sides ``--splits`` names (train
by default; research.learning). Writes a gzip table in METEOR 1.5's format, with what it was
learned from in the gzip header. See ``paracrowd_metrics.meteor.extraction``.
"""

import gzip
import json
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from paracrowd_metrics.alignment import parse_pharaoh
from paracrowd_metrics.meteor.extraction import (
    AnnotatedPair,
    ExtractionSettings,
    extract_paraphrases,
)
from paracrowd_metrics.meteor.matchers import primary_language
from paracrowd_metrics.meteor.table import GZIP_MAGIC
from research.learning import LearningSplits, table_comment
from research.management.filter_options import (
    add_filter_arguments,
    add_split_arguments,
    filter_from_options,
    learning_from_options,
)
from research.selection import FilterError, video_label
from research.splits import video_key

DEFAULTS = ExtractionSettings()


def read_clusters(path: Path, learning: LearningSplits) -> list[list[tuple[str, str]]]:
    """One segment's descriptions in every language as (language, text) pairs, per segment,
    of the clusters on the sides ``learning`` takes.

    Raises CommandError naming the line of anything that is not a cluster record, or of a
    record naming no video when only some sides are taken (its side cannot be drawn).
    """
    segments: dict[object, list[tuple[str, str]]] = {}
    try:
        with path.open("rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
        opener = gzip.open if compressed else open
        with opener(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    language = record["language"]
                    texts = [description["text"] for description in record["descriptions"]]
                    segment_record = record.get("segment") or {}
                    segment = segment_record.get("id", f"line {number}")
                    video = _record_video(segment_record)
                    primary_language(language)
                    if not all(isinstance(text, str) for text in texts):
                        raise TypeError("a description's text is not a string")
                except (ValueError, KeyError, TypeError, AttributeError) as error:
                    raise CommandError(
                        f"{path}:{number}: not a cluster record of the jsonl export ({error})"
                    ) from None
                if video is None and not learning.takes(None):
                    raise CommandError(
                        f"{path}:{number}: the record names no video (segment source and "
                        "video), so its side of the split cannot be drawn; learn from every "
                        "side with --splits all"
                    )
                if learning.take(video, segment, language):
                    segments.setdefault(segment, []).extend((language, text) for text in texts)
    except (OSError, UnicodeDecodeError, EOFError) as error:
        raise CommandError(f"Cannot read {path}: {error}") from None
    return list(segments.values())


def _record_video(segment: dict) -> str | None:
    source, video = segment.get("source"), segment.get("video")
    if isinstance(source, str) and isinstance(video, str) and source and video:
        return video_key(source, video)
    return None


def _segment_video(segment) -> str:
    return video_key(segment.source, segment.video_label)


def stored_clusters(corpus_filter, learning: LearningSplits) -> list[list[tuple[str, str]]]:
    """As ``read_clusters``, from the stored corpus under ``corpus_filter``."""
    segments: dict[int, list[tuple[str, str]]] = {}
    rows = (
        corpus_filter.descriptions()
        .annotate(video=video_label())
        .order_by("segment_id", "id")
        .values_list("segment_id", "language", "text", "segment__source", "video")
    )
    for segment_id, language, text, source, video in rows.iterator(chunk_size=5000):
        if learning.take(video_key(source, video), segment_id, language):
            segments.setdefault(segment_id, []).append((language, text))
    return list(segments.values())


def stored_alignments(
    corpus_filter, language: str, imported: bool, learning: LearningSplits
) -> list[AnnotatedPair]:
    """Annotators' sure links on pairs of descriptions in ``language`` of clusters on the
    sides ``learning`` takes (and on imported pairs, which belong to no cluster and record no
    language, when ``imported``)."""
    pairs = []
    alignments = corpus_filter.alignments().select_related(
        "pair", "pair__description_a", "pair__description_a__segment"
    )
    for alignment in alignments.iterator(chunk_size=2000):
        pair = alignment.pair
        described = pair.description_a
        if described is None:
            if not imported:
                continue
        elif primary_language(described.language) != language or not learning.take(
            _segment_video(described.segment), described.segment_id, described.language
        ):
            continue
        sure = parse_pharaoh(alignment.links).sure
        source = tuple(token.lower() for token in pair.tokens_a)
        target = tuple(token.lower() for token in pair.tokens_b)
        if all(i < len(source) and j < len(target) for i, j in sure):
            pairs.append(AnnotatedPair(source, target, frozenset(sure)))
    return pairs


class Command(BaseCommand):
    help = (
        "Learn a paraphrase table (METEOR 1.5 format, gzip) from the clusters: monolingual "
        "alignment within clusters, pivoting through other languages, annotators' sure links."
    )

    def add_arguments(self, parser):
        parser.add_argument("clusters", nargs="?", type=Path, help="a jsonl cluster export")
        parser.add_argument("--from-db", action="store_true", help="read the stored corpus")
        parser.add_argument("--output", type=Path, required=True, help="the table, TABLE.gz")
        parser.add_argument("--target-language", default="en", help="the table's language")
        add_filter_arguments(parser)
        add_split_arguments(parser, learning=True)
        parser.add_argument(
            "--imported-alignments",
            action="store_true",
            help="--from-db: also learn from imported alignments (taken as in the language)",
        )
        for name, help_text in [
            ("max_phrase_length", "longest phrase, in tokens"),
            ("pairs_per_description", "descriptions each one is aligned with"),
            ("min_count", "times a phrase pair must be seen (not in the paper)"),
            ("max_training_pairs", "sentence pairs the aligner trains on"),
        ]:
            parser.add_argument(
                "--" + name.replace("_", "-"),
                type=int,
                default=getattr(DEFAULTS, name),
                help=f"{help_text} (default {getattr(DEFAULTS, name)})",
            )
        for name, help_text in [
            ("min_instance_probability", "drop instances P(f|n1)·P(n2|f) below this"),
            ("common_frequency", "relative frequency that makes a word common"),
            ("threshold", "drop final entries below this probability"),
        ]:
            parser.add_argument(
                "--" + name.replace("_", "-"),
                type=float,
                default=getattr(DEFAULTS, name),
                help=f"{help_text} (default {getattr(DEFAULTS, name)})",
            )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, clusters, from_db, output, target_language, **options):
        if bool(clusters) == bool(from_db):
            raise CommandError("Give either a CLUSTERS.jsonl file or --from-db, not both.")
        try:
            settings = ExtractionSettings(
                language=target_language,
                **{
                    name: options[name]
                    for name in (
                        "max_phrase_length",
                        "pairs_per_description",
                        "min_count",
                        "max_training_pairs",
                        "min_instance_probability",
                        "common_frequency",
                        "threshold",
                    )
                },
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        if not output.parent.is_dir():
            raise CommandError(f"No folder {output.parent} for the table.")
        try:
            learning = learning_from_options(options)
        except ValueError as error:
            raise CommandError(str(error)) from None
        annotated = []
        if from_db:
            try:
                corpus_filter = filter_from_options(options)
            except FilterError as error:
                raise CommandError(str(error)) from None
            found = stored_clusters(corpus_filter, learning)
            annotated = stored_alignments(
                corpus_filter,
                primary_language(target_language),
                options["imported_alignments"],
                learning,
            )
        else:
            found = read_clusters(clusters, learning)
        bars: dict[str, tqdm] = {}

        def progress(stage: str, done: int) -> None:
            if stage not in bars:
                bars[stage] = tqdm(desc=stage, unit=" pairs", file=self.stderr, leave=False)
            bars[stage].update(done)

        table, report = extract_paraphrases(
            found,
            settings=settings,
            annotated=annotated,
            progress=None if options["no_progress"] else progress,
        )
        for bar in bars.values():
            bar.close()
        learned_from = learning.learned_from("paraphrase table")
        # Written beside the target and renamed, so a failure never leaves half a table.
        handle, temporary = tempfile.mkstemp(dir=output.parent, suffix=".part")
        os.close(handle)
        try:
            table.save(temporary, comment=table_comment(learned_from))
            os.replace(temporary, output)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(f"Learned from {learned_from.describe()}")
        self.stdout.write(f"Written {output} (checksum {table.checksum()})")
