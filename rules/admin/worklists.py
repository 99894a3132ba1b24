"""The worklists in the admin: an overview and one page per list, scoped to the user's games.

Thin views over ``rules.moderation.worklists``: each parses its filters through a form (a bad value
is ignored, never a 500), asks the service, and renders an admin-looking page. The two
buttons ("Create this entry", "Mark text as checked") are POST-only and check the model
permission through the registered ``EntryAdmin`` plus ``can_edit_game``.

Mounted by ``RulesiteAdminSite.get_urls()`` before the default URLs, so the pages are
``/admin/worklists/…`` with ``admin:worklist_*`` names.
"""

from functools import partial

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from ..content.models import Entry, Erratum
from ..moderation import worklists
from ..moderation.permissions import can_edit_game, editable_games
from ..shared.languages import CONTENT_LANGUAGES, native_name
from .suggestions import pending_count

PER_PAGE = 100
# The wanted list's "asked for by at least" filter (its default: worklists.WANTED_AT_LEAST).
ASKED_CHOICES = (1, 2, 3, 5)


# --- Filters --------------------------------------------------------------------------


class WorklistFilter(forms.Form):
    """The query string of a worklist page; an unknown game or language is ignored."""

    game = forms.IntegerField(required=False)
    language = forms.ChoiceField(required=False, choices=CONTENT_LANGUAGES)
    asked = forms.TypedChoiceField(required=False, coerce=int, choices=[(str(n), str(n)) for n in ASKED_CHOICES])
    source = forms.ChoiceField(required=False, choices=CONTENT_LANGUAGES)  # ?from=
    target = forms.ChoiceField(required=False, choices=CONTENT_LANGUAGES)  # ?to=

    def __init__(self, query, games):
        data = {key: query.get(key) for key in ("game", "language", "asked")}
        data.update(source=query.get("from"), target=query.get("to"))
        super().__init__(data)
        self.games = list(games.order_by("name"))

    def value(self, name: str):
        """The field's value, or None if it is missing or invalid (the others still apply)."""
        self.is_valid()
        return self.cleaned_data.get(name) or None

    @property
    def selected_game(self):
        game_id = self.value("game")
        return next((game for game in self.games if game.pk == game_id), None)


def _filter_links(request, filters: WorklistFilter, *, languages: bool = True) -> list[dict]:
    """The right-hand filter column, as the admin's change lists draw it."""
    query = request.GET.copy()
    query.pop("page", None)

    def link(**changes) -> str:
        q = query.copy()
        for key, value in changes.items():
            if value is None:
                q.pop(key, None)
            else:
                q[key] = value
        return "?" + q.urlencode() if q else "?"

    selected_game = filters.selected_game
    columns = [
        {
            "title": gettext("game"),
            "choices": [{"display": gettext("All"), "selected": selected_game is None, "link": link(game=None)}]
            + [
                {"display": game.name, "selected": game == selected_game, "link": link(game=str(game.pk))}
                for game in filters.games
            ],
        }
    ]
    if languages:
        language = filters.value("language")
        columns.append(
            {
                "title": gettext("language"),
                "choices": [{"display": gettext("All"), "selected": not language, "link": link(language=None)}]
                + [
                    {"display": name, "selected": code == language, "link": link(language=code)}
                    for code, name in CONTENT_LANGUAGES
                ],
            }
        )
    return columns


# --- Helpers --------------------------------------------------------------------------


def _entry_admin(site):
    return site.get_model_admin(Entry)


def _require_entry_view(request, site) -> None:
    if not _entry_admin(site).has_view_permission(request):
        raise PermissionDenied


def _render(request, site, template: str, title: str, **context) -> TemplateResponse:
    return TemplateResponse(
        request,
        f"admin/worklists/{template}",
        {**site.each_context(request), "title": title, "entry_opts": Entry._meta, **context},
    )


def _page(request, rows):
    return Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))


def _review_models(request, site) -> list:
    """The models of the review list the user may view (entries, errata, FAQ questions)."""
    allowed = []
    for model in worklists.review_models():
        model_admin = site._registry.get(model)
        if model_admin is not None and model_admin.has_view_permission(request):
            allowed.append(model)
    return allowed


