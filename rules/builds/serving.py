"""Answering a request for a built file like a static file server would.

- **Validators**: a strong ``ETag`` (the SHA-256 of the bytes sent, so the gzip copy has
  its own) and ``Last-Modified`` (when it was built); ``ConditionalGetMiddleware``
  answers ``If-None-Match`` with a 304.
- **Ranges**: one ``bytes=`` range (``a-b``, ``a-``, ``-n``) answers 206 with
  ``Content-Range``; a range past the end 416; several ranges, a malformed one, or an
  ``If-Range`` that no longer matches get the whole file (RFC 9110 allows each).
- **Encoding**: text has a gzip copy made when it was built, sent to clients that take
  gzip (``rules.shared.compression.accepts_gzip``); the site's gzip middleware leaves ranged
  files alone.
- **Not there yet**: a 503 "being prepared" page in the reader's language with
  ``Retry-After``, which reloads itself; never a 500 and never a wait.
- **Lost**: a file its record says is stored but the storage lacks (deleted, a storage
  switched) is the same 503, logged, and built again (``tasks.found_missing``).
- **From the storage**: the bytes are streamed from ``STORAGES["builtfiles"]``
  (``rules.builds.storage``: a directory or S3, a ranged read either way), or, with
  ``DJANGO_BUILT_FILES_REDIRECT=1`` and S3, the reader is sent there (a 302 to a
  presigned URL, with the type, disposition and encoding a node would send).
"""

import logging
import re

from django.conf import settings
from django.http import HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import http_date

from ..shared.compression import accepts_gzip
from .kinds import KINDS
from .models import BuiltFile
from .storage import STORAGE_ERRORS, open_part, presigned_url
from .tasks import found_missing, request_build

logger = logging.getLogger(__name__)

RETRY_AFTER = 5  # seconds: a glossary's booklet is usually ready by then
CHUNK = 64 * 1024
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def serve(request, file: BuiltFile, token: int, *, download: bool = False, preparing=None) -> HttpResponse:
    """The file as last built (asking for it to be built again when content version
    ``token`` is newer than what it was checked against), or the "being prepared" page
    (``preparing``: another answer for that, the API's JSON one)."""
    not_yet = preparing or globals()["preparing"]
    if file.pk is not None and file.checked_token != token and file.requested_token != token:
        request_build(file, token)
    if not file.is_stored or file.withdrawn:
        return not_yet(request)
    kind = KINDS[file.kind]
    if settings.BUILT_FILES_REDIRECT and request.method in ("GET", "HEAD"):
        redirect = _redirect(request, file, kind, download)
        if redirect is not None:
            return redirect
    opened = _open(file, request)
    if opened is None:
        return not_yet(request)
    (name, size, digest), start, end, handle = opened
    compressed = name == file.gzip_name
    etag = f'"{digest[:32]}"'
    if start is None and end is not None:  # unsatisfiable
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
        return response
    if start is None:
        start, end, status = 0, size - 1, 200
    else:
        status = 206
    length = end - start + 1
    if request.method == "HEAD":
        handle.close()
        response = HttpResponse(status=status)
    else:
        response = StreamingHttpResponse(_chunks(handle, length), status=status)
    response["Content-Type"] = kind.content_type
    response["Content-Length"] = str(length)
    if status == 206:
        response["Content-Range"] = f"bytes {start}-{end}/{size}"
    response["Accept-Ranges"] = "bytes"
    response["ETag"] = etag
    response["Last-Modified"] = http_date(file.built_at.timestamp())
    if compressed:
        response["Content-Encoding"] = "gzip"
    if file.gzip_name:
        patch_vary_headers(response, ("Accept-Encoding",))
    disposition = _disposition(file, kind, download)
    if disposition:
        response["Content-Disposition"] = disposition
    patch_cache_control(response, public=True, max_age=0)
    return response


def _disposition(file: BuiltFile, kind, download: bool) -> str:
    if kind.extension == "html":
        return ""
    return f'{"attachment" if download else "inline"}; filename="{kind.filename(file)}"'


