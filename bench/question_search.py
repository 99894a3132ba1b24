"""Benchmark: players' questions over rules documents the search was not tuned on.

    python bench/question_search.py SET_DIR [SET_DIR ...] [--database-url URL]
                                    [--modes lexical,fused] [--misses]

Each SET_DIR holds a ``manifest.toml`` (the format of ``rules/demo/manifest.toml``), the
documents it names and ``questions.tsv`` (the format of ``tests/search/__init__.py``:
``language<TAB>game<TAB>question<TAB>expected``, several acceptable answers joined by
`` || ``). The documents are imported through the project's importer into a fresh
SQLite file (or the database URL given), then every question is searched as a player
asks it on the site: the game chosen, "All languages", the reader's language the
question's. A question is cross-language when its game has no document in the
question's language.

Modes: ``lexical`` (the semantic part off) and ``fused`` (on: the documents are
embedded first, which this script times). Prints, per mode, per language and for the
cross-language questions: the number of questions, hit@3 (an acceptable answer in the
first three), hit@1, MRR@10 and mean / p95 milliseconds per search; ``--misses`` lists
the questions whose answer is not in the first three, with what came first.
"""

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

TOP = 3
DEPTH = 10


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--database-url")
    parser.add_argument("--modes", default="lexical,fused")
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()

    from benchdb import setup_django

    url = setup_django(args.database_url)
    from django.test import override_settings

    from rules.importing import import_document
    from rules.importing.manifest import read_manifest
    from rules.search import search, semantic
    from rules.search.models import SearchDocument
    from tests.search import read_queries

    cases = []
    started = time.perf_counter()
    for folder in args.sets:
        for document in read_manifest(folder / "manifest.toml"):
            import_document(document.path.read_bytes(), document.options, filename=document.path.name)
        cases += read_queries(folder / "questions.tsv")
    print(
        f"{len(args.sets)} sets, {SearchDocument.objects.count()} documents imported "
        f"in {time.perf_counter() - started:.1f} s ({url.split('@')[-1]})"
    )
    languages_of = defaultdict(set)
    for game, language in SearchDocument.objects.values_list("game__slug", "language").distinct():
        languages_of[game].add(language)

    for mode in args.modes.split(","):
        setting = "off" if mode == "lexical" else "auto"
        with override_settings(RULESITE_SEMANTIC=setting):
            if mode != "lexical":
                if not semantic.enabled():
                    print(f"\n{mode}: the semantic part is not installed (pip install -e '.[semantic]'); skipped")
                    continue
                started = time.perf_counter()
                embedded = semantic.refresh()
                print(f"\n{mode}: {embedded} documents embedded in {time.perf_counter() - started:.1f} s")
            search("warm up", reader_language="en")  # imports, connections, model load
            groups: dict[str, list] = defaultdict(list)
            misses = []
            for case in cases:
                started = time.perf_counter()
                results = search(case.query, game=case.game or None, reader_language=case.language, limit=DEPTH)
                ms = (time.perf_counter() - started) * 1000
                rank = case.rank(results.hits[:DEPTH])
                cross = case.language not in languages_of[case.game]
                groups[f"{case.language}→other" if cross else case.language].append((rank, ms))
                groups["cross" if cross else "same"].append((rank, ms))
                groups["all"].append((rank, ms))
                if rank is None or rank > TOP:
                    first = [f"{hit.title} ({hit.language})" for hit in results.hits[:TOP]]
                    misses.append(
                        f"  {case.language} {case.game} {case.query!r} → {case.expectation}: "
                        f"rank {rank or '-'} [{results.kind}]; first: {first}"
                    )
            print(f"\n{mode}")
            print(f"  {'group':<10}{'questions':>10}{'hit@3':>8}{'hit@1':>8}{'MRR@10':>8}{'mean ms':>9}{'p95 ms':>8}")
            order = sorted(k for k in groups if k not in ("same", "cross", "all")) + ["same", "cross", "all"]
            for key in order:
                if key in groups:
                    print("  " + row(key, groups[key]))
            if args.misses:
                print(f"  misses ({len(misses)}):")
                print("\n".join(misses))


def row(label: str, ranks: list) -> str:
    n = len(ranks)
    top3 = sum(1 for rank, _ in ranks if rank is not None and rank <= TOP) / n
    top1 = sum(1 for rank, _ in ranks if rank == 1) / n
    mrr = sum(1 / rank for rank, _ in ranks if rank is not None and rank <= DEPTH) / n
    times = sorted(ms for _, ms in ranks)
    p95 = times[min(n - 1, int(0.95 * n))]
    return f"{label:<10}{n:>10}{top3:>8.2f}{top1:>8.2f}{mrr:>8.3f}{sum(times) / n:>9.1f}{p95:>8.1f}"


if __name__ == "__main__":
    main()
