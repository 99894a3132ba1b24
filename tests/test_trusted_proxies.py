"""One trusted-proxy setting for every limit: ``DJANGO_TRUSTED_PROXY_COUNT`` gives the
client's address to the API's rate limit (DRF's ``NUM_PROXIES``), the suggestions' limits
and the admin's login limit (``rulesite.client_ip``). The older ``DJANGO_NUM_PROXIES`` is
still read when it is the only one set, with a system check warning that says to rename
it; a value that is not a number of proxies stops the start with a message that says so.

Settings are read once, when a process starts: each case starts one."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("DJANGO_TRUSTED_PROXY_COUNT", "DJANGO_NUM_PROXIES")

PROBE = """
import json
import django
from django.conf import settings
django.setup()
from django.core.checks import run_checks
print(json.dumps({
    "trusted": settings.TRUSTED_PROXY_COUNT,
    "drf": settings.REST_FRAMEWORK["NUM_PROXIES"],
    "checks": sorted(message.id for message in run_checks() if message.id.startswith("rulesite.")),
}))
"""


def started_with(**variables) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in NAMES and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update({"DJANGO_SETTINGS_MODULE": "rulesite.settings.test", **variables})
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True)


def settings_with(**variables) -> dict:
    result = started_with(**variables)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({}, {"trusted": 0, "drf": 0, "checks": []}),
        ({"DJANGO_TRUSTED_PROXY_COUNT": "2"}, {"trusted": 2, "drf": 2, "checks": []}),
        ({"DJANGO_NUM_PROXIES": "1"}, {"trusted": 1, "drf": 1, "checks": ["rulesite.W001"]}),
        (
            {"DJANGO_TRUSTED_PROXY_COUNT": "2", "DJANGO_NUM_PROXIES": "1"},
            {"trusted": 2, "drf": 2, "checks": ["rulesite.W002"]},
        ),
    ],
)
def test_one_setting_drives_every_limit(variables, expected):
    assert settings_with(**variables) == expected


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["two", "-1"])
def test_a_value_that_is_no_number_of_proxies_stops_the_start_clearly(name, value):
    result = started_with(**{name: value})
    assert result.returncode != 0
    assert f"{name}={value!r} is not a number of proxies" in result.stderr
    assert "ImproperlyConfigured" in result.stderr


def test_the_warning_says_what_to_do(monkeypatch):
    from rulesite import checks

    monkeypatch.delenv("DJANGO_TRUSTED_PROXY_COUNT", raising=False)
    monkeypatch.setenv("DJANGO_NUM_PROXIES", "1")
    (warning,) = checks.proxy_settings(None)
    assert warning.id == "rulesite.W001"
    assert "DJANGO_NUM_PROXIES is deprecated" in warning.msg
    assert "DJANGO_TRUSTED_PROXY_COUNT=1" in warning.hint

    monkeypatch.setenv("DJANGO_TRUSTED_PROXY_COUNT", "2")
    (warning,) = checks.proxy_settings(None)
    assert warning.id == "rulesite.W002"
    assert "DJANGO_NUM_PROXIES is ignored" in warning.msg

    monkeypatch.delenv("DJANGO_NUM_PROXIES")
    assert checks.proxy_settings(None) == []


def test_a_server_says_it_at_start(tmp_path):
    """gunicorn runs no system checks: the WSGI module logs the warning when it loads."""
    env = {k: v for k, v in os.environ.items() if k not in NAMES and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "rulesite.settings.base",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "proxy-test-secret-" + "x" * 40,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'none.sqlite3'}",
            "DJANGO_NUM_PROXIES": "1",
        }
    )
    result = subprocess.run(
        [sys.executable, "-c", "import rulesite.wsgi"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "DJANGO_NUM_PROXIES is deprecated" in result.stderr and "rulesite.W001" in result.stderr
