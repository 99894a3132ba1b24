"""Benchmark: import a generated 10,000-entry glossary, then import it again unchanged.

    python bench/import_glossary.py [COUNT] [--database-url URL]

Runs against a fresh SQLite file (or the database URL given, which must be empty and
migratable) and prints, for each run, wall time, this process's CPU time (on a shared
machine the wall time also holds waiting for a core; on PostgreSQL the server's own work
is in the wall time only), what the importer reported and the process's peak resident
memory. Targets (issue 3): first import under 10 s, unchanged
re-import under 5 s, peak memory under 500 MB.
"""

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=10_000)
    parser.add_argument("--database-url")
    args = parser.parse_args()

    from benchdb import setup_django

    setup_django(args.database_url)
    from generate_glossary import glossary

    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    started = time.perf_counter()
    text = glossary(args.count).encode()
    print(f"generated {args.count} entries, {len(text) / 1e6:.1f} MB of text in {time.perf_counter() - started:.1f} s")
    print(f"peak memory before importing: {peak_mb():.0f} MB")

    def run(label: str) -> None:
        options = ImportOptions(
            game="bench",
            game_name="Benchmark Game",
            language="en",
            kind="glossary",
            source=SourceInfo(title="Generated rules reference"),
        )
        started, cpu = time.perf_counter(), time.process_time()
        report = import_document(text, options)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"{label}: {elapsed:.2f} s ({cpu:.2f} s CPU); {report.summary()}; peak memory {peak_mb():.0f} MB")

    run("first import")
    run("re-import, unchanged")


if __name__ == "__main__":
    main()
