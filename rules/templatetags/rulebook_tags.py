"""Template tags of the rulebook pages: contents trees and the links between the pages."""

from html import escape
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from rules.content.addresses import CONTENT_PARAMETER, entry_url_template
from rules.content.rulebook import tree_html

register = template.Library()


def _query(entry, **params) -> str:
    if entry.language != translation.get_language():
        params[CONTENT_PARAMETER] = entry.language  # the contents in the entry's language
    return f"?{urlencode(params)}" if params else ""


@register.simple_tag
def contents_url(entry, navigation) -> str:
    """Where an entry's "Contents" link goes: its rulebook's contents with its place
    marked (``?at=`` and the fragment), or its letter of the game page's A–Z."""
    game = entry.game.slug
    if navigation.in_rulebook:
        return reverse("rules:contents", kwargs={"game": game}) + _query(entry, at=entry.slug) + f"#toc-{entry.slug}"
    fragment = f"#{navigation.letter}" if navigation.letter else "#glossary"
    return reverse("rules:game", kwargs={"game": game}) + fragment


@register.simple_tag
def booklet_url(game_slug: str, part: str, content_language: str, pdf: bool = False, source=None) -> str:
    """A booklet's address (``pdf``: its PDF), in the content language shown."""
    name = "rules:booklet-pdf" if pdf else "rules:booklet"
    params = {}
    if content_language != translation.get_language():
        params[CONTENT_PARAMETER] = content_language
    if source is not None:
        params["source"] = source
    return reverse(name, kwargs={"game": game_slug, "part": part}) + (f"?{urlencode(params)}" if params else "")


@register.simple_tag
def contents_tree(items, game_slug: str, current: str = ""):
    """A rulebook's sections as nested lists of links to their pages; ``current`` (a
    slug) is marked as the reader's place."""
    url = entry_url_template(game_slug)
    return mark_safe(  # noqa: S308 - tree_html escapes every value
        tree_html(items, lambda row: url.format(slug=row.slug), current or None, gettext("You are here"))
    )


@register.simple_tag
def booklet_tree(booklet, part):
    """A booklet's contents: a rulebook's sections, linking within the page."""
    return mark_safe(tree_html(part.items, lambda row: f"#{booklet.anchors[row.pk]}"))  # noqa: S308 - escaped


@register.filter
def entry_links(entries):
    """A glossary letter's entries as ``<li>`` links within the page (escaped)."""
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(f'<li><a href="#{escape(entry.anchor)}">{escape(entry.title)}</a></li>' for entry in entries)
    )
