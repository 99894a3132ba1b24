"""Benchmark: how many requests a second the site serves, next to a static file.

    .venv/bin/python bench/serve.py [--entries 619] [--duration 10] [--warmup 2] [--rounds 3]
        [--database-url URL] [--also-cache-url redis://127.0.0.1:6379/0]
        [--only static,entry,game,api-list,api-search] [--keep] [--encoding gzip|identity]
        [--replica-url postgres://…@replica/db]

Builds a fresh database (a SQLite file in a temporary directory, or the empty database
at --database-url, e.g. PostgreSQL): migrations, the demo content (``load_demo``), and a
generated glossary of --entries entries (bench/generate_glossary.py, with its "Related:"
cross-references) imported through the project's own importer as a published game, plus
20 errata and 20 FAQ questions for that game whose texts link its entries. Then
``collectstatic`` into a temporary static root, so WhiteNoise serves hashed files.

Then it starts gunicorn with the repository's gunicorn.conf.py (2 gthread workers of 16
threads by default; ``WEB_CONCURRENCY`` and ``GUNICORN_THREADS`` change them) on
127.0.0.1, with production settings (DEBUG off)
once per cache set-up: the default per-process LocMemCache, caching off
(``DJANGO_CACHE_URL=dummy://``), and each --also-cache-url; with --replica-url (a
streaming replica of --database-url's database, waited for until it has replayed the
fill), the first two again with ``DATABASE_REPLICA_URL`` set, so readers' requests read
the replica (rulesite/replicas.py). In each server run, after a
short warm-up per URL (2 s of the same load, so both workers' caches are filled),
``wrk -t1 -c8 -d10s --timeout=30s --latency`` (one thread, 8 connections kept busy for
10 s; a response is awaited up to 30 s, where wrk's default of 2 s would drop the slow
ones from the latencies) loads, one after the other:

    static      the hashed /static/css/site.<hash>.css, served by WhiteNoise
    entry       the German demo entry "Besitz und Kontrolle"
    game        the generated game's page (/en/games/<slug>/, every entry listed)
    api-list    /api/v1/entries/?page_size=50
    api-search  /api/v1/search/?q=<a word of a generated title>

and the static file once more at the end. With ``--rounds N`` (3 by default) the pages are
loaded N times over, each round after a measurement of the static file and the last
followed by one more: static, entry, game, api-list, api-search, static, entry, …,
static. The warm-up is only in the first round.

With gunicorn's one shared listening socket, which worker accepts each of wrk's 8
connections is a race: often one worker wins all 8 and the run measures one core of
Python, or 7/1 or 6/2, and the static file alone moved by a third with it. So each run
starts when the server is idle (a worker still busy with the last run's requests loses
every new connection), and a measured run (not a warm-up) whose connections do not sit
4/4 or 5/3 half a second in is stopped and started again, up to 10 times, each time
printed; the ``workers`` column says how the measured run's connections sat.

Every request says ``Accept-Encoding: gzip``, as browsers, ``requests`` and ``curl
--compressed`` do: WhiteNoise then sends the static file's precompressed copy, and the
site its responses compressed (once per cached response, rulesite/compression.py).
``--encoding identity`` asks for plain bytes everywhere instead.

What wrk's numbers mean: req/s is completed responses per second over the run; p50 and
p99 are the latencies half and 99 % of the requests stayed under (wrk's --latency
distribution), with 8 requests always in flight on 2 workers, so they include queueing;
non-2xx is wrk's "Non-2xx or 3xx responses" (4xx and 5xx answers), and socket errors are
connections that failed or timed out (no response at all). Each URL's first response,
requested once before the load, must be a 200 (not a redirect): it is printed too.

Every figure is compared with the static file's req/s *in the same server run*: the
same machine, gunicorn, middleware stack and load generator, so the ratio says what the
page costs beyond the bare request handling, and stays comparable across machines. Each
round's page is compared with the static file on either side of it (the mean of the
two), and a page's ratio is the median of its rounds' ratios, each printed beside it. On
this machine the static file alone moved by 7-23 % between the start and the end of a
one-round run, and a page's ratio by up to ±25 % between whole runs (2026-12-03/04):
one round's ratio is one draw of that, the median of three neighbours' ratios is less
of one. The end of the output lists the targets and whether each was met.

Also measured, before any server starts: the first misspelt search in a fresh process,
for a generated title word with two letters swapped, which has to load the "did you
mean" vocabulary. The target is judged on a fresh *worker*: a process that has
imported ``rulesite.wsgi`` as gunicorn's workers do (Django set up and
``rulesite.warmup``: URLconf and catalogues loaded, nothing of search), then answers
``GET /api/v1/search/?q=<word>`` through the WSGI application, timed from the request
to the last byte of JSON. For comparison it also prints one ``rules.search.search()``
call straight after ``django.setup()``, which pays for the URLconf's first import
(Django REST Framework and the rest, about 190 ms) because search results carry URLs.

Needs wrk (``apt-get install -y wrk``). The machine should be otherwise idle: wrk, the
two workers and the database share its cores (each run prints the load average before
and after it, so a busy machine shows).
"""

