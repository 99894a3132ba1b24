"""The host a response is made for: the configured site, never a port a client chose.

Django checks the ``Host`` header's name against ``ALLOWED_HOSTS`` but lets any port
through, so ``Host: localhost:12345`` reached every absolute URL a page writes (its
``og:url``, ``hreflang`` links, the API's ``next``) and the response cache's key: each
new port was a new page to render and store. This middleware runs first and rewrites
the header, so everything after it sees one host:

- With ``DJANGO_SITE_URL`` set (production): its host, whatever the client sent (after
  Django has refused a host that ``ALLOWED_HOSTS`` does not list).
- Without it (a local run, the tests): the name the client sent, lowercased, with its
  port only when that is the port the server is listening on (``SERVER_PORT``) and not
  the scheme's default; any other port is dropped.

So a client can choose between the allowed names, a bounded set, and nothing else.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port

DEFAULT_PORTS = {"http": "80", "https": "443"}


class CanonicalHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        configured = urlsplit(settings.SITE_URL).netloc if settings.SITE_URL_CONFIGURED else ""
        self.site_host = configured.lower()

    def __call__(self, request):
        host = request.get_host()  # refuses a host ALLOWED_HOSTS does not list (400)
        request.META["HTTP_HOST"] = self.site_host or self.normalised(request, host)
        request.META.pop("HTTP_X_FORWARDED_HOST", None)
        return self.get_response(request)

    @staticmethod
    def normalised(request, host: str) -> str:
        name, port = split_domain_port(host.lower())
        if not name:
            return host.lower()
        if port == DEFAULT_PORTS.get(request.scheme) or port != request.META.get("SERVER_PORT"):
            port = ""
        return f"{name}:{port}" if port else name
