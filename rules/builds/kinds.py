"""What each kind of built file is made from (``gather``: one query of stored data, in
the file's UI language) and how its bytes are made (``render``), without a request.

A file is made again only when the fingerprint of what ``gather`` returns changes
(``tasks.build_file``), so ``gather`` must return everything the bytes depend on, and
``LAYOUT_VERSION`` changes when the code that lays files out does (or run
``manage.py build_files --all`` after such a deploy).
"""

import hashlib
from dataclasses import dataclass
from urllib.parse import urlencode

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from ..content.addresses import CONTENT_PARAMETER
from ..derived.rendering import RENDERER_VERSION
from ..shared.languages import native_name
from . import booklet as booklets
from .models import BuiltFile
from .site import SiteRequest, site_url

LAYOUT_VERSION = 1
SOURCE_PARAMETER = "source"  # ?source=12: one rulebook of a game (0: sections citing none)


@dataclass
class Kind:
    content_type: str
    extension: str
    compress: bool  # store a gzip copy beside it (text)

    def gather(self, file: BuiltFile):
        raise NotImplementedError

    def render(self, file: BuiltFile, gathered) -> bytes:
        raise NotImplementedError

    def fingerprint(self, file: BuiltFile, gathered) -> str:
        material = repr((LAYOUT_VERSION, RENDERER_VERSION, site_url(), file.ui_language, gathered))
        return hashlib.sha256(material.encode()).hexdigest()

    def filename(self, file: BuiltFile) -> str:
        """The name a reader's browser saves it under."""
        parts = [file.game.slug, file.part, file.variant and f"source-{file.variant}", file.language]
        return "-".join(filter(None, parts)) + f".{self.extension}"


def booklet_path(file: BuiltFile, *, pdf: bool = False) -> str:
    """The booklet's address on the site, in the file's UI language, with the query the
    page's own links give it (``rules.templatetags.rulebook_tags.booklet_url``)."""
    name = "rules:booklet-pdf" if pdf else "rules:booklet"
    with translation.override(file.ui_language):
        path = reverse(name, kwargs={"game": file.game.slug, "part": file.part})
    params = {}
    if file.language != file.ui_language:
        params[CONTENT_PARAMETER] = file.language
    if file.variant:
        params[SOURCE_PARAMETER] = file.variant
    return path + (f"?{urlencode(params)}" if params else "")


@dataclass
class GatheredBooklet:
    booklet: booklets.Booklet
    game_name: str
    other_languages: list

    def __repr__(self) -> str:  # what the fingerprint reads
        return repr((self.booklet, self.game_name, self.other_languages))


class Booklet(Kind):
    def gather(self, file: BuiltFile) -> GatheredBooklet | None:
        source = int(file.variant) if file.variant else None
        booklet = booklets.build(file.game, file.language, file.part, source)
        if not booklet.entries:
            return None
        others = [(code, native_name(code)) for code in file.game.content_languages() if code != file.language]
        return GatheredBooklet(booklet, file.game.name_in(file.language), others)


class BookletHTML(Booklet):
    def render(self, file: BuiltFile, gathered: GatheredBooklet) -> bytes:
        path, _, query = booklet_path(file).partition("?")
        context = {
            "game": file.game,
            "game_name": gathered.game_name,
            "content_language": file.language,
            "content_missing": file.language != file.ui_language,
            "other_content_languages": gathered.other_languages,
            "booklet": gathered.booklet,
            "source": int(file.variant) if file.variant else None,
        }
        request = SiteRequest(path, query, file.ui_language)
        return render_to_string("rules/booklet.html", context, request=request).encode()


class BookletPDF(Booklet):
    def render(self, file: BuiltFile, gathered: GatheredBooklet) -> bytes:
        from .booklet_pdf import render_pdf

        return render_pdf(
            gathered.booklet,
            game_name=gathered.game_name,
            language=file.language,
            site_url=site_url(),
            online_path=booklet_path(file),
        )


class Sitemap(Kind):
    def gather(self, file: BuiltFile):
        from .sitemap import entry_urls

        return entry_urls(file.game, file.language) or None

    def render(self, file: BuiltFile, gathered) -> bytes:
        from .sitemap import urlset

        return urlset(gathered, site_url())

    def filename(self, file: BuiltFile) -> str:
        return f"sitemap-{file.game.slug}-{file.language}.xml"


class Card(Kind):
    """A game's link-preview card in a UI language (``card``): its name as that reader's
    pages show it, and what the site offers, in that language."""

    def gather(self, file: BuiltFile):
        from .card import subtitle

        return (file.game.name_in(file.ui_language), subtitle())

    def render(self, file: BuiltFile, gathered) -> bytes:
        from .card import render

        return render(*gathered)

    def filename(self, file: BuiltFile) -> str:
        return f"{file.game.slug}-{file.ui_language}.png"


KINDS: dict[str, Kind] = {
    BuiltFile.Kind.BOOKLET_HTML: BookletHTML("text/html; charset=utf-8", "html", compress=True),
    BuiltFile.Kind.BOOKLET_PDF: BookletPDF("application/pdf", "pdf", compress=False),
    BuiltFile.Kind.SITEMAP: Sitemap("application/xml; charset=utf-8", "xml", compress=True),
    BuiltFile.Kind.CARD: Card("image/png", "png", compress=False),
}
