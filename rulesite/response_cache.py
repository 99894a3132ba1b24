"""Whole-response caching of the public site and API that is never stale, with validators.

Every public GET (pages, feeds, sitemap, robots.txt, API) is cached whole, per URL,
host, UI language and kind of response (JSON or the browsable HTML API), under a key
that holds the content version (``rules.content_version``). A write to public content
changes the version in the same transaction, so the next request in any worker
process, on any server, misses and renders the new content; old entries are never
read again and age out of the cache (LRU in the per-process default, a timeout in
Redis). Reading the version is one single-row query per request.

What is never cached, and why:

- **Requests with a session cookie**: moderators may see pages differently and must
  see their own edits at once; their responses are ``Cache-Control: private``. (Only
  logging in creates a session; readers never get one.)
- **The admin** (``/admin/``) and anything that is not a plain 200 (errors, redirects,
  304s), that sets a cookie, that varies by cookie, or that says ``private`` or
  ``no-store`` itself.
- So nothing a draft contains can enter the cache: anonymous requests only ever see
  ``published()`` content, and everything else passes by.

Clients that accept gzip get the response compressed, once, when it is rendered
(``rulesite.compression``, just inside this middleware): the key holds the encoding.

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

import hashlib

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.http import HttpResponse
from django.utils import translation
from django.utils.cache import has_vary_header, patch_cache_control, set_response_etag
from django.utils.http import http_date

from rules import content_version

from .compression import accepts_gzip

CACHEABLE_METHODS = ("GET", "HEAD")


def stored(response) -> tuple:
    """What the cache keeps of a response: its status, headers and bytes. Not the
    response object: a DRF response would pickle its data too, and unpickling a page of
    50 entries' dictionaries on every hit costs more than the rest of the hit."""
    return response.status_code, list(response.items()), response.content


def restored(value: tuple) -> HttpResponse:
    status, headers, content = value
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

    def __call__(self, request):
        if request.method not in CACHEABLE_METHODS or request.path_info.startswith(self.excluded):
            return self.get_response(request)
        if settings.SESSION_COOKIE_NAME in request.COOKIES or "HTTP_AUTHORIZATION" in request.META:
            response = self.get_response(request)
            patch_cache_control(response, private=True)
            return response

        version = content_version.current()
        key = self.key(request, version) if self.storing else None
        if key is not None:
            cached = self.cache.get(key)
            if cached is not None:
                return restored(cached)

        response = self.get_response(request)
        if not self.is_public(response):
            return response
        response.headers.setdefault("Last-Modified", http_date(version.changed_at.timestamp()))
        if not response.has_header("ETag"):
            set_response_etag(response)
        if not response.has_header("Cache-Control"):  # a view's own policy stands (suggest)
            patch_cache_control(response, public=True, max_age=0, s_maxage=self.cdn_max_age)
        if key is not None and request.method == "GET":
            self.cache.set(key, stored(response), self.timeout)
        return response

    @staticmethod
    def key(request, version) -> str:
        # The language: the URL's prefix for pages; Accept-Language (or the language
        # cookie) for the unprefixed paths, as LocaleMiddleware chose it just before.
        # The kind: the API answers browsers (Accept: text/html) with its HTML view.
        kind = "html" if "text/html" in request.META.get("HTTP_ACCEPT", "") else "any"
        # The encoding: gzip for clients that take it (rulesite/compression.py).
        encoding = "gzip" if accepts_gzip(request) else "identity"
        where = f"{request.scheme}://{request.get_host()}{request.get_full_path()}"
        digest = hashlib.blake2b(where.encode(), digest_size=16).hexdigest()
        return f"response:{version.token}:{translation.get_language()}:{kind}:{encoding}:{digest}"

    @staticmethod
    def is_public(response) -> bool:
        if response.status_code != 200 or response.streaming or response.cookies:
            return False
        if has_vary_header(response, "Cookie"):
            return False
        cache_control = response.get("Cache-Control", "")
        return "private" not in cache_control and "no-store" not in cache_control
