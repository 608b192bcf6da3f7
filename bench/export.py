"""export_corpus at size: time and peak memory of the MSVD CSV, paraphrase pairs (every pair)
and Parquet exports at 100,000 and at 1,000,000 descriptions, each against PostgreSQL's own
COPY of the same rows in the same run.

The corpus is generated inside PostgreSQL (INSERT … SELECT generate_series, seeded): MSVD-shaped
clusters of 40 descriptions per segment, 1,000 imported workers, both tiers, every description
accepted and scored. Each export runs in a fresh process writing to a local file, and reports
its own wall time and peak resident memory (getrusage ru_maxrss); "above start-up" subtracts the
peak of the same process right after Django has started, so what remains is what the export
itself holds. Each format's reference is `COPY (SELECT … the same rows, joins and order, values
as stored …) TO STDOUT WITH CSV` through psycopg2 into a file: the floor for getting those rows
out of PostgreSQL at all, with the session settings exports use (no JIT). Pairs are every
ordered pair within a cluster (the export's default): 39 per description here. The fastest of
--repeat alternated runs of each is kept, as the machine may be shared.

Everything happens in a database of the run's own (bench._run: created empty, dropped at the
end, whatever happens); no other database is touched. Times are wall-clock and vary with the
machine; they are printed, never asserted.

    .venv/bin/python bench/export.py            # 100K and 1M descriptions, 10-20 minutes
    .venv/bin/python bench/export.py --quick    # 10K and 100K, about a minute
    .venv/bin/python bench/export.py --formats msvd-csv,parquet   # some formats only
    .venv/bin/python bench/export.py --sizes 400,800                # the smallest, seconds
"""

import os
import sys

# Run as a script from anywhere: the project root must be importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import json
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg2

from bench._run import bench_run
from collector.provenance import CLEAN, TypingRecord

ROOT = Path(__file__).resolve().parent.parent
CLUSTER_SIZE = 40
WORKERS = 1000
# Each export against COPY of the same rows (same joins, same order, values as stored): the
# floor for getting those rows out of PostgreSQL at all. Target: our time ÷ COPY's at most
# 1/0.8 for the text formats and 1/0.5 for Parquet (printed as COPY's time ÷ ours).
#
# How each description was typed, as the msvd-csv and Parquet exports append it after their
# other columns: the signals in one cell ("clean" when there are none, else joined by "+"),
# then the task page's counts as stored.
TYPING_COLUMNS = ", ".join(
    [
        f"CASE WHEN d.typing_signals = '{{}}' THEN '{CLEAN}'"
        " ELSE array_to_string(d.typing_signals, '+') END",
        *(f"d.typing_{name}" for name in TypingRecord.field_names()),
    ]
)
REFERENCES = {
    "msvd-csv": f"""
        SELECT s.youtube_id, s.start, s."end", w.external_id,
               CASE WHEN d.tier = 2 THEN 'clean' ELSE 'unverified' END,
               extract(epoch FROM d.time_spent), d.language, d.text, {TYPING_COLUMNS}
        FROM collector_description d
        JOIN collector_segment s ON s.id = d.segment_id
        LEFT JOIN crowd_worker w ON w.id = d.worker_id
        WHERE d.status = 'accepted'
        ORDER BY d.segment_id, d.language, d.id
    """,  # noqa: S608 (this module's own constants)
    # Every ordered pair of two descriptions of one cluster, cluster by cluster.
    "pairs": """
        SELECT a.text, b.text, c.segment_id, c.language
        FROM (
            SELECT segment_id, language, array_agg(text ORDER BY id) AS texts
            FROM collector_description WHERE status = 'accepted'
            GROUP BY segment_id, language HAVING count(*) > 1
        ) c
        CROSS JOIN LATERAL unnest(c.texts) WITH ORDINALITY AS a(text, i)
        CROSS JOIN LATERAL unnest(c.texts) WITH ORDINALITY AS b(text, j)
        WHERE a.i <> b.j
        ORDER BY c.segment_id, c.language, a.i, b.j
    """,
    "parquet": f"""
        SELECT d.id, d.segment_id, s.youtube_id, s.source, s.start, s."end", d.language,
               d.text, w.external_id, d.tier, d.status, extract(epoch FROM d.time_spent),
               d.created_at, sc.bleu, sc.pinc, sc."references", {TYPING_COLUMNS}
        FROM collector_description d
        JOIN collector_segment s ON s.id = d.segment_id
        LEFT JOIN crowd_worker w ON w.id = d.worker_id
        LEFT JOIN scoring_descriptionscore sc ON sc.description_id = d.id
        WHERE d.status = 'accepted'
        ORDER BY d.segment_id, d.language, d.id
    """,  # noqa: S608 (this module's own constants)
}
TARGETS = {"msvd-csv": 0.8, "pairs": 0.8, "parquet": 0.5}
FORMATS = tuple(TARGETS)

