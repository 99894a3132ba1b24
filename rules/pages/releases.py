"""Releases for players: what a version changed, and an entry as a release had it.

``release_detail`` is a release's "what changed" page: its counts by kind, then rules
reworded (word diff), re-titled (old title → new), renumbered (old → new), added (their
text) and removed (their last text, and where it went), then errata and FAQ questions
likewise. Each listed item links to its page when it is published now; a changed
address shows the old one. ``entry_as_of`` is the context
of ``?as_of=<version or date>`` on an entry's page: the text as that release of the
entry's source had it, with a banner that says so and links to the current text.
"""

from urllib.parse import quote

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from ..content.addresses import CONTENT_PARAMETER, entry_url_template
from ..content.models import Entry
from ..content.releases import (
    KINDS,
    Release,
    ReleaseChange,
    count_by_kind,
    entry_as_of,
    index_as_of,
    removal_at,
)
from ..derived.rendering import for_ui_language
from ..shared.diffing import word_diff_html
from ..shared.markdown import render_markdown
from ..shared.text import numbered_title as shown_title
from .http import public_page
from .page_context import game_context

AS_OF_PARAMETER = "as_of"
# The sections of a release page, in order, with their headings: (item type, kind).
HEADINGS = {
    ("entry", ReleaseChange.Kind.REWORDED): _("Rules reworded"),
    ("entry", ReleaseChange.Kind.RETITLED): _("Rules re-titled"),
    ("entry", ReleaseChange.Kind.RENUMBERED): _("Rules renumbered"),
    ("entry", ReleaseChange.Kind.ADDED): _("Rules added"),
    ("entry", ReleaseChange.Kind.REMOVED): _("Rules removed"),
    ("erratum", ReleaseChange.Kind.REWORDED): _("Errata reworded"),
    ("erratum", ReleaseChange.Kind.RETITLED): _("Errata re-titled"),
    ("erratum", ReleaseChange.Kind.ADDED): _("Errata added"),
    ("erratum", ReleaseChange.Kind.REMOVED): _("Errata removed"),
    ("question", ReleaseChange.Kind.REWORDED): _("FAQ rulings reworded"),
    ("question", ReleaseChange.Kind.RETITLED): _("FAQ questions re-phrased"),
    ("question", ReleaseChange.Kind.ADDED): _("FAQ rulings added"),
    ("question", ReleaseChange.Kind.REMOVED): _("FAQ rulings removed"),
}
SECTIONS = tuple((type_, str(kind)) for type_ in ("entry", "erratum", "question") for kind in KINDS)


def _release(context: dict, pk: int) -> Release:
    """A public release of the page's game, else a 404."""
    return get_object_or_404(
        Release.objects.public().select_related("source__game"), pk=pk, source__game=context["game"]
    )


@public_page()
def release_detail(request, game, pk):
    context = game_context(game)
    release = _release(context, pk)
    changes = list(release.changes.all())
    context.update(
        {"release": release, "sections": _sections(release, changes), "counts": _counts(changes)}
    )
    return render(request, "rules/release_detail.html", context)


def _counts(changes: list[ReleaseChange]) -> list[tuple[str, int]]:
    """(kind label, count) of the release's rules, every kind, in ``KINDS`` order."""
    counts = count_by_kind(change for change in changes if change.item_type == "entry")
    return [(ReleaseChange.Kind(kind).label, count) for kind, count in counts.items()]


@public_page()
def release_index(request, game, pk):
    """The rules of the release's source as that release had them: numbers and titles,
    each linking to its text as of the release (rules a later release removed, unlinked)."""
    context = game_context(game)
    release = _release(context, pk)
    entry_url = entry_url_template(context["game"].slug)
    lines = [
        (line, entry_url.format(slug=line.slug) + f"?{AS_OF_PARAMETER}={quote(release.version)}" if line.slug else None)
        for line in index_as_of(release)
    ]
    context.update({"release": release, "lines": lines})
    return render(request, "rules/release_index.html", context)


# A release adding more items than this (a source as first imported, a new edition: up
# to every rule of an 11,000-rule document) lists them by title, each linking to its page,
# without rendering every text on every uncached request (619 texts took 75 ms).
ADDED_TEXTS_SHOWN = 100


def _sections(release: Release, changes: list[ReleaseChange]) -> list[tuple[str, str, str, list]]:
    """(item type, kind, heading, the changes) for each section with something in it;
    each change has ``url``: its entry's page when that is published now (at its current
    slug), else None; an added one ``text_html`` (up to ``ADDED_TEXTS_SHOWN`` added); a
    removed one ``successor``: (title, url) of the published entry its text went to. One
    query, of the release's entries."""
    entry_ids = [c.item_id for c in changes if c.item_type == "entry" and c.item_id is not None]
    entry_ids += [c.successor_id for c in changes if c.item_type == "entry" and c.successor_id]
    published = (
        {pk: (slug, title, number) for pk, slug, title, number in Entry.objects.published().filter(
            pk__in=entry_ids).values_list("pk", "slug", "title", "number")}
        if entry_ids else {}
    )  # fmt: skip
    entry_url = entry_url_template(release.source.game.slug)
    added = sum(1 for change in changes if change.change == ReleaseChange.Kind.ADDED)
    grouped: dict[tuple[str, str], list] = {}
    for change in changes:
        found = published.get(change.item_id) if change.item_type == "entry" else None
        change.url = entry_url.format(slug=found[0]) if found else None
        if change.change == ReleaseChange.Kind.ADDED and change.text and added <= ADDED_TEXTS_SHOWN:
            change.text_html = render_markdown(change.text)
        successor = published.get(change.successor_id) if change.item_type == "entry" else None
        change.successor = (shown_title(successor[2], successor[1]), entry_url.format(slug=successor[0])) if (
            successor and change.change == ReleaseChange.Kind.REMOVED
        ) else None  # fmt: skip
        grouped.setdefault((change.item_type, change.change), []).append(change)
    return [
        (type_, kind, HEADINGS.get((type_, kind), kind), grouped[type_, kind])
        for type_, kind in SECTIONS
        if (type_, kind) in grouped
    ]


