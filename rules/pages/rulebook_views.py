"""The pages for reading a game straight through: the contents of its rulebooks and the
printed booklets (``rules.content.rulebook``, ``rules.builds.booklet``). Thin: look up, build, render."""

from django.http import Http404
from django.shortcuts import redirect, render

from ..builds import booklet as booklets
from ..builds.models import BuiltFile
from ..builds.serving import serve
from ..content import version as content_version
from ..content.addresses import CONTENT_PARAMETER
from ..content.models import Entry
from ..content.releases import former_number
from ..content.rulebook import contents as rulebook_contents
from ..shared.languages import native_name
from .http import public_page
from .page_context import game_context

SOURCE_PARAMETER = "source"  # ?source=12: one rulebook of a game (0: sections citing none)
AT_PARAMETER = "at"  # ?at=<slug>: the reader's place in the contents


def _context(request, game_slug: str) -> dict:
    """``game_context``, in the content language ``?content=`` asks for when the game has
    it (an entry shown in its own language links its contents in that language)."""
    context = game_context(game_slug)
    wanted = request.GET.get(CONTENT_PARAMETER)
    available = [context["content_language"], *(code for code, _name in context["other_content_languages"])]
    if wanted and wanted != context["content_language"] and wanted in available:
        context.update(
            {
                "content_language": wanted,
                "content_missing": wanted != request.LANGUAGE_CODE,
                "other_content_languages": [(code, native_name(code)) for code in available if code != wanted],
            }
        )
    return context


RULE_PARAMETER = "rule"  # ?rule=7.3a: go to the rule numbered so, or to where it went


@public_page(CONTENT_PARAMETER, AT_PARAMETER, RULE_PARAMETER)
def contents(request, game):
    """Every rulebook of a game, section by section, with the reader's place marked.

    ``?rule=7.3a`` goes to the rule numbered so; a number no rule has any more goes to
    the rule that had it until a release renumbered it (its page says "was 7.3a until
    …"); an unknown number shows the contents with a note."""
    context = _context(request, game)
    number = request.GET.get(RULE_PARAMETER, "").strip()[:32]
    if number:
        target = rule_numbered(context["game"], context["content_language"], number)
        if target is not None:
            return redirect(target.get_absolute_url())
        context["rule_not_found"] = number
    context.update(
        {
            "books": rulebook_contents(context["game"], context["content_language"]),
            "at": request.GET.get(AT_PARAMETER, "")[:200],
            "source_parameter": SOURCE_PARAMETER,
        }
    )
    return render(request, "rules/contents.html", context)


def rule_numbered(game, language: str, number: str) -> Entry | None:
    """The published rule numbered ``number`` ("7.3a" or "7.3a."), else the one that was
    until a release renumbered it."""
    number = number.rstrip(".")
    if "\x00" in number:  # no rule has it, and PostgreSQL refuses to compare with it
        return None
    published = Entry.objects.published().filter(game=game, language=language).select_related("game")
    current = published.filter(number=number).first()
    if current is not None:
        return current
    moved = former_number(game.pk, language, number)
    return published.filter(pk=moved.item_id).first() if moved is not None else None


def _source(request) -> int | None:
    raw = request.GET.get(SOURCE_PARAMETER)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        raise Http404("No such rulebook")
    return int(raw)


def _booklet_file(request, game, part, kind) -> BuiltFile | None:
    """The built file of a booklet (``rules.builds``): 404 for a part, rulebook or game
    with nothing to print (None for a booklet page with nothing in it yet), checked with
    one small query, never by building it."""
    if part not in booklets.PARTS:
        raise Http404("No such booklet")
    context = _context(request, game)
    source = _source(request) if part == booklets.RULES else None
    if not booklets.has_entries(context["game"], context["content_language"], part, source):
        if kind == BuiltFile.Kind.BOOKLET_HTML and source is None:
            return None  # the page says there is nothing to print yet
        raise Http404("Nothing to print")
    return BuiltFile.objects.for_request(
        kind,
        game=context["game"],
        language=context["content_language"],
        part=part,
        variant="" if source is None else str(source),
        ui_language=request.LANGUAGE_CODE,
    )


@public_page(CONTENT_PARAMETER, SOURCE_PARAMETER)
def booklet(request, game, part):
    """The booklet page, as built in the background (``rules.builds``)."""
    file = _booklet_file(request, game, part, BuiltFile.Kind.BOOKLET_HTML)
    if file is None:
        context = _context(request, game)
        empty = booklets.build(context["game"], context["content_language"], part)
        context.update({"booklet": empty, "source": None})
        return render(request, "rules/booklet.html", context)
    return serve(request, file, content_version.of_request(request).token)


@public_page(CONTENT_PARAMETER, SOURCE_PARAMETER)
def booklet_pdf(request, game, part):
    """The booklet as a PDF file (``rules.builds.booklet_pdf``), built in the background."""
    file = _booklet_file(request, game, part, BuiltFile.Kind.BOOKLET_PDF)
    return serve(request, file, content_version.of_request(request).token)
