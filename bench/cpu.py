"""CPU time per request, in one process, for the pages ``bench/serve.py`` loads.

    .venv/bin/python bench/cpu.py --database-url sqlite:////tmp/rulesite-serve-XXXX/serve.sqlite3
        (or --database-url postgres://… --static-root /tmp/rulesite-serve-XXXX/static)
        [--requests 300] [--rounds 5] [--cache-url dummy://] [--only entry,game]
        [--profile entry [--sort tottime] [--profile-out FILE]]

Where ``bench/serve.py`` says how many requests a second the whole stack serves, this
says where one request's time goes: each URL is requested through the WSGI application
gunicorn calls (Django's handler and its middleware, with Redis the front cache around
it: ``rulesite.front_cache``; no socket, no test client), and the CPU
time of the process (``time.process_time``) is divided by the number of requests (the
wall time beside it also counts waiting for the database and Redis). Each page is
measured in ``--rounds`` rounds of ``--requests``: the first figure is the least round's,
as ``timeit`` reports, since what makes a round slower is the machine's other work (on
this 2-core VM the mean of one round of 1,000 entry pages was 1.09 to 1.32 ms in three
runs, the least of eight rounds in one process 0.73 to 0.96 ms), then the median's. With ``--profile
NAME`` it prints that page's top functions by cumulative time (cProfile; ``--sort
tottime`` for the time in each function itself, ``--profile-out FILE`` to keep the
profile for ``pstats``).

Use a database ``bench/serve.py --keep`` built (it prints the directory it kept). By
default caching is off (``dummy://``), which is what the cache-off targets measure. The
stored entry pages are first brought up to date as the worker does after a write
(``rules.pages.stored_pages``; ``--no-stored-pages`` leaves them as they are);
``entry-render`` is the same entry rendered in the request. ``queries`` counts every query,
through the connection's ``execute_wrappers``: on PostgreSQL the content version is read
past Django's cursor, by a prepared statement on libpq (``rules.content.version.current``),
which calls the wrappers too, so a front-cache hit with the per-process cache counts 1
there; ``database`` is the server's CPU for the round.
"""

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--requests", type=int, default=300, help="requests per round (300)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per page (5): the least and the median")
    parser.add_argument("--cache-url", default="dummy://")
    parser.add_argument("--static-root", help="the static/ bench/serve.py --keep kept (default: beside a SQLite file)")
    parser.add_argument("--profile", help="page name to profile")
    parser.add_argument("--sort", default="cumulative", help="the profile's order: cumulative (default), tottime")
    parser.add_argument("--profile-out", help="also write the profile to this file (for pstats)")
    parser.add_argument("--path", action="append", default=[], help="extra NAME=PATH to time")
    parser.add_argument("--only", help="the pages to time, by name, comma-separated (default: all)")
    parser.add_argument(
        "--no-stored-pages", action="store_true", help="do not bring the stored entry pages up to date first"
    )
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = args.database_url
    os.environ["DJANGO_CACHE_URL"] = args.cache_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rulesite.settings.base")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-not-secret")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver,localhost,127.0.0.1"
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"  # plain HTTP on loopback, as bench/serve.py
    # The address the requests below are made for (and the worker stores entry pages for).
    os.environ["DJANGO_SITE_URL"] = "http://127.0.0.1"
    # The hashed static files the pages name: the directory bench/serve.py kept (beside a
    # SQLite database, or --static-root for PostgreSQL).
    static_root = Path(args.static_root or Path(args.database_url.removeprefix("sqlite:///")).parent / "static")
    if static_root.is_dir():
        os.environ.setdefault("DJANGO_STATIC_ROOT", str(static_root))

    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    from rules.content.models import Entry, Game

    entry = Entry.objects.published().get(title="Besitz und Kontrolle")
    game = Game.objects.get(slug="benchmark-game")
    with django.utils.translation.override("de"):
        entry_path = entry.get_absolute_url()
    with django.utils.translation.override("en"):
        game_path = game.get_absolute_url()
    word = Entry.objects.published().filter(game=game).values_list("title", flat=True).first().split()[0]
    paths = {
        "entry": entry_path,
        # The same page with ?content= (its own language): rendered in the request, as an
        # entry page whose stored page is missing or out of date (rules.pages.stored_pages).
        "entry-render": f"{entry_path}?content={entry.language}",
        "game": game_path,
        "api-list": "/api/v1/entries/?page_size=50",
        "api-search": f"/api/v1/search/?q={word.lower()}",
    }
    paths.update(dict(item.split("=", 1) for item in args.path))
    if args.only:
        paths = {name: paths[name] for name in args.only.split(",")}

    from rulesite import front_cache

    handler = front_cache.wrap(WSGIHandler())  # as rulesite.wsgi makes it
    if not args.no_stored_pages:
        from rules.pages import stored_pages

        started = time.perf_counter()
        done, _finished = stored_pages.refresh()  # what the worker does after a write
        print(f"pages stored as the worker stores them: {done} rendered in {time.perf_counter() - started:.1f} s")

    def request(path: str) -> int:
        route, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": route,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_ACCEPT_ENCODING": "gzip",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": sys.stderr,
        }
        status = []
        body = handler(environ, lambda s, h, *a: status.append(s))
        b"".join(body)
        if hasattr(body, "close"):  # the front cache's answer is a list
            body.close()
        return int(status[0].split()[0])

    from django.db import connection

    queries = []

    def counted(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    connection.execute_wrappers.append(counted)  # every query of every request below
    server = DatabaseServer(connection)
    print(
        f"cache {args.cache_url}, {args.rounds} rounds of {args.requests} requests each,"
        " CPU ms per request (process_time): the least round, the median round"
    )
    for name, path in paths.items():
        status = request(path)
        for _ in range(20):
            request(path)
        queries.clear()
        request(path)
        made = len(queries)
        rounds = sorted(measure(request, path, args.requests, server) for _ in range(args.rounds))
        ms, wall_ms, database_ms = rounds[0]  # the least: the round with the least interference
        median = rounds[len(rounds) // 2][0]
        database = "" if database_ms is None else f"  database {database_ms:5.2f} ms"
        print(
            f"  {name:<12} {ms:7.2f} ms  median {median:5.2f}  (wall {wall_ms:5.2f} ms){database}"
            f"  queries {made}  status {status}  {path}"
        )
        if args.profile == name:
            profiler = cProfile.Profile(time.process_time)  # CPU, as the figures above: waiting is not counted
            profiler.enable()
            for _ in range(args.requests):
                request(path)
            profiler.disable()
            if args.profile_out:
                profiler.dump_stats(args.profile_out)
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(45)
            print(out.getvalue())
    return 0


def measure(request, path: str, requests: int, server: "DatabaseServer") -> tuple[float, float, float | None]:
    """One round: CPU ms per request of this process, wall ms, and the PostgreSQL
    backend's CPU ms (None for SQLite, or when the backend changed during the round)."""
    started, wall, served = time.process_time(), time.perf_counter(), server.cpu()
    for _ in range(requests):
        request(path)
    ms = (time.process_time() - started) * 1000 / requests
    wall_ms = (time.perf_counter() - wall) * 1000 / requests
    ended = server.cpu()
    database = None
    if served and ended and served[0] == ended[0]:  # the same backend throughout
        database = (ended[1] - served[1]) * 1000 / requests
    return ms, wall_ms, database


class DatabaseServer:
    """The PostgreSQL backend serving ``connection``: ``cpu()`` is its process id and the
    CPU seconds it has used, read from its ``/proc/<pid>/stat`` (a server on this machine,
    readable by this user); None for SQLite (in this process) or a server elsewhere. Two
    readings with different ids are of two connections (closed and opened again)."""

    def __init__(self, connection):
        self.connection = connection
        self.tick = os.sysconf("SC_CLK_TCK")

    def cpu(self) -> tuple[int, float] | None:
        raw = self.connection.connection if self.connection.vendor == "postgresql" else None
        if raw is None:
            return None
        pid = raw.info.backend_pid
        path = Path(f"/proc/{pid}/stat")
        if not os.access(path, os.R_OK):
            return None
        fields = path.read_text().rsplit(")", 1)[1].split()
        return pid, (int(fields[11]) + int(fields[12])) / self.tick  # utime, stime (proc(5))


if __name__ == "__main__":
    sys.exit(main())
