"""Writers queue, they never fail: concurrent imports and admin saves on one database.

Real processes on one throwaway database (a SQLite file, the embedded default, or a
fresh PostgreSQL database when the suite runs on PostgreSQL): a gunicorn server with two
workers, two ``import_rules`` processes, a moderator saving entries through the admin
over HTTP, and readers loading pages and the API the whole time. Afterwards every write
is there: both imports complete, every save answered with the admin's redirect and its
text stored, and no reader ever got anything but a 200.

On SQLite this holds because of the connection settings (rulesite/settings/base.py):
WAL, so readers never wait; IMMEDIATE transactions, so a writer takes the lock when it
begins and two writers cannot deadlock on a lock upgrade (which SQLite answers with
"database is locked" at once, whatever the timeout); and a busy timeout long enough for
an import. A write that still cannot proceed gets the busy page (503, with the typed text
given back) or a CommandError: the last two tests hold the database's write lock from
outside and check exactly that.
"""

import re
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests.processes import (
    PYTHON,
    ROOT,
    RUN_TIMEOUT,
    START_TIMEOUT,
    TIMEOUT,
    AdminSession,
    run_command,
    start_gunicorn,
    stop,
    tail,
    throwaway_database,
)

IMPORTED_ENTRIES = 1200  # per import: enough that each holds the write lock for a while
SAVES = 12
EDITED_ENTRIES = 4

SETUP = r"""
import django, json, sys
django.setup()
from django.contrib.auth import get_user_model
from rules.content.models import Entry, Game
from rules.content.querysets import Status

get_user_model().objects.create_superuser("editor", "editor@example.org", "a long pass phrase")
game = Game.objects.create(slug="concurrent", name="Concurrent")
ids = [
    Entry.objects.create(game=game, language="en", title=f"Edited {n}", body=f"Printed text {n}.",
                         status=Status.PUBLISHED).pk
    for n in range(int(sys.argv[1]))
]
print(json.dumps({"ids": ids, "page": Entry.objects.get(pk=ids[0]).get_absolute_url()}))
"""


def glossary(prefix: str, count: int) -> str:
    """A plain-text glossary of ``count`` entries, each with a body and a see-also line."""
    blocks = []
    for n in range(count):
        blocks.append(
            f"{prefix} Term {n:04d}\n"
            f"The {prefix.lower()} rule number {n} explains when a player may act, what it "
            f"costs and which card resolves first.\n"
            f"See also: {prefix} Term {(n + 1) % count:04d}\n"
        )
    return "\n".join(blocks)


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    with throwaway_database(tmp_path_factory.mktemp("concurrent")) as shared:
        yield shared


def _count(db, sql: str, params: tuple) -> int:
    return db.execute([(sql, params)])[0][0]


def test_two_imports_and_a_stream_of_admin_saves_all_land_while_readers_read(database, tmp_path):
    db, env = database
    setup = run_command([PYTHON, "-c", SETUP, str(EDITED_ENTRIES)], env)
    created = __import__("json").loads(setup.strip().splitlines()[-1])
    ids, page = created["ids"], created["page"]
    documents = {}
    for prefix in ("Alpha", "Beta"):
        documents[prefix] = tmp_path / f"{prefix.lower()}.txt"
        documents[prefix].write_text(glossary(prefix, IMPORTED_ENTRIES), encoding="utf-8")

    server = start_gunicorn("writers", env, tmp_path / "gunicorn.log", workers=2)
    readers_done = threading.Event()
    read_statuses: list[int] = []

    def read() -> None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        urls = [page, "/api/v1/entries/?page_size=50", "/en/games/concurrent/", "/en/"]
        n = 0
        while not readers_done.is_set():
            try:
                with opener.open(server.base + urls[n % len(urls)], timeout=RUN_TIMEOUT) as response:
                    response.read()
                    read_statuses.append(response.status)
            except urllib.error.HTTPError as error:
                read_statuses.append(error.code)
            n += 1

    imports: list[subprocess.Popen] = []
    readers = [threading.Thread(target=read, daemon=True) for _ in range(3)]
    try:
        server.wait_until_up(time.monotonic() + START_TIMEOUT)
        session = AdminSession(server.base)
        session.log_in()
        for thread in readers:
            thread.start()
        for prefix, path in documents.items():
            imports.append(
                subprocess.Popen(
                    [PYTHON, "manage.py", "import_rules", str(path), "--game", prefix.lower(),
                     "--game-name", prefix, "--language", "en", "--kind", "glossary"],
                    cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                )
            )
        time.sleep(0.3)  # both imports are under way: the saves meet them
        saved: dict[int, str] = {}
        save_results = []
        for k in range(SAVES):
            entry_id = ids[k % len(ids)]
            text = f"Saved text number {k} while imports ran."
            status, html = session.save_entry(entry_id, text)
            save_results.append((k, status, html[:300] if status != 302 else ""))
            saved[entry_id] = text
        outputs = [process.communicate(timeout=RUN_TIMEOUT) for process in imports]
    finally:
        readers_done.set()
        for thread in readers:
            thread.join(timeout=TIMEOUT)
        stop(*imports)
        stop(server.process)

    for process, (out, err) in zip(imports, outputs, strict=True):
        assert process.returncode == 0, (out, err)
        assert f"{IMPORTED_ENTRIES} created" in out, out
    assert [r for r in save_results if r[1] != 302] == [], tail(server.log)
    # Every write is there afterwards.
    for prefix in documents:
        assert _count(
            db,
            "SELECT COUNT(*) FROM rules_entry e JOIN rules_game g ON g.id = e.game_id WHERE g.slug = ?",
            (prefix.lower(),),
        ) == IMPORTED_ENTRIES
    for entry_id, text in saved.items():
        assert db.execute([("SELECT body FROM rules_entry WHERE id = ?", (entry_id,))])[0][0] == text
        saves_of_entry = sum(1 for k in range(SAVES) if ids[k % len(ids)] == entry_id)
        assert _count(db, "SELECT COUNT(*) FROM rules_historicalentry WHERE id = ?", (entry_id,)) == (
            1 + saves_of_entry
        )
    assert len(read_statuses) > 20, "the readers barely read"
    assert set(read_statuses) == {200}, sorted(set(read_statuses))


