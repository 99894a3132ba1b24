
from django import template
from django.utils import translation

from rules.derived.rendering import for_ui_language
from rules.shared.languages import native_name

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
    """Stored HTML (``rules.derived.rendering``) with its entry links in the reader's UI language:
    {{ entry.body_html|ui_links:entry.language }}."""
    return for_ui_language(html or "", content_language, translation.get_language())


@register.simple_tag
def compare_url(entry, language: str) -> str:
    """The side-by-side page of ``entry`` and its version in ``language`` (``rules.pages.parallel``):
    {% compare_url entry other.language %}."""
    from rules.pages.parallel import compare_url as url

    return url(entry.game.slug, entry.slug, entry.language, language)
