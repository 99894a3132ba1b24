"""gzip as the site sends it: whether a client takes it, and the bytes it gets.

One definition for the two places that compress a page: the gzip middleware compresses
each response as it is rendered (``rulesite.compression``), and the worker compresses an
entry page once when it stores it (``rules.pages.stored_pages``), so a stored page is
sent as stored. Both call ``gzipped``, which is deterministic (no timestamp, no random
padding): the same body gives the same bytes in every process, stored or rendered.

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

from django.utils.cache import patch_vary_headers
from django.utils.http import quote_etag
from zlib_ng import gzip_ng

COMPRESS_LEVEL = 5
MIN_LENGTH = 200  # shorter bodies are sent as they are (as Django's GZipMiddleware does)


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


def gzipped(content: bytes) -> bytes | None:
    """``content`` as the site sends it gzip-compressed; None when it is sent as it is
    (under ``MIN_LENGTH`` bytes, or no smaller compressed)."""
    if len(content) < MIN_LENGTH:
        return None
    compressed = gzip_ng.compress(content, compresslevel=COMPRESS_LEVEL, mtime=0)
    return compressed if len(compressed) < len(content) else None


def body_digest(content: bytes) -> str:
    """The hash a body's ETag is made of: SHA-1 where Django's ``set_response_etag`` uses
    MD5, as OpenSSL's SHA-1 is the faster of the two (the API list of 50, 162 KB: 0.075 ms
    against 0.185 ms, on every uncached response). A validator needs no resistance to
    collisions made on purpose: only our own moderators write the bodies, and a match
    only tells a client to keep its copy."""
    return hashlib.sha1(content, usedforsecurity=False).hexdigest()


def send_gzipped(response, compressed: bytes) -> None:
    """Make ``response`` send ``compressed`` (its body, ``gzipped``) as the site sends gzip:
    the bytes and their length, ``Content-Encoding``, ``Vary: Accept-Encoding``, and its
    ETag weak (one validator for the plain and the gzip bytes). The gzip middleware does
    it to a page it compresses, a stored entry page to its stored bytes."""
    response.content = compressed
    response.headers["Content-Length"] = str(len(compressed))
    etag = response.get("ETag")
    if etag and etag.startswith('"'):
        response.headers["ETag"] = "W/" + etag
    response.headers["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ("Accept-Encoding",))


def weak_etag(digest: str) -> str:
    """The ETag of a public response whose (uncompressed) body has ``body_digest`` digest:
    weak, so one validator covers the plain and the gzip bytes (``rulesite.compression``)."""
    return "W/" + quote_etag(digest)