@pytest.fixture
def held_write_lock(database):
    """The SQLite database's write lock, held from outside by another connection."""
    db, _env = database
    if db.vendor != "sqlite":
        pytest.skip("holds SQLite's single write lock; PostgreSQL locks rows, not the database")
    connection = sqlite3.connect(db.url.removeprefix("sqlite:///"), isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        connection.execute("ROLLBACK")
        connection.close()


def test_an_import_that_cannot_get_the_database_is_a_clear_command_error(database, held_write_lock, tmp_path):
    _db, env = database
    document = tmp_path / "waiting.txt"
    document.write_text(glossary("Waiting", 3), encoding="utf-8")
    result = subprocess.run(
        [PYTHON, "manage.py", "import_rules", str(document), "--game", "waiting",
         "--game-name", "Waiting", "--language", "en", "--kind", "glossary"],
        cwd=ROOT, env={**env, "DJANGO_SQLITE_TIMEOUT": "0.5"}, capture_output=True, text=True,
        timeout=RUN_TIMEOUT,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "database stayed busy" in result.stderr and "nothing was imported" in result.stderr


def test_an_admin_save_that_cannot_get_the_database_answers_the_busy_page_with_the_text(
    database, tmp_path
):
    db, env = database
    if db.vendor != "sqlite":
        pytest.skip("holds SQLite's single write lock; PostgreSQL locks rows, not the database")
    entry_id = db.execute([("SELECT id FROM rules_entry WHERE game_id = "
                            "(SELECT id FROM rules_game WHERE slug = 'concurrent') ORDER BY id", ())])[0][0]
    server = start_gunicorn("busy", {**env, "DJANGO_SQLITE_TIMEOUT": "0.5"}, tmp_path / "busy.log")
    try:
        server.wait_until_up(time.monotonic() + START_TIMEOUT)
        session = AdminSession(server.base)
        session.log_in()
        path = f"/admin/rules/entry/{entry_id}/change/"
        fields = session.form(path)
        typed = "A long explanation the moderator typed & must not lose: <rule> 7."
        connection = sqlite3.connect(db.url.removeprefix("sqlite:///"), isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        try:
            status, html, headers = session.request(
                path, [(n, typed if n == "body" else v) for n, v in fields] + [("_save", "Save")]
            )
        finally:
            connection.execute("ROLLBACK")
            connection.close()
    finally:
        stop(server.process)
    assert status == 503, (status, html[:500])
    assert headers.get("Retry-After")
    assert "Nothing was saved" in html
    assert re.search(r"<textarea[^>]*>" + re.escape("A long explanation the moderator typed &amp; "
                                                   "must not lose: &lt;rule&gt; 7.") + "</textarea>", html)
    assert db.execute([("SELECT body FROM rules_entry WHERE id = ?", (entry_id,))])[0][0] != typed
