"""The response cache is never stale across processes: two gunicorn servers, an edit made
in a third process, and the very next request to each server shows it.

Everything runs as real processes over real HTTP on 127.0.0.1, against a throwaway
database they share (a SQLite file, or a fresh PostgreSQL database when the suite runs
with ``DATABASE_URL=postgres://…``; pytest-django's test database lives inside this
process and no other process could see it). The test process itself never uses Django's
database connection: it needs no ``db`` fixture, so pytest-django does not wrap it.

Once with the default cache (a LocMemCache in each server process: each server keeps
its own copy) and once with Redis (one cache both servers share; the test starts its
own ``redis-server`` on a free port). Without ``redis-server`` on PATH the Redis case is
skipped with a reason, unless ``RULESITE_REQUIRE_REDIS=1`` (CI), which makes it fail.
"""

import importlib.util
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.processes import (
    PYTHON,
    ROOT,
    RUN_TIMEOUT,
    START_TIMEOUT,
    TIMEOUT,
    Response,
    Server,
    SharedDatabase,
    free_port,
    start_gunicorn,
    stop,
    tail,
    throwaway_database,
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """The migrated throwaway database and collected static files, for the whole module."""
    with throwaway_database(tmp_path_factory.mktemp("xproc")) as database:
        yield database


# --- the cache -------------------------------------------------------------------------


def _redis_or_skip() -> str:
    executable = shutil.which("redis-server")
    missing = None
    if executable is None:
        missing = "no redis-server on PATH (apt-get install -y redis-server)"
    elif importlib.util.find_spec("redis") is None:
        missing = "the redis Python package is not installed (pip install -e '.[test]')"
    if missing:
        if os.environ.get("RULESITE_REQUIRE_REDIS") == "1":
            pytest.fail(f"RULESITE_REQUIRE_REDIS=1 but {missing}")
        pytest.skip(f"{missing}: the Redis case of the cross-process cache test is skipped")
    return executable


@pytest.fixture(params=["locmem", "redis"])
def cache(request, tmp_path):
    """(DJANGO_CACHE_URL or None, a redis client or None)."""
    if request.param == "locmem":
        yield None, None
        return
    executable = _redis_or_skip()
    import redis

    port = free_port()
    log = tmp_path / "redis.log"
    with open(log, "wb") as output:
        server = subprocess.Popen(
            [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", str(tmp_path)],
            stdout=output, stderr=subprocess.STDOUT,
        )
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=TIMEOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("redis-server did not start:\n" + tail(log))
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", client
    finally:
        client.close()
        stop(server)


# --- the servers -----------------------------------------------------------------------


@pytest.fixture
def servers(shared, cache, tmp_path):
    """Two gunicorn servers, one worker each (gunicorn.conf.py), on the shared database and cache."""
    _db, env = shared
    cache_url, _client = cache
    env = {**env, **({"DJANGO_CACHE_URL": cache_url} if cache_url else {})}
    started: list[Server] = []
    try:
        for name in ("A", "B"):
            started.append(start_gunicorn(name, env, tmp_path / f"gunicorn-{name}.log"))
        deadline = time.monotonic() + START_TIMEOUT
        for server in started:
            server.wait_until_up(deadline)
        yield started
    finally:
        stop(*(server.process for server in started), sig=signal.SIGINT)  # a quick shutdown


# --- the third process: content and edits --------------------------------------------

EDITOR = r"""
import django, json, sys
django.setup()
from django.utils import translation
from rules.content.models import Entry, Game
from rules.content.querysets import Status


def create(slug):
    game = Game.objects.create(slug=slug, name="Cross Process")
    fight = Entry.objects.create(game=game, language="en", title="Fight", body="Roll the die.",
                                 status=Status.PUBLISHED)
    boost = Entry.objects.create(game=game, language="en", title="Boost", body="Then [[Fight]].",
                                 status=Status.PUBLISHED)
    return {"fight": fight.pk, "boost": boost.pk, "page": fight.get_absolute_url()}


def edit(pk, field, value):
    entry = Entry.objects.get(pk=pk)
    setattr(entry, field, value)
    entry.save()
    return {"page": entry.get_absolute_url()}


translation.activate("en")
print("@@ready", flush=True)
for line in sys.stdin:
    command, *args = json.loads(line)
    print("@@" + json.dumps(globals()[command](*args)), flush=True)
"""


class Editor:
    """One more process with Django set up, which writes when told to: each command has
    committed when its answer arrives."""

    def __init__(self, env: dict[str, str], log: Path):
        self.log = log
        with open(log, "wb") as errors:
            self.process = subprocess.Popen(
                [PYTHON, "-c", EDITOR], cwd=ROOT, env=env, text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
            )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            if line.startswith("@@"):
                self.lines.put(line[2:].strip())
        self.lines.put(None)  # it ended

    def answer(self) -> str:
        try:
            line = self.lines.get(timeout=RUN_TIMEOUT)
        except queue.Empty:
            line = None
        if line is None:
            pytest.fail("the editor process gave no answer:\n" + tail(self.log))
        return line

    def __call__(self, command: str, *args) -> dict:
        self.process.stdin.write(json.dumps([command, *args]) + "\n")
        self.process.stdin.flush()
        return json.loads(self.answer())


@pytest.fixture
def editor(shared, cache, tmp_path):
    """The third process, configured as the servers are (a unit of work it commits
    throws away the content tokens kept in Redis: rulesite.shared_version)."""
    _db, env = shared
    cache_url, _client = cache
    env = {**env, **({"DJANGO_CACHE_URL": cache_url} if cache_url else {})}
    process = Editor(env, tmp_path / "editor.log")
    try:
        yield process
    finally:
        if process.process.stdin:
            process.process.stdin.close()
        stop(process.process)


def hidden_write(db: SharedDatabase, entry_id: int, title: str, body_html: str) -> None:
    """Change an entry's row by hand and put the content version back as it was: a write
    no cached response can know of, so a server that shows it did not answer from its cache."""
    version = db.execute([("SELECT token, changed_at FROM rules_content_version WHERE id = 1", ())])
    token, changed_at = version[0]
    game = db.execute(
        [("SELECT v.game_id, v.token FROM rules_game_version v JOIN rules_entry e ON e.game_id = v.game_id "
          "WHERE e.id = ?", (entry_id,))]
    )  # fmt: skip
    game_id, game_token = game[0]
    db.execute(
        [
            ("UPDATE rules_entry SET title = ?, body_html = ? WHERE id = ?",
             (title, body_html, entry_id)),
            ("UPDATE rules_content_version SET token = ?, changed_at = ? WHERE id = 1",
             (token, changed_at)),
            ("UPDATE rules_game_version SET token = ? WHERE game_id = ?", (game_token, game_id)),
        ]
    )


def response_keys(client) -> set[bytes]:
    return set(client.scan_iter(match="*response:*")) if client is not None else set()


# --- the test --------------------------------------------------------------------------


def test_an_edit_in_another_process_is_seen_on_the_very_next_request_to_every_server(
    shared, cache, editor, servers, request
):
    db, _env = shared
    _cache_url, redis_client = cache
    slug = f"xproc-{request.node.callspec.id}-{uuid.uuid4().hex[:6]}"
    assert editor.answer() == "ready"
    ids = editor("create", slug)
    page, api = ids["page"], f"/api/v1/entries/{ids['boost']}/"

    # Both servers answer both URLs twice: the second answer is the first one again.
    keys_before = response_keys(redis_client)  # (the servers' /robots.txt when they started)
    first: dict[tuple[str, str], Response] = {}
    for server in servers:
        for url in (page, api):
            one, two = server.get(url), server.get(url)
            assert one.status == two.status == 200, (server.name, url, one.status, one.text[:500])
            assert two.body == one.body, (server.name, url)
            assert two.headers["ETag"] == one.headers["ETag"], (server.name, url)
            first[server.name, url] = one
    assert "Roll the die." in first["A", page].text
    assert json.loads(first["A", api].body)["cross_references"][0]["target"]["title"] == "Fight"
    if redis_client is not None:
        # One shared cache: server B found server A's two responses and stored none of its own.
        assert len(response_keys(redis_client) - keys_before) == 2, response_keys(redis_client)

    # Proof that they answer from their caches: a write that hides from the content
    # version is not seen by either server (and a revalidation is still a 304).
    stored = db.execute(
        [("SELECT title, body_html FROM rules_entry WHERE id = ?", (ids["fight"],))]
    )[0]
    hidden_write(db, ids["fight"], "Hidden", "<p>Hidden write.</p>")
    try:
        for server in servers:
            for url in (page, api):
                again = server.get(url)
                assert again.body == first[server.name, url].body, (server.name, url, "not cached")
                etag = first[server.name, url].headers["ETag"]
                assert server.get(url, **{"If-None-Match": etag}).status == 304
    finally:
        hidden_write(db, ids["fight"], *stored)

    # Another game's page, cached by both servers, then changed by a hidden write.
    other = editor("create", f"{slug}-other")
    other_page = other["page"]
    other_first = {server.name: server.get(other_page) for server in servers}
    other_stored = db.execute([("SELECT title, body_html FROM rules_entry WHERE id = ?", (other["fight"],))])[0]
    hidden_write(db, other["fight"], "Hidden", "<p>Hidden write.</p>")

    # Edit 1, in a third process: the entry's body, through Entry.save().
    editor("edit", ids["fight"], "body", "Roll two dice.")
    for server in servers:
        seen = server.get(page)  # the very next request to this server
        assert seen.status == 200
        assert "Roll two dice." in seen.text and "Roll the die." not in seen.text, server.name
        old_etag = first[server.name, page].headers["ETag"]
        revalidated = server.get(page, **{"If-None-Match": old_etag})
        assert revalidated.status == 200, (server.name, revalidated.status)
        assert revalidated.headers["ETag"] not in (None, old_etag)
        assert "Roll two dice." in revalidated.text
        # The other game's page is still the one cached before the edit (narrower
        # invalidation): the hidden write does not show.
        kept = server.get(other_page)
        assert kept.body == other_first[server.name].body, (server.name, "the other game's page was rendered again")
    hidden_write(db, other["fight"], *other_stored)

    # Edit 2, in a third process again: the linked entry's title, which the linking
    # entry's JSON shows among its cross-references (and which moves the page).
    moved = editor("edit", ids["fight"], "title", "Fight Hard")["page"]
    assert moved != page
    for server in servers:
        old_etag = first[server.name, api].headers["ETag"]
        seen = server.get(api, **{"If-None-Match": old_etag})  # the very next request
        assert seen.status == 200, (server.name, seen.status)
        assert seen.headers["ETag"] != old_etag
        target = json.loads(seen.body)["cross_references"][0]["target"]
        assert target["title"] == "Fight Hard", (server.name, target)
        again = server.get(api)
        assert again.body == seen.body
        # The old address of the renamed entry is no longer the cached page: it redirects.
        old_page = server.get(page)
        assert old_page.status == 301, (server.name, old_page.status)
        assert old_page.headers["Location"].endswith(moved)
        assert "Roll two dice." in server.get(moved).text
