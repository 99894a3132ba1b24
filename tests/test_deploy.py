"""Production shape, over real HTTP: gunicorn with DEBUG off serves pages and static files."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_no_model_changes_without_migrations():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def _clean_environ() -> dict[str, str]:
    """The environment a production process gets: without the browser tests' async opt-out."""
    return {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def production_server(tmp_path_factory):
    """One production server for the module's tests (collecting the static files,
    migrating and starting gunicorn take seconds); they only read, but for one lookup's
    own game."""
    tmp_path = tmp_path_factory.mktemp("deploy")
    env = {
        **_clean_environ(),
        "DJANGO_SETTINGS_MODULE": "rulesite.settings.base",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "deploy-test-secret-" + "x" * 40,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'deploy.sqlite3'}",
    }
    python = sys.executable
    subprocess.run([python, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    port = _free_port()
    server = subprocess.Popen(
        # The manual's command, run from the repository root: gunicorn.conf.py is read from there.
        [python, "-m", "gunicorn", "rulesite.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/en/", timeout=10)
                break
            # Not listening yet (refused), or a first answer slower than the timeout on
            # a busy machine: wait and ask again.
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        else:
            raise AssertionError("gunicorn did not start: " + server.stderr.read1().decode())
        yield base, env
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_gunicorn_serves_pages_and_hashed_static_files(production_server):
    base, _env = production_server
    html = urllib.request.urlopen(base + "/en/").read().decode()
    assert '<html lang="en">' in html
    # The stylesheet link carries a content hash (manifest storage) and is served by whitenoise.
    start = html.index("/static/css/site.")
    href = html[start : html.index('"', start)]
    assert href != "/static/css/site.css"
    response = urllib.request.urlopen(base + href)
    assert response.status == 200
    assert "max-age=315360000" in response.headers["Cache-Control"]
    assert b"--accent" in response.read()


def _request_line_status(base: str, length: int) -> tuple[int, str]:
    """A lookup whose request line ("GET <target> HTTP/1.1") is ``length`` bytes long."""
    import http.client

    terms = "".join("&term=" + "t" * 160 for _ in range(49))
    fixed = len("GET /api/v1/entries/lookup/?game=") + len(terms) + len(" HTTP/1.1")
    target = "/api/v1/entries/lookup/?game=" + "g" * (length - fixed) + terms
    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", "")
    finally:
        connection.close()


def test_the_request_line_limit_is_the_documented_8190_bytes(production_server):
    """gunicorn.conf.py's limit_request_line: a lookup of 49 long terms (8190 bytes) reaches
    the API; one byte more is gunicorn's 414, before the site (the manual, "Settings")."""
    base, _env = production_server
    assert _request_line_status(base, 8190) == (200, "application/json")
    status, content_type = _request_line_status(base, 8191)
    assert (status, content_type) == (414, "text/html")


LONG_TITLE = "🍺" * 290 + " Bar Rule"  # 299 characters, 1,169 bytes of UTF-8
CONTENT = f"""
import django
django.setup()
from rules.content.models import Entry, Game
from rules.content.querysets import Status
game = Game.objects.create(slug="tavern-brawl", name="Tavern Brawl")
Entry.objects.create(game=game, language="en", title={LONG_TITLE!r}, body="Drink responsibly.", status=Status.PUBLISHED)
"""


def _post(base: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(
        base + "/api/v1/entries/lookup/", data=body, method="POST",
        headers={"Content-Type": "application/json", "Origin": "https://forum.example"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            assert error.headers["Content-Type"] == "application/json"
            return error.code, json.loads(error.read())


def test_a_lookup_of_50_terms_of_300_characters_is_posted_over_http(production_server):
    """What no request line can carry (50 such terms percent-encode to 180 kB) goes as a
    POST through gunicorn with gunicorn.conf.py; too large a body is a JSON 413."""
    base, env = production_server
    subprocess.run([sys.executable, "-c", CONTENT], cwd=ROOT, env=env, check=True)
    from rules.api.previews import MAX_BODY_BYTES, PayloadTooLarge

    terms = [LONG_TITLE, *("🎲" * 299 + str(i % 10) for i in range(49))]
    body = json.dumps({"game": "tavern-brawl", "terms": terms}).encode()
    assert len(body) > 150_000
    status, data = _post(base, body)
    assert status == 200
    assert [result["term"] for result in data["results"]] == terms
    assert data["results"][0]["entry"]["title"] == LONG_TITLE
    assert [result["entry"] for result in data["results"][1:]] == [None] * 49

    status, data = _post(base, b'{"game": "tavern-brawl", "terms": ["x"]}' + b" " * MAX_BODY_BYTES)
    assert (status, data["detail"]) == (413, PayloadTooLarge.default_detail)
    status, data = _post(base, b'{"game": "tavern-brawl", "terms": "x"}')
    assert (status, data["errors"]) == (400, {"terms": ["Must be a list of terms."]})

    # The GET keeps working for what fits in a URL, and is the one cached.
    with urllib.request.urlopen(base + "/api/v1/entries/lookup/?game=tavern-brawl&term=Nobody+Here", timeout=30) as got:
        assert got.status == 200 and got.headers["ETag"]
        assert json.loads(got.read())["results"] == [{"term": "Nobody Here", "entry": None}]


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in _clean_environ().items() if k != "DJANGO_SECRET_KEY"}
    env.update({"DJANGO_SETTINGS_MODULE": "rulesite.settings.base", "DJANGO_DEBUG": "0"})
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_check_deploy_is_clean(production_server):
    _base, env = production_server
    env = {**env, "DJANGO_SECURE_SSL_REDIRECT": "1", "DJANGO_HSTS_SECONDS": "31536000", "DJANGO_HSTS_PRELOAD": "1"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_a_worker_loads_the_urlconf_and_every_language_before_its_first_request(tmp_path):
    """rulesite.warmup: the first reader of a fresh worker does not wait for Django's lazy loading."""
    from django.conf import settings

    probe = (
        "import sys, json\n"
        "import rulesite.wsgi\n"
        "from django.urls import get_resolver\n"
        "from django.utils.translation import trans_real\n"
        "print(json.dumps({'urlconf': 'rulesite.urls' in sys.modules,"
        " 'drf': 'rest_framework.serializers' in sys.modules,"
        " 'reverse': sorted(get_resolver()._reverse_dict), 'catalogues': sorted(trans_real._translations)}))\n"
    )
    env = {
        **_clean_environ(),
        "DJANGO_SETTINGS_MODULE": "rulesite.settings.base",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "deploy-test-secret-" + "x" * 40,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'none.sqlite3'}",
    }
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    languages = sorted(code for code, _name in settings.LANGUAGES)
    assert loaded["urlconf"] and loaded["drf"]
    assert loaded["reverse"] == languages
    assert set(languages) <= set(loaded["catalogues"])
