"""Benchmark: search quality over the demo content, query set by query set.

    python bench/search_quality.py [--database-url URL] [--files TSV ...] [--all]

Imports the demo content (``load_demo``) into a fresh SQLite file (or the database URL
given, which must be migratable; the demo import is idempotent) and runs every query of
``tests/search/demo-queries.tsv`` and ``tests/search/more-queries.tsv`` (the format is in
``tests/search/__init__.py``) through ``rules.search.search`` with the line's game and
language. Prints, per file and per language: the number of queries, the share with the
expected item in the top 3 (what ``tests/search/test_quality.py`` asserts), in first
place, and the mean reciprocal rank over the first 10 results (a miss counts 0); then
every miss, with the titles that came first. ``--all`` also lists the hits.
"""

import argparse
import io
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

TOP = 3
MRR_DEPTH = 10


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url")
    parser.add_argument("--files", nargs="+", type=Path, help="query files (default: the two in tests/search)")
    parser.add_argument("--all", action="store_true", help="list every query with its rank, not only the misses")
    args = parser.parse_args()

    from benchdb import setup_django

    setup_django(args.database_url)
    from django.core.management import call_command

    from rules.search import search
    from tests.search import QUERY_FILES, read_queries

    started = time.perf_counter()
    call_command("load_demo", stdout=io.StringIO())
    print(f"demo content loaded in {time.perf_counter() - started:.2f} s ({os.environ['DATABASE_URL']})")

    search("warm up")  # the first query pays for imports and connections; not counted
    files = args.files or list(QUERY_FILES)
    overall: list[tuple[int | None, float]] = []
    for path in files:
        cases = read_queries(path)
        by_language: dict[str, list] = defaultdict(list)
        misses, listing = [], []
        for case in cases:
            started = time.perf_counter()
            results = search(case.query, game=case.game or None, language=case.language or None, limit=MRR_DEPTH)
            elapsed_ms = (time.perf_counter() - started) * 1000
            hits = results.hits[:MRR_DEPTH]
            rank = case.rank(hits)
            by_language[case.language].append((rank, elapsed_ms))
            overall.append((rank, elapsed_ms))
            titles = [hit.title + (f" [{hit.number}]" if hit.number else "") for hit in hits[:TOP]]
            line = (
                f"  {case.language} {case.query!r} → {case.expectation}: "
                f"rank {rank or '-'}; first: {titles or 'nothing'}"
            )
            listing.append(line)
            if rank is None or rank > TOP:
                misses.append(line + (f" (did you mean {results.suggestion!r})" if results.suggestion else ""))

        print(f"\n{path.name}")
        print(f"  {'language':<10}{'queries':>8}{'top-3':>9}{'top-1':>9}{'MRR@10':>9}{'mean ms':>9}")
        for language in sorted(by_language):
            print("  " + row(language, by_language[language]))
        print("  " + row("all", [r for rows in by_language.values() for r in rows]))
        if args.all:
            print("  queries:")
            print("\n".join(listing))
        print(f"  misses (expected item not in the top {TOP}): {len(misses)}")
        if misses:
            print("\n".join(misses))

    if len(files) > 1:
        print(f"\nall files\n  {'':<10}{'queries':>8}{'top-3':>9}{'top-1':>9}{'MRR@10':>9}{'mean ms':>9}")
        print("  " + row("all", overall))


def row(label: str, ranks: list[tuple[int | None, float]]) -> str:
    n = len(ranks)
    if not n:
        return f"{label:<10}{0:>8}"
    top3 = sum(1 for rank, _ in ranks if rank is not None and rank <= TOP) / n
    top1 = sum(1 for rank, _ in ranks if rank == 1) / n
    mrr = sum(1 / rank for rank, _ in ranks if rank is not None and rank <= MRR_DEPTH) / n
    mean_ms = sum(ms for _, ms in ranks) / n
    return f"{label:<10}{n:>8}{top3:>9.0%}{top1:>9.0%}{mrr:>9.3f}{mean_ms:>9.1f}"


if __name__ == "__main__":
    main()
