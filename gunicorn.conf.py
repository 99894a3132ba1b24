"""gunicorn's settings for rulesite (README, "Settings" and "Reliability").

gunicorn reads ``./gunicorn.conf.py`` by default, so ``gunicorn rulesite.wsgi`` run from
the repository root uses this file; elsewhere pass ``-c /path/to/gunicorn.conf.py``.
Command-line options override it (the tests and benchmarks bind their own ports).

Environment: ``WEB_CONCURRENCY`` (worker processes, 2), ``GUNICORN_THREADS`` (threads
per worker, 16), ``GUNICORN_WORKER_CLASS`` (``gthread``, the default, or ``sync``: one
request per worker at a time, for measuring; the manual's operations page, "Workers"),
``GUNICORN_BIND`` (comma separated addresses) else ``PORT`` (then ``0.0.0.0:$PORT``)
else ``127.0.0.1:8000``, ``GUNICORN_REUSE_PORT`` (0, the default: one listening socket
shared by the workers; 1: one each), ``GUNICORN_ACCESS_LOG`` (a path, ``-`` for
stdout, the default, or empty for none).

Written against gunicorn 27 (pyproject.toml's lower bound); tests/test_slow_clients.py
checks the slow-client behaviour these settings are chosen for.
"""

import os


def _positive(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    number = int(value)  # a typo stops the server at start, with the variable's name in the traceback
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return number


def _bind() -> list[str]:
    addresses = [item.strip() for item in os.environ.get("GUNICORN_BIND", "").split(",") if item.strip()]
    if addresses:
        return addresses
    if os.environ.get("PORT", "").strip():
        return [f"0.0.0.0:{os.environ['PORT'].strip()}"]  # the platform's convention (and gunicorn's own)
    return ["127.0.0.1:8000"]


wsgi_app = "rulesite.wsgi:application"  # so a bare `gunicorn` works too
bind = _bind()


# --- the worker model ------------------------------------------------------------------
# gthread, not sync. A sync worker is one connection at a time from the moment it
# accepts it: a client that sends its request a byte a second holds the whole process,
# and four of them took both workers down for 40 s. A gthread worker accepts in a main
# loop (an event poller) and hands a connection to a thread of its pool only when bytes
# arrive (a connection silent for 5 s goes back to the poller without a thread), and
# idle keep-alive connections wait in the poller too. What a slow client still holds is
# one thread, while it trickles its request head or body or reads its response slowly;
# the others go on serving. So `threads` is how many slow clients a worker carries
# before readers queue behind them: 2 x 16 = 32 at once on the default server.
# A deliberate flood of more slow connections than that is what a buffering proxy in
# front is for (README, "Reliability").
def _worker_class() -> str:
    # gthread (the default) or sync; anything else stops the server at start, named.
    value = os.environ.get("GUNICORN_WORKER_CLASS", "").strip() or "gthread"
    if value not in ("gthread", "sync"):
        raise ValueError(f"GUNICORN_WORKER_CLASS must be gthread or sync, not {value!r}")
    return value


worker_class = _worker_class()
# One process per core: each has its own GIL, so two use both cores of the 2-core
# machine; more processes would only add memory and cold per-process caches.
workers = _positive("WEB_CONCURRENCY", 2)
# Threads cost little while they wait on a socket (gunicorn starts them as needed).
# What bounds them is the database: each thread that serves a request keeps its own
# connection (CONN_MAX_AGE), so 2 x 16 = 32 connections at most, well under
# PostgreSQL's default max_connections of 100 with room for imports and workers.
# gunicorn turns a sync worker with threads into a gthread one: sync has one.
threads = 1 if worker_class == "sync" else _positive("GUNICORN_THREADS", 16)
# Connections a worker holds at once, threads' and idle keep-alive ones (gunicorn's
# default); beyond it a worker stops accepting and the other takes the connection.
worker_connections = 1000


def _switch(name: str, default: bool) -> bool:
    # 1 or 0 (empty: the default); anything else stops the server at start, named.
    value = os.environ.get(name, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{name} must be 1 or 0, not {value!r}")
    return default if not value else value == "1"


# GUNICORN_REUSE_PORT=1: each worker listens on a socket of its own (SO_REUSEPORT,
# gunicorn 21+) and the kernel hands each new connection to one of them by a hash of
# its addresses. Off by default, measured both ways (docs/operations.md, "Workers"):
# - On one shared socket the workers race to accept, and the less busy one tends to win,
#   so a new connection goes where there is room. Under bench/attack.py (PDFs, an import,
#   floods, a reader on a new connection per page), the reader's p50 was 11.4 and 11.5 ms
#   shared, 34.2 and 20.7 ms with a socket each: the hash sends a new connection to a
#   busy worker as often as to an idle one. Browsers talk to gunicorn directly here.
# - But a kept-alive connection stays with the worker that won it: wrk's 8 connections
#   sat all on one worker in 4 runs of 9 (one core of Python for the whole server), never
#   with a socket each. Behind a proxy that keeps a pool of upstream connections, turn
#   it on. Its other costs: a worker that stops alone (killed after `timeout`, a HUP
#   reload) resets the connections waiting in its queue, and a second server started by
#   the same user on the same port shares it instead of failing.
reuse_port = _switch("GUNICORN_REUSE_PORT", False)

# --- time limits -----------------------------------------------------------------------
# A gthread worker's heartbeat comes from its main loop, not from the request, so this
# restarts a worker whose process hangs; it does not cut a long request short (a booklet
# PDF of a large game takes seconds; an admin import of a long document more).
timeout = 30
# On a restart or stop, requests in progress get this long to finish (an import in the
# admin is one transaction: cut short, it writes nothing and can be sent again).
graceful_timeout = 30
# Seconds an idle keep-alive connection stays open, waiting in the poller (no thread).
# Browsers talk to gunicorn directly (no proxy): 5 s lets a page's next requests reuse
# the connection, gunicorn's advice for direct clients is 1-5 s. A new connection that
# sends nothing is closed after 5 s in a thread plus this long in the poller.
keepalive = 5

# --- request limits --------------------------------------------------------------------
# The request line (method, path, query, version) is refused over this with a 414 "URI
# Too Long" (a short HTML page from gunicorn, before the site sees the request).
# 8190 is gunicorn's maximum: larger values are clamped to
# it. 0 would mean unlimited, which gunicorn bounds at 1 MiB only in its optional C
# parser (gunicorn_h1c, a source-only package here); the pure-Python parser installed
# reads an unlimited line in quadratic time (16 MiB: 16.5 s of CPU, 4 MiB: 1.0 s), one
# request's denial of service. So 8190, double gunicorn's default 4094: every page and
# API GET fits, with room for a lookup of many terms; longer lookups are POSTed
# (README, "Previews and embedding").
limit_request_line = 8190
# gunicorn's defaults, stated: 100 header fields of up to 8190 bytes each (a Cookie
# header with a session and CSRF token is well under it). Over them: 431 / 400.
limit_request_fields = 100
limit_request_field_size = 8190

# --- logs ------------------------------------------------------------------------------
# One line per request on stdout: client, time, request line, status, bytes, duration
# in milliseconds, referrer, user agent. Errors (and refused requests) go to stderr.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-") or None
access_log_format = '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(M)sms "%(f)s" "%(a)s"'
errorlog = "-"

# gunicorn 25+ opens a control socket for `gunicornc` at one fixed path per user; the
# site does not use it, and two servers of one user (tests, benchmarks) would share it.
control_socket_disable = True
