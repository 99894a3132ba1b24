"""Whole-response caching of the public site and API that is never stale, with validators.

Every public GET (pages, feeds, sitemap, robots.txt, API) is cached whole under a key
that is exactly its representation (``rulesite.cache_key``: host, path, the query
parameters the view reads, UI language, negotiated media type, encoding), tagged with
the content tokens it was rendered under (``rules.content.version``: the site's token,
or for one game's pages that game's, and the vectors' for search). A write to public
content changes the tokens in the same transaction, so the next request in any worker
process, on any server, finds the tag old and renders the new content, which replaces
it. Reading the tokens is one single-row query per request; with Redis they are kept
beside the pages and a hit is one Redis round trip and no query
(``rulesite.shared_version``).

What is never cached, and why:

- **Signed-in moderators** (``rulesite.visitors``): they may see pages differently and
  must see their own edits at once; their responses are ``Cache-Control: private``. A
  session cookie that names no signed-in user is a reader's request like any other.
- **The admin** (``/admin/``), a view that declares nothing (``rules.pages.http``), and
  anything that is not a plain 200 (errors, redirects, 304s), that sets a cookie, that
  varies by cookie, or that says ``private``, ``no-store`` or ``no-cache`` itself (the
  service worker: it changes with a deploy, not with content).
- So nothing a draft contains can enter the cache: anonymous requests only ever see
  ``published()`` content, and everything else passes by.

Bounded: a body over ``RESPONSE_CACHE_MAX_BYTES`` is stored compressed (zlib; the
body a client that takes gzip gets is compressed already), and not at all when even
that is over, nor more than
``RESPONSE_CACHE_MAX_VARIANTS`` variants of one path per content version; every entry
has a timeout (``RESPONSE_CACHE_SECONDS``); with Redis, give the server a
``maxmemory`` and an eviction policy (the manual, "Speed and caching").

Clients that accept gzip get the response compressed, once, when it is rendered
(``rulesite.compression``, just inside this middleware): the key holds the encoding. A
response this middleware will keep is compressed for size (``KEPT``), one it will not
for speed.

Validators: every public 200 carries ``Last-Modified`` (when public content last
changed) and an ``ETag`` (a hash of the body, so a JSON response whose linked entries
changed gets a new one); ``ConditionalGetMiddleware``, just outside this one, answers
``304 Not Modified`` for cached and fresh responses alike. ``Cache-Control`` lets
browsers keep a copy but revalidate it every time (``max-age=0``) and a CDN or proxy
hold it for ``DJANGO_CDN_MAX_AGE`` seconds (``s-maxage``, default 60) before
revalidating; a view that sets its own ``Cache-Control`` keeps it (search suggestions
may be reused for a minute).

``DJANGO_CACHE_URL=dummy://`` turns the storing off; the validators stay.
"""

import zlib

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.db import DEFAULT_DB_ALIAS
from django.http import HttpResponse
from django.utils.cache import has_vary_header, patch_cache_control
from django.utils.http import http_date

from rules.content import version as content_version
from rules.shared.cache_errors import CACHE_ERRORS, cache_down

from . import cache_key
from .compression import KEPT, set_body_etag
from .shared_version import SharedVersion
from .visitors import is_signed_in

CACHEABLE_METHODS = ("GET", "HEAD")
# Where a public response's scope is left for the WSGI layer in front of Django
# (``rulesite.front_cache``): (the game, whether it reads the vectors, the tag it is
# valid for), set when this middleware stored or served the response.
SCOPE = "rulesite.response_cache.scope"


def stored(response, max_bytes: int) -> tuple | None:
    """What the cache keeps of a response: its status, headers and bytes. Not the
    response object: a DRF response would pickle its data too, and unpickling a page of
    50 entries' dictionaries on every hit costs more than the rest of the hit.

    A body over ``max_bytes`` is kept compressed, so a page too large for one cache
    value (an 11,000-rule contents page, 1.4 MB) is still rendered once and not for
    every client that does not take gzip: inflating it costs a few milliseconds,
    rendering it a second. None when even compressed it is over ``max_bytes``."""
    content, compressed = response.content, False
    if len(content) > max_bytes:
        content, compressed = zlib.compress(content, 6), True
        if len(content) > max_bytes:
            return None
    return response.status_code, list(response.items()), content, compressed


def restored(value: tuple) -> HttpResponse:
    status, headers, content, *compressed = value  # three values: stored before compression was
    if compressed and compressed[0]:
        content = zlib.decompress(content)
    response = HttpResponse(content, status=status)
    for name, header in headers:
        response[name] = header
    return response


class PublicResponseCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.cache = caches[settings.RESPONSE_CACHE_ALIAS]
        self.storing = not isinstance(self.cache, DummyCache)
        self.excluded = tuple(settings.RESPONSE_CACHE_EXCLUDED_PATHS)
        self.timeout = settings.RESPONSE_CACHE_SECONDS
        self.cdn_max_age = settings.RESPONSE_CACHE_CDN_SECONDS
        self.max_bytes = settings.RESPONSE_CACHE_MAX_BYTES
        self.max_variants = settings.RESPONSE_CACHE_MAX_VARIANTS
        self.shared = None  # the version kept beside the pages (Redis only)
        if self.storing and SharedVersion.usable(self.cache):
            self.shared = SharedVersion(self.cache, settings.RESPONSE_CACHE_VERSION_SECONDS)

    def __call__(self, request):
        if request.method not in CACHEABLE_METHODS or request.path_info.startswith(self.excluded):
            return self.get_response(request)
        if is_signed_in(request):
            response = self.get_response(request)
            patch_cache_control(response, private=True)
            return response

        representation = cache_key.describe(request)
        if representation is not None:
            # The view sees only the parameters it declared (rules.pages.http, cache_key).
            query = cache_key.canonical_query(request, representation.params)
            if query != request.META.get("QUERY_STRING", ""):
                request.META["QUERY_STRING"] = query
                request.__dict__.pop("GET", None)
        game = representation.game if representation else None
        key = cache_key.key(request, representation) if self.storing and representation else None
        version = None  # the database's version, once read
        if key is not None:
            try:
                tokens, cached = self.lookup(request, game, key)
            except CACHE_ERRORS as error:  # Redis down: rendered, not stored (rules.shared.cache_errors)
                cache_down(error, "serving pages")
                tokens, cached, key = None, None, None
            if cached is not None and cached[0] == tokens.tag(game, representation.vectors):
                request.META[SCOPE] = (game, representation.vectors, cached[0])
                return restored(cached[1])
            version = getattr(request, "content_version", None)
        if version is None:
            # The version this response is rendered under, as the database it reads
            # content from has it, read before the content.
            version = request.content_version = content_version.current(game)

        if key is not None and request.method == "GET":
            request.META[KEPT] = True  # compressed for size (rulesite.compression)
        response = self.get_response(request)
        if not self.is_public(response):
            return response
        response.headers.setdefault("Last-Modified", http_date(version.changed_at.timestamp()))
        if not response.has_header("ETag"):
            set_body_etag(response)
        if not response.has_header("Cache-Control"):  # a view's own policy stands (suggest)
            patch_cache_control(response, public=True, max_age=0, s_maxage=self.cdn_max_age)
        if key is not None and request.method == "GET":
            value = stored(response, self.max_bytes)
            tag = version.tag(game, representation.vectors)
            try:
                if value is not None and self.may_store(request, tag):
                    self.cache.set(key, (tag, value), self.timeout)
                    request.META[SCOPE] = (game, representation.vectors, tag)
            except CACHE_ERRORS as error:
                cache_down(error, "serving pages")
        return response

    def lookup(self, request, game: str | None, key: str):
        """(the current tokens, the stored response or None) for a response's key: with
        Redis in one round trip while the shared copy has the tokens
        (``rulesite.shared_version``), else the database's version (then kept on the
        request for the rendering) and a lookup."""
        if self.shared is not None:
            tokens, generation, cached = self.shared.lookup(game, key)
            if tokens is not None:
                return tokens, cached
            version = request.content_version = content_version.current(game)
            self.shared.fill(self.primary_version(version, game), game, generation)
            return version, cached
        version = request.content_version = content_version.current(game)
        return version, self.cache.get(key)

    @staticmethod
    def primary_version(version, game: str | None):
        """The version to put into the shared copy: the primary's (a replica may lag).
        Named, not asked of the router: its ``db_for_write`` would move the rest of the
        request to the primary (``rulesite.replicas``)."""
        if content_version.reading_alias() == DEFAULT_DB_ALIAS:
            return version
        return content_version.current(game, using=DEFAULT_DB_ALIAS)

    def may_store(self, request, token: str) -> bool:
        """Whether one more variant of this path may be stored: up to
        ``RESPONSE_CACHE_MAX_VARIANTS`` stored variants of one path per content version
        (the search page's queries, say), so no client can fill the cache with one
        path's variants (a body's size is ``stored``'s to bound)."""
        counter = cache_key.path_key(request, token)
        if self.cache.add(counter, 1, self.timeout):
            return True
        try:
            return self.cache.incr(counter) <= self.max_variants
        except ValueError:  # evicted between the two calls
            return self.cache.add(counter, 1, self.timeout)

    @staticmethod
    def is_public(response) -> bool:
        if response.status_code != 200 or response.streaming or response.cookies:
            return False
        if has_vary_header(response, "Cookie"):
            return False
        cache_control = response.get("Cache-Control", "")
        # no-cache: the view's answer must be asked for every time (the service worker,
        # which changes with a deploy rather than with content: rules.pages.offline).
        return not any(word in cache_control for word in ("private", "no-store", "no-cache"))
