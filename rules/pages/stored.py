"""What stored pages of every kind share: what a page is made of, which requests a stored
page may answer, the columns a reader's query reads it with, and the response it becomes.

A page the worker stores (an entry's: ``rules.pages.stored_pages``; a game's:
``rules.pages.stored_game_pages``) carries the digest of everything it was rendered
from (``inputs``): the rows the reader's queries give (``PreparedQuery.with_digest``),
the UI language, the address asked for, and ``deployed()`` (the code, templates,
translations and static manifest this process renders with). A reader computes the same
digest from the rows it has just read and is served the stored page only when the two
are equal; otherwise the page is rendered in the request. A stored page can therefore
be missing or old, never wrong: no write has to remember to throw one away.
"""

import hashlib
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db.models import BinaryField, QuerySet, Subquery, TextField
from django.db.models.functions import Concat
from django.http import HttpResponse
from django.utils.http import quote_etag

from ..shared.compression import send_gzipped

INPUTS_LENGTH = 40  # a SHA-1's hex digest (``inputs``)
DIGEST_LENGTH = 40  # and the HTML's (``digest``)

# What ``deployed()`` reads, under the project's directory.
DEPLOYED_SOURCES = (("rules", ".py"), ("faq", ".py"), ("rulesite", ".py"), ("templates", ""), ("locale", ".mo"))


@cache
def deployed() -> str:
    """A digest of what renders pages in this process: the project's Python, templates
    and compiled translations, the static files' manifest, Django's version and the
    settings a page's bytes depend on. Read once per process (a deploy restarts it)."""
    import django

    # Values whose repr is the same in every process: the languages' codes, not their names,
    # which are lazy translations written in whatever language is active at the first call
    # (a reader's, in a web process; the names themselves come from the catalogues).
    read = (django.get_version(), settings.DEBUG, [code for code, _name in settings.LANGUAGES],
            settings.LANGUAGE_CODE, settings.TIME_ZONE, settings.USE_TZ, str(settings.STATIC_URL),
            sorted(settings.STORAGES.get("staticfiles", {}).items()))  # fmt: skip
    digest = hashlib.sha1(repr(read).encode(), usedforsecurity=False)
    base = Path(settings.BASE_DIR)
    for folder, suffix in DEPLOYED_SOURCES:
        for path in sorted((base / folder).rglob(f"*{suffix}")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
    if settings.STATIC_ROOT and (manifest := Path(settings.STATIC_ROOT) / "staticfiles.json").is_file():
        digest.update(manifest.read_bytes())
    return digest.hexdigest()


def inputs(request, ui_language: str, rows: str) -> str:
    """What a page rendered for ``request`` from rows of digest ``rows`` is made of."""
    made_of = f"{deployed()}\n{ui_language}\n{request.scheme}://{request.get_host()}{request.path}\n{rows}"
    return hashlib.sha1(made_of.encode(), usedforsecurity=False).hexdigest()


def servable(request) -> bool:
    """Whether a stored page may answer ``request``: only an anonymous reader's request
    for the plain address. A query string the view reads (``?content=``, ``?as_of=``;
    others are dropped before it, ``rulesite.cache_key``) or a session cookie (a
    moderator may see more) gets the page rendered."""
    return not request.META.get("QUERY_STRING") and settings.SESSION_COOKIE_NAME not in request.COOKIES


def stored_columns(pages: QuerySet, gzip: bool) -> dict:
    """Annotations that read, beside a reader's rows, the one stored page in ``pages`` (a
    subquery): ``stored_page``, its inputs followed by its HTML in one text column, or
    for a client that takes gzip (``gzip``) its inputs followed by the HTML's digest, and
    ``stored_gzip``, the compressed page, so the HTML itself is not read."""
    column = "digest" if gzip else "html"
    columns = {"stored_page": Subquery(pages.values(made_of=Concat("inputs", column, output_field=TextField())))}
    if gzip:
        columns["stored_gzip"] = Subquery(pages.values("gzip"), output_field=BinaryField())
    return columns


def stored_response(made_of: str, page: str | None, compressed: bytes | None, gzip: bool) -> HttpResponse | None:
    """The stored page read with ``stored_columns`` (``page``: its ``stored_page`` column,
    ``compressed``: its ``stored_gzip``, read when ``gzip``) if it was made of
    ``made_of``: its HTML, or its gzip bytes sent as the gzip middleware sends a page it
    compresses (``send_gzipped``), which then leaves it as it is. None: render the page."""
    if page is None or page[:INPUTS_LENGTH] != made_of:
        return None
    if not gzip:  # read with its HTML
        return HttpResponse(page[INPUTS_LENGTH:])
    digest = page[INPUTS_LENGTH:]
    if compressed is None or len(digest) != DIGEST_LENGTH:  # stored before 0031, or too short
        return None
    response = HttpResponse()
    response.headers["ETag"] = quote_etag(digest)  # of the HTML, as the middleware's
    send_gzipped(response, compressed)
    return response
