"""The pages for reading a game straight through: the contents of its rulebooks and the
printed booklets (``rules.rulebook``, ``rules.booklet``). Thin: look up, build, render."""

import hashlib

from django.core.cache import cache
from django.http import Http404, HttpResponse
from django.shortcuts import render

from . import booklet as booklets
from .languages import native_name
from .models import CONTENT_PARAMETER
from .page_context import game_context
from .rulebook import contents as rulebook_contents
from .templatetags.rulebook_tags import booklet_url

SOURCE_PARAMETER = "source"  # ?source=12: one rulebook of a game (0: sections citing none)
AT_PARAMETER = "at"  # ?at=<slug>: the reader's place in the contents
PDF_CACHE_SECONDS = 24 * 3600


def _context(request, game_slug: str) -> dict:
    """``game_context``, in the content language ``?content=`` asks for when the game has
    it (an entry shown in its own language links its contents in that language)."""
    context = game_context(game_slug)
    wanted = request.GET.get(CONTENT_PARAMETER)
    available = [context["content_language"], *(code for code, _name in context["other_content_languages"])]
    if wanted and wanted != context["content_language"] and wanted in available:
        context.update(
            {
                "game_name": context["game"].name_in(wanted),
                "content_language": wanted,
                "content_missing": wanted != request.LANGUAGE_CODE,
                "other_content_languages": [(code, native_name(code)) for code in available if code != wanted],
            }
        )
    return context


def contents(request, game):
    """Every rulebook of a game, section by section, with the reader's place marked."""
    context = _context(request, game)
    context.update(
        {
            "books": rulebook_contents(context["game"], context["content_language"]),
            "at": request.GET.get(AT_PARAMETER, "")[:200],
            "source_parameter": SOURCE_PARAMETER,
        }
    )
    return render(request, "rules/contents.html", context)


def _source(request) -> int | None:
    raw = request.GET.get(SOURCE_PARAMETER)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        raise Http404("No such rulebook")
    return int(raw)


def _booklet(request, game, part):
    if part not in booklets.PARTS:
        raise Http404("No such booklet")
    context = _context(request, game)
    source = _source(request) if part == booklets.RULES else None
    booklet = booklets.build(context["game"], context["content_language"], part, source)
    if not booklet.entries and source is not None:
        raise Http404("No such rulebook")
    return context, booklet


def booklet(request, game, part):
    context, booklet = _booklet(request, game, part)
    context.update({"booklet": booklet, "source": _source(request) if part == booklets.RULES else None})
    return render(request, "rules/booklet.html", context)


def booklet_pdf(request, game, part):
    """The booklet as a PDF file (``rules.booklet_pdf``), made without a browser."""
    from .booklet_pdf import render_pdf

    context, booklet = _booklet(request, game, part)
    if not booklet.entries:
        raise Http404("Nothing to print")
    # Laying out a long glossary takes a second or two: kept until what it shows changes,
    # which a write to another game (a new content version for the page cache) does not.
    site_url = request.build_absolute_uri("/")[:-1]
    source = _source(request) if part == booklets.RULES else None
    online_path = booklet_url(context["game"].slug, part, context["content_language"], source=source)
    digest = hashlib.blake2b(
        repr((booklet, context["game_name"], request.LANGUAGE_CODE, site_url, online_path)).encode(),
        digest_size=16,
    ).hexdigest()
    key = f"booklet-pdf:{digest}"
    data = cache.get(key)
    if data is None:
        data = render_pdf(
            booklet, game_name=context["game_name"], language=context["content_language"],
            site_url=site_url, online_path=online_path,
        )  # fmt: skip
        cache.set(key, data, PDF_CACHE_SECONDS)
    response = HttpResponse(data, content_type="application/pdf")
    filename = f"{context['game'].slug}-{part}-{context['content_language']}.pdf"
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
