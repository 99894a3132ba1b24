from django import template
from django.utils import translation
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext

from rules.languages import native_name
from rules.rendering import for_ui_language

register = template.Library()


@register.filter
def name_in(game, language: str) -> str:
    """A game's title in a language: {{ game|name_in:LANGUAGE_CODE }}."""
    return game.name_in(language)


@register.filter
def language_name(code: str) -> str:
    """A language by its own name: {{ "de"|language_name }} → Deutsch."""
    return native_name(code)


@register.filter
def ui_links(html: str, content_language: str):
    """Stored HTML (``rules.rendering``) with its entry links in the reader's UI language:
    {{ entry.body_html|ui_links:entry.language }}."""
    return for_ui_language(html or "", content_language, translation.get_language())


@register.simple_tag
def glossary_items(entries):
    """The ``<li>`` of each entry of a glossary letter: link, aliases, "incomplete" badge.

    Built with ``format_html`` (escaped like the template would): a glossary has
    hundreds of entries, and the template loop was most of the game page's time.
    """
    badge = format_html(' <span class="badge" lang="{}">{}</span>', translation.get_language(), gettext("incomplete"))
    return format_html_join(
        "\n",
        '<li><a href="{}">{}</a>{}{}</li>',
        (
            (
                entry.url,
                entry.title,
                format_html(' <span class="aliases">({})</span>', ", ".join(map(str, entry.aliases)))
                if entry.aliases
                else "",
                badge if entry.is_fragment else "",
            )
            for entry in entries
        ),
    )
