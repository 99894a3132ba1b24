"""Benchmark: semantic search's vectors (``rules.search.semantic``) over generated content.

    python bench/embed_index.py [ENTRIES] [--synthetic N] [--queries N] [--database-url URL] [--seed N]

1. Fills an empty database (a fresh SQLite file, or the URL given) with ENTRIES generated
   entries in four languages over eight games, plus errata and FAQ questions (one in 25
   each), the generator of ``bench/search_latency.py``, and builds the search index.
2. **The worker**, a fresh process as ``manage.py db_worker`` is: resident memory added
   by loading the model and embedding a first batch, then ``refresh()`` over everything:
   seconds, documents and passages per second, and its peak memory above the process's
   start (VmHWM).
3. **A web process**, fresh too, whose first use is a query (one OpenMP thread, as in a
   gunicorn worker: ``rules.search.embedders``): the model's load time and memory, and
   the milliseconds to embed each of ``--queries`` distinct questions (p50, p95).
4. ``nearest()`` over the real vectors: the first call (reading every game's vectors
   into the process), then p50/p95 over the questions for every game, one game, one
   game and language; the per-search staleness query alone. Then ``--synthetic`` random
   vectors (default 50,000) in a game of their own, and the same at that size.

Prints figures only. RULESITE_SEMANTIC is ``auto`` (the real model) unless set.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

QUESTIONS = {
    "en": ("How does {} work?", "When can I use {}?", "What happens with {}?"),
    "de": ("Wie funktioniert {}?", "Wann darf ich {} nutzen?", "Was passiert bei {}?"),
    "pl": ("Jak działa {}?", "Kiedy mogę użyć {}?", "Co się dzieje z {}?"),
    "nl": ("Hoe werkt {}?", "Wanneer mag ik {} gebruiken?", "Wat gebeurt er met {}?"),
}


def memory_mb(field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of this process, in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(share * len(ordered) + 0.5) - 1)]


def ms(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.2f} ms, p95 {percentile(values, 0.95):.2f} ms"


# -- the child processes ------------------------------------------------------------------


def worker_child() -> dict:
    """As the worker: load the model, embed a batch, refresh everything."""
    from rules.search import embedders, semantic
    from rules.search.models import SearchVector

    start = memory_mb("VmRSS")
    began = time.perf_counter()
    model = embedders.embedder(for_passages=True)
    loaded = time.perf_counter() - began
    after_load = memory_mb("VmRSS")
    model.passages(["Reactions: a reaction is a triggered ability that its controller may use."] * 32)
    after_batch = memory_mb("VmRSS")
    began = time.perf_counter()
    documents = semantic.refresh()
    elapsed = time.perf_counter() - began
    return {
        "model": model.name,
        "load_s": loaded,
        "load_mb": after_load - start,
        "first_batch_mb": after_batch - start,
        "documents": documents,
        "passages": SearchVector.objects.count(),
        "refresh_s": elapsed,
        "peak_mb": memory_mb("VmHWM") - start,
        "omp_threads": os.environ.get("OMP_NUM_THREADS", "all cores"),
    }


def web_child(questions: list[str]) -> dict:
    """As a web process: the first use is a query."""
    from rules.search import semantic

    start = memory_mb("VmRSS")
    began = time.perf_counter()
    semantic.embed_query("warm-up: how does this work?")
    first = time.perf_counter() - began
    times = []
    for question in questions:
        began = time.perf_counter()
        semantic.embed_query(question)
        times.append((time.perf_counter() - began) * 1000)
    return {
        "first_ms": first * 1000,
        "times": times,
        "mb": memory_mb("VmRSS") - start,
        "omp_threads": os.environ.get("OMP_NUM_THREADS"),
    }


def run_child(role: str, database_url: str, questions: list[str] | None = None) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(questions or [], handle)
    try:
        command = [sys.executable, __file__, "--child", role, "--database-url", database_url, "--questions-file",
                   handle.name]  # fmt: skip
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(handle.name)
    return json.loads(output.strip().splitlines()[-1])


# -- the parent ---------------------------------------------------------------------------


def questions_from(content, count: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """(question, language, game slug) about generated items, distinct."""
    found: dict[str, tuple[str, str, str]] = {}
    while len(found) < count:
        language = rng.choice(list(QUESTIONS))
        _type, game, title, _body = rng.choice(content.items[language])
        question = rng.choice(QUESTIONS[language]).format(title)
        found.setdefault(question, (question, language, game))
    return list(found.values())


def time_nearest(label: str, vectors: list, scopes: list[dict]) -> None:
    from rules.search import semantic, vector_cache

    vector_cache.forget()
    began = time.perf_counter()
    semantic.nearest(vectors[0])
    print(f"  {label}: first call, reading every game's vectors: {(time.perf_counter() - began) * 1000:.0f} ms")
    for name, filters in scopes:
        times = []
        for vector, scope in zip(vectors, filters, strict=True):
            began = time.perf_counter()
            semantic.nearest(vector, **scope)
            times.append((time.perf_counter() - began) * 1000)
        print(f"  {label}, {name}: {ms(times)}")


def staleness_queries(label: str, game_id: int | None) -> None:
    """What a search pays to know its copy is current: the glance (every search), and
    the full check (after a change)."""
    from rules.search import vector_cache

    for name, query in (("glance", vector_cache._glance), ("full check", vector_cache._keys)):
        times = []
        for _ in range(50):
            began = time.perf_counter()
            query(game_id)
            times.append((time.perf_counter() - began) * 1000)
        print(f"  {label}: the staleness {name} alone: {ms(times)}")


def synthetic(count: int, model: str, rng: random.Random) -> int:
    """``count`` random vectors of documents of a game of their own; the game's id."""
    import numpy as np
    from django.db import transaction
    from django.utils import timezone

    from rules.content.models import Game
    from rules.search.models import SearchDocument, SearchVector

    game = Game.objects.create(slug="bench-synthetic", name="Synthetic vectors")
    generator = np.random.default_rng(rng.randrange(2**32))
    now = timezone.now()
    languages = list(QUESTIONS)
    for start in range(0, count, 5000):
        size = min(5000, count - start)
        with transaction.atomic():
            documents = SearchDocument.objects.bulk_create(
                SearchDocument(item_type="entry", item_id=10**12 + start + n, game=game, language=languages[n % 4],
                               slug=f"synthetic-{start + n}", title=f"Synthetic {start + n}", updated_at=now)
                for n in range(size)
            )  # fmt: skip
            vectors = generator.standard_normal((size, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            SearchVector.objects.bulk_create(
                SearchVector(document=document, chunk=0, game_id=game.pk, language=document.language,
                             item_type="entry", model=model, text_hash="0" * 32, vector=vector.astype("<f2").tobytes())
                for document, vector in zip(documents, vectors, strict=True)
            )  # fmt: skip
    return game.pk


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("entries", nargs="?", type=int, default=10_000)
    parser.add_argument("--synthetic", type=int, default=50_000, help="random vectors for nearest() at scale")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--database-url")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--child", choices=("worker", "web"), help=argparse.SUPPRESS)
    parser.add_argument("--questions-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("RULESITE_SEMANTIC", "auto")

    from benchdb import setup_django

    if args.child:
        setup_django(args.database_url)
        questions = json.loads(Path(args.questions_file).read_text())
        print(json.dumps(worker_child() if args.child == "worker" else web_child(questions)))
        return

    database_url = setup_django(args.database_url)
    from django.core.management import call_command
    from search_latency import fill

    from rules.content.models import Game
    from rules.search import semantic, vector_cache
    from rules.search.models import SearchDocument

    if not semantic.enabled():
        sys.exit("semantic search is off: install the semantic extra (pip install -e '.[semantic]')")
    rng = random.Random(args.seed)
    began = time.perf_counter()
    content, counts = fill(args.entries, rng)
    call_command("rebuild_search_index", stdout=open(os.devnull, "w"))  # noqa: SIM115
    documents = SearchDocument.objects.count()
    print(f"filled {counts} and indexed {documents} documents in {time.perf_counter() - began:.1f} s")

    worker = run_child("worker", database_url)
    print(f"worker ({worker['model']}, OpenMP threads: {worker['omp_threads']}):")
    print(f"  model loaded in {worker['load_s'] * 1000:.0f} ms, +{worker['load_mb']:.0f} MB resident; "
          f"+{worker['first_batch_mb']:.0f} MB after embedding a first batch of 32 passages")  # fmt: skip
    rate = worker["documents"] / worker["refresh_s"]
    print(f"  refresh(): {worker['documents']} documents, {worker['passages']} passages in "
          f"{worker['refresh_s']:.1f} s: {rate:.1f} documents/s, {worker['passages'] / worker['refresh_s']:.1f} "
          f"passages/s; peak memory +{worker['peak_mb']:.0f} MB over the process's start")  # fmt: skip

    asked = questions_from(content, args.queries, rng)
    web = run_child("web", database_url, [question for question, _, _ in asked])
    print(f"web process (OpenMP threads: {web['omp_threads']}): first query, loading the model: "
          f"{web['first_ms']:.0f} ms; +{web['mb']:.0f} MB resident after {len(web['times'])} queries")  # fmt: skip
    print(f"  query embedding over {len(web['times'])} questions: {ms(web['times'])}")

    games = dict(Game.objects.values_list("slug", "pk"))
    vectors = [semantic.embed_query(question) for question, _, _ in asked]
    scopes = [
        ("every game", [{} for _ in asked]),
        ("one game", [{"game_id": games[game]} for _, _, game in asked]),
        ("one game and language", [{"game_id": games[game], "language": language} for _, language, game in asked]),
    ]
    from rules.search.models import SearchVector

    real = SearchVector.objects.count()
    time_nearest(f"nearest() over {real} vectors", vectors, scopes)
    staleness_queries("every game", None)

    if args.synthetic:
        began = time.perf_counter()
        game_id = synthetic(args.synthetic, semantic.embedders.embedder().name, rng)
        print(f"added {args.synthetic} synthetic vectors in a game of their own in {time.perf_counter() - began:.1f} s")
        big = [
            ("every game", [{} for _ in asked]),
            (f"the synthetic game ({args.synthetic})", [{"game_id": game_id} for _ in asked]),
            ("the synthetic game and a language", [{"game_id": game_id, "language": lang} for _, lang, _ in asked]),
        ]
        time_nearest(f"nearest() over {real + args.synthetic} vectors", vectors, big)
        staleness_queries("the synthetic game", game_id)
        vector_cache.forget()
        before = memory_mb("VmRSS")
        semantic.nearest(vectors[0])
        print(f"  memory of this process's copy of every vector: +{memory_mb('VmRSS') - before:.0f} MB")


if __name__ == "__main__":
    main()
