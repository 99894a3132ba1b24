"""Expand/contract: the code of the release before keeps working on the schema this
release's migrations make, since during a rolling deploy old nodes serve (and write)
after the first new node ran ``migrate`` (``docs/several-machines.md``, "Rolling deploys
and migrations").

The release before is ``HEAD~1`` (``RULESITE_PREVIOUS_RELEASE`` names another ref, e.g.
``main`` on a branch): its code is taken out with ``git archive`` into a directory of its
own, a new database is migrated by *this* code, and then the *old* code, as a separate
process, writes content (a game and published entries through its ORM and its derived
data pipeline, a built file's record) and reads pages, the API, search and the sitemap
from it, each of which must answer as it did. Skipped, with the reason, when no
migration was added since that release (nothing to check) or the ref is not in the
clone (a shallow one).
"""

import os
import subprocess
import tarfile
import textwrap

import pytest
from django.db import connection

from tests.processes import PYTHON, ROOT, RUN_TIMEOUT, postgres_database, production_environ

PREVIOUS = os.environ.get("RULESITE_PREVIOUS_RELEASE", "HEAD~1")

OLD_CODE_SMOKE = textwrap.dedent(
    """
    import django
    django.setup()
    from django.test import Client
    from rules.builds.models import BuiltFile
    from rules.content.models import Entry, Game
    from rules.content.querysets import Status

    game = Game.objects.create(slug="rolling", name="Rolling Deploy")
    for title in ("Attack", "Defend"):
        Entry.objects.create(game=game, language="en", title=title, body=f"How to {title.lower()}: roll dice.",
                             status=Status.PUBLISHED)
    BuiltFile.objects.for_request(BuiltFile.Kind.SITEMAP, game=game, language="en")
    client = Client(HTTP_HOST="localhost")
    for path in ["/en/", "/en/games/rolling/", "/en/games/rolling/rules/attack/", "/api/v1/entries/?game=rolling",
                 "/en/search/?q=attack", "/api/v1/search/?q=defend", "/sitemap.xml"]:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code, response.content[:500])
    assert b"roll dice" in client.get("/en/games/rolling/rules/attack/").content
    print("old code: ok")
    """
)


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, timeout=60)


def test_the_release_before_runs_on_this_releases_schema(tmp_path):
    found = _git("rev-parse", "--verify", "--quiet", f"{PREVIOUS}^{{commit}}")
    if found.returncode != 0:
        pytest.skip(f"{PREVIOUS} is not in this clone (shallow?): no release before to run")
    added = _git("diff", "--name-only", "--diff-filter=A", PREVIOUS, "--", "*/migrations/0*.py")
    migrations = [name for name in added.stdout.decode().split() if name]
    if not migrations:
        pytest.skip(f"no migration added since {PREVIOUS}: nothing for its code to survive")

    old = tmp_path / "previous-release"
    archive = tmp_path / "previous.tar"
    assert _git("archive", "--format=tar", "-o", str(archive), PREVIOUS).returncode == 0
    with tarfile.open(archive) as tar:
        tar.extractall(old, filter="data")

    drop = None
    if connection.vendor == "postgresql":
        url, drop = postgres_database(os.environ["DATABASE_URL"])
    else:
        url = f"sqlite:///{tmp_path / 'rolling.sqlite3'}"
    try:
        env = {**production_environ(tmp_path / "static"), "DATABASE_URL": url, "DJANGO_DEBUG": "1",
               "DJANGO_BUILT_FILES_ROOT": str(tmp_path / "built")}  # fmt: skip
        migrated = subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=RUN_TIMEOUT)  # fmt: skip
        assert migrated.returncode == 0, migrated.stderr
        smoke = subprocess.run([PYTHON, "-c", OLD_CODE_SMOKE], cwd=old, env={**env, "PYTHONPATH": str(old)},
                               capture_output=True, text=True, timeout=RUN_TIMEOUT)  # fmt: skip
        assert smoke.returncode == 0, f"{PREVIOUS}'s code on the schema of {migrations}:\n{smoke.stderr[-3000:]}"
        assert "old code: ok" in smoke.stdout
    finally:
        if drop is not None:
            drop()
