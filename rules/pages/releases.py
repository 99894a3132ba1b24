"""Releases for players: what a version changed, and an entry as a release had it.

``release_detail`` is a release's "what changed" page: rules added, changed (word
diff), renumbered (old → new) and removed, then errata and FAQ questions added. Each
listed item links to its page when it is published now. ``entry_as_of`` is the context
of ``?as_of=<version or date>`` on an entry's page: the text as that release of the
entry's source had it, with a banner that says so and links to the current text.
"""

from urllib.parse import quote

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from ..content.addresses import entry_url_template
from ..content.models import Entry
from ..content.releases import Release, ReleaseChange, entry_as_of, index_as_of
from ..shared.markdown import render_markdown
from .http import public_page
from .page_context import game_context

AS_OF_PARAMETER = "as_of"
# The sections of a release page, in order: (item type, change, heading key).
SECTIONS = (
    ("entry", "added"),
    ("entry", "changed"),
    ("entry", "renumbered"),
    ("entry", "removed"),
    ("erratum", "added"),
    ("erratum", "changed"),
    ("erratum", "removed"),
    ("question", "added"),
    ("question", "changed"),
    ("question", "removed"),
)


def _release(context: dict, pk: int) -> Release:
    """A public release of the page's game, else a 404."""
    return get_object_or_404(
        Release.objects.public().select_related("source__game"), pk=pk, source__game=context["game"]
    )


@public_page()
def release_detail(request, game, pk):
    context = game_context(game)
    release = _release(context, pk)
    context.update({"release": release, "sections": _sections(release, list(release.changes.all()))})
    return render(request, "rules/release_detail.html", context)


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


def _sections(release: Release, changes: list[ReleaseChange]) -> list[tuple[str, str, list]]:
    """(item type, change, the changes) for each section with something in it; each
    change has ``url``: its entry's page when that is published now (at its current
    slug), else None. One query, of the release's own entries."""
    entry_ids = [c.item_id for c in changes if c.item_type == "entry" and c.item_id is not None]
    slugs = dict(Entry.objects.published().filter(pk__in=entry_ids).values_list("pk", "slug")) if entry_ids else {}
    entry_url = entry_url_template(release.source.game.slug)
    grouped: dict[tuple[str, str], list] = {}
    for change in changes:
        slug = slugs.get(change.item_id) if change.item_type == "entry" else None
        change.url = entry_url.format(slug=slug) if slug else None
        grouped.setdefault((change.item_type, change.change), []).append(change)
    return [(type_, kind, grouped[type_, kind]) for type_, kind in SECTIONS if (type_, kind) in grouped]


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
