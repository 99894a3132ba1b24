"""WSGI entry point: ``gunicorn rulesite.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rulesite.settings.base")

application = get_wsgi_application()

from rulesite import front_cache  # noqa: E402 -- needs the settings get_wsgi_application() set up
from rulesite.checks import log_warnings  # noqa: E402
from rulesite.warmup import warm_up  # noqa: E402

# With Redis, cache hits are answered in front of Django (rulesite/front_cache.py).
application = front_cache.wrap(application)
log_warnings()  # a server runs no system checks: say at start what they would
warm_up()
