"""Fair use of the API: a request rate per client address, on the shared cache.

Only requests that reach the API's views count: a response served from the response
cache (``rulesite.response_cache``) costs next to nothing and is never refused, so the
cheap ways to stay in sync (bulk files, the change feed, conditional requests) are
also the ones that are never limited. Over the rate, a ``429`` JSON answer with
``Retry-After`` (DRF's ``Throttled``).

The rate is ``API_RATE`` (``DJANGO_API_RATE``, default 600 requests a minute per
address; ``off`` turns it off, as the benchmarks do), read when a request is checked
(DRF makes a throttle per request), so a test can change it. The counts are kept in the default cache: Redis when
``DJANGO_CACHE_URL`` names it, so the limit holds across workers and servers (with the
per-process default cache, per worker). The address is read as every limit of the site
reads it (``rulesite.client_ip``: the connection's, or behind
``DJANGO_TRUSTED_PROXY_COUNT`` reverse proxies the one the outermost saw; DRF's own
reading takes the leftmost address when a request came through fewer proxies than
configured, which a client writes itself), and an IPv6 address counts as its /64
network, which one household or server usually holds whole, as the suggestions'
limits count it.
"""


from django.conf import settings
from rest_framework.throttling import AnonRateThrottle

from rulesite.client_ip import client_ip

from ..shared.addresses import address_key
from ..shared.cache_errors import CACHE_ERRORS, cache_down


class APIRateThrottle(AnonRateThrottle):
    scope = "api"

    def get_ident(self, request):
        return address_key(client_ip(request))

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS as error:  # the counts are on a cache that is down: none to keep
            cache_down(error, "the API's rate is not counted")
            return True

    def get_rate(self):
        # From settings, not from DRF's THROTTLE_RATES (read once, when DRF is imported).
        rate = getattr(settings, "API_RATE", "")
        return None if rate in ("", "off", None) else rate
