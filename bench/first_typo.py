"""Benchmark: the first misspelt search in a fresh process.

    python bench/first_typo.py [COUNT ...] [--runs N] [--database-url URL]

For each COUNT (default: 600 and 50,000): a throwaway database (a fresh SQLite file, or
the database URL given, which must be empty and migratable) gets the demo content
(``manage.py load_demo``) and a generated glossary of COUNT entries imported the way
``bench/import_glossary.py`` does. Then, ``--runs`` times (default 5), a new Python
process starts Django (production settings, DEBUG off), and times one
``rules.search.search()`` of a misspelt title word of the glossary, a different word
each run, without and with ``language="en"``; then a second misspelt word in the same
process (warm); a misspelt word found only in bodies; and, in a process of its own, a
first search of a correctly spelt word (what any first search costs: the connection,
stemmers, the first query plans). Target: the first misspelt search under 200 ms.

The URLconf is loaded before the timed search, as a web request resolves its path before
the view runs: a search's hits carry URLs (``reverse``), and the first ``reverse`` in a
process imports the whole URLconf (the API's DRF and drf-spectacular modules: several
hundred milliseconds) whatever the search does. One more figure shows that cost: a first
misspelt search in a process that has not loaded it.

Beside each misspelt search, the share of the typo correction itself (``fuzzy.correct``).
The language="en" figure also holds the full-text match with a language filter, which on
SQLite, when one language holds nearly every document (this glossary), can take seconds
whatever the typo: the planner walks the (language, game) index and probes the FTS table
row by row instead of starting from the FTS match (``rules.search.backends``).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

TARGET_MS = 200

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, os.environ["RULESITE_ROOT"])
started = time.perf_counter()
import django
django.setup()
from rules.search import fuzzy, search
correcting = [0.0]
correct = fuzzy.correct
def timed(*args):
    started = time.perf_counter()
    try:
        return correct(*args)
    finally:
        correcting[0] += time.perf_counter() - started
fuzzy.correct = timed
if sys.argv[2] == "urlconf":  # as a request does before its view runs
    from django.urls import get_resolver
    get_resolver()._populate()
setup_ms = (time.perf_counter() - started) * 1000
out = {"setup_ms": setup_ms, "searches": []}
for query, language in json.loads(sys.argv[1]):
    correcting[0] = 0.0
    started = time.perf_counter()
    results = search(query, language=language)
    out["searches"].append({
        "query": query, "language": language, "ms": (time.perf_counter() - started) * 1000,
        "correct_ms": correcting[0] * 1000,
        "suggestion": results.suggestion, "hits": len(results.hits),
    })
print(json.dumps(out))
"""