# The generated descriptions' words: MSVD-like one-sentence descriptions of one action.
SUBJECTS = "a man|a woman|a boy|a girl|a dog|a cat|two men|a child|someone|a person|the chef"
VERBS = "is slicing|slices|is cutting|is playing|plays|is riding|rides|is eating|is cooking"
OBJECTS = "a tomato|an onion|the guitar|a horse|a bike|some food|a potato|a ball|the piano"
EXTRAS = "|||in the kitchen|on the street|with a knife|outside|very fast|slowly|on a table"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        help="comma-separated description counts (default 100000,1000000; --quick 10000,100000)",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run at 10K and 100K")
    parser.add_argument(
        "--repeat", type=int, help="runs of each, the fastest kept (default 3; --quick 1)"
    )
    parser.add_argument("--formats", help=f"comma-separated, of {', '.join(FORMATS)} (default all)")
    parser.add_argument("--measure", nargs=2, metavar=("WHAT", "OUTPUT"), help="internal")
    args = parser.parse_args()
    default = "10000,100000" if args.quick else "100000,1000000"
    args.sizes = sorted(int(size) for size in (args.sizes or default).split(","))
    args.repeat = args.repeat or (1 if args.quick else 3)
    args.formats = args.formats.split(",") if args.formats else list(FORMATS)
    for name in args.formats:
        if name not in FORMATS:
            parser.error(f"--formats: {name!r} is not one of {', '.join(FORMATS)}")
    return args


def connect(server: dict):
    return psycopg2.connect(
        dbname=server["NAME"],
        user=server["USER"],
        password=server["PASSWORD"],
        host=server["HOST"],
        port=server["PORT"],
    )


def grow_corpus(server: dict, descriptions: int) -> float:
    """Add segments, descriptions and scores until the corpus holds ``descriptions``; seconds."""
    started = time.perf_counter()
    connection = connect(server)
    with connection, connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.2011)")
        cursor.execute("SELECT count(*) FROM crowd_worker")
        if cursor.fetchone()[0] == 0:
            cursor.execute(
                """
                INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,
                                       email, is_staff, is_active, date_joined)
                SELECT '!', false, 'import:' || n, '', '', '', false, true, now()
                FROM generate_series(1, %(workers)s) n;
                INSERT INTO crowd_worker (user_id, platform, external_id, created_at)
                SELECT id, 'import', substr(username, 8), now() FROM auth_user
                WHERE username LIKE 'import:%%';
                """,
                {"workers": WORKERS},
            )
        cursor.execute("SELECT count(*) FROM collector_description")
        have = cursor.fetchone()[0]
        first, last = have // CLUSTER_SIZE, descriptions // CLUSTER_SIZE
        cursor.execute(
            """
            INSERT INTO collector_segment (source, youtube_id, video_file, start, "end", title,
                                           created_at)
            SELECT 'youtube', 'b' || lpad(n::text, 10, '0'), '', (n %% 50), (n %% 50) + 4.5, '',
                   now()
            FROM generate_series(%(first)s, %(last)s - 1) n;

            WITH words AS (
                SELECT string_to_array(%(subjects)s, '|') s, string_to_array(%(verbs)s, '|') v,
                       string_to_array(%(objects)s, '|') o, string_to_array(%(extras)s, '|') e
            ), segments AS (
                SELECT id FROM collector_segment
                WHERE youtube_id >= 'b' || lpad(%(first)s::text, 10, '0')
            )
            INSERT INTO collector_description (segment_id, worker_id, tier, text, language,
                                               comment, time_spent, status, created_at,
                                               import_key, review_reason, typing_signals)
            SELECT seg.id,
                   (SELECT min(id) FROM crowd_worker) + floor(random() * %(workers)s)::int,
                   CASE WHEN random() < 0.3 THEN 2 ELSE 1 END,
                   initcap(w.s[1 + floor(random() * array_length(w.s, 1))::int]) || ' ' ||
                   w.v[1 + floor(random() * array_length(w.v, 1))::int] || ' ' ||
                   w.o[1 + floor(random() * array_length(w.o, 1))::int] || ' ' ||
                   w.e[1 + floor(random() * array_length(w.e, 1))::int] || '.',
                   CASE WHEN random() < 0.9 THEN 'en' ELSE 'de' END,
                   '', make_interval(secs => 5 + random() * 40), 'accepted', now(), '', '',
                   ARRAY['unknown']
            FROM segments seg CROSS JOIN generate_series(1, %(cluster)s) k CROSS JOIN words w;

            INSERT INTO scoring_descriptionscore (description_id, bleu, pinc, "references",
                                                  bleu_signature, pinc_signature, computed_at)
            SELECT d.id, random() * 100, random() * 100, %(cluster)s - 1,
                   'nrefs:39|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0',
                   'pinc|max:4|tok:13a', now()
            FROM collector_description d
            WHERE NOT EXISTS (
                SELECT 1 FROM scoring_descriptionscore sc WHERE sc.description_id = d.id
            );
            """,
            {
                "first": first,
                "last": last,
                "workers": WORKERS,
                "cluster": CLUSTER_SIZE,
                "subjects": SUBJECTS,
                "verbs": VERBS,
                "objects": OBJECTS,
                "extras": EXTRAS,
            },
        )
        cursor.execute("ANALYZE")
    connection.close()
    return time.perf_counter() - started


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(what: str, output: str) -> None:
    """In a fresh process with the run's environment: one export, or ``copy:<format>``, the
    COPY of that format's rows; prints a JSON line."""
    import dj_database_url
    import django

    django.setup()
    from django.utils.module_loading import import_string

    from research.destinations import Destination
    from research.exports import EXPORT_SETTINGS, ExportOptions, corpus_export
    from research.exports import FORMATS as EXPORT_FORMATS

    if what in EXPORT_FORMATS:
        import_string(EXPORT_FORMATS[what].writer)  # its libraries (pyarrow) belong to start-up
    start_rss = peak_rss_mb()
    started = time.perf_counter()
    if what.startswith("copy:"):
        connection = connect(dj_database_url.parse(os.environ["DATABASE_URL"]))
        query = f"COPY ({REFERENCES[what[5:]]}) TO STDOUT WITH (FORMAT csv)"
        with connection, connection.cursor() as cursor, open(output, "wb") as file:
            # The session settings every export runs with, so that the ratio is the export's
            # own work and not a difference in settings.
            cursor.execute(EXPORT_SETTINGS)
            cursor.copy_expert(query, file)
            rows = cursor.rowcount
        connection.close()
    else:
        report = corpus_export(
            destination=Destination(output), options=ExportOptions(format=what, test_fraction=0.1)
        )
        rows = report.pairs or report.descriptions
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak": peak_rss_mb(), "start": start_rss, "rows": rows}))


