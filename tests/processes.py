"""Real processes for tests that need more than one: gunicorn servers, management
commands and scripts with Django set up, all on one throwaway database they share (a
SQLite file, or a fresh PostgreSQL database beside ``DATABASE_URL``'s when the suite
runs on PostgreSQL: pytest-django's test database lives inside the test process, and
no other process could see it).

Used by the cross-process cache test and the concurrent-writers test. A test that uses
these needs no ``db`` fixture: the test process itself never touches Django's database.
"""

import contextlib
import http.cookiejar
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.admin.forms import _FormFields

ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONFIG = ROOT / "gunicorn.conf.py"
PYTHON = sys.executable
HOST = "localhost"  # one Host header for both servers, as behind one proxy: one shared key
TIMEOUT = 10  # seconds for one HTTP request
START_TIMEOUT = 30  # seconds for a server to answer its first request
RUN_TIMEOUT = 180  # seconds for one management command or editor script


# --- processes -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(*processes: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """Signal them all, then wait for each (at most 10 s, then kill it)."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(sig)
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def production_environ(static_root: Path) -> dict[str, str]:
    """A production process's environment: DEBUG off, base settings, no shared cache."""
    dropped = {"DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_CACHE_URL", "DATABASE_URL"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "rulesite.settings.base",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "test",
            "DJANGO_SECURE_SSL_REDIRECT": "0",
            "DJANGO_SECURE_COOKIES": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_STATIC_ROOT": str(static_root),
        }
    )
    return env


def run_command(args: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    assert result.returncode == 0, f"{args[:3]} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


# --- the shared database ---------------------------------------------------------------


class SharedDatabase:
    """A database every process of the test opens by URL."""

    def __init__(self, vendor: str, url: str):
        self.vendor, self.url = vendor, url

    def execute(self, statements: list[tuple[str, tuple]]) -> list:
        """Run statements in one transaction (outside Django); the last one's rows."""
        rows: list = []
        if self.vendor == "sqlite":
            import sqlite3

            # Waits for the lock as long as a management command may run: the site's own
            # processes hold it through a long import's units (5 s, sqlite3's default,
            # ran out on a busy machine while a test polled a job's state).
            path = self.url.removeprefix("sqlite:///")
            connection = sqlite3.connect(path, isolation_level=None, timeout=RUN_TIMEOUT)
            try:
                connection.execute("BEGIN IMMEDIATE")
                for sql, params in statements:
                    rows = connection.execute(sql, params).fetchall()
                connection.execute("COMMIT")
            finally:
                connection.close()
        else:
            import psycopg

            with psycopg.connect(self.url, connect_timeout=TIMEOUT) as connection:
                for sql, params in statements:
                    cursor = connection.execute(sql.replace("?", "%s"), params)
                    rows = cursor.fetchall() if cursor.description else []
        return rows


def postgres_database(admin_url: str, template: str | None = None):
    """A fresh database beside DATABASE_URL's (CI's role is a superuser), and its drop;
    with ``template`` (another such database's URL, which nobody is connected to), a
    copy of it."""
    import psycopg

    name = f"rulesite_xproc_{uuid.uuid4().hex[:12]}"
    copy = "" if template is None else f' TEMPLATE "{urllib.parse.urlsplit(template).path.lstrip("/")}"'
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=TIMEOUT) as connection:
        connection.execute(f'CREATE DATABASE "{name}"{copy}')

    def drop():
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=TIMEOUT) as connection:
            connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')

    parts = urllib.parse.urlsplit(admin_url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name)), drop


@contextlib.contextmanager
def throwaway_database(directory: Path) -> Iterator[tuple["SharedDatabase", dict[str, str]]]:
    """A migrated throwaway database and collected static files in ``directory``, and the
    environment of a production process using them.

    Copies of one migrated database and one collection made the first time a test process
    asks (``_migrated``): migrating and collecting cost 12 s of CPU on SQLite, more on
    PostgreSQL, for every module that starts servers; a copy of the same code's result
    is the same database (SQLite's backup API; PostgreSQL's ``CREATE DATABASE …
    TEMPLATE``)."""
    from django.db import connection  # only its vendor: no query from this process

    if connection.vendor not in ("sqlite", "postgresql"):
        pytest.skip(f"no throwaway database for {connection.vendor}")
    template, template_static = _migrated(connection.vendor)
    static_root = directory / "static"
    shutil.copytree(template_static, static_root)
    drop = None
    if connection.vendor == "sqlite":
        path = directory / "shared.sqlite3"
        url = f"sqlite:///{path}"
        import sqlite3

        source, copy = sqlite3.connect(template.removeprefix("sqlite:///")), sqlite3.connect(path)
        try:
            source.backup(copy)
        finally:
            source.close()
            copy.close()
    else:
        url, drop = postgres_database(os.environ["DATABASE_URL"], template=template)
    try:
        yield SharedDatabase(connection.vendor, url), {**production_environ(static_root), "DATABASE_URL": url}
    finally:
        if drop is not None:
            drop()


