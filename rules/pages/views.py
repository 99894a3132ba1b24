"""Public pages. Thin: look up through published() querysets, build a context, render."""

from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import Http404, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _

from ..content.addresses import CONTENT_PARAMETER, entry_url_template
from ..content.models import Entry, EntryRedirect, Erratum, Game
from ..content.querysets import Status
from ..search import Busy, QueryTooLong
from ..search import search as search_service
from ..shared.collation import sort_by_title
from ..shared.compression import accepts_gzip
from ..shared.languages import CONTENT_LANGUAGES
from . import parallel, stored, stored_game_pages, stored_pages
from .forms import SearchForm
from .http import public_page
from .page_context import game_context, game_name, reader_counts
from .releases import AS_OF_PARAMETER, removed_page


@public_page()
def home(request):
    # By the name the reader sees, in the order of the reader's language.
    ui_language = translation.get_language()
    games = sort_by_title(Game.objects.published().order_by("pk"), ui_language, title=lambda g: g.name_in(ui_language))
    # Each card counts the entries of the language its game page shows this reader.
    shown = reader_counts(games, ui_language)
    names = dict(CONTENT_LANGUAGES)
    for game in games:
        game.shown_language, game.entry_count = shown.get(game.pk, (ui_language, 0))
        game.shown_language_name = names.get(game.shown_language, game.shown_language)
    recent_entries = Entry.objects.published().select_related("game").order_by("-updated_at", "pk")[:8]
    recent_errata = Erratum.objects.published().select_related("game").order_by("-updated_at", "pk")[:5]
    return render(
        request,
        "rules/home.html",
        {"games": games, "recent_entries": recent_entries, "recent_errata": recent_errata},
    )


@public_page()
def game_detail(request, game):
    # The page as the worker stored it, if made of the same rows (rules.pages.stored_game_pages).
    if stored.servable(request):
        page = stored_game_pages.stored_page(request, game, translation.get_language(), accepts_gzip(request))
        if page is not None:
            return page
    return stored_game_pages.render_page(request, game)


@public_page(CONTENT_PARAMETER, AS_OF_PARAMETER)
def entry_detail(request, game, slug):
    ui_language = translation.get_language()
    # One query: the entry in each language with its game and source, everything it shows
    # of other items stored with it (rules.derived.relations) and, for a reader the stored
    # page may answer, the page the worker stored (rules.pages.stored_pages), served from
    # the row as it is if made of the same rows. The game is looked up alone only for an
    # old address.
    servable, gzip = stored.servable(request), accepts_gzip(request)  # compressed as stored, when taken
    if servable:
        read = stored_pages.read_with_stored(game, slug, ui_language, gzip)
        page = stored_pages.stored_page(request, read, ui_language, gzip)  # of the version in the reader's language
        if page is not None:
            return page
        candidates, rows = stored_pages.instances(read)
    else:
        candidates, rows = stored_pages.versions(game, slug)
    if not candidates:
        return _redirect_old_slug(request, get_object_or_404(Game.objects.published(), slug=game), slug)
    wanted = request.GET.get(CONTENT_PARAMETER)
    entry = stored_pages.shown(candidates, ui_language, wanted)
    # The reader asked for this entry in their language: go to that version if one exists.
    translated = stored_pages.translation_to_go_to(entry, ui_language, wanted)
    if translated is not None:
        return redirect(entry_url_template(entry.game.slug).format(slug=translated.slug))
    if servable and entry.language != ui_language:  # the reader's version was checked above
        page = stored_pages.stored_page_of(request, entry, rows, ui_language, gzip)
        if page is not None:
            return page
    return stored_pages.render_page(request, entry)


@public_page(CONTENT_PARAMETER)
def entry_compare(request, game, slug, language):
    """One entry beside its version in ``language`` (``rules.pages.parallel``)."""
    pair = parallel.versions(game, slug, language, translation.get_language(), request.GET.get(CONTENT_PARAMETER))
    if pair is None:
        raise Http404("No such version")
    return render(request, "rules/entry_compare.html", parallel.compare_context(request, *pair))


def _redirect_old_slug(request, game, slug):
    """A renamed entry's old address: a permanent redirect to where it is now."""
    ui_language = translation.get_language()
    redirects = {
        r.language: r.entry
        for r in EntryRedirect.objects.filter(game=game, old_slug=slug, entry__status=Status.PUBLISHED).select_related(
            "entry__game"
        )
    }
    entry = redirects.get(ui_language) or next(iter(sorted(redirects.items())), (None, None))[1]
    if entry is None:
        # A rule a release removed: 410 Gone, saying when, with its last text (rules.pages.releases).
        gone = removed_page(request, game, slug)
        if gone is not None:
            return gone
        raise Http404("No such entry")
    return redirect(entry.get_absolute_url(), permanent=True)


@public_page()
def errata_list(request, game):
    context = game_context(game)
    context["errata"] = (
        Erratum.objects.published()
        .for_game(context["game"])
        .for_language(context["content_language"])
        .select_related("source")
        .prefetch_related(
            # affects: the entries each erratum changes, published only, with their game for
            # URLs: one query for the whole list instead of one per erratum
            Prefetch("affects", queryset=Entry.objects.published().select_related("game"), to_attr="published_affects")
        )
        .order_by("order", "pk")
    )
    return render(request, "rules/errata_list.html", context)


SEARCH_PAGE_SIZE = 20


@public_page(*SearchForm.base_fields, reads_vectors=True)
def search(request):
    """Search results: the form validates, the search service searches, the template
    renders. Pages reach every result counted (``rules.search.service``); a page past
    the last is the last, as Django's ``Paginator.get_page`` has it."""
    form = SearchForm(request.GET or None)
    context = {"form": form, "query": ""}
    if form.is_bound and form.is_valid() and form.cleaned_data["q"]:
        data = form.cleaned_data
        try:
            results = search_service(
                data["q"],
                game=data["game"] or None,
                language=data["language"] or None,
                type=data["type"] or None,
                limit=0,  # the page's hits are built when the paginator slices them
                correct=not data["exact"],
            )
        except QueryTooLong:  # the form checks the same limit; this only guards a drift
            limits = {"limit_value": form.fields["q"].max_length, "show_value": len(data["q"])}
            form.add_error("q", form.fields["q"].error_messages["max_length"] % limits)
        except Busy as busy:  # every place for questions stayed taken (rules.shared.capacity)
            form.add_error("q", _("Too many questions are being answered right now. Ask again in a moment."))
            response = render(request, "rules/search.html", context, status=503)
            response["Retry-After"] = str(busy.retry_after)
            return response
        else:
            paginator = Paginator(results.pageable(), SEARCH_PAGE_SIZE)
            page = paginator.get_page(data["page"])
            games = {game.slug: game for game in form.games}
            # Only the filters in use, cleaned: the links of this page keep them.
            params = QueryDict(mutable=True)
            params.update({key: data[key] for key in ("q", "game", "language", "type") if data[key]})
            if data["exact"]:
                params["exact"] = "1"
            context.update(
                {
                    "query": data["q"],
                    "results": results,
                    "total": results.total,
                    # each hit with its game's name, as every page names it for this reader
                    "rows": [
                        (hit, game_name(games[hit.game_slug]) if hit.game_slug in games else hit.game_name)
                        for hit in page.object_list
                    ],
                    "page": page.number,
                    "pages": paginator.num_pages,
                    "params": params,
                }
            )
    return render(request, "rules/search.html", context)