def run_measure(what: str, folder: Path) -> dict:
    output = folder / what.replace(":", "-")
    result = subprocess.run(
        [sys.executable, __file__, "--measure", what, str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    measured["bytes"] = sum(f.stat().st_size for f in [output, *output.rglob("*")] if f.is_file())
    shutil.rmtree(output) if output.is_dir() else output.unlink()
    return measured


def main() -> None:
    args = parse_args()
    if args.measure:
        measure(*args.measure)
        return
    with bench_run("bench_export", DEBUG="True") as (server, _):
        print(f"Export bench in {server['NAME']}: sizes {', '.join(f'{s:,}' for s in args.sizes)}")
        print(
            f"ratio = COPY's seconds ÷ ours (at least the target); wall-clock, the fastest of "
            f"{args.repeat} alternated runs of each"
        )
        results = measure_sizes(args, server)
    print_growth(args, results)


def measure_sizes(args, server: dict) -> dict:
    results = {}
    with tempfile.TemporaryDirectory(prefix="paracrowd-export-bench-") as folder:
        for size in args.sizes:
            seconds = grow_corpus(server, size)
            print(f"\n{size:,} descriptions generated in {seconds:.1f} s")
            print(
                f"  {'format':<10}{'rows':>12}{'ours s':>9}{'COPY s':>9}{'ours rows/s':>13}"
                f"{'COPY rows/s':>13}{'ratio':>7}{'target':>8}{'peak MB':>9}"
                f"{'above start-up':>16}{'output MB':>11}"
            )
            results[size] = {}
            for what in args.formats:
                # Alternated, and the fastest of each kept: the machine may be shared.
                runs = [
                    (
                        run_measure(f"copy:{what}", Path(folder)),
                        run_measure(what, Path(folder)),
                    )
                    for _ in range(args.repeat)
                ]
                reference = min((copy for copy, _ in runs), key=lambda m: m["seconds"])
                ours = min((export for _, export in runs), key=lambda m: m["seconds"])
                results[size][what] = ours
                ratio = reference["seconds"] / ours["seconds"]
                met = "met" if ratio >= TARGETS[what] else "MISSED"
                print(
                    f"  {what:<10}{ours['rows']:>12,}{ours['seconds']:>9.2f}"
                    f"{reference['seconds']:>9.2f}{ours['rows'] / ours['seconds']:>13,.0f}"
                    f"{reference['rows'] / reference['seconds']:>13,.0f}{ratio:>7.2f}"
                    f"{'≥' + str(TARGETS[what]):>6} {met:<6}{ours['peak']:>7.0f}"
                    f"{ours['peak'] - ours['start']:>16.0f}{ours['bytes'] / 2**20:>11.1f}"
                )
                if reference["rows"] != ours["rows"]:
                    print(
                        f"  !! COPY wrote {reference['rows']:,} rows, the export {ours['rows']:,}"
                    )
    return results


def print_growth(args, results: dict) -> None:
    small, large = args.sizes[0], args.sizes[-1]
    print(f"\nFrom {small:,} to {large:,} descriptions ({large / small:.0f}x the rows):")
    for what in args.formats:
        a, b = results[small][what], results[large][what]
        print(
            f"  {what:<9} time {b['seconds'] / a['seconds']:5.1f}x, peak memory "
            f"{b['peak'] / a['peak']:.2f}x ({a['peak']:.0f} → {b['peak']:.0f} MB; above "
            f"start-up {a['peak'] - a['start']:.0f} → {b['peak'] - b['start']:.0f} MB)"
        )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("Interrupted; the run's database and queue removed.")
