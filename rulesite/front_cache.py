"""Cache hits answered before Django: a reader's repeated request is sent the bytes
Django sent the last one, after one Redis round trip (or, with the per-process cache, one
lookup and one single-row query) and no Python of Django's.

Why: with Redis, a hit of the response cache (``rulesite.response_cache``) is one round
trip, but it still went through Django's WSGI handler: the request object, the signals
that check database connections, eleven middleware on the way in and out. That is most
of a hit's time, and what kept cached pages at 0.56–0.73x of the static file
(``bench/serve.py``). Measured on one gunicorn worker (deterministic, see the manual's
operations page, "Workers"), against the static file in the same server: a WSGI
function that does one Redis ``MGET`` and returns its bytes served 1.14x, the cached
entry page 0.63–0.67x.

**What it keeps.** This wraps Django's WSGI application (``rulesite.wsgi``). When Django
answered a request with a public response that the response cache stored or served
(the middleware says so in the WSGI environ, ``response_cache.SCOPE``: the game, the
vectors flag and the tag of tokens the response is valid for), this keeps the
response exactly as Django handed it to the server (status line, headers, body) under
a key made of the request's raw inputs that can choose a response:

- the scheme (and ``X-Forwarded-Proto``), ``Host`` (and ``X-Forwarded-Host``), the
  server's name and port, the path and the raw query string;
- whether ``Accept-Encoding`` takes gzip, read as the gzip middleware reads it
  (``rules.shared.compression.header_accepts_gzip``): the only way the site's bytes depend on it;
- ``Accept`` and ``Accept-Language`` as sent, except on a path with a UI language's
  prefix (``/de/…``): there the language is the prefix's, and a page is one
  representation whatever ``Accept`` says (as the response cache keys it, and as the
  response's ``Vary`` says; a response that varies by a header its key left out is not
  kept, so a page that one day negotiates is answered by Django, not mixed up).

The key also holds the deployment (``deployment``): the code, templates and
translations a page is made with (``rules.pages.stored.deployed``) and the settings that
reach a response's headers outside the response cache (security headers, CORS, the
Content-Security-Policy, the cache's own), because the answer kept here is the whole
response, headers included: after a deploy, each request is answered by Django once.

That is finer than the response cache's key (which normalises each of them, after
Django has resolved the view), so one response of the response cache may be kept here
under several keys, never one key for two responses: every input Django reads to
choose the bytes is in the key, or the request is not answered here.

**What it does not answer** (Django does, with its own response cache behind it): any
method but GET; a request with a ``Cookie`` (a session, a moderator, a language
cookie), ``Authorization``, ``Origin`` (CORS headers are chosen per origin),
a conditional or range request (``If-None-Match``, ``If-Modified-Since``, ``If-Match``,
``If-Unmodified-Since``, ``If-Range``, ``Range``: Django answers 304 and 412); the
static files, the health checks and the paths the response cache excludes; a key's
inputs over ``MAX_KEY_CHARS`` characters.

**What it does not keep**: anything but a ``200`` of a plain ``HttpResponse``, a
response that sets a cookie, one that varies by a header not in the key, one over
``RESPONSE_CACHE_MAX_BYTES``, and more than ``RESPONSE_CACHE_MAX_VARIANTS`` keys of one
path per tag (a stranger sending a new ``Accept-Language`` each time makes Django answer
him, from the response cache, not this cache grow).

**Never stale, as the response cache is**: a kept response carries the tag it was
stored or served under, and it is sent only while the content tokens give that same tag.
Where the tokens are read depends on the response cache (``RedisAnswers``,
``CacheAnswers``):

- **Redis**: the tokens kept beside the pages (``rulesite.shared_version``: filled from
  the primary, thrown away by every unit of work when it commits), read with the kept
  response in one pipelined round trip, or alone (the scope's fields only) when this
  process has a copy of the answer (``Copies``, up to ``RESPONSE_CACHE_FRONT_COPY_BYTES``).
  When they are missing (a write has just thrown them away, or they expired after
  ``RESPONSE_CACHE_VERSION_SECONDS``), Django answers, reads the database and fills them
  again.
- **Any other cache** (the per-process ``LocMemCache`` that ``make run`` uses, memcached):
  the kept response from that cache, then the tokens of its scope from the primary
  database, in the one indexed single-row query the response cache makes
  (``rules.content.version.current``), on this thread's connection: another process's
  write is seen on the next request, as Django's path sees it. The primary, not a
  replica: a response rendered from a lagging replica is tagged with the replica's older
  tokens, which the primary's then do not match, and Django answers it. A database error
  (a connection the server closed) sends the request on to Django, whose request cycle
  closes the broken connection and answers (``close_old_connections``); nothing else of
  Django's request cycle runs for a hit, as with Redis. On PostgreSQL the query is a
  statement prepared once per connection and run on libpq, past Django's cursor and
  psycopg's (``rules.content.version.current``). Measured, a cached entry page: 0.30 ms
  of CPU on PostgreSQL through Django's stack, 0.10 ms answered here with the query
  through Django's cursor (0.13–0.15 ms on a slower day), 0.07–0.08 ms with it prepared
  on libpq, 0.03 ms on SQLite; the static file through Django and WhiteNoise 0.07–0.08
  (``bench/cpu.py --cache-url ""``).

``DJANGO_FRONT_CACHE=0`` turns it off; caching off (``dummy://``) has nothing to answer
from. The cache unreachable: Django answers, as without it.
"""

