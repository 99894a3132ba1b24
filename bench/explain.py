"""The query plans of the hot read paths, to check that each uses an index.

    .venv/bin/python bench/explain.py --database-url postgres://USER:PASS@127.0.0.1/EMPTY_DB
        [--entries 619] [--analyze]

Builds the same content as bench/serve.py (demo content plus a generated glossary of
--entries entries with cross-references, errata and FAQ) in the given empty database,
then requests each page the benchmark loads through Django's test client with caching
off, records every SQL statement it runs, and prints ``EXPLAIN`` (``EXPLAIN ANALYZE``
with --analyze) for each one. On PostgreSQL, a small table may still be read with a
sequential scan when that is cheaper; the figures in the manual ("Speed and caching") are
from this script.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="an empty database to fill (default: SQLite)")
    parser.add_argument("--entries", type=int, default=619)
    parser.add_argument("--analyze", action="store_true", help="EXPLAIN ANALYZE (runs each query)")
    args = parser.parse_args()
    args.keep = False
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"  # the test client speaks plain HTTP

    import serve

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-explain-"))
    site = serve.build_site(args, workdir)

    from django.db import connection
    from django.test import Client, override_settings
    from django.test.utils import CaptureQueriesContext

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # fresh statistics, as autovacuum would have them by now
    # Caching off: every query of the page runs.
    override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}).enable()
    client = Client(HTTP_HOST="127.0.0.1")
    prefix = "EXPLAIN ANALYZE" if args.analyze else "EXPLAIN"
    if connection.vendor == "sqlite":
        prefix = "EXPLAIN QUERY PLAN"
    for name in ("entry", "game", "api-list", "api-search"):
        path = site.paths[name]
        client.get(path)  # warm: the first request of a process loads templates
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        print(f"\n=== {name}: {path} ({response.status_code}, {len(captured)} queries)")
        for number, query in enumerate(captured.captured_queries, 1):
            sql = query["sql"]
            print(f"\n--- {number}. {sql[:300]}{' …' if len(sql) > 300 else ''}")
            with connection.cursor() as cursor:
                cursor.execute(f"{prefix} {sql}")
                for row in cursor.fetchall():
                    print("   ", " ".join(str(part) for part in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