import argparse
import contextlib
import http.client
import io
import json
import math
import os
import random
import re
import runpy
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

GAME_SLUG = "benchmark-game"
GAME_NAME = "Benchmark Game"
DEMO_ENTRY = "Besitz und Kontrolle"  # German, in the demo's Marvel Champions glossary
EXTRA_ITEMS = 20  # errata, and FAQ questions, for the generated game
GUNICORN_CONFIG = ROOT / "gunicorn.conf.py"
CONNECTIONS = 8
# wrk's default (2 s) would drop slower responses from the latencies as socket errors.
WRK_TIMEOUT = 30
PAGES = ("static", "entry", "game", "api-list", "api-search")
STATIC = "static"  # the static file: measured before each round and after the last

# Each page's req/s as a share of the static file's, in the same server run (the
# performance issue's targets: cached as fast as the static file, within 10 %, with the
# per-process cache and with Redis; uncached a tenth of it, the entry page three).
TARGETS = {
    "on": {"entry": 0.9, "game": 0.9, "api-list": 0.9},
    "off": {"entry": 0.3, "game": 0.1, "api-list": 0.1},
}
SEARCH_TARGET_MS = 200
SEARCH_PROBES = 3  # fresh processes, each timing its first search

# Run in a fresh interpreter: set Django up, then time the process's first search.
SEARCH_PROBE = """
import json, sys, time
import django
django.setup()
from rules.search import search
started = time.perf_counter()
results = search(sys.argv[1])
elapsed = time.perf_counter() - started
print(json.dumps({"ms": elapsed * 1000, "suggestion": results.suggestion, "total": results.total}))
"""

# Run in a fresh interpreter: import the WSGI application as a gunicorn worker does, then
# time its first request, a misspelt search through the API.
WORKER_SEARCH_PROBE = """
import io, json, sys, time
from urllib.parse import urlencode
from rulesite.wsgi import application
environ = {
    "REQUEST_METHOD": "GET", "PATH_INFO": "/api/v1/search/", "QUERY_STRING": urlencode({"q": sys.argv[1]}),
    "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "HTTP_HOST": "127.0.0.1",
    "HTTP_ACCEPT": "application/json", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr,
}
statuses = []
started = time.perf_counter()
body = application(environ, lambda status, headers, *rest: statuses.append(status))
content = b"".join(body)
elapsed = time.perf_counter() - started
body.close()
assert statuses[0].startswith("200"), statuses
data = json.loads(content)
print(json.dumps({"ms": elapsed * 1000, "suggestion": data["suggestion"], "total": data["count"]}))
"""


@dataclass
class ServerRun:
    label: str
    cache_url: str | None  # None: the default per-process LocMemCache
    caching: str  # "on" | "off": which targets apply
    replica_url: str | None = None  # DATABASE_REPLICA_URL of the run (--replica-url)


@dataclass
class Measurement:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int
    first_status: int | str  # one request's status before the load, or the error
    # How wrk's connections sat on gunicorn's worker processes halfway through: "5/3"
    # (the most first), "8" when one worker held them all (``connection_spread``).
    spread: str = "?"


@dataclass
class RunResult:
    """One server run's measurements: ``statics[i]`` is the static file before round
    ``i`` (and the last one after the last round), ``rounds[i]`` the pages of round ``i``."""

    statics: list[Measurement]
    rounds: list[dict[str, Measurement]]

    def pages(self) -> list[str]:
        return list(self.rounds[0]) if self.rounds else []

    def ratios(self, name: str) -> list[float]:
        """The page's req/s over the static file's on either side of it, one per round
        (none without the static file, or where it answered nothing)."""
        if len(self.statics) != len(self.rounds) + 1:
            return []
        ratios = []
        for index, measured in enumerate(self.rounds):
            base = statistics.mean(m.requests_per_second for m in self.statics[index : index + 2])
            if not base:
                return []
            ratios.append(measured[name].requests_per_second / base)
        return ratios

    def ratio(self, name: str) -> float | None:
        """The median of the page's ratios over its rounds."""
        ratios = self.ratios(name)
        return statistics.median(ratios) if ratios else None

    def all(self) -> Iterator[tuple[str, Measurement]]:
        """Every measurement of the run, the static file's included, with its page."""
        for index, measured in enumerate(self.rounds):
            if index < len(self.statics):
                yield STATIC, self.statics[index]
            yield from measured.items()
        if len(self.statics) > len(self.rounds):
            yield STATIC, self.statics[-1]


