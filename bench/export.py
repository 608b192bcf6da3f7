"""export_corpus at size: time and peak memory of the MSVD CSV and Parquet exports at 100,000
and at 1,000,000 descriptions, against PostgreSQL's own COPY of the same rows in the same run.

The corpus is generated inside PostgreSQL (INSERT … SELECT generate_series, seeded): MSVD-shaped
clusters of 40 descriptions per segment, 1,000 imported workers, both tiers, every description
accepted and scored. Each export runs in a fresh process writing to a local file, and reports
its own wall time and peak resident memory (getrusage ru_maxrss); "above start-up" subtracts the
peak of the same process right after Django has started, so what remains is what the export
itself holds. The reference is `COPY (SELECT … the same join and order …) TO STDOUT WITH CSV`
through psycopg2 into a file: the floor for getting these rows out of PostgreSQL at all.

Everything happens in the database paracrowd_bench6, recreated at the start of each run;
paracrowd and test_paracrowd are never touched. Times are wall-clock and vary with the
machine; they are printed, never asserted.

    .venv/bin/python bench/export.py            # 100K and 1M descriptions, a few minutes
    .venv/bin/python bench/export.py --quick    # 10K and 100K, well under a minute
"""

import os
import sys

# Run as a script from anywhere: the project root must be importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg2

from bench._database import database_recreate, server_settings

ROOT = Path(__file__).resolve().parent.parent
BENCH_DATABASE = "paracrowd_bench6"
CLUSTER_SIZE = 40
WORKERS = 1000
FORMATS = ("msvd-csv", "parquet")

# The rows the MSVD CSV export writes, as one SQL query: same joins, same order.
REFERENCE_QUERY = """
    COPY (
        SELECT s.youtube_id, s.start, s."end", w.external_id,
               CASE WHEN d.tier = 2 THEN 'clean' ELSE 'unverified' END,
               extract(epoch FROM d.time_spent), d.language, d.text
        FROM collector_description d
        JOIN collector_segment s ON s.id = d.segment_id
        LEFT JOIN crowd_worker w ON w.id = d.worker_id
        LEFT JOIN scoring_descriptionscore sc ON sc.description_id = d.id
        WHERE d.status = 'accepted'
        ORDER BY d.segment_id, d.language, d.id
    ) TO STDOUT WITH (FORMAT csv, HEADER)
"""

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
    parser.add_argument("--measure", nargs=3, metavar=("WHAT", "URL", "OUTPUT"), help="internal")
    args = parser.parse_args()
    default = "10000,100000" if args.quick else "100000,1000000"
    args.sizes = sorted(int(size) for size in (args.sizes or default).split(","))
    return args


def connect(server: dict, dbname: str):
    return psycopg2.connect(
        dbname=dbname,
        user=server["USER"],
        password=server["PASSWORD"],
        host=server["HOST"],
        port=server["PORT"],
    )


def database_prepare(server: dict) -> None:
    """A fresh bench database with the project's tables."""
    database_recreate(server)
    env = {**os.environ, "DATABASE_URL": server["URL"], "DEBUG": "True"}
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True)


def grow_corpus(server: dict, descriptions: int) -> float:
    """Add segments, descriptions and scores until the corpus holds ``descriptions``; seconds."""
    started = time.perf_counter()
    connection = connect(server, BENCH_DATABASE)
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
                                               import_key, review_reason)
            SELECT seg.id,
                   (SELECT min(id) FROM crowd_worker) + floor(random() * %(workers)s)::int,
                   CASE WHEN random() < 0.3 THEN 2 ELSE 1 END,
                   initcap(w.s[1 + floor(random() * array_length(w.s, 1))::int]) || ' ' ||
                   w.v[1 + floor(random() * array_length(w.v, 1))::int] || ' ' ||
                   w.o[1 + floor(random() * array_length(w.o, 1))::int] || ' ' ||
                   w.e[1 + floor(random() * array_length(w.e, 1))::int] || '.',
                   CASE WHEN random() < 0.9 THEN 'en' ELSE 'de' END,
                   '', make_interval(secs => 5 + random() * 40), 'accepted', now(), '', ''
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


