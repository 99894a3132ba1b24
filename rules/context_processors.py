from django.conf import settings

from .languages import native_name


def site(request):
    """The UI languages with their own names, for the language switcher on every page."""
    return {
        "ui_languages": [(code, native_name(code)) for code, _name in settings.LANGUAGES],
    }
