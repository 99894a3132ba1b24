"""Benchmark: import a generated 10,000-entry glossary, then import it again unchanged.

    python bench/import_glossary.py [COUNT] [--database-url URL] [--numbered]

Runs against a fresh SQLite file (or the database URL given, which must be empty and
migratable) and prints, for each run, wall time, this process's CPU time (on a shared
machine the wall time also holds waiting for a core; on PostgreSQL the server's own work
is in the wall time only), what the importer reported and the process's peak resident
memory. Targets (issue 3): first import under 10 s, unchanged
re-import under 5 s, peak memory under 500 MB.

``--numbered``: a numbered rules document instead (``generate_numbered``), imported
as releases of one source: version 1, version 1 again (it must list 0 changes) and a
version 2 that inserts, rewords, drops and so renumbers rules (issue 21); each run
prints how many changes of each kind its release lists.
"""

import argparse
import resource
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=10_000)
    parser.add_argument("--database-url")
    parser.add_argument("--numbered", action="store_true", help="a numbered rules document, imported as releases")
    args = parser.parse_args()

    from benchdb import setup_django

    setup_django(args.database_url)
    from generate_glossary import glossary

    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    started = time.perf_counter()
    if args.numbered:
        from generate_numbered import next_version, numbered_rules

        text, second = numbered_rules(args.count).encode(), next_version(args.count).encode()
    else:
        text = glossary(args.count).encode()
    print(f"generated {args.count} entries, {len(text) / 1e6:.1f} MB of text in {time.perf_counter() - started:.1f} s")
    print(f"peak memory before importing: {peak_mb():.0f} MB")

    def run(label: str, document: bytes = text, version: str = "") -> None:
        options = ImportOptions(
            game="bench",
            game_name="Benchmark Game",
            language="en",
            kind="rulebook" if args.numbered else "glossary",
            source=SourceInfo(title="Generated rules reference", version=version),
            prune=args.numbered,
        )
        started, cpu = time.perf_counter(), time.process_time()
        report = import_document(document, options)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"{label}: {elapsed:.2f} s ({cpu:.2f} s CPU); {report.summary()}; peak memory {peak_mb():.0f} MB")
        if version:
            kinds = Counter(line.change for line in report.changes)
            print(f"  release {version}: {len(report.changes)} changes {dict(sorted(kinds.items()))}")

    if args.numbered:
        run("first import (v1)", text, "v1")
        run("re-import, unchanged (v1)", text, "v1")
        run("next version (v2)", second, "v2")
        return
    run("first import")
    run("re-import, unchanged")


if __name__ == "__main__":
    main()
