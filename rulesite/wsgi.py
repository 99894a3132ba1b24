"""WSGI entry point: ``gunicorn rulesite.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rulesite.settings.base")

application = get_wsgi_application()

from rulesite.warmup import warm_up  # noqa: E402 -- needs the settings get_wsgi_application() set up

warm_up()
