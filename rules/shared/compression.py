"""gzip as the site sends it: whether a client takes it, and the bytes it gets.

One definition for the two places that compress a page: the gzip middleware compresses
each response as it is rendered (``rulesite.compression``), and the worker compresses an
entry page once when it stores it (``rules.pages.stored_pages``), so a stored page is
sent as stored. Both call ``gzipped``.

Two compressors, by how often the bytes are sent (``gzipped(content, kept=...)``):

- **Kept** (a stored entry page, a response the response cache is about to store): sent
  to every reader until the content changes, so its bytes count, and it is compressed
  once. zlib-ng (``zlib_ng.gzip_ng``) at level 5: as many bytes as zlib's level 5 in
  half its time; zlib-ng's 6 saves under 1 % of the bytes for 15 % more time.
- **Sent once** (the cache is off, or will not keep this response): compressed for one
  reader, on that reader's time, so its CPU counts. ISA-L (``isal.igzip``) at level 1:
  seven times faster than zlib-ng's 5 for 7–14 % more bytes.

Measured on the benchmark site (``bench/serve.py --keep``; each library's ``compress``
200 times a body, the least of 5 rounds, CPU time, this 2-core VM on 2026-12-02):

    =======================  =====================  =====================  =====================
    body (plain size)        zlib-ng 5 (kept)       ISA-L 1 (sent once)    ISA-L 3
    =======================  =====================  =====================  =====================
    entry page (9 KB)        2,662 B in 0.130 ms    2,859 B in 0.035 ms    2,789 B in 0.081 ms
    demo game page (9 KB)    2,612 B in 0.133 ms    2,814 B in 0.032 ms    2,756 B in 0.081 ms
    API list of 50 (162 KB)  24,960 B in 1.40 ms    28,323 B in 0.173 ms   27,307 B in 0.805 ms
    =======================  =====================  =====================  =====================

An uncached API list of 50 took 6.5 ms of CPU with zlib-ng 5 and 4.2–4.4 ms with ISA-L 1
(``bench/cpu.py``, the same run): a third of its time was the compressing. Both are
deterministic (no timestamp, no padding), so the same body gives the same bytes in every
process; the ETag is of the plain body and weak (one validator whichever way a response
was compressed, which HTTP allows for a weak one: the same content, other bytes).
"""

import functools
import hashlib

from django.utils.cache import patch_vary_headers
from django.utils.http import quote_etag
from isal import igzip
from zlib_ng import gzip_ng

COMPRESS_LEVEL = 5  # zlib-ng's, for bytes that are kept
SENT_ONCE_LEVEL = 1  # ISA-L's, for bytes compressed for one reader
MIN_LENGTH = 200  # shorter bodies are sent as they are (as Django's GZipMiddleware does)


def accepts_gzip(request) -> bool:
    """Whether the client takes gzip, as RFC 9110 reads ``Accept-Encoding``: ``gzip`` (or
    ``x-gzip``) with a quality above 0, else ``*`` with one. ``gzip;q=0`` refuses it, as
    does an empty header. (Django's own check finds the word "gzip" anywhere.)"""
    return header_accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", ""))


@functools.lru_cache(maxsize=256)  # a handful of values in practice; bounded whatever clients send
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


def gzipped(content: bytes, *, kept: bool) -> bytes | None:
    """``content`` as the site sends it gzip-compressed: for bytes that are ``kept`` and
    sent again (stored, cached), zlib-ng's smaller output, else ISA-L's faster (module
    docstring). None when it is sent as it is (under ``MIN_LENGTH`` bytes, or no smaller
    compressed)."""
    if len(content) < MIN_LENGTH:
        return None
    if kept:
        compressed = gzip_ng.compress(content, compresslevel=COMPRESS_LEVEL, mtime=0)
    else:
        compressed = igzip.compress(content, compresslevel=SENT_ONCE_LEVEL, mtime=0)
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
