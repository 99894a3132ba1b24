"""WSGI entry point: ``gunicorn rulesite.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rulesite.settings.base")

application = get_wsgi_application()

from rulesite.checks import log_warnings  # noqa: E402 -- needs the settings get_wsgi_application() set up
from rulesite.warmup import warm_up  # noqa: E402

log_warnings()  # a server runs no system checks: say at start what they would
warm_up()
