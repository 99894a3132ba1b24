"""``/healthz`` and ``/readyz`` (``rulesite.health``): JSON a load balancer reads, by a
node's own address over plain HTTP, never cached or redirected; ``/readyz`` 503 when
the node cannot serve (its cache down, migrations pending) and saying why.

Redis stopped and started again under a running node, and a lagging replica, are in
``tests/cluster/``; ``migrate`` started on several nodes at once is here."""

import subprocess

import pytest
from django.db import connection
from django.test import Client

from rules.jobs.models import WorkerBeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def balancer(settings):
    """A load balancer's client: asks by the node's address (no allowed host), over HTTP,
    on a production-like node that would redirect a reader to HTTPS."""
    settings.ALLOWED_HOSTS = ["rules.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    return Client(HTTP_HOST="10.1.2.3:8000")


def test_healthz_answers_without_the_database(balancer, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = balancer.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "alive"}
    assert response["Cache-Control"] == "no-store"


def test_readyz_reports_every_check(balancer, client):
    WorkerBeat.objects.create(worker_id="w", seen_at="2000-01-01T00:00:00Z")
    response = balancer.get("/readyz")
    assert response.status_code == 200, response.content
    document = response.json()
    assert document["status"] == "ready" and response["Cache-Control"] == "no-store"
    checks = document["checks"]
    assert set(checks) >= {"database", "cache", "migrations", "storage", "worker"}
    assert checks["migrations"] == {"ok": True, "pending": 0, "ms": checks["migrations"]["ms"]}
    assert checks["storage"]["ok"] and checks["storage"]["required"] is False
    # A worker gone for years is reported, and the node still serves readers.
    assert checks["worker"]["ok"] is False and checks["worker"]["seconds_since_heartbeat"] > 3600
    assert balancer.post("/readyz").status_code == 405
    # Never throttled: a load balancer asks as often as it likes.
    for _ in range(30):
        assert balancer.get("/readyz").status_code == 200


def test_readyz_is_503_when_the_cache_is_down(balancer, settings):
    settings.CACHES = {
        **settings.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:9/0"},
    }  # nothing listens on port 9: a Redis that is down
    response = balancer.get("/readyz")
    assert response.status_code == 503
    document = response.json()
    assert document["status"] == "not ready"
    assert document["checks"]["cache"]["ok"] is False and "ConnectionError" in document["checks"]["cache"]["error"]
    assert document["checks"]["database"]["ok"] is True


def test_readyz_is_503_while_migrations_are_pending(balancer):
    from django.db.migrations.loader import MigrationLoader

    from rulesite import health

    health._migrations_checked.clear()
    (_app, latest), *_ = MigrationLoader(connection).graph.leaf_nodes("rules")
    with connection.cursor() as cursor:  # as on a node whose code is newer than its schema
        cursor.execute("DELETE FROM django_migrations WHERE app = 'rules' AND name = %s", [latest])
    response = balancer.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["migrations"]["pending"] == 1


def test_migrate_started_on_every_node_at_once_succeeds(tmp_path):
    """Two ``manage.py migrate`` at once on a new PostgreSQL database (two nodes of a
    deploy): one migrates, the other waits for it (an advisory lock) and finds nothing
    left; both exit 0 (without the lock the second fails: "relation already exists")."""
    import os

    from tests.processes import PYTHON, ROOT, RUN_TIMEOUT, postgres_database, production_environ

    if connection.vendor != "postgresql":
        pytest.skip("the advisory lock is PostgreSQL's (SQLite lets one writer in at a time)")
    url, drop = postgres_database(os.environ["DATABASE_URL"])
    try:
        env = {**production_environ(tmp_path / "static"), "DATABASE_URL": url}
        runs = [
            subprocess.Popen([PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)
        ]  # fmt: skip
        outputs = [run.communicate(timeout=RUN_TIMEOUT)[0] for run in runs]
        assert [run.returncode for run in runs] == [0, 0], "\n----\n".join(outputs)
        assert sum("Another migrate is running" in output for output in outputs) == 1
        assert sum("Applying rules.0001" in output for output in outputs) == 1
    finally:
        drop()