def _redirect(request, file: BuiltFile, kind, download: bool) -> HttpResponse | None:
    """A 302 to the bytes on the storage itself (``DJANGO_BUILT_FILES_REDIRECT``: S3's
    presigned URL, with the type, disposition and encoding a node would send); None where
    the storage has no such address. Never stored (the URL expires); a range or an
    ``If-None-Match`` is the storage's to answer."""
    compressed = bool(file.gzip_name) and accepts_gzip(request)
    headers = {"ResponseContentType": kind.content_type, "ResponseCacheControl": "public, max-age=0"}
    disposition = _disposition(file, kind, download)
    if disposition:
        headers["ResponseContentDisposition"] = disposition
    if compressed:
        headers["ResponseContentEncoding"] = "gzip"
    url = presigned_url(file.gzip_name if compressed else file.name, **headers)
    if url is None:
        return None
    response = HttpResponseRedirect(url)
    if file.gzip_name:
        patch_vary_headers(response, ("Accept-Encoding",))
    patch_cache_control(response, no_store=True)
    return response


def preparing(request) -> HttpResponse:
    return not_ready(render(request, "rules/preparing.html", {"retry_after": RETRY_AFTER}, status=503))


def not_ready(response: HttpResponse) -> HttpResponse:
    """A 503 "being prepared" answer (the page above, or the API's JSON): ask again after
    ``RETRY_AFTER`` seconds; never stored."""
    response["Retry-After"] = str(RETRY_AFTER)
    patch_cache_control(response, no_store=True)
    # Expected, not a failure: kept out of django.request's error log (which reads this).
    response._has_been_logged = True
    return response


def _range(request, size: int, etag: str) -> tuple[int | None, int | None]:
    """(first, last byte) of the one range asked for; (None, None) for the whole file;
    (None, size) when the range starts past the end."""
    header = request.META.get("HTTP_RANGE", "")
    if not header or request.method not in ("GET", "HEAD"):
        return None, None
    if_range = request.META.get("HTTP_IF_RANGE")
    if if_range is not None and if_range.strip() != etag:
        return None, None  # the client's part is of another version: send it all
    match = _RANGE.match(header.strip())
    if match is None or size == 0:
        return None, None
    first, last = match.groups()
    if not first and not last:
        return None, None
    if not first:  # the last N bytes
        count = int(last)
        if count == 0:
            return None, size
        return max(size - count, 0), size - 1
    start = int(first)
    if start >= size:
        return None, size
    end = min(int(last), size - 1) if last else size - 1
    if end < start:
        return None, None
    return start, end


def _open(file: BuiltFile, request):
    """The bytes this request is sent (the gzip copy or the file) as (name, size, sha256),
    the range asked for (``_range``) and a handle at its start, opened now: once open,
    the next version replacing it on the storage does not cut this reader off (None for
    the handle when no byte is to be sent). A version replaced between reading the record
    and opening its file is looked up again, once; a file still missing then is lost
    (``tasks.found_missing``: built again). None if there is nothing to open."""
    for attempt in range(2):
        compressed = bool(file.gzip_name) and accepts_gzip(request)
        if compressed:
            chosen = (file.gzip_name, file.gzip_size, file.gzip_sha256)
        else:
            chosen = (file.name, file.size, file.sha256)
        name, size, digest = chosen
        start, end = _range(request, size, f'"{digest[:32]}"')
        if start is None and end is not None:
            return chosen, start, end, None
        first, length = (0, size) if start is None else (start, end - start + 1)
        try:
            return chosen, start, end, open_part(name, first, length, size)
        except FileNotFoundError:
            if attempt:
                found_missing(file, f"a request for {request.path}", name)
                return None
            file.refresh_from_db()
            if not file.is_stored or file.withdrawn:
                return None
        except STORAGE_ERRORS as error:  # the storage cannot be reached: nothing is lost
            logger.warning("the built files' storage failed for %s (%s: %s)", name, type(error).__name__, error)
            return None
    return None


def _chunks(handle, length: int):
    with handle:
        while length > 0:
            chunk = handle.read(min(CHUNK, length))
            if not chunk:
                break
            length -= len(chunk)
            yield chunk
