"""gzip for the public site and API, compressed once per cached response.

Browsers and HTTP libraries (``requests``, ``curl --compressed``, every API client we
know of) ask for gzip; a page of 50 entries as JSON is 130 KB and about 15 KB
compressed. This middleware sits just inside the whole-response cache
(``rulesite.response_cache``), whose key holds whether the client takes gzip: a cached
response is compressed once, when it is rendered, and every later hit sends the stored
compressed bytes. Its ETag is a hash of the bytes sent, so each encoding has its own.

Only responses that cannot carry a secret are compressed: never the admin and never a
request with a session cookie (BREACH reads secrets out of compressed sizes; public
pages are the same for every reader and hold no CSRF token or session data). That is
also why the compression is deterministic (Django's random gzip padding, its own BREACH
mitigation, is off): the same content must give the same bytes and the same ETag in
every process, with the cache on or off.
"""

from django.conf import settings
from django.middleware.gzip import GZipMiddleware, re_accepts_gzip


def accepts_gzip(request) -> bool:
    return bool(re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")))


class PublicGZipMiddleware(GZipMiddleware):
    max_random_bytes = 0

    def process_response(self, request, response):
        if request.path_info.startswith(tuple(settings.RESPONSE_CACHE_EXCLUDED_PATHS)):
            return response
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            return response
        return super().process_response(request, response)
