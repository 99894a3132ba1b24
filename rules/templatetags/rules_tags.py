from django import template

from rules.languages import native_name

register = template.Library()


@register.filter
def name_in(game, language: str) -> str:
    """A game's title in a language: {{ game|name_in:LANGUAGE_CODE }}."""
    return game.name_in(language)


@register.filter
def language_name(code: str) -> str:
    """A language by its own name: {{ "de"|language_name }} → Deutsch."""
    return native_name(code)
