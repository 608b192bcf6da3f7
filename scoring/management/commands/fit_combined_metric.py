"""Fit the combined metric, PINC × sigmoid(BLEU), to human ratings.

RATINGS.csv has columns source, candidate, rating, and either ``references`` (several joined
with " ||| ") or ``cluster`` (a segment id whose stored descriptions are the references).
Prints the fitted centre and slope and the correlation table of Chen & Dolan (2011).
"""

import csv
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring import metrics
from scoring.services import cluster_descriptions, meteor_configuration

REFERENCE_SEPARATOR = " ||| "


class Command(BaseCommand):
    help = "Fit PINC × sigmoid(BLEU) to human ratings and print the correlation table."

    def add_arguments(self, parser):
        parser.add_argument("ratings", type=Path)
        parser.add_argument("--tokenize", default="13a", choices=sorted(metrics.TOKENIZERS))

    def handle(self, *args, ratings, tokenize, **options):
        rows = self._read(ratings)
        bleu, pinc, meteor, human = [], [], [], []
        # The METEOR-style score as the site computes it (tune_meteor's stored parameters).
        configuration = meteor_configuration()
        for line, row, references in rows:
            references = [r for r in references if r != row["candidate"]]
            if not references:
                raise CommandError(f"{ratings}:{line}: no references for this candidate")
            bleu.append(metrics.sentence_bleu(row["candidate"], references, tokenize=tokenize))
            pinc.append(metrics.pinc(row["source"], row["candidate"], tokenize=tokenize))
            meteor.append(
                configuration.scorer(configuration.language).score(row["candidate"], references)
            )
            human.append(row["rating"])
        if len(human) < 3:
            raise CommandError("At least three rated candidates are needed to fit.")
        table = metrics.correlation_table(bleu, pinc, human)
        self.stdout.write(
            f"Fitted on {len(human)} ratings: centre = {table.centre:.4f}, "
            f"slope = {table.slope:.6f}"
        )
        self.stdout.write(f"{'metric':<28}Pearson r")
        for name, value in [
            ("BLEU", table.bleu),
            ("PINC", table.pinc),
            ("arithmetic mean", table.arithmetic_mean),
            ("geometric mean", table.geometric_mean),
            ("harmonic mean", table.harmonic_mean),
            ("PINC × sigmoid(BLEU)", table.combined),
            ("METEOR-style", metrics.pearson(meteor, human)),
        ]:
            self.stdout.write(f"{name:<28}{value:.4f}")
        self.stdout.write(
            f"METEOR signature: {configuration.signature(configuration.language, 'var')}"
        )

    def _read(self, path):
        return read_ratings(path)


def read_ratings(path):
    """(line number, record, references) of each rating in RATINGS.csv; CommandError
    naming the line of anything malformed."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            records = list(csv.DictReader(handle))
            columns = set(records[0]) if records else set()
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"Cannot read {path}: {error}") from None
    missing = {"source", "candidate", "rating"} - columns
    if missing or not ({"references", "cluster"} & columns):
        raise CommandError(
            "RATINGS.csv needs the columns source, candidate, rating, and references or "
            f"cluster; missing: {', '.join(sorted(missing)) or 'references/cluster'}"
        )
    clusters = {}
    if "cluster" in columns:
        ids = {int(r["cluster"]) for r in records if (r.get("cluster") or "").isdigit()}
        for (segment_id, _), members in cluster_descriptions(ids).items():
            clusters.setdefault(segment_id, []).extend(text for _, text in members)
    rows = []
    for line, record in enumerate(records, start=2):
        try:
            record["rating"] = float(record["rating"])
        except ValueError:
            raise CommandError(
                f"{path}:{line}: rating {record['rating']!r} is not a number"
            ) from None
        if record.get("references"):
            references = record["references"].split(REFERENCE_SEPARATOR)
        else:
            cluster = record.get("cluster") or ""
            if not cluster.isdigit() or int(cluster) not in clusters:
                raise CommandError(f"{path}:{line}: no stored cluster {cluster!r}")
            references = clusters[int(cluster)]
        rows.append((line, record, references))
    return rows
