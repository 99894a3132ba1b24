"""The site's own address, for what is made without a request (``DJANGO_SITE_URL``)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, QueryDict


def site_url() -> str:
    """The site's base URL, no trailing slash (``https://rules.example.org``)."""
    return settings.SITE_URL


class SiteRequest(HttpRequest):
    """A reader's GET of ``path`` on the canonical site, for rendering a page in the
    background exactly as the view would for an anonymous reader (templates and context
    processors read the request: its path, absolute URI, user, language)."""

    def __init__(self, path: str, query: str = "", ui_language: str = ""):
        super().__init__()
        address = urlsplit(site_url())
        self._site_scheme = address.scheme
        self.method = "GET"
        self.path = self.path_info = path
        host = address.netloc
        port = address.port or (443 if address.scheme == "https" else 80)
        self.META = {
            "HTTP_HOST": host,
            "SERVER_NAME": address.hostname or "localhost",
            "SERVER_PORT": str(port),
            "QUERY_STRING": query,
            "REQUEST_METHOD": "GET",
        }
        self.GET = QueryDict(query)
        self.user = AnonymousUser()
        self.LANGUAGE_CODE = ui_language

    def _get_scheme(self) -> str:
        return self._site_scheme
