"""Benchmark: planning a held version against importing it (numbered rules, releases).

    python bench/plan_release.py [COUNT] [--database-url URL] [--profile FILE]

A numbered rules document of COUNT rules (``generate_numbered``, default 11,350) is
imported as version v1 of a source; then its next version v2 (inserted rules shift their
siblings, some reworded, some dropped) is

1. **planned** as a dry run (``--dry-run``, the admin's preview),
2. **held for review** (the admin upload's default for a version: planned and kept
   with its release, ``rules.importing.upcoming``),
3. **imported for real** by publishing the held release (``rules.importing.due.apply_release``,
   what *Publish this release* does),

each with its wall and CPU time (on PostgreSQL the server's own work is in the wall time
only) and the number of changes it lists. Planning writes nothing, so it should cost no
more than importing: the target is a plan within 1.5x of the real import of the same
version. ``--profile FILE`` writes a cProfile of the held plan (step 2) to FILE.
"""

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=11_350)
    parser.add_argument("--database-url")
    parser.add_argument("--profile", help="write a cProfile of the held plan to this file")
    args = parser.parse_args()

    from benchdb import setup_django

    url = setup_django(args.database_url)
    from generate_numbered import next_version, numbered_rules

    from rules.content.releases import Release
    from rules.importing import ImportOptions, import_document
    from rules.importing.due import apply_release
    from rules.importing.pipeline import SourceInfo

    v1, v2 = numbered_rules(args.count).encode(), next_version(args.count).encode()
    print(f"{args.count} rules, {len(v1) / 1e6:.1f} MB; database {url.split(':', 1)[0]}")

    def options(version: str, **kwargs) -> ImportOptions:
        return ImportOptions(
            game="bench", game_name="Benchmark Game", language="en", kind="rulebook",
            source=SourceInfo(title="Generated rules reference", version=version), prune=True, **kwargs,
        )  # fmt: skip

    def timed(label: str, call):
        started, cpu = time.perf_counter(), time.process_time()
        report = call()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        kinds = dict(sorted(Counter(str(line.change) for line in report.changes).items()))
        print(f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU; {len(report.changes)} changes {kinds}")
        return wall, cpu

    timed("import v1", lambda: import_document(v1, options("v1")))
    plan, _ = timed("plan v2 (dry run)", lambda: import_document(v2, options("v2", dry_run=True)))

    def held():
        if not args.profile:
            return import_document(v2, options("v2", hold=True))
        import cProfile

        profiler = cProfile.Profile()
        report = profiler.runcall(import_document, v2, options("v2", hold=True))
        profiler.dump_stats(args.profile)
        return report

    hold, _ = timed("hold v2 for review (planned and kept)", held)
    release = Release.objects.get(source__title="Generated rules reference", version="v2")
    real, _ = timed("import v2 (publish the held release)", lambda: apply_release(release))
    print(f"plan / import: dry run {plan / real:.2f}x, held {hold / real:.2f}x (target: at most 1.5x)")


if __name__ == "__main__":
    main()
