"""The page in the other UI languages: the hreflang links in <head> and the switcher.

Both come from one list of ``(language, absolute URL)`` pairs: the page's own
``alternates`` (an entry whose translations have their own slugs) or, for every other
page, the same path under each language prefix (``default_alternates``, from
``rules.pages.context_processors.site``). They are written out here in Python rather than
by a template loop: on an uncached entry page the switcher's nested loop (languages ×
alternates) cost more than the entry's own article (``bench/cpu.py``).
"""

from html import escape

from django import template
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

register = template.Library()


def _alternates(context) -> list[tuple[str, str]]:
    return list(context.get("alternates") or context.get("default_alternates") or ())


@register.simple_tag(takes_context=True)
def hreflang_links(context) -> str:
    """``<link rel="alternate" hreflang>`` for every language, English also as x-default."""
    links = []
    for code, url in _alternates(context):
        links.append(f'<link rel="alternate" hreflang="{code}" href="{escape(url)}">')
        if code == "en":
            links.append(f'<link rel="alternate" hreflang="x-default" href="{escape(url)}">')
    return mark_safe("\n  ".join(links))


@register.simple_tag(takes_context=True)
def language_switcher(context) -> str:
    """The header's list of UI languages by their own names, the current one marked."""
    current = translation.get_language()
    names = dict(context["ui_languages"])
    items = []
    for code, url in _alternates(context):
        if code not in names:
            continue
        marked = ' aria-current="true"' if code == current else ""
        items.append(
            f'<li><a href="{escape(url)}" hreflang="{code}" lang="{code}"{marked}>{escape(names[code])}</a></li>'
        )
    label = escape(gettext("Language"))
    return mark_safe(
        f'<nav class="language-switcher" aria-label="{label}">\n  <ul>\n    '
        + "\n    ".join(items)
        + "\n  </ul>\n</nav>"
    )