def child(searches: list[tuple[str, str | None]], urlconf: bool = True) -> dict:
    env = {**os.environ, "RULESITE_ROOT": str(ROOT), "DJANGO_DEBUG": "0"}
    command = [sys.executable, "-c", CHILD, json.dumps(searches), "urlconf" if urlconf else "-"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the child process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def typos(count: int, wanted: int, body: bool = False) -> list[str]:
    """Misspelt long title words of the glossary (or words only its bodies use) that
    the search corrects."""
    import random

    from generate_glossary import titles, vocabulary
    from search_latency import misspell

    from rules.search import search

    rng = random.Random(11)
    words = vocabulary()
    if body:  # titles take words[200:6000], sentences words[:8000]
        candidates = sorted(w for w in words[6000:8000] if len(w) >= 7)
    else:
        names = titles(count, random.Random(7), words)
        candidates = sorted({w.lower() for name in names for w in name.split() if len(w) >= 7})
    rng.shuffle(candidates)
    out = []
    for word in candidates:
        typo = misspell(word, rng)
        if typo == word:
            continue
        # Checked in this process (not the children's): the typo is unknown, and corrected.
        found = search(typo, language="en")
        if found.suggestion:
            out.append(typo)
        if len(out) >= wanted:
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("counts", nargs="*", type=int, default=[600, 50_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--database-url")
    args = parser.parse_args()

    for count in args.counts:
        # One database per count: a fresh process for the set-up too.
        command = [sys.executable, __file__, "--one", str(count), "--runs", str(args.runs)]
        if args.database_url:
            command += ["--database-url", args.database_url]
        subprocess.run(command, check=True)


def one(count: int, runs: int, database_url: str | None) -> None:
    from benchdb import setup_django

    setup_django(database_url)
    import io

    from django.core.management import call_command
    from generate_glossary import glossary

    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo
    from rules.search.models import SearchDocument

    started = time.perf_counter()
    call_command("load_demo", stdout=io.StringIO())
    options = ImportOptions(
        game="bench",
        game_name="Benchmark Game",
        language="en",
        kind="glossary",
        source=SourceInfo(title="Generated rules reference"),
    )
    import_document(glossary(count).encode(), options)
    documents = SearchDocument.objects.count()
    elapsed = time.perf_counter() - started
    print(
        f"\n{count:,} glossary entries + the demo content ({documents:,} search documents): "
        f"filled in {elapsed:.1f} s"
    )
    words, body_words = typos(count, runs * 3), typos(count, runs, body=True)
    if len(words) < runs * 3 or len(body_words) < runs:
        raise SystemExit(f"only {len(words)} + {len(body_words)} correctable typos found")
    first, first_en, warm, first_body, raw, plain, setup = [], [], [], [], [], [], []
    correcting: dict[str, list[float]] = {"first": [], "first_en": [], "first_body": [], "warm": []}
    for run in range(runs):
        a, b, c = words[3 * run : 3 * run + 3]
        result = child([(a, None), (b, None)])
        first.append(result["searches"][0]["ms"])
        warm.append(result["searches"][1]["ms"])
        setup.append(result["setup_ms"])
        correcting["first"].append(result["searches"][0]["correct_ms"])
        correcting["warm"].append(result["searches"][1]["correct_ms"])
        english = child([(b, "en")])["searches"][0]
        first_en.append(english["ms"])
        correcting["first_en"].append(english["correct_ms"])
        body = child([(body_words[run], None)])["searches"][0]
        first_body.append(body["ms"])
        correcting["first_body"].append(body["correct_ms"])
        raw.append(child([(c, None)], urlconf=False)["searches"][0]["ms"])
        correct = result["searches"][0]["suggestion"] or "rules"
        plain.append(child([(correct, None)])["searches"][0]["ms"])
        shown = result["searches"][0]
        print(
            f"  run {run + 1}: {shown['query']!r} → {shown['suggestion']!r} "
            f"({shown['hits']} hits) in {shown['ms']:.0f} ms"
        )

    def line(label: str, values: list[float], part: str | None = None) -> str:
        text = f"  {label:<44} median {statistics.median(values):7.1f} ms   max {max(values):7.1f} ms"
        if part:  # the typo correction's share (fuzzy.correct)
            share = correcting[part]
            text += f"   (correction: median {statistics.median(share):6.1f}, max {max(share):6.1f})"
        return text

    def verdict(values: list[float]) -> str:
        return f"   target < {TARGET_MS} ms: " + ("met" if max(values) < TARGET_MS else "MISSED")

    print(line("django.setup() + URLconf (not in the figures)", setup))
    print(line("first misspelt search, any language", first, "first") + verdict(first))
    print(line('first misspelt search, language="en"', first_en, "first_en") + verdict(first_en))
    print(line("first misspelt body word, any language", first_body, "first_body") + verdict(first_body))
    print(line("second misspelt search, same process", warm, "warm"))
    print(line("first search of a correct word (baseline)", plain))
    print(line("first misspelt search, URLconf not loaded", raw))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        parser = argparse.ArgumentParser()
        parser.add_argument("--one", type=int, required=True)
        parser.add_argument("--runs", type=int, default=5)
        parser.add_argument("--database-url")
        options = parser.parse_args()
        one(options.one, options.runs, options.database_url)
    else:
        main()