import hashlib
import pickle
import re
import threading
from collections import OrderedDict

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.db import DEFAULT_DB_ALIAS, DatabaseError
from django.http import HttpResponse
from django.utils.cache import cc_delim_re

from rules.content import version as content_version
from rules.content.version import Version
from rules.pages.stored import deployed
from rules.shared.cache_errors import CACHE_ERRORS, cache_down
from rules.shared.compression import header_accepts_gzip

from .health import PATHS as HEALTH_PATHS
from .response_cache import SCOPE
from .shared_version import SharedVersion, as_dict, configured

# A request with any of these is answered by Django: its answer depends on them.
PASSED_HEADERS = (
    "HTTP_COOKIE",
    "HTTP_AUTHORIZATION",
    "HTTP_ORIGIN",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_MATCH",
    "HTTP_IF_UNMODIFIED_SINCE",
    "HTTP_IF_RANGE",
    "HTTP_RANGE",
)
# The address a response is for, as the request sent it.
ADDRESS = (
    "wsgi.url_scheme",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_HOST",
    "HTTP_X_FORWARDED_HOST",
    "SERVER_NAME",
    "SERVER_PORT",
    "SCRIPT_NAME",
    "PATH_INFO",
    "QUERY_STRING",
)
# What a client negotiates with, in the key as sent unless the path has a language prefix.
NEGOTIATED = ("HTTP_ACCEPT", "HTTP_ACCEPT_LANGUAGE")
# The headers a kept response may vary by, beyond the negotiated ones its key holds:
# the encoding (in every key), and two a request answered here never has (a response
# that varies by Cookie is not stored by the response cache).
ALWAYS_KEYED = frozenset({"accept-encoding", "origin", "cookie"})
NEGOTIATED_VARY = frozenset({"accept", "accept-language"})
# The settings, by prefix, whose values reach a response's headers outside the response
# cache (SecurityMiddleware, corsheaders, django-csp, XFrameOptionsMiddleware) or decide
# what is cached: part of every key (``deployment``).
HEADER_SETTINGS = ("SECURE_", "CORS_", "CONTENT_SECURITY_POLICY", "X_FRAME_OPTIONS", "RESPONSE_CACHE_")
# A request whose key inputs are longer than this (no browser's are) is answered by
# Django: so a key's text, and what a stranger can make one cost, is bounded.
MAX_KEY_CHARS = 2000


def wrap(application):
    """``application`` with its cache hits answered in front of it, when the response
    cache stores and ``RESPONSE_CACHE_FRONT`` is on; else ``application`` itself."""
    if not settings.RESPONSE_CACHE_FRONT:
        return application
    shared = configured()
    if shared is not None:
        return FrontCache(application, RedisAnswers(shared))
    cache = caches[settings.RESPONSE_CACHE_ALIAS]
    return application if isinstance(cache, DummyCache) else FrontCache(application, CacheAnswers(cache))


