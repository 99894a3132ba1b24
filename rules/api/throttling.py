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
per-process default cache, per worker). The address is the connection's
(``NUM_PROXIES`` 0): behind reverse proxies set ``DJANGO_TRUSTED_PROXY_COUNT``, the one
trusted-proxy setting of every limit (the settings give DRF's ``NUM_PROXIES`` its
value), or any client could name itself with ``X-Forwarded-For``.
"""

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle


class APIRateThrottle(AnonRateThrottle):
    scope = "api"

    def get_rate(self):
        # From settings, not from DRF's THROTTLE_RATES (read once, when DRF is imported).
        rate = getattr(settings, "API_RATE", "")
        return None if rate in ("", "off", None) else rate
