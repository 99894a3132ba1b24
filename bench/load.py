"""Load test: many readers and one moderator writing, for a minute; no error, no lost write.

    .venv/bin/python bench/load.py [--readers 50] [--duration 60] [--entries 619]
        [--database-url postgres://USER:PASS@127.0.0.1/EMPTY_DB]

Builds the same content as bench/serve.py (demo content plus a generated glossary with
cross-references, errata and FAQ) in a throwaway SQLite file or the given empty
database, and starts gunicorn with production settings (the repository's gunicorn.conf.py,
the default per-process cache). Then, for --duration seconds:

- --readers threads, each with its own keep-alive connection, request pages and API
  responses one after the other: the entries being edited (so they are read while their
  cached copies are invalidated), the game page, an API list and an API search;
- one moderator, logged in through the admin's login form, saves entries through the
  admin's change form over HTTP, one after the other, each with a new body.

Afterwards every save is checked in the database: its text is in the entry's history
(one version per save) and each entry holds the text of its last save. Printed: reads
per second, p50/p99 read latency, reads that were not a 200, saves done, saves that were
not the admin's redirect, and lost writes. Exit status 1 if any read or write failed or
any write is missing.
"""

import argparse
import http.client
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

EDITED = 10  # entries the moderator cycles through
PASSWORD = "load test pass phrase"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--duration", type=int, default=60, help="seconds (60)")
    parser.add_argument("--entries", type=int, default=619)
    parser.add_argument("--database-url", help="an empty database to fill (default: SQLite)")
    args = parser.parse_args()
    args.keep = False

    import serve

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-load-"))
    site = serve.build_site(args, workdir)
    from django.contrib.auth import get_user_model
    from django.db import connections

    from rules.content.models import Entry

    get_user_model().objects.create_superuser("loadtest", "load@example.org", PASSWORD)
    generated = list(
        Entry.objects.filter(game__slug=serve.GAME_SLUG).order_by("pk").values_list("pk", flat=True)
    )
    edited = generated[:: max(1, len(generated) // EDITED)][:EDITED]
    edited_pages = [Entry.objects.select_related("game").get(pk=pk).get_absolute_url() for pk in edited]
    connections.close_all()

    read_paths = [
        *edited_pages,
        site.paths["entry"],
        site.paths["game"],
        site.paths["api-list"],
        site.paths["api-search"],
        *(f"/api/v1/entries/{pk}/" for pk in edited),
    ]
    env = {**site.env, "DJANGO_SECURE_SSL_REDIRECT": "0", "DJANGO_SECURE_COOKIES": "0"}
    env.pop("DJANGO_CACHE_URL", None)
    gunicorn = Path(sys.executable).parent / "gunicorn"
    log = workdir / "gunicorn.log"
    print(f"\n{args.readers} readers and 1 writer for {args.duration} s; gunicorn, "
          f"{serve.server_shape(env)}; load average before: {serve.load_average()}")
    with serve.serving(gunicorn, env, log) as base_url:
        reads, writes = run_load(base_url, read_paths, edited, args)
    print(f"load average after: {serve.load_average()}")
    return report(reads, writes, args.duration, log)


def run_load(base_url: str, read_paths: list[str], edited: list[int], args) -> tuple[list, list]:
    from tests.processes import AdminSession

    host, port = base_url.removeprefix("http://").split(":")
    stop = threading.Event()
    reads: list[tuple[int, float]] = []  # (status, seconds)

    def reader(seed: int) -> None:
        rng = random.Random(seed)
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        mine = []
        while not stop.is_set():
            path = rng.choice(read_paths)
            started = time.perf_counter()
            try:
                connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
                response = connection.getresponse()
                response.read()
                mine.append((response.status, time.perf_counter() - started))
            except (OSError, http.client.HTTPException):
                mine.append((0, time.perf_counter() - started))
                connection.close()
                connection = http.client.HTTPConnection(host, int(port), timeout=60)
        connection.close()
        reads.extend(mine)

    writes: list[tuple[int, int, str]] = []  # (entry id, status, text)

    def writer() -> None:
        session = AdminSession(base_url)
        session.log_in("loadtest", PASSWORD)
        number = 0
        while not stop.is_set():
            entry_id = edited[number % len(edited)]
            text = f"Load test write {number}: the body as the moderator saved it."
            try:
                status, _html = session.save_entry(entry_id, text)
            except (OSError, http.client.HTTPException, AssertionError):
                status = 0
            writes.append((entry_id, status, text))
            number += 1

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(args.readers)]
    threads.append(threading.Thread(target=writer))
    for thread in threads:
        thread.start()
    time.sleep(args.duration)
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    return reads, writes


def report(reads: list, writes: list, duration: int, log: Path) -> int:
    from django.db import connections

    from rules.content.models import Entry

    connections.close_all()
    latencies = sorted(seconds for _status, seconds in reads)
    failed_reads = sum(1 for status, _ in reads if status != 200)
    failed_writes = [w for w in writes if w[1] != 302]
    saved = [w for w in writes if w[1] == 302]
    history = Entry.history.model.objects
    lost = [text for entry_id, _s, text in saved if not history.filter(id=entry_id, body=text).exists()]
    last = {}
    for entry_id, _status, text in saved:
        last[entry_id] = text
    stale = [pk for pk, text in last.items() if Entry.objects.get(pk=pk).body != text]
    p = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    print(f"reads:  {len(reads)} in {duration} s = {len(reads) / duration:.1f} reads/s; "
          f"p50 {p[49] * 1000:.1f} ms, p99 {p[98] * 1000:.1f} ms; not 200: {failed_reads}")
    print(f"writes: {len(writes)} admin saves ({len(writes) / duration:.2f}/s); "
          f"not saved (no redirect): {len(failed_writes)}; lost (not in the history): {len(lost)}; "
          f"entries not holding their last save: {len(stale)}")
    errors = sum(1 for line in log.read_text(errors="replace").splitlines() if "Traceback" in line)
    print(f"server tracebacks in gunicorn's log: {errors}")
    ok = not failed_reads and not failed_writes and not lost and not stale and not errors and saved
    print("RESULT:", "0 errors, 0 lost writes" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    sys.exit(main())
