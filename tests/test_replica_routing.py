"""Which database a request reads from when read replicas are configured
(``rulesite.replicas``): a reader's public reads from one replica for the whole request,
the content version with them; the primary for writes, whatever is read after a write,
moderators, the admin, a client that just wrote, and what is not public content.

The real thing, a lagging streaming replica of PostgreSQL under two gunicorn nodes, is
``tests/cluster/``; these check the choices themselves, with no second database."""

import re
from pathlib import Path

import pytest
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.http import HttpResponse
from django.test import RequestFactory

from rules.builds.models import BuiltFile
from rules.content import version as content_version
from rules.content.models import Entry
from rules.search.models import SearchDocument, SearchVector
from rulesite.replicas import STICKY_COOKIE, ReplicaMiddleware

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def replicas(settings):
    settings.DATABASE_REPLICAS = ["replica1", "replica2"]


def seen(request, write=False) -> dict:
    """Where the view behind ``request`` reads each thing (and, with ``write``, after writing)."""
    found = {}

    def view(request):
        found["content"] = router.db_for_read(Entry)
        found["version"] = content_version.reading_alias()
        found["search"] = (router.db_for_read(SearchDocument), router.db_for_read(SearchVector))
        found["built file"] = router.db_for_read(BuiltFile)
        found["session"] = router.db_for_read(Session)
        if write:
            assert router.db_for_write(BuiltFile) == "default"
            found["after the write"] = router.db_for_read(Entry)
        return HttpResponse("ok")

    request.session = {}
    found["response"] = ReplicaMiddleware(view)(request)
    return found


def test_a_readers_request_reads_public_content_and_its_version_from_one_replica(replicas):
    first = seen(RequestFactory().get("/en/games/"))
    assert first["content"] in ("replica1", "replica2")
    assert first["version"] == first["content"] == first["search"][0] == first["search"][1]
    assert first["built file"] == first["session"] == "default"
    second = seen(RequestFactory().get("/en/games/"))
    assert {first["content"], second["content"]} == {"replica1", "replica2"}  # taken in turn


def test_after_a_write_the_rest_of_the_request_reads_the_primary(replicas):
    found = seen(RequestFactory().get("/de/games/mond/print/glossary/"), write=True)
    assert found["content"] != "default" and found["after the write"] == "default"
    assert content_version.reading_alias() == "default"  # and nothing is left for the next request


def test_writes_moderators_the_admin_and_a_client_that_just_wrote_read_the_primary(replicas):
    factory = RequestFactory()
    post = seen(factory.post("/en/suggest/"))
    assert post["content"] == "default"
    cookie = post["response"].cookies[STICKY_COOKIE]
    assert cookie["max-age"] == 10 and cookie["httponly"]
    assert seen(factory.get("/en/games/", headers={"cookie": f"{STICKY_COOKIE}=1"}))["content"] == "default"
    assert seen(factory.get("/admin/rules/entry/"))["content"] == "default"
    assert seen(factory.get("/readyz"))["content"] == "default"

    moderator = factory.get("/en/games/")
    moderator._rulesite_signed_in = True  # rulesite.visitors, as a signed-in session makes it
    assert seen(moderator)["content"] == "default"


def test_without_replicas_everything_reads_the_primary():
    assert seen(RequestFactory().get("/en/games/"))["content"] == "default"


def test_no_read_path_module_picks_the_primary_itself():
    """Modules that read public content name the router's choice
    (``connections[router.db_for_read(Model)]``), never ``django.db.connection``, which
    is always the primary: a version read there and content read from a replica would
    store old text under the new version. Writers may (``connection`` is where they write)."""
    reading = [
        *sorted((ROOT / "rules" / "pages").glob("*.py")),
        *sorted((ROOT / "rules" / "api").glob("*.py")),
        *sorted((ROOT / "faq").glob("*.py")),
        *(ROOT / "rules" / "search" / name for name in ("backends.py", "vector_cache.py", "service.py",
                                                         "semantic.py", "previews.py", "bm25.py", "compounds.py")),
        *(ROOT / "rules" / "content" / name for name in ("version.py", "prepared.py", "querysets.py", "rulebook.py")),
        ROOT / "rulesite" / "response_cache.py",
    ]  # fmt: skip
    uses = re.compile(r"(?<![\w.])connection\.(cursor|vendor|ops|features)\b")  # not schema_editor.connection
    offenders = []
    for path in reading:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if uses.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_shared_copy_of_the_version_comes_from_the_primary_and_leaves_the_request_on_its_replica(
    replicas, db
):
    """With Redis the response cache fills its copy of the content tokens from the primary
    (rulesite.shared_version): asking the router where writes go would have moved the rest
    of the request to the primary, and made it take the replica's version for the primary's."""
    from rulesite.response_cache import PublicResponseCacheMiddleware

    found = {}

    def view(request):
        replica = router.db_for_read(Entry)
        as_the_replica_has_it = content_version.Version(1, None)  # (no second database here)
        queries = []

        def count(execute, sql, *args):
            queries.append(sql)
            return execute(sql, *args)

        with connections["default"].execute_wrapper(count):
            primary = PublicResponseCacheMiddleware.primary_version(as_the_replica_has_it, None)
        found.update(replica=replica, after=router.db_for_read(Entry), queries=len(queries), primary=primary)
        return HttpResponse("ok")

    request = RequestFactory().get("/en/games/")
    request.session = {}
    ReplicaMiddleware(view)(request)
    assert found["replica"] in ("replica1", "replica2")
    assert found["after"] == found["replica"], "the request was moved to the primary"
    assert found["queries"] == 1 and found["primary"] == content_version.current(), "not the primary's version"
