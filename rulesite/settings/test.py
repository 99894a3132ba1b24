"""Settings for the test suite: the base settings with fast, self-contained choices.

The database still comes from DATABASE_URL, so the same suite runs on SQLite (default)
and PostgreSQL (CI).
"""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-not-a-secret")

from .base import *  # noqa: F403

# Tests talk plain HTTP to the test client and the live server.
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# No collectstatic in the test run: plain storage resolves files through the finders.
# (tests/test_deploy.py runs collectstatic and gunicorn to check the real storage.)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True

# django-axes stays on (tests/admin/test_login_rate_limit.py checks the real limit), but
# quiet: every force_login() would otherwise log an "attempts reset" line.
AXES_VERBOSE = False
LOGGING = {**LOGGING, "loggers": {"axes": {"handlers": ["console"], "level": "ERROR", "propagate": False}}}  # noqa: F405
