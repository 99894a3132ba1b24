"""The client's IP address behind a known number of trusted reverse proxies.

Used by django-axes (``AXES_CLIENT_IP_CALLABLE``) to count failed admin logins per
address, and by the suggestions' limits (``rules.pages.suggestions``); the API's rate
limit reads the same setting as DRF's ``NUM_PROXIES``. With
``DJANGO_TRUSTED_PROXY_COUNT=0`` (the default: the app faces clients directly) it is
``REMOTE_ADDR``. With N proxies in front, each appends the address it
saw to ``X-Forwarded-For``, so the client is the address the outermost trusted proxy
saw: the N-th from the right of ``X-Forwarded-For`` + ``REMOTE_ADDR``. Anything a
client wrote into the header itself sits further left and is never believed.
"""

import ipaddress

from django.conf import settings


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    chain = [*forwarded, remote]
    if len(chain) <= proxies:
        return remote  # fewer hops than configured: not from behind our proxies
    candidate = chain[-(proxies + 1)]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