@dataclass
class Site:
    env: dict[str, str]
    paths: dict[str, str]  # page name → path and query
    misspelt: str
    spelt: str


def main() -> int:
    args = parse_args()
    if shutil.which("wrk") is None:
        print("wrk is not installed. Install it with:  apt-get install -y wrk", file=sys.stderr)
        return 2
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists():
        print(f"gunicorn not found beside {sys.executable} (run `make install`)", file=sys.stderr)
        return 2
    # Ctrl-C (even where the shell started us with SIGINT ignored) and SIGTERM unwind
    # through the finally blocks that stop gunicorn and remove the temporary directory.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-serve-"))
    try:
        site = build_site(args, workdir)
        probes = measure_first_search(site)
        runs = [
            ServerRun("LocMemCache", None, "on"),
            ServerRun("dummy:// (off)", "dummy://", "off"),
            *(
                ServerRun(url, url, "off" if url == "dummy://" else "on")
                for url in args.also_cache_url
            ),
        ]
        if args.replica_url:  # the same two again, reading from the replica
            wait_for_replica(args.database_url, args.replica_url)
            runs += [
                ServerRun("LocMemCache + replica", None, "on", args.replica_url),
                ServerRun("dummy:// + replica", "dummy://", "off", args.replica_url),
            ]
        results: dict[str, RunResult] = {}
        for run in runs:
            results[run.label] = load_server(run, site, args, gunicorn, workdir)
        print_table(runs, results, {name: site.paths[name] for name in args.pages}, args)
        print_targets(runs, results, site, probes)
    finally:
        if args.keep:
            print(f"\nkept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=619, help="generated glossary entries (619)")
    parser.add_argument("--duration", type=int, default=10, help="seconds of load per URL (10)")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of warm-up load per URL (2)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="times each page is loaded, between measurements of the static file (3); "
        "its ratio is the median of its rounds'",
    )
    parser.add_argument("--database-url", help="an empty database to fill (default: SQLite)")
    parser.add_argument(
        "--also-cache-url",
        action="append",
        default=[],
        metavar="URL",
        help="one more server run with this DJANGO_CACHE_URL (repeatable)",
    )
    parser.add_argument(
        "--replica-url",
        help="a streaming replica of --database-url's database: two more server runs (cache on, off) "
        "with DATABASE_REPLICA_URL set, readers' requests reading it, in the same run",
    )
    parser.add_argument("--only", help=f"comma-separated pages to load, of: {','.join(PAGES)}")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument(
        "--encoding",
        choices=["gzip", "identity"],
        default="gzip",
        help="gzip (default): wrk sends Accept-Encoding: gzip, as browsers and HTTP libraries "
        "do, for every URL, the static file included; identity: it asks for plain bytes",
    )
    args = parser.parse_args()
    args.pages = PAGES
    if args.only:
        args.pages = tuple(name.strip() for name in args.only.split(",") if name.strip())
        unknown = set(args.pages) - set(PAGES)
        if unknown:
            parser.error(f"unknown page(s) {', '.join(sorted(unknown))}; use {','.join(PAGES)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.entries < 10:
        parser.error("--entries must be at least 10")
    if args.replica_url and not (args.database_url or "").startswith(("postgres://", "postgresql://")):
        parser.error("--replica-url needs --database-url=postgres://… (the primary it replicates)")
    return args


# The database ------------------------------------------------------------------------


def build_site(args: argparse.Namespace, workdir: Path) -> Site:
    """Fill the database in this process (Django set up as bench/benchdb.py does)."""
    static_root = workdir / "static"
    os.environ["DJANGO_STATIC_ROOT"] = str(static_root)
    os.environ.pop("DJANGO_CACHE_URL", None)
    # The server's speed, not the API's rate limit (rules.api.throttling): every request of
    # a benchmark comes from one address.
    os.environ["DJANGO_API_RATE"] = "off"
    # One address for every server run whatever its port, as a deployment has: the one
    # the stored entry pages are made for (rules.pages.stored_pages).
    os.environ["DJANGO_SITE_URL"] = "http://127.0.0.1"
    database_url = args.database_url or f"sqlite:///{workdir}/serve.sqlite3"

    from benchdb import setup_django

    started = time.perf_counter()
    setup_django(database_url)  # also migrates
    from django.core.management import call_command

    call_command("load_demo", stdout=io.StringIO())
    print(f"database: {re.sub(r':[^:/@]*@', ':***@', database_url)}")  # no password shown
    print(f"migrate + load_demo: {time.perf_counter() - started:.1f} s")

    started = time.perf_counter()
    game = import_glossary(args.entries)
    add_errata_and_questions(game, random.Random(11))
    print(f"glossary import, errata and questions: {time.perf_counter() - started:.1f} s")

    started = time.perf_counter()
    call_command("collectstatic", interactive=False, verbosity=0)
    print(f"collectstatic: {time.perf_counter() - started:.1f} s")

    # What the worker does after the writes above (and after a deploy): store the entry
    # pages. Until it has, entry pages are rendered in the request.
    from rules.pages import stored_pages

    started = time.perf_counter()
    done, _finished = stored_pages.refresh()
    print(f"entry pages stored (the worker's job): {done} in {time.perf_counter() - started:.1f} s")

    site = Site(
        env=dict(os.environ),
        paths=page_paths(game, static_root),
        **misspelling(game),
    )
    describe_content(game)
    from django.db import connections

    connections.close_all()
    return site


def import_glossary(count: int):
    from generate_glossary import glossary

    from rules.content.models import Game
    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    options = ImportOptions(
        game=GAME_SLUG,
        game_name=GAME_NAME,
        language="en",
        kind="glossary",
        status="published",
        source=SourceInfo(title="Generated rules reference"),
    )
    report = import_document(glossary(count), options)
    print(f"generated glossary: {report.summary()}")
    return Game.objects.get(slug=GAME_SLUG)


def add_errata_and_questions(game, rng: random.Random) -> None:
    """Errata affecting a few entries and FAQ questions about them, all linking them."""
    from faq.models import Question
    from rules.content.models import Entry, Erratum
    from rules.content.querysets import Status

    entries = list(Entry.objects.filter(game=game, language="en").order_by("title"))
    source = entries[0].source
    for number in range(1, EXTRA_ITEMS + 1):
        affected = rng.sample(entries, rng.randint(1, 3))
        first, *others = affected
        also = " and ".join(f"[[{entry.title}]]" for entry in others)
        erratum = Erratum.objects.create(
            game=game,
            language="en",
            source=source,
            title=f"Correction {number}: {first.title}",
            original_text=f"{first.title} applies once per round.",
            corrected_text=f"[[{first.title}]] applies once per turn"
            + (f", also to {also}." if also else "."),
            order=number,
            status=Status.PUBLISHED,
        )
        erratum.affects.set(affected)

        asked, answer_about = rng.sample(entries, 2)
        question = Question.objects.create(
            game=game,
            language="en",
            source=source,
            question=f"Does {asked.title.lower()} count as {answer_about.title.lower()}?",
            answer=f"No. [[{asked.title}]] is resolved first; see [[{answer_about.title}]].",
            topic="Generated questions",
            order=number,
            status=Status.PUBLISHED,
        )
        question.related_entries.set([asked, answer_about])


def page_paths(game, static_root: Path) -> dict[str, str]:
    from django.conf import settings
    from django.urls import reverse
    from django.utils import translation

    from rules.content.models import Entry

    manifest = json.loads((static_root / "staticfiles.json").read_text())
    demo_entry = Entry.objects.select_related("game").get(title=DEMO_ENTRY, language="de")
    with translation.override("en"):
        game_path = reverse("rules:game", kwargs={"game": game.slug})
    return {
        "static": settings.STATIC_URL + manifest["paths"]["css/site.css"],
        "entry": demo_entry.canonical_url(),
        "game": game_path,
        "api-list": "/api/v1/entries/?page_size=50",
        "api-search": f"/api/v1/search/?q={search_word(game)}",
    }


def title_words(game) -> list[str]:
    """The generated titles' longer words, in a fixed order."""
    from rules.content.models import Entry

    titles = Entry.objects.filter(game=game).values_list("title", flat=True)
    return sorted({word.lower() for title in titles for word in title.split() if len(word) >= 7})


def search_word(game) -> str:
    words = title_words(game)
    return words[len(words) // 3]


def misspelling(game) -> dict[str, str]:
    """A title word with two neighbouring letters swapped, into no word the game has."""
    from rules.content.models import Entry

    known = set()
    for title, body in Entry.objects.filter(game=game).values_list("title", "body"):
        known.update(re.findall(r"[a-z]+", f"{title} {body}".lower()))
    words = title_words(game)
    for word in words[len(words) // 2 :]:
        middle = len(word) // 2
        swapped = word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]
        if swapped != word and swapped not in known:
            return {"misspelt": swapped, "spelt": word}
    raise RuntimeError("no title word to misspell")


def describe_content(game) -> None:
    from faq.models import Question
    from rules.content.models import CrossReference, Entry, Erratum

    references = CrossReference.objects.filter(entry__game=game)
    print(
        f"{GAME_NAME}: {Entry.objects.filter(game=game).count()} entries, "
        f"{references.filter(target__isnull=False).count()} of {references.count()} "
        f"cross-references resolved, {Erratum.objects.filter(game=game).count()} errata, "
        f"{Question.objects.filter(game=game).count()} FAQ questions; "
        f"{Entry.objects.count()} entries in all"
    )


# The first search in a fresh process -------------------------------------------------


def measure_first_search(site: Site) -> list[dict]:
    """The fresh worker's probes (the target); the bare ``search()`` ones are printed only."""
    run_probes(site, f"search({site.misspelt!r}) straight after django.setup()", SEARCH_PROBE)
    return run_probes(
        site, f"GET /api/v1/search/?q={site.misspelt} to a fresh worker (rulesite.wsgi imported)", WORKER_SEARCH_PROBE
    )


def run_probes(site: Site, label: str, probe_code: str) -> list[dict]:
    env = {key: value for key, value in site.env.items() if key != "DJANGO_CACHE_URL"}
    env.update(DJANGO_DEBUG="0", DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_SECURE_COOKIES="0")  # as the servers
    print(f"\nfirst misspelt search in a fresh process: {label}")
    probes = []
    for _ in range(SEARCH_PROBES):
        done = subprocess.run(
            [sys.executable, "-c", probe_code, site.misspelt],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        probe = json.loads(done.stdout.strip().splitlines()[-1])
        probes.append(probe)
        print(
            f"  {probe['ms']:.0f} ms, suggestion {probe['suggestion']!r} "
            f"(the word was {site.spelt!r}), {probe['total']} hits"
        )
    return probes


# The server runs ---------------------------------------------------------------------


def load_server(
    run: ServerRun, site: Site, args: argparse.Namespace, gunicorn: Path, workdir: Path
) -> RunResult:
    env = dict(site.env)
    env.update(DJANGO_DEBUG="0", DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_SECURE_COOKIES="0")
    env.pop("DJANGO_CACHE_URL", None)
    env.pop("DATABASE_REPLICA_URL", None)
    if run.cache_url:
        env["DJANGO_CACHE_URL"] = run.cache_url
    if run.replica_url:
        env["DATABASE_REPLICA_URL"] = run.replica_url
    log = workdir / f"gunicorn-{len(list(workdir.glob('gunicorn-*.log')))}.log"
    cache = run.cache_url or "unset (per-process LocMemCache)"
    replica = f"; DATABASE_REPLICA_URL {run.replica_url}" if run.replica_url else ""
    print(f"\nserver run: DJANGO_CACHE_URL {cache}{replica}; gunicorn, {server_shape(env)} ({log.name})")
    pages = [name for name in args.pages if name != STATIC]
    result = RunResult(statics=[], rounds=[])
    workers = gunicorn_config(env)["workers"]
    print(f"  load average before: {load_average()}")
    with serving(gunicorn, env, log) as base_url:

        def measure(name: str, round_number: int) -> Measurement:
            url = base_url + site.paths[name]
            status, size = first_status(url, args.encoding)
            if round_number == 1:  # both workers' caches filled, the static file read once
                run_wrk(url, args.warmup, args.encoding)
            measured = run_wrk(url, args.duration, args.encoding, workers)
            measured.first_status = status
            print(
                f"  {name:<12} {round_number:>2} {measured.requests_per_second:9.1f} req/s  "
                f"p50 {measured.p50_ms:7.1f} ms  p99 {measured.p99_ms:7.1f} ms  "
                f"status {status}  {size:>7} bytes  workers {measured.spread}"
            )
            return measured

        for round_number in range(1, args.rounds + 1):
            if STATIC in args.pages:
                result.statics.append(measure(STATIC, round_number))
            result.rounds.append({name: measure(name, round_number) for name in pages})
        if STATIC in args.pages:
            # After the last round too: each round's pages have the static file on either
            # side, and the measurements show whether the machine's speed drifted.
            result.statics.append(measure(STATIC, args.rounds + 1))
    print(f"  load average after: {load_average()}")
    if any(m.non_2xx or m.first_status != 200 for _, m in result.all()):
        for line, count in server_errors(log).most_common(3):
            print(f"  server log, {count}×: {line}")
    return result


def wait_for_replica(primary_url: str, replica_url: str, seconds: float = 120) -> None:
    """Until the replica has replayed everything the primary wrote (the site just built)."""
    import psycopg

    with psycopg.connect(primary_url, autocommit=True) as primary:
        written = primary.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
    deadline = time.monotonic() + seconds
    with psycopg.connect(replica_url, autocommit=True) as replica:
        while not replica.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [str(written)]).fetchone()[0]:
            if time.monotonic() > deadline:
                raise SystemExit(f"the replica did not catch up within {seconds} s")
            time.sleep(0.5)
    print(f"replica caught up with the primary ({written})")


def load_average() -> str:
    return ", ".join(f"{load:.2f}" for load in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"


def server_errors(log_path: Path) -> Counter:
    """The exceptions in gunicorn's log (the last line of each traceback), counted."""
    exception = re.compile(r"^[\w.]+(Error|Exception|DoesNotExist): .*$", re.MULTILINE)
    return Counter(found.group(0)[:160] for found in exception.finditer(log_path.read_text()))


@contextlib.contextmanager
def serving(
    gunicorn: Path, env: dict[str, str], log_path: Path, options: tuple[str, ...] = ()
) -> Iterator[str]:
    """Run gunicorn with the repository's gunicorn.conf.py (as production does; only the
    address is ours, and ``options``) in its own process group; stop the whole group
    however we leave."""
    port = free_port()
    command = [
        str(gunicorn),
        f"--config={GUNICORN_CONFIG}",
        "rulesite.wsgi:application",
        f"--bind=127.0.0.1:{port}",
        *options,
    ]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        base_url = f"http://127.0.0.1:{port}"
        wait_until_answering(process, port, log_path)
        yield base_url
    finally:
        stop(process)


def gunicorn_config(env: dict[str, str]) -> dict:
    """gunicorn.conf.py's settings in this environment."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return runpy.run_path(str(GUNICORN_CONFIG))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def server_shape(env: dict[str, str]) -> str:
    """What gunicorn.conf.py starts in this environment: "2 gthread workers × 16 threads,
    a listening socket each"."""
    config = gunicorn_config(env)
    sockets = "a listening socket each" if config.get("reuse_port") else "one shared listening socket"
    shape = f"{config['workers']} {config['worker_class']} workers × {config['threads']} threads, {sockets}"
    return f"{shape} (gunicorn.conf.py)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_answering(process: subprocess.Popen, port: int, log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited ({process.returncode}):\n{tail(log_path)}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/robots.txt")
            connection.getresponse().read()
            connection.close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer within 60 s:\n{tail(log_path)}")


def stop(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def tail(path: Path, lines: int = 20) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def first_status(url: str, encoding: str) -> tuple[int | str, int]:
    """One request's status and body size as sent, redirects not followed (wrk would
    count a 3xx as fine)."""
    address = url.removeprefix("http://")
    host, _, path = address.partition("/")
    connection = http.client.HTTPConnection(host, timeout=60)
    try:
        connection.request("GET", "/" + path, headers={"Accept-Encoding": encoding})
        response = connection.getresponse()
        return response.status, len(response.read())
    except OSError as error:
        return f"error: {error}", 0
    finally:
        connection.close()


# wrk ---------------------------------------------------------------------------------

UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


# How many times a measurement is started again when wrk's connections sat unevenly on the
# workers (``balanced``): how they sit is decided once per wrk run, when it connects, so
# each start is a new draw.
REDRAWS = 10
# How long after wrk starts its connections' spread is looked at: they are all accepted
# within milliseconds of the start, and a run that is started again has lost only this.
SPREAD_CHECK_S = 0.5


def run_wrk(url: str, seconds: int, encoding: str, workers: int = 1) -> Measurement:
    """One wrk run. On a server of several ``workers``, a run whose 8 connections sit
    unevenly (``balanced``) is stopped half a second in and started again, up to
    ``REDRAWS`` times, each printed: with all 8 on one worker it measures one core of
    Python, and with 7/1 or 6/2 the worker of one or two connections waits for wrk
    between requests. The static file moved with it within one server run: 4,239 req/s
    at 4/4, 3,303 at 6/2, 3,205 at 7/1 (SQLite with Redis, 2026-12-04), and a page and its
    static file measured on different spreads moved the ratio by up to 2.8x (the
    manual's operations page, "One shared socket or one per worker"). Every figure keeps
    the spread it was measured on."""
    port = int(url.split(":")[2].split("/")[0])
    for attempt in range(REDRAWS + 1):
        wait_until_idle(port)
        process = start_wrk(url, seconds, encoding)
        if workers > 1 and attempt < REDRAWS:
            time.sleep(SPREAD_CHECK_S)
            spread = connection_spread(port)
            if not balanced(spread, workers):
                process.kill()
                process.communicate()
                print(f"    (connections {spread} on the workers: started again, {attempt + 1} of {REDRAWS})")
                continue
            time.sleep(max(0.0, seconds / 2 - SPREAD_CHECK_S))
        else:
            time.sleep(seconds / 2)
        break
    spread = connection_spread(port)
    stdout, stderr = process.communicate()
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, process.args, stdout, stderr)
    measurement = parse_wrk(stdout)
    measurement.spread = spread
    return measurement


def balanced(spread: str, workers: int) -> bool:
    """Whether wrk's connections sit evenly enough on ``workers`` processes (a spread of
    ``connection_spread``): every worker has some, none more than one over its share
    (2 workers: 4/4 or 5/3). Where ``ss`` cannot say ("?"), taken as it is."""
    if spread == "?":
        return True
    counts = [int(count) for count in spread.split("/")]
    return len(counts) == workers and max(counts) <= math.ceil(CONNECTIONS / workers) + 1


def wait_until_idle(port: int, seconds: float = 15) -> None:
    """Until the server on ``port`` has finished what the last wrk run left it: when wrk
    stops, up to 8 requests are still being answered, and a worker busy with them loses
    the race for every new connection. Starting the next run then gave one worker all 8,
    11 starts in 11 on PostgreSQL's uncached search (p50 76 ms): the worker busy with the
    previous run's requests was the one left without. Idle is when the processes
    listening on ``port`` (gunicorn's master and its workers share the socket) used at
    most one clock tick of CPU in 0.1 s; where ``ss`` cannot name them, no wait."""
    pids = set(socket_pids(port, "-l") or ())
    deadline = time.monotonic() + seconds
    used = cpu_ticks(pids)
    while pids and time.monotonic() < deadline:
        time.sleep(0.1)
        now = cpu_ticks(pids)
        if now - used <= 1:
            return
        used = now


def cpu_ticks(pids: set[str]) -> int:
    """The CPU time (user and system, clock ticks) the processes ``pids`` have used."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return ticks


def start_wrk(url: str, seconds: int, encoding: str) -> subprocess.Popen:
    command = [
        "wrk",
        *(["-H", "Accept-Encoding: gzip"] if encoding == "gzip" else []),
        "-t1",
        f"-c{CONNECTIONS}",
        f"-d{seconds}s",
        f"--timeout={WRK_TIMEOUT}s",
        "--latency",
        url,
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def connection_spread(port: int) -> str:
    """How the established connections to ``port`` sit on the server's processes: "5/3"
    (most first), "8" all on one; "?" where ``ss`` cannot say (not Linux, not allowed to
    see other users' processes). A gthread worker accepts in its own loop, so which
    worker takes each of wrk's 8 kept-alive connections is a race, decided once per
    run: with all 8 on one worker, the run has one core of Python, whatever the page.
    So a ratio between two runs with different spreads says little of the pages."""
    pids = socket_pids(port, "state", "established")
    counts = sorted(Counter(pids or ()).values(), reverse=True)
    return "/".join(map(str, counts)) or "?"


def socket_pids(port: int, *selection: str) -> list[str] | None:
    """The process ids ``ss`` names for the TCP sockets of local port ``port`` it lists with
    ``selection`` (``"-l"``: listening, one socket held by every gunicorn process;
    ``"state", "established"``: a connection, held by the worker that accepted it), one
    per socket and process; None where ``ss`` cannot run (not Linux). Only processes we
    may see (our own, or every one as root)."""
    try:
        done = subprocess.run(
            ["ss", "-tnpH", *selection, f"( sport = :{port} )"], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return re.findall(r"pid=(\d+)", done.stdout)


def parse_wrk(output: str) -> Measurement:
    """The figures of wrk's report (see the module docstring)."""

    def number(pattern: str, default: str | None = None) -> str:
        found = re.search(pattern, output, re.MULTILINE)
        if found:
            return found.group(1)
        if default is None:
            raise ValueError(f"wrk's output has no {pattern!r}:\n{output}")
        return default

    def latency(percent: int) -> float:
        found = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s|m|h)\s*$", output, re.MULTILINE)
        return float(found.group(1)) * UNIT_MS[found.group(2)] if found else math.nan

    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    return Measurement(
        requests_per_second=float(number(r"^Requests/sec:\s+([\d.]+)")),
        p50_ms=latency(50),
        p99_ms=latency(99),
        non_2xx=int(number(r"Non-2xx or 3xx responses:\s+(\d+)", "0")),
        socket_errors=sum(int(count) for count in errors.groups()) if errors else 0,
        first_status=0,
    )


# The report --------------------------------------------------------------------------


def print_table(
    runs: list[ServerRun], results: dict[str, RunResult], paths: dict[str, str], args: argparse.Namespace
) -> None:
    print("\nURLs:")
    for name, path in paths.items():
        print(f"  {name:<11} {path}")
    print(
        f"\nwrk -t1 -c{CONNECTIONS} -d{args.duration}s --latency, {args.rounds} round(s), "
        f"gunicorn, {server_shape(dict(os.environ))}."
        "\n× static: the median over the rounds of the page's req/s over the static file's"
        " on either side of it in the same server run (the mean of the two); each round's"
        " ratio in 'rounds'. req/s and p50: the median round's; p99: the worst round's;"
        " non-2xx and socket errors: all rounds'; workers: each round's spread."
    )
    header = (
        f"{'page':<12} {'cache':<22} {'req/s':>9} {'× static':>9} {'rounds':<20} {'p50 ms':>8} "
        f"{'p99 ms':>8} {'non-2xx':>8} {'sock.err':>8}  workers"
    )
    print(header)
    print("-" * len(header))
    for run in runs:
        result = results[run.label]
        rows: list[tuple[str, list[Measurement], list[float]]] = []
        if result.statics:
            rows.append((STATIC, result.statics, []))
        rows += [
            (name, [measured[name] for measured in result.rounds], result.ratios(name))
            for name in result.pages()
        ]
        for name, measurements, ratios in rows:
            typical = sorted(measurements, key=lambda m: m.requests_per_second)[(len(measurements) - 1) // 2]
            ratio = f"{statistics.median(ratios):.3f}" if ratios else "-"
            each = " ".join(f"{value:.2f}" for value in ratios) if ratios else ""
            print(
                f"{name:<12} {run.label[:22]:<22} {typical.requests_per_second:9.1f} {ratio:>9} "
                f"{each:<20} {typical.p50_ms:8.1f} {max(m.p99_ms for m in measurements):8.1f} "
                f"{sum(m.non_2xx for m in measurements):8d} {sum(m.socket_errors for m in measurements):8d}"
                f"  {' '.join(m.spread for m in measurements)}"
            )


def print_targets(
    runs: list[ServerRun],
    results: dict[str, RunResult],
    site: Site,
    probes: list[dict],
) -> None:
    print("\nTargets:")
    several_workers = gunicorn_config(dict(os.environ))["workers"] > 1  # else one holds all, by design
    for run in runs:
        result = results[run.label]
        for name, share in TARGETS[run.caching].items():
            wanted = f"cache {run.caching}, {run.label}: {name} >= {share}× static"
            ratio = result.ratio(name) if name in result.pages() else None
            if ratio is None:
                print(f"  {wanted:<62} {'not measured':>12}")
                continue
            remark = one_worker(result, name) if several_workers else ""
            print(f"  {wanted:<62} {ratio:7.3f}×  {verdict(ratio >= share)}{remark}")

    measurements = [(run.label, name, m) for run in runs for name, m in results[run.label].all()]
    failing = [f"{name} ({label}): {m.non_2xx}" for label, name, m in measurements if m.non_2xx]
    print(f"  {'non-2xx/3xx responses: 0 everywhere':<62} {'':8} {verdict(not failing)}")
    for line in failing:
        print(f"      {line}")
    odd_status = [f"{name} ({label}): {m.first_status}" for label, name, m in measurements if m.first_status != 200]
    if odd_status:
        print("  first request before the load was not a 200 for: " + "; ".join(odd_status))
    sockets = sum(m.socket_errors for _, _, m in measurements)
    if sockets:
        print(f"  (socket errors, not a target: {sockets} in all)")

    worst = max(probe["ms"] for probe in probes)
    median = statistics.median(probe["ms"] for probe in probes)
    suggested = probes[0]["suggestion"] == site.spelt
    wanted = f"first misspelt search in a fresh worker < {SEARCH_TARGET_MS} ms"
    print(
        f"  {wanted:<62} {worst:5.0f} ms  {verdict(worst < SEARCH_TARGET_MS)}"
        f"  (worst of {len(probes)}; median {median:.0f} ms)"
    )
    print(
        f"  {'... and it suggests the word that was misspelt':<62} {'':8} {verdict(suggested)}"
        f"  ({probes[0]['suggestion']!r} for {site.misspelt!r})"
    )


def one_worker(result: RunResult, name: str) -> str:
    """A remark when the page's or the static file's 8 connections all sat on one worker
    in some round (``connection_spread``): that measurement is of one core of Python, not
    the server's two, and the ratio moves by up to 2.8x with it (the manual's operations
    page, "One shared socket or one per worker")."""
    one = str(CONNECTIONS)
    whole = sorted({key for key, measured in result.all() if key in (name, STATIC) and measured.spread == one})
    return f"  (one worker held all {CONNECTIONS} connections in a round: {', '.join(whole)})" if whole else ""


def verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted (gunicorn stopped, temporary directory handled)", file=sys.stderr)
        sys.exit(130)
