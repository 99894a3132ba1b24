"""Settings for the test suite: the base settings with fast, self-contained choices.

The database still comes from DATABASE_URL, so the same suite runs on SQLite (default)
and PostgreSQL (CI).
"""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-not-a-secret")

from .base import *  # noqa: F403

# Every test client request comes from one address: the limit is tested on its own
# (tests/api/test_throttling.py) with a small rate.
API_RATE = "off"

# Semantic search off unless a test turns it on (the `settings` fixture or
# override_settings: "fake" for the plumbing, "auto" for the real model), so the rest of
# the suite neither loads the model nor queues embedding tasks.
RULESITE_SEMANTIC = env_choice("RULESITE_SEMANTIC", SEMANTIC_MODES, "off")  # noqa: F405

# Files built in the background name the test client's host, as its pages do.
SITE_URL = "http://testserver"

# Tests talk plain HTTP to the test client and the live server.
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _directory_of_this_process(prefix: str) -> Path:
    """A new temporary directory, removed when the process that made it ends (each process
    that imports these settings, a test's server or command too, makes its own)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


# No collectstatic in the test run: plain storage resolves files through the finders.
# (tests/test_deploy.py runs collectstatic and gunicorn to check the real storage.)
# SQLite tests run on a file, as the site does (WAL: readers never wait for a writer),
# not on Django's default in-memory database, whose shared cache locks whole tables
# (a read waits for any write) and so behaves like no deployment.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(_directory_of_this_process("rulesite-test-db-") / "test.sqlite3")}  # noqa: F405

# Built files (rules.builds) in a directory of this test run.
BUILT_FILES_ROOT = _directory_of_this_process("rulesite-test-built-")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "builtfiles": built_files_storage("", BUILT_FILES_ROOT),  # noqa: F405
}
WHITENOISE_AUTOREFRESH = True

# django-axes stays on (tests/admin/test_login_rate_limit.py checks the real limit), but
# quiet: every force_login() would otherwise log an "attempts reset" line.
AXES_VERBOSE = False
LOGGING = {**LOGGING, "loggers": {"axes": {"handlers": ["console"], "level": "ERROR", "propagate": False}}}  # noqa: F405
