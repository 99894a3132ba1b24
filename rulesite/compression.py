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
mitigation, is off): the same content must give the same bytes and the same ETag in
every process, with the cache on or off.

The compressor is zlib-ng (``zlib_ng.gzip_ng``: the same gzip format, which every client
reads), at level 5. It writes as many bytes as zlib at level 5 in half the time, and that
time is spent on every uncached response. Measured on the benchmark site (``bench/serve.py
--keep``; each library's ``compress`` 200 times a body, CPU time):

    ========================  =====================  =====================  =====================
    response (plain size)     zlib 5 (until now)     zlib-ng 5              zlib 1 (nginx's)
    ========================  =====================  =====================  =====================
    entry page (11 KB)        3,437 B in 0.054 ms    3,434 B in 0.038 ms    3,833 B in 0.031 ms
    game page (62 KB)         11,512 B in 0.49 ms    11,663 B in 0.23 ms    13,419 B in 0.20 ms
    API list of 50 (162 KB)   24,487 B in 1.30 ms    24,379 B in 0.67 ms    28,808 B in 0.58 ms
    ========================  =====================  =====================  =====================

Level 5 and not Django's 6: zlib-ng's 6 saves under 1 % of the bytes for 15 % more time.
ISA-L (``isal``) is faster still (0.25 ms for the list at its level 3) but 9 % larger:
readers on phones pay for bytes, so zlib-ng 5 halves the server's time without adding
any.
"""

import hashlib

from django.conf import settings
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers
from django.utils.http import quote_etag
from zlib_ng import gzip_ng

COMPRESS_LEVEL = 5


def accepts_gzip(request) -> bool:
    """Whether the client takes gzip, as RFC 9110 reads ``Accept-Encoding``: ``gzip`` (or
    ``x-gzip``) with a quality above 0, else ``*`` with one. ``gzip;q=0`` refuses it, as
    does an empty header. (Django's own check finds the word "gzip" anywhere.)"""
    return header_accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", ""))


def header_accepts_gzip(header: str) -> bool:
    """``accepts_gzip`` of an ``Accept-Encoding`` header's value."""
    if "gzip" not in header and "*" not in header:
        return False
    qualities: dict[str, float] = {}
    for part in header.split(","):
        coding, _, parameters = part.partition(";")
        quality = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        qualities.setdefault(coding.strip().lower(), quality)
    for coding in ("gzip", "x-gzip", "*"):
        if coding in qualities:
            return qualities[coding] > 0
    return False


def set_body_etag(response) -> None:
    """An ETag from a hash of the (uncompressed) body, as Django's ``set_response_etag``
    makes one, with SHA-1 where Django uses MD5: OpenSSL's SHA-1 is the faster of the two
    (the API list of 50, 162 KB: 0.075 ms against 0.185 ms, on every uncached response).
    A validator needs no resistance to collisions made on purpose: only our own
    moderators write the bodies, and a match only tells a client to keep its copy."""
    if not response.streaming and response.content:
        response.headers["ETag"] = quote_etag(hashlib.sha1(response.content, usedforsecurity=False).hexdigest())


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
            set_body_etag(response)  # of the uncompressed body, then weak: see above
            if response.has_header("ETag"):  # none for an empty body
                response.headers["ETag"] = "W/" + response["ETag"]
        # As GZipMiddleware does for a whole body, with zlib-ng at COMPRESS_LEVEL.
        if len(response.content) < 200 or response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        if not accepts_gzip(request):
            return response
        compressed = gzip_ng.compress(response.content, compresslevel=COMPRESS_LEVEL, mtime=0)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response
