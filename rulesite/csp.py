"""The Content-Security-Policy header: django-csp's middleware, with the settings' policy
built once per process.

django-csp builds the header for every response: it copies the settings' directives
into a dataclass, turns that into a dictionary (``dataclasses.asdict``, a deep copy),
sorts and joins them, and does it twice (the policy and the report-only one). That was
0.1 ms of every uncached response, a seventh of a stored entry page's whole cost
(``bench/cpu.py``), for a header that is the same every time. Here a response without
a policy of its own (``csp.decorators``: only ReDoc's page has one) to a request that
asked for no nonce (the site uses none: public responses are cached whole) gets the
header built once from the settings, under the same conditions django-csp sets it
(not already set, not exempt, not an excluded path, not a debug page's 404 or 500).
Everything else is django-csp's own ``process_response``. ``tests/test_csp.py`` checks
the header is the one django-csp builds.
"""

from functools import cache
from http import HTTPStatus

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# What a view or decorator may put on a response to change its policy (csp.decorators).
OWN_POLICY = ("_csp_config", "_csp_update", "_csp_replace", "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro")
DEBUG_PAGES = (HTTPStatus.INTERNAL_SERVER_ERROR, HTTPStatus.NOT_FOUND)


@cache
def settings_policies() -> tuple[tuple[str, str, str, tuple[str, ...]], ...]:
    """(header, policy, exemption attribute, excluded path prefixes) for the policy and
    the report-only policy the settings give, each built once (none when empty)."""
    policies = []
    for header, setting, exempt, report_only in (
        (HEADER, "CONTENT_SECURITY_POLICY", "_csp_exempt", False),
        (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", "_csp_exempt_ro", True),
    ):
        policy = build_policy(report_only=report_only)
        if policy:
            prefixes = tuple((getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ())
            policies.append((header, policy, exempt, prefixes))
    return tuple(policies)


@receiver(setting_changed)
def _settings_changed(setting, **kwargs):
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        settings_policies.cache_clear()


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in OWN_POLICY
        ):
            return super().process_response(request, response)
        if response.status_code in DEBUG_PAGES and settings.DEBUG:
            return response
        for header, policy, exempt, prefixes in settings_policies():
            if header not in response and not getattr(response, exempt, False):
                if not request.path_info.startswith(prefixes):
                    response[header] = policy
        # As django-csp does: a nonce asked for after the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