class FrontCache:
    def __init__(self, application, answers: "RedisAnswers | CacheAnswers"):
        self.application = application
        self.answers = answers
        self.max_bytes = settings.RESPONSE_CACHE_MAX_BYTES
        self.passed_paths = (*settings.RESPONSE_CACHE_EXCLUDED_PATHS, settings.STATIC_URL, *HEALTH_PATHS)
        codes = "|".join(re.escape(code) for code, _name in settings.LANGUAGES)
        self.language_prefix = re.compile(rf"/(?:{codes})/")
        self.deployment = deployment()

    def __call__(self, environ, start_response):
        key, negotiated = self.key(environ)
        if key is None:
            return self.application(environ, start_response)
        try:
            kept, kept_tag = self.answers.lookup(key)
        except CACHE_ERRORS as error:  # the cache down: Django answers (rules.shared.cache_errors)
            cache_down(error, "serving pages")
            return self.application(environ, start_response)
        except DatabaseError:  # the tokens unread (CacheAnswers): Django's request cycle sees to it
            return self.application(environ, start_response)
        if kept is not None:
            status, headers, body = kept
            start_response(status, list(headers))
            return [body]

        sent = []

        def recording_start_response(status, headers, exc_info=None):
            sent[:] = [status, headers]
            return start_response(status, headers, exc_info)

        response = self.application(environ, recording_start_response)
        scope = environ.get(SCOPE)
        # Kept already when only the tokens' copy was missing (a write to another game
        # threw it away): the answer under this key is still the one kept.
        if scope is not None and scope[2] != kept_tag and sent and self.keepable(response, *sent, negotiated):
            try:
                self.keep(key, environ, scope, sent[0], sent[1], response.content)
            except CACHE_ERRORS as error:
                cache_down(error, "serving pages")
        return response

    def key(self, environ) -> tuple[str | None, bool]:
        """(the key of the response to this request, or None when Django must answer it;
        whether ``Accept`` and ``Accept-Language`` are in the key)."""
        if environ.get("REQUEST_METHOD") != "GET":
            return None, False
        path = environ.get("PATH_INFO", "")
        if path.startswith(self.passed_paths):
            return None, False
        if any(map(environ.get, PASSED_HEADERS)):  # an empty one is none
            return None, False
        encoding = environ.get("HTTP_ACCEPT_ENCODING", "")
        negotiated = not self.language_prefix.match(path)
        inputs = tuple(map(environ.get, ADDRESS + NEGOTIATED if negotiated else ADDRESS))
        text = repr(inputs)  # unambiguous, unlike a join
        if len(text) + len(encoding) > MAX_KEY_CHARS:
            return None, False
        text += ("gzip" if header_accepts_gzip(encoding) else "identity") + self.deployment
        digest = hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        return self.answers.key(f"front:{digest}"), negotiated

    def keepable(self, response, status: str, headers: list, negotiated: bool) -> bool:
        """Whether the key says everything ``response`` depends on (``negotiated``:
        whether ``Accept`` and ``Accept-Language`` are in it)."""
        if not status.startswith("200 ") or not isinstance(response, HttpResponse):
            return False  # a streaming or file response is not an HttpResponse
        if len(response.content) > self.max_bytes:
            return False
        keyed = ALWAYS_KEYED | NEGOTIATED_VARY if negotiated else ALWAYS_KEYED
        for name, value in headers:
            name = name.lower()
            if name == "set-cookie":
                return False
            if name == "vary" and not {field.strip().lower() for field in cc_delim_re.split(value)} <= keyed:
                return False
        return True

    def keep(self, key: str, environ, scope: tuple, status: str, headers: list, body: bytes) -> None:
        """Keep a response, unless its path has ``RESPONSE_CACHE_MAX_VARIANTS`` keys under
        this tag."""
        game, vectors, tag = scope
        where = f"{environ.get('HTTP_HOST')}{environ.get('SCRIPT_NAME', '')}{environ.get('PATH_INFO', '')}"
        digest = hashlib.blake2b(where.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        self.answers.keep(key, f"front-variants:{tag}:{digest}", (game, vectors, tag, status, tuple(headers), body))


class RedisAnswers:
    """Kept answers and the content tokens' copy in one Redis (``shared``): a hit is one
    round trip."""

    def __init__(self, shared: SharedVersion):
        self.shared = shared
        self.timeout = settings.RESPONSE_CACHE_SECONDS
        self.max_variants = settings.RESPONSE_CACHE_MAX_VARIANTS
        self.copies = Copies(settings.RESPONSE_CACHE_FRONT_COPY_BYTES)

    def key(self, name: str) -> str:
        # No validation: "front:" and a hex digest are a valid key (the check loops over
        # every character in Python, a tenth of a hit's CPU).
        return self.shared.cache.make_key(name)

    def lookup(self, key: str) -> tuple[tuple | None, str | None]:
        """((status, headers, body) kept under ``key`` if still valid, else None; the tag
        of what is kept there, valid or not), in one round trip: the tokens alone when this
        process has a copy of the answer (``copies``), else the answer and the tokens."""
        copy = self.copies.get(key)
        if copy is not None:
            game, vectors, tag, response = copy
            # The scope's tokens only: the hash holds one field per game read lately.
            fields = (b"c", b"v") if game is None else (b"c", b"v", f"g:{game}".encode())
            (values,) = self.shared.round_trip(("HMGET", self.shared.key, *fields))
            now = current_tag(dict(zip(fields, values, strict=True)), game, vectors)
            if now == tag:
                return response, tag
            if now is None:  # the tokens' copy thrown away by a write: Django reads them
                return None, tag
            self.copies.drop(key)  # older than the tokens: another process may keep a newer one
        kept, tokens = self.shared.round_trip(("GET", key), ("HGETALL", self.shared.key))
        if kept is None:
            return None, None
        game, vectors, tag, *response = pickle.loads(kept)
        if current_tag(as_dict(tokens), game, vectors) != tag:
            return None, tag
        self.copies.put(key, (game, vectors, tag, tuple(response)), len(kept))
        return tuple(response), tag

    def keep(self, key: str, counter: str, value: tuple) -> None:
        """Keep ``value`` under ``key``, unless ``counter`` (its path's under its tag) is
        at ``max_variants`` already."""
        counter = self.key(counter)
        client = self.shared.client()
        pipeline = client.pipeline(transaction=False)
        pipeline.incr(counter)
        pipeline.expire(counter, self.timeout)
        count, _ = pipeline.execute()
        if count <= self.max_variants:
            kept = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
            client.set(key, kept, ex=self.timeout)
            game, vectors, tag, *response = value
            self.copies.put(key, (game, vectors, tag, tuple(response)), len(kept))


class Copies:
    """This process's copies of answers kept in Redis, most recently used last, up to
    ``max_bytes`` in all (``RESPONSE_CACHE_FRONT_COPY_BYTES``), so a hit reads only the
    tokens from Redis, not the answer: an API list of 50 is 24 KB gzip, which Redis sent,
    over loopback, for every hit, on the cores that serve (SQLite, Redis: API list 0.81x
    the static file, where the per-process cache gave 1.19x in the same run). A copy is
    sent on the same condition as the kept answer, the tokens' copy giving its tag, so it
    is never stale either; one whose tag is older than the tokens is dropped."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.entries: OrderedDict[str, tuple[tuple, int]] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get(self, key: str) -> tuple | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            self.entries.move_to_end(key)
            return entry[0]

    def put(self, key: str, value: tuple, size: int) -> None:
        if size > self.max_bytes:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self.entries[key] = (value, size)
            self.size += size
            while self.size > self.max_bytes:
                _key, (_value, dropped) = self.entries.popitem(last=False)
                self.size -= dropped

    def drop(self, key: str) -> None:
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= old[1]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.size = 0


class CacheAnswers:
    """Kept answers in a Django cache (``cache``: the response cache's, any backend but
    Redis and the dummy), valid while the primary database's tokens say so (module
    docstring): a hit is one lookup and one single-row query."""

    def __init__(self, cache):
        self.cache = cache
        self.timeout = settings.RESPONSE_CACHE_SECONDS
        self.max_variants = settings.RESPONSE_CACHE_MAX_VARIANTS

    def key(self, name: str) -> str:
        return name  # the cache makes its own key of it

    def lookup(self, key: str) -> tuple[tuple | None, str | None]:
        kept = self.cache.get(key)
        if kept is None:
            return None, None
        game, vectors, tag, *response = kept
        now = content_version.current(game, using=DEFAULT_DB_ALIAS).tag(game, vectors)
        return (tuple(response) if now == tag else None), tag

    def keep(self, key: str, counter: str, value: tuple) -> None:
        if self.cache.add(counter, 1, self.timeout):
            count = 1
        else:
            try:
                count = self.cache.incr(counter)
            except ValueError:  # evicted between the two calls
                count = 1 if self.cache.add(counter, 1, self.timeout) else self.max_variants + 1
        if count <= self.max_variants:
            self.cache.set(key, value, self.timeout)


def deployment() -> str:
    """What this process answers with, beyond the request and the content: the deployed
    code, templates and translations, and the settings that reach the headers. The same
    in every process of one deployment (their values' reprs hold no addresses)."""
    names = sorted(name for name in dir(settings) if name.startswith(HEADER_SETTINGS))
    read = repr([(name, getattr(settings, name)) for name in names])
    return hashlib.sha1(f"{deployed()}\n{read}".encode(), usedforsecurity=False).hexdigest()


def current_tag(tokens: dict[bytes, bytes | None], game: str | None, vectors: bool) -> str | None:
    """The tag a response of this scope is valid for now, from the tokens' copy (its
    ``HGETALL``, or an ``HMGET`` of the scope's fields); None when a token it needs is
    missing (Django reads the database)."""
    site, vector = tokens.get(b"c"), tokens.get(b"v")
    if site is None or vector is None:
        return None
    game_token = None
    if game is not None:
        game_token = tokens.get(f"g:{game}".encode())
        if game_token is None:
            return None
        game_token = int(game_token)
    return Version(int(site), None, int(vector), game_token).tag(game, vectors)
