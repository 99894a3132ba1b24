"""gzip for the public site and API, compressed once per cached response.

Browsers and HTTP libraries (``requests``, ``curl --compressed``, every API client we
know of) ask for gzip; a page of 50 entries as JSON is 125 KB and about 22 KB
compressed. This middleware sits just inside the whole-response cache
(``rulesite.response_cache``), whose key holds whether the client takes gzip: a cached
response is compressed once, when it is rendered, and every later hit sends the stored
compressed bytes. Its ETag is weak and a hash of the uncompressed body, the same for the
plain and the gzip response: one validator per representation, whatever the encoding
(a client that switches between them still revalidates; HTTP compares weakly for
``If-None-Match``).

Only responses that cannot carry a secret are compressed: never the admin and never a
request with a session cookie (BREACH reads secrets out of compressed sizes; public
pages are the same for every reader and hold no CSRF token or session data). That is
also why the compression is deterministic (Django's random gzip padding, its own BREACH
mitigation, is off): the same content gives the same bytes in every process set up
alike, and the same ETag whether it was compressed for keeping (the cache on) or for
one reader (the cache off: see below), since the ETag is the plain body's and weak.

The compressing itself, and whether a client takes gzip, are ``rules.shared.compression``'s
(``gzipped``, ``accepts_gzip``): the worker compresses stored entry pages with the same
function. A response the response cache is about to keep (it sets ``KEPT`` on the
request) is compressed for size, as a stored page is; one that is sent once (the cache
off, an uncacheable response) for speed, since its reader waits for the compressing.
"""

from django.conf import settings
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers
from django.utils.http import quote_etag

from rules.shared.compression import MIN_LENGTH, accepts_gzip, body_digest, gzipped, send_gzipped, weak_etag

# Set in request.META by the response cache (rulesite.response_cache) when it will keep
# the response it asks for: then compressed for size, not speed.
KEPT = "rulesite.compression.kept"


def set_body_etag(response) -> None:
    """An ETag from a hash of the (uncompressed) body (``body_digest``), as Django's
    ``set_response_etag`` makes one."""
    if not response.streaming and response.content:
        response.headers["ETag"] = quote_etag(body_digest(response.content))


class PublicGZipMiddleware(GZipMiddleware):
    max_random_bytes = 0

    def process_response(self, request, response):
        if request.path_info.startswith(tuple(settings.RESPONSE_CACHE_EXCLUDED_PATHS)):
            return response
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            return response
        if response.has_header("Accept-Ranges"):
            # A file served with ranges (rules.builds) sends its own stored gzip copy, or
            # none: compressing it here would make its ranges and length meaningless.
            return response
        if response.streaming:  # exports: Django's streaming gzip, for clients that take it
            if not accepts_gzip(request):
                patch_vary_headers(response, ("Accept-Encoding",))
                return response
            return super().process_response(request, response)
        if request.method in ("GET", "HEAD") and response.status_code == 200 and not response.has_header("ETag"):
            if response.content:  # of the uncompressed body, and weak: see above
                response.headers["ETag"] = weak_etag(body_digest(response.content))
        # As GZipMiddleware does for a whole body, with rules.shared.compression's gzip. A
        # stored entry page may come compressed already (rules.pages.stored_pages).
        if len(response.content) < MIN_LENGTH or response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        if not accepts_gzip(request):
            return response
        compressed = gzipped(response.content, kept=request.META.get(KEPT, False))
        if compressed is None:
            return response
        send_gzipped(response, compressed)
        return response