def as_of_context(request, entry) -> dict:
    """The context an entry page adds for ``?as_of=``: nothing without it; the release
    and the entry's number, title and text as it had them (or that it was not in it).
    An unknown release is a 404 (a real page, in the reader's language)."""
    label = request.GET.get(AS_OF_PARAMETER, "").strip()
    if not label:
        return {}
    release = Release.objects.as_of(entry.source, label[:100]) if entry.source_id else None
    if release is None:
        raise Http404("No such release")
    if release.pending:  # not in effect yet: the page shows the current text, and says so
        return {"as_of": release}
    then = entry_as_of(entry, release)
    return {
        "as_of": release,
        "as_of_entry": then,
        "as_of_html": render_markdown(then.text) if then.exists and not then.current else None,
    }


@public_page("from", "to", CONTENT_PARAMETER)
def entry_releases(request, game, slug):
    """An entry between two releases of its source: each text as that release had it,
    and the word diff from the one to the other; a GET form (no script) picks the two.
    Without a choice: the release before the latest, and the latest."""
    context = game_context(game)
    entry = _published_entry(request, context["game"], slug)
    releases = list(Release.objects.public().applied().filter(source_id=entry.source_id).order_by("sequence"))
    if not releases:
        raise Http404("This rule's source has no releases")
    older = _pick(releases, request.GET.get("from"), releases[-2] if len(releases) > 1 else releases[0])
    newer = _pick(releases, request.GET.get("to"), releases[-1])
    if older.sequence > newer.sequence:
        older, newer = newer, older
    sides = [_side(entry, release) for release in (older, newer)]
    before, after = (side["then"] for side in sides)
    diff = None
    if before.exists and after.exists:
        diff = word_diff_html(before.text or before.title, after.text or after.title)
    context.update(
        {
            "entry": entry,
            "releases": list(reversed(releases)),
            "older": older,
            "newer": newer,
            "sides": sides,
            "diff": diff,
            "same": before.exists and after.exists and (before.number, before.title, before.text)
            == (after.number, after.title, after.text),
            "entry_url": entry.get_absolute_url(),
        }
    )
    return render(request, "rules/entry_releases.html", context)


def _published_entry(request, game, slug: str) -> Entry:
    """The published entry at ``slug`` in the reader's language (or ``?content=``), else
    in any language; a 404 without one."""
    candidates = list(Entry.objects.published().filter(game=game, slug=slug).select_related("game", "source"))
    if not candidates:
        raise Http404("No such entry")
    wanted = request.GET.get(CONTENT_PARAMETER) or translation.get_language()
    return next((entry for entry in candidates if entry.language == wanted), candidates[0])


def _pick(releases: list[Release], label: str | None, default: Release) -> Release:
    """The release named ``label`` (a version), ``default`` when none is named; an
    unknown one is a 404."""
    if not label:
        return default
    found = next((release for release in releases if release.version == label[:100]), None)
    if found is None:
        raise Http404("No such release")
    return found


def _side(entry: Entry, release: Release) -> dict:
    """One column: the release, the entry as it had it, that text's HTML, and the address
    of the entry's page as of the release."""
    then = entry_as_of(entry, release)
    html = None
    if then.exists:
        if then.current:
            html = for_ui_language(entry.body_html, entry.language, translation.get_language())
        else:
            html = render_markdown(then.text)
    return {
        "release": release,
        "then": then,
        "html": html,
        "url": f"{entry.get_absolute_url()}?{AS_OF_PARAMETER}={quote(release.version)}",
    }


def removed_page(request, game, slug: str):
    """The old address of a rule a release removed: 410 Gone, in the reader's language,
    saying in which release, with its last text, links to that release and to where its
    text went (a published rule of the same release most like it); None when no release
    removed a rule at ``slug`` (a plain 404 then)."""
    wanted = [translation.get_language(), request.GET.get(CONTENT_PARAMETER) or ""]
    change = removal_at(game.pk, slug, wanted)
    if change is None:
        return None
    context = game_context(game.slug)
    successor = None
    if change.successor_id:
        successor = Entry.objects.published().filter(pk=change.successor_id).select_related("game").first()
    release = change.release
    context.update(
        {
            "change": change,
            "release": release,
            "language": release.source.language,
            "last_html": render_markdown(change.previous_text) if change.previous_text else None,
            "shown_title": shown_title(change.number, change.title),
            "successor": successor,
            "index_url": _index_before(release),
        }
    )
    return render(request, "rules/entry_removed.html", context, status=410)


def _index_before(release: Release) -> str | None:
    """The rules as the release before ``release`` had them (the removed rule among them)."""
    before = (
        Release.objects.public().applied().filter(source_id=release.source_id, sequence__lt=release.sequence).first()
    )
    if before is None:
        return None
    return reverse("rules:release-index", kwargs={"game": release.source.game.slug, "pk": before.pk})
