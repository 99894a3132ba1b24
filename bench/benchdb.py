"""Shared set-up for the benchmark scripts: Django on a throwaway database.

Production settings (DEBUG off: with it on, Django records every query's SQL, which is
not what the site pays for); a fresh SQLite file in a temporary directory, removed at
exit, unless a database URL is given (e.g. a PostgreSQL database to fill).
"""

import atexit
import os
import shutil
import tempfile


def setup_django(database_url: str | None) -> str:
    """Configure and start Django, migrate, and return the database URL in use."""
    workdir = tempfile.mkdtemp(prefix="rulesite-bench-")
    atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{workdir}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rulesite.settings.base")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-not-secret")
    # No collectstatic: an empty static root keeps WhiteNoise from warning.
    os.makedirs(f"{workdir}/static", exist_ok=True)
    os.environ.setdefault("DJANGO_STATIC_ROOT", f"{workdir}/static")
    # The test client's requests are for host "testserver".
    hosts = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h.strip()]
    os.environ["DJANGO_ALLOWED_HOSTS"] = ",".join(dict.fromkeys([*hosts, "testserver", "localhost", "127.0.0.1"]))

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return os.environ["DATABASE_URL"]