def moderation_summary(request, site) -> dict | None:
    """Each worklist's count for the admin index's "Moderation" box (about eight queries),
    with the players' suggestions to review (``rules.admin.suggestions``).

    ``None`` for a user who may not view entries (the box is not shown).
    """
    if not _entry_admin(site).has_view_permission(request):
        return None
    counts = worklists.summary(editable_games(request.user), review_in=_review_models(request, site))
    return {**counts, "suggestions": pending_count(request, site)}


# --- Pages ----------------------------------------------------------------------------


def overview_view(request, site):
    _require_entry_view(request, site)
    counts = worklists.summary(editable_games(request.user), review_in=_review_models(request, site))
    counts["suggestions"] = pending_count(request, site)
    return _render(request, site, "overview.html", gettext("Worklists"), counts=counts)


def wanted_view(request, site):
    _require_entry_view(request, site)
    filters = WorklistFilter(request.GET, editable_games(request.user))
    game = filters.selected_game
    at_least = filters.value("asked") or worklists.WANTED_AT_LEAST
    rows = worklists.wanted_entries(
        editable_games(request.user),
        game_id=game.pk if game else None,
        language=filters.value("language"),
        at_least=at_least,
    )
    columns = _filter_links(request, filters)
    columns.append(_asked_column(request, at_least))
    return _render(
        request,
        site,
        "wanted.html",
        gettext("Wanted entries"),
        page=_page(request, rows),
        total=len(rows),
        at_least=at_least,
        filter_columns=columns,
        can_add=_entry_admin(site).has_add_permission(request),
    )


def _asked_column(request, at_least: int) -> dict:
    """The wanted list's filter: labels asked for by at least 1, 2, 3 or 5 entries."""
    query = request.GET.copy()
    query.pop("page", None)
    choices = []
    for n in ASKED_CHOICES:
        query["asked"] = str(n)
        label = gettext("any") if n == 1 else gettext("%(count)s or more") % {"count": n}
        choices.append({"display": label, "selected": n == at_least, "link": "?" + query.urlencode()})
    return {"title": gettext("asked for by"), "choices": choices}


def outdated_view(request, site):
    _require_entry_view(request, site)
    filters = WorklistFilter(request.GET, editable_games(request.user))
    game = filters.selected_game
    rows = worklists.outdated_translations(
        editable_games(request.user), game_id=game.pk if game else None, language=filters.value("language")
    )
    return _render(
        request,
        site,
        "outdated.html",
        gettext("Outdated translations"),
        page=_page(request, rows),
        total=len(rows),
        filter_columns=_filter_links(request, filters),
    )


def untranslated_view(request, site):
    _require_entry_view(request, site)
    games = editable_games(request.user)
    filters = WorklistFilter(request.GET, games)
    game, source, target = filters.selected_game, filters.value("source"), filters.value("target")
    pairs = worklists.untranslated_pairs(games, game_id=game.pk if game else None)
    selected = None
    rows = []
    if game and source and target and source != target:
        selected = next((p for p in pairs if (p.game, p.source, p.target) == (game, source, target)), None)
        if selected is not None:
            rows = worklists.untranslated_entries(game, source, target)
    return _render(
        request,
        site,
        "untranslated.html",
        gettext("Untranslated entries"),
        pairs=pairs,
        selected=selected,
        page=_page(request, rows) if selected else None,
        source_name=native_name(source) if source else "",
        target_name=native_name(target) if target else "",
        filter_columns=_filter_links(request, filters, languages=False),
        can_add=_entry_admin(site).has_add_permission(request),
    )


def errata_view(request, site):
    _require_entry_view(request, site)
    filters = WorklistFilter(request.GET, editable_games(request.user))
    game = filters.selected_game
    rows = worklists.entries_touched_by_errata(
        editable_games(request.user), game_id=game.pk if game else None, language=filters.value("language")
    )
    return _render(
        request,
        site,
        "errata.html",
        gettext("Entries touched by errata"),
        page=_page(request, rows),
        total=len(rows),
        filter_columns=_filter_links(request, filters),
        can_change=_entry_admin(site).has_change_permission(request),
        erratum_opts=Erratum._meta,
    )


