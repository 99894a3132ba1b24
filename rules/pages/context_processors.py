from django.conf import settings
from django.utils.functional import SimpleLazyObject

from ..shared.languages import native_name
from .page_context import path_alternates


def site(request):
    """On every page: the UI languages by their own names, and default hreflang alternates.

    Pages whose other-language URL is not just another prefix (an entry whose translation
    has its own slug) pass ``alternates`` themselves; templates prefer those.
    """
    return {
        "ui_languages": [(code, native_name(code)) for code, _name in settings.LANGUAGES],
        "default_alternates": SimpleLazyObject(lambda: path_alternates(request)),
    }
