"""Every setting an operator can give is in the manual's settings reference
(docs/configuration.md): the environment variables the settings modules, gunicorn.conf.py
and the code read. A setting added without its line there fails here."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "configuration.md"
# Names that are settings: Django's, the database's, S3's, the project's, gunicorn's.
SETTING = re.compile(r"""["']((?:DJANGO|DATABASE|AWS|RULESITE|GUNICORN)_[A-Z0-9_]+|WEB_CONCURRENCY)["']""")
# Read by the test suite and CI only, not by the site: documented in the README's first
# screen; and a name of Django's settings that is no environment variable.
NOT_SETTINGS = {"RULESITE_REQUIRE_BROWSER", "RULESITE_REQUIRE_REDIS", "RULESITE_REQUIRE_SEMANTIC",
                "RULESITE_REQUIRE_S3", "RULESITE_REQUIRE_REPLICA", "DATABASE_REPLICAS"}  # fmt: skip


# Read by a library on the settings' behalf: dj-database-url's ``config()`` reads it.
IMPLICIT = {"DATABASE_URL"}


def read_settings() -> set[str]:
    sources = [ROOT / "gunicorn.conf.py", *(path for package in ("rulesite", "rules", "faq")
                                            for path in ROOT.glob(f"{package}/**/*.py"))]  # fmt: skip
    names = set()
    for path in sources:
        if "migrations" in path.parts:
            continue
        names |= set(SETTING.findall(path.read_text(encoding="utf-8")))
    return (names | IMPLICIT) - NOT_SETTINGS


def test_every_setting_read_is_in_the_settings_reference():
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", REFERENCE.read_text(encoding="utf-8")))
    names = read_settings()
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "WEB_CONCURRENCY"} <= names  # the scan finds them
    missing = sorted(names - documented)
    assert not missing, f"settings read by the code but not in docs/configuration.md: {missing}"