_MIGRATED: dict[str, tuple[str, Path]] = {}  # vendor → (the migrated database's URL, the collected static root)
_REMOVE: list = []  # what removes them: called when the session ends (``remove_migrated``, tests/conftest.py)


def _migrated(vendor: str) -> tuple[str, Path]:
    """A database migrated and static files collected by this code, made once per test
    process (each pytest-xdist worker its own) and removed when it exits."""
    if vendor in _MIGRATED:
        return _MIGRATED[vendor]
    directory = Path(tempfile.mkdtemp(prefix="rulesite-migrated-"))
    _REMOVE.append(lambda: shutil.rmtree(directory, ignore_errors=True))
    static_root = directory / "static"
    if vendor == "sqlite":
        url = f"sqlite:///{directory / 'migrated.sqlite3'}"
    else:
        url, drop = postgres_database(os.environ["DATABASE_URL"])
        _REMOVE.append(drop)
    env = {**production_environ(static_root), "DATABASE_URL": url}
    # The pages need the static manifest (DEBUG off); collect while migrating.
    collect = subprocess.Popen(
        [PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        run_command([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], env)
        _out, err = collect.communicate(timeout=RUN_TIMEOUT)
        assert collect.returncode == 0, f"collectstatic failed:\n{err.decode()}"
    finally:
        stop(collect)
    _MIGRATED[vendor] = (url, static_root)
    return _MIGRATED[vendor]


def remove_migrated() -> None:
    """Remove what ``_migrated`` made in this process."""
    while _REMOVE:
        _REMOVE.pop()()
    _MIGRATED.clear()


# --- servers ---------------------------------------------------------------------------


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is an answer to look at, not to follow


# No proxy from the environment: every request goes to 127.0.0.1 itself.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirects())


class Response:
    def __init__(self, status: int, headers, body: bytes):
        self.status, self.headers, self.body = status, headers, body
        self.text = body.decode("utf-8", errors="replace")


class Server:
    def __init__(self, name: str, port: int, process: subprocess.Popen, log: Path):
        self.name, self.port, self.process, self.log = name, port, process, log
        self.base = f"http://127.0.0.1:{port}"

    def get(self, path: str, timeout: float = TIMEOUT, **headers: str) -> Response:
        request = urllib.request.Request(self.base + path, headers={"Host": HOST, **headers})
        try:
            with OPENER.open(request, timeout=timeout) as response:
                return Response(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:  # 3xx (not followed), 304, 4xx, 5xx
            with error:
                return Response(error.code, error.headers, error.read())

    def wait_until_up(self, deadline: float) -> None:
        while True:
            try:
                with OPENER.open(self.base + "/robots.txt", timeout=TIMEOUT):
                    return
            except urllib.error.HTTPError:
                return  # it answers
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"gunicorn {self.name} did not start:\n" + tail(self.log))
                time.sleep(0.05)


def start_gunicorn(
    name: str, env: dict[str, str], log: Path, workers: int = 1, options: tuple[str, ...] = (), port: int = 0,
    cwd: Path = ROOT,
) -> "Server":
    """A gunicorn server of the site on a free loopback port (not yet waited for), with
    the repository's gunicorn.conf.py as production has it; only the address, the
    number of workers, a quick stop (5 s) and ``options`` differ. ``cwd``: a copy of the
    code to run instead (its own gunicorn.conf.py)."""
    port = port or free_port()
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [PYTHON, "-m", "gunicorn", "-c", str(Path(cwd) / GUNICORN_CONFIG.name), "rulesite.wsgi:application",
             "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--graceful-timeout", "5", *options],
            cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT,
        )
    return Server(name, port, process, log)


# --- a moderator over HTTP ------------------------------------------------------------


class AdminSession:
    """A moderator's browser, reduced to cookies, forms and redirects over real HTTP."""

    def __init__(self, base: str):
        self.base = base
        jar = http.cookiejar.CookieJar()

        class NoRedirects(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar), NoRedirects()
        )

    def request(self, path: str, data: list[tuple[str, str]] | None = None) -> tuple[int, str, dict]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(
            self.base + path, data=body, headers={"Referer": self.base + path}
        )
        try:
            with self.opener.open(request, timeout=RUN_TIMEOUT) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read().decode(errors="replace"), dict(error.headers)

    def form(self, path: str) -> list[tuple[str, str]]:
        status, html, _headers = self.request(path)
        assert status == 200, (path, status, html[:500])
        parser = _FormFields(None)
        parser.feed(html)
        return parser.pairs

    def log_in(self, username: str = "editor", password: str = "a long pass phrase") -> None:
        fields = dict(self.form("/admin/login/"))
        status, html, _ = self.request(
            "/admin/login/?next=/admin/",
            [("csrfmiddlewaretoken", fields["csrfmiddlewaretoken"]), ("username", username),
             ("password", password), ("next", "/admin/")],
        )
        assert status == 302, (status, html[:1000])

    def save_entry(self, entry_id: int, body: str) -> tuple[int, str]:
        path = f"/admin/rules/entry/{entry_id}/change/"
        fields = [(name, body if name == "body" else value) for name, value in self.form(path)]
        status, html, _ = self.request(path, [*fields, ("_save", "Save")])
        return status, html
