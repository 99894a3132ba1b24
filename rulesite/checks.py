"""System checks of the project's own settings (``manage.py check``; run at every start).

- ``rulesite.W001``: only ``DJANGO_NUM_PROXIES`` is set. It once gave the API's rate
  limit its number of trusted proxies, apart from ``DJANGO_TRUSTED_PROXY_COUNT`` (the
  admin's login limit, the suggestions' limits); now the latter is the one setting for
  all of them, and the old name is read in its place, with this warning, until it is
  renamed.
- ``rulesite.W002``: both are set: ``DJANGO_NUM_PROXIES`` is ignored.

Both read the environment, as the settings do (``rulesite/settings/base.py``).
``manage.py`` commands run the checks; a server does not, so ``rulesite.wsgi`` logs
these warnings when a process starts (``log_warnings``).
"""

import logging
import os

from django.core import checks

NEW, OLD = "DJANGO_TRUSTED_PROXY_COUNT", "DJANGO_NUM_PROXIES"


@checks.register(checks.Tags.compatibility)
def proxy_settings(app_configs, **kwargs) -> list[checks.CheckMessage]:
    new, old = os.environ.get(NEW, "").strip(), os.environ.get(OLD, "").strip()
    if not old:
        return []
    if not new:
        return [
            checks.Warning(
                f"{OLD} is deprecated: it is read as {NEW}, the one trusted-proxy setting of every limit.",
                hint=f"Rename it: set {NEW}={old} and remove {OLD}.",
                id="rulesite.W001",
            )
        ]
    return [
        checks.Warning(
            f"{OLD} is ignored: {NEW}={new} gives the number of trusted proxies to every limit.",
            hint=f"Remove {OLD}.",
            id="rulesite.W002",
        )
    ]


def log_warnings() -> None:
    """Log what the project's checks find, for a process that runs none (a server)."""
    for message in proxy_settings(None):
        logging.getLogger("rulesite").warning("%s (%s) %s", message.msg, message.id, message.hint)
