"""Content languages.

The UI speaks the languages in ``settings.LANGUAGES``; content can be written in a few
more (a French or Spanish rules reference is welcome even before the UI is translated).
"""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

UI_LANGUAGES = frozenset(code for code, _name in settings.LANGUAGES)

CONTENT_LANGUAGES = [
    ("en", _("English")),
    ("de", _("German")),
    ("pl", _("Polish")),
    ("nl", _("Dutch")),
    ("fr", _("French")),
    ("es", _("Spanish")),
    ("it", _("Italian")),
]
CONTENT_LANGUAGE_CODES = [code for code, _name in CONTENT_LANGUAGES]

# Each language's name in that language, for the language switcher and "other languages"
# lists (a reader looks for "Deutsch", not "German").
NATIVE_NAMES = {
    "en": "English",
    "de": "Deutsch",
    "pl": "Polski",
    "nl": "Nederlands",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
}


def native_name(code: str) -> str:
    return NATIVE_NAMES.get(code, code)


def ui_language_for(content_language: str | None) -> str:
    """The UI language an item's own page uses: its language, or the default one when
    the UI does not speak it (French content is shown with the English UI)."""
    return content_language if content_language in UI_LANGUAGES else settings.LANGUAGE_CODE


# OpenGraph's og:locale is language_TERRITORY; the territory where most readers of each
# language live (a link preview uses it to pick the reader's language).
OPENGRAPH_LOCALES = {
    "en": "en_US",
    "de": "de_DE",
    "pl": "pl_PL",
    "nl": "nl_NL",
    "fr": "fr_FR",
    "es": "es_ES",
    "it": "it_IT",
}
