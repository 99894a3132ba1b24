"""Benchmark: keeping a full mirror of a 10,000-entry database (issue 20).

    python bench/mirror.py [COUNT] [--database-url URL]

Imports a generated glossary of COUNT entries (bench/generate_glossary.py), then prints:

- building the bulk file of everything (seconds, Python's peak allocation while
  building, file size plain and gzip);
- a full mirror by paging every list endpoint (page_size=100) versus by the bulk file
  list plus one bulk file: requests, bytes on the wire (gzip taken) and seconds;
- a change-feed page of 100 changes: server time per request (median, p95, the
  response cache off), and what the pipeline's public-changes step costs a write in a
  game of COUNT entries (one save's signature pass over the game).

All in one process with Django's test client (no network): the seconds are the
server's and the client's work, not transfer time.
"""

import argparse
import gzip
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

LISTS = ("games", "sources", "entries", "errata", "faq")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=10_000)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    os.environ["DJANGO_SITE_URL"] = "http://testserver"
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"  # the test client speaks plain HTTP

    from benchdb import setup_django

    setup_django(args.database_url)
    from django.test import Client
    from generate_glossary import glossary

    from rules.builds.models import BuiltFile
    from rules.builds.tasks import build_file
    from rules.content.models import Entry
    from rules.derived import public_changes
    from rules.derived.models import PublicChange
    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    started = time.perf_counter()
    options = ImportOptions(
        game="bench", game_name="Benchmark Game", language="en", kind="glossary",
        source=SourceInfo(title="Generated rules reference"),
    )  # fmt: skip
    report = import_document(glossary(args.count).encode(), options)
    print(f"imported {report.summary()} in {time.perf_counter() - started:.1f} s")
    print(f"change feed: {PublicChange.objects.count()} rows")

    # --- building the bulk file of everything
    file = BuiltFile.objects.for_request(BuiltFile.Kind.BULK, game=None, language="")
    tracemalloc.start()
    started = time.perf_counter()
    build_file.call(file.pk)
    elapsed = time.perf_counter() - started
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    file.refresh_from_db()
    print(
        f"bulk file of everything built in {elapsed:.2f} s, peak Python allocation {peak / 1e6:.0f} MB; "
        f"{file.size / 1e6:.1f} MB plain, {file.gzip_size / 1e6:.1f} MB gzip"
    )

    client = Client(headers={"accept-encoding": "gzip", "accept": "application/json"})

    def get(url: str):
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert response.status_code == 200, (url, response.status_code)
        plain = gzip.decompress(body) if response.get("Content-Encoding") == "gzip" else body
        return response, len(body), plain

    import json

    if True:  # every URL below is asked for once: each a miss of the response cache
        # --- a full mirror by paging every list
        started, requests, wire, items = time.perf_counter(), 0, 0, 0
        for name in LISTS:
            url = f"/api/v1/{name}/?page_size=100"
            while url:
                _response, size, plain = get(url)
                page = json.loads(plain)
                requests, wire, items = requests + 1, wire + size, items + len(page["results"])
                url = page["next"].replace("http://testserver", "") if page["next"] else None
        paging = (requests, wire, time.perf_counter() - started, items)
        # --- by the bulk file
        started, requests, wire = time.perf_counter(), 0, 0
        _response, size, plain = get("/api/v1/bulk/")
        requests, wire = requests + 1, wire + size
        listed = json.loads(plain)[0]
        _response, size, plain = get(listed["url"].replace("http://testserver", ""))
        document = json.loads(plain)
        requests, wire = requests + 1, wire + size
        count = sum(len(document[key]) for key in ("games", "sources", "entries", "errata", "questions"))
        bulk = (requests, wire, time.perf_counter() - started, count)
        for label, (requests, wire, seconds, count) in (("paging every list", paging), ("one bulk file", bulk)):
            print(f"full mirror by {label}: {requests} requests, {wire / 1e6:.2f} MB on the wire (gzip), "
                  f"{seconds:.2f} s, {count} items")  # fmt: skip

        # --- a change-feed page of 100
        last = PublicChange.objects.order_by("-id").values_list("id", flat=True).first()
        times = []
        for n in range(60):
            since = max(0, last - 100 - n * 100)
            started = time.perf_counter()
            _response, _size, plain = get(f"/api/v1/changes/?since={since}&limit=100")
            times.append((time.perf_counter() - started) * 1000)
            assert len(json.loads(plain)["results"]) == 100
        times.sort()
        print(
            f"change-feed page of 100: median {statistics.median(times):.1f} ms, "
            f"p95 {times[int(len(times) * 0.95)]:.1f} ms (server time, uncached, {len(times)} pages)"
        )

    # --- what the public-changes step costs a write in this game
    entry = Entry.objects.order_by("pk").first()
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        public_changes.refresh({entry.game_id}, {"entry": {entry.pk}})  # an edit's candidates
        runs.append((time.perf_counter() - started) * 1000)
    whole = []
    for _ in range(3):
        started = time.perf_counter()
        public_changes.refresh({entry.game_id})  # a game or source edit: every item signed again
        whole.append((time.perf_counter() - started) * 1000)
    print(
        f"public-changes step in a {args.count}-entry game: an entry's edit {statistics.median(runs):.1f} ms; "
        f"a game's or source's edit (whole game) {statistics.median(whole):.0f} ms"
    )
    started = time.perf_counter()
    entry.body += " Edited."
    entry.save()
    print(f"one entry save, whole pipeline: {(time.perf_counter() - started) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