def review_view(request, site):
    _require_entry_view(request, site)
    games = editable_games(request.user)
    filters = WorklistFilter(request.GET, games)
    game = filters.selected_game
    models = _review_models(request, site)
    rows = worklists.waiting_for_review(games, models=models, game_id=game.pk if game else None)
    counts = worklists.review_counts(games, models=models, game_id=game.pk if game else None)
    return _render(
        request,
        site,
        "review.html",
        gettext("Waiting for review"),
        page=_page(request, rows),
        total=len(rows),
        drafts=counts["draft"],
        filter_columns=_filter_links(request, filters, languages=False),
        draft_links=[
            (model._meta, reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"))
            for model in models
        ],
    )


# --- Actions --------------------------------------------------------------------------


class CreateWantedForm(forms.Form):
    game = forms.IntegerField()
    language = forms.ChoiceField(choices=CONTENT_LANGUAGES)
    label = forms.CharField(max_length=300, strip=True)


@require_POST
def create_wanted_view(request, site):
    """"Create this entry": a draft named as the label, or the entry that already is."""
    entry_admin = _entry_admin(site)
    if not entry_admin.has_add_permission(request):
        raise PermissionDenied
    form = CreateWantedForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("The entry could not be created: the request was incomplete."))
        return redirect("admin:worklist_wanted")
    game = get_object_or_404(editable_games(request.user), pk=form.cleaned_data["game"])
    if not can_edit_game(request.user, game.pk):
        raise PermissionDenied
    label = " ".join(form.cleaned_data["label"].split())
    entry, created = worklists.create_wanted_entry(game, form.cleaned_data["language"], label, request.user)
    change_url = reverse("admin:rules_entry_change", args=[entry.pk])
    if created:
        entry_admin.log_addition(request, entry, [{"added": {}}])
        messages.success(
            request,
            gettext(
                "The draft “%(title)s” was created. Write its text and publish it: the entries that ask for it "
                "will then link to it."
            )
            % {"title": entry.title},
        )
    else:
        messages.info(
            request,
            gettext("“%(title)s” already exists (%(status)s): here it is, no duplicate was made.")
            % {"title": entry, "status": entry.get_status_display()},
        )
    return redirect(change_url)


@require_POST
def mark_checked_view(request, site, entry_id: int):
    """"Mark text as checked": the body already says what the errata say."""
    entry_admin = _entry_admin(site)
    entry = get_object_or_404(entry_admin.get_queryset(request).select_related("game"), pk=entry_id)
    if not entry_admin.has_change_permission(request, entry):  # scoping: the entry's game too
        raise PermissionDenied
    worklists.mark_text_checked(entry)
    checked = str(Entry._meta.get_field("body_checked_at").verbose_name)
    entry_admin.log_change(request, entry, [{"changed": {"fields": [checked]}}])
    messages.success(
        request, gettext("The text of “%(title)s” is marked as checked against its errata.") % {"title": entry}
    )
    target = request.POST.get("next", "")
    if not (
        target.startswith(reverse("admin:worklist_errata"))
        and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()})
    ):
        target = reverse("admin:worklist_errata")
    return redirect(target)


def worklist_urls(site) -> list:
    """The worklist pages; ``admin_view()`` requires a logged-in, active staff member."""

    def wrap(view):
        return site.admin_view(partial(view, site=site))

    return [
        path("worklists/", wrap(overview_view), name="worklists"),
        path("worklists/wanted/", wrap(wanted_view), name="worklist_wanted"),
        path("worklists/wanted/create/", wrap(create_wanted_view), name="worklist_wanted_create"),
        path("worklists/untranslated/", wrap(untranslated_view), name="worklist_untranslated"),
        path("worklists/outdated/", wrap(outdated_view), name="worklist_outdated"),
        path("worklists/errata/", wrap(errata_view), name="worklist_errata"),
        path("worklists/errata/<int:entry_id>/checked/", wrap(mark_checked_view), name="worklist_errata_checked"),
        path("worklists/review/", wrap(review_view), name="worklist_review"),
    ]