def measure(what: str, url: str, output: str) -> None:
    """In a fresh process: one export (or the COPY reference); prints a JSON line."""
    os.environ.update(DATABASE_URL=url, DEBUG="True", DJANGO_SETTINGS_MODULE="paracrowd.settings")
    import django

    django.setup()
    from django.utils.module_loading import import_string

    from research.destinations import Destination
    from research.exports import FORMATS, ExportOptions, corpus_export

    if what in FORMATS:
        import_string(FORMATS[what].writer)  # its libraries (pyarrow) belong to start-up
    start_rss = peak_rss_mb()
    started = time.perf_counter()
    if what == "copy":
        server = server_settings(BENCH_DATABASE)
        connection = connect(server, BENCH_DATABASE)
        with connection, connection.cursor() as cursor, open(output, "w") as file:
            cursor.copy_expert(REFERENCE_QUERY, file)
        connection.close()
        rows = None
    else:
        report = corpus_export(
            destination=Destination(output), options=ExportOptions(format=what, test_fraction=0.1)
        )
        rows = report.descriptions
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak": peak_rss_mb(), "start": start_rss, "rows": rows}))


def run_measure(what: str, server: dict, folder: Path) -> dict:
    output = folder / ("parquet" if what == "parquet" else f"{what}.csv")
    result = subprocess.run(
        [sys.executable, __file__, "--measure", what, server["URL"], str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    measured["bytes"] = sum(f.stat().st_size for f in [output, *output.rglob("*")] if f.is_file())
    return measured


def main() -> None:
    args = parse_args()
    if args.measure:
        measure(*args.measure)
        return
    server = server_settings(BENCH_DATABASE)
    print(f"Export bench in {BENCH_DATABASE}: sizes {', '.join(f'{s:,}' for s in args.sizes)}")
    database_prepare(server)
    results = {}
    with tempfile.TemporaryDirectory(prefix="paracrowd-export-bench-") as folder:
        for size in args.sizes:
            seconds = grow_corpus(server, size)
            print(f"\n{size:,} descriptions generated in {seconds:.1f} s")
            print(
                f"  {'what':<26}{'rows':>10}{'seconds':>9}{'ratio':>8}{'peak MB':>9}"
                f"{'above start-up MB':>19}{'output MB':>11}"
            )
            reference = run_measure("copy", server, Path(folder))
            results[size] = {"copy": reference}
            rows = [("COPY … TO STDOUT (CSV)", reference)]
            for what in FORMATS:
                results[size][what] = run_measure(what, server, Path(folder))
                rows.append((f"export_corpus {what}", results[size][what]))
            for label, m in rows:
                ratio = m["seconds"] / reference["seconds"]
                print(
                    f"  {label:<26}{m['rows'] or size:>10,}{m['seconds']:>9.2f}{ratio:>7.1f}x"
                    f"{m['peak']:>9.0f}{m['peak'] - m['start']:>19.0f}{m['bytes'] / 2**20:>11.1f}"
                )
    small, large = args.sizes[0], args.sizes[-1]
    print(f"\nFrom {small:,} to {large:,} descriptions ({large / small:.0f}x the rows):")
    for what in FORMATS:
        a, b = results[small][what], results[large][what]
        print(
            f"  {what:<9} time {b['seconds'] / a['seconds']:5.1f}x, peak memory "
            f"{b['peak'] / a['peak']:.2f}x ({a['peak']:.0f} → {b['peak']:.0f} MB; above "
            f"start-up {a['peak'] - a['start']:.0f} → {b['peak'] - b['start']:.0f} MB)"
        )


if __name__ == "__main__":
    main()
