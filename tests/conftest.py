"""Shared fixtures: a tiny factory for the rows most tests need."""

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """Transactional tests end and start cheaply (tests/transactional.py)."""
    from tests.transactional import install

    install()


@pytest.fixture(autouse=True)
def _clear_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _default_language():
    """A request through LocaleMiddleware leaves its language active in the thread;
    start and end every test in the default language so none depends on the order."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test databases, with what is still connected to a PostgreSQL test
    database disconnected before it is dropped at the session's end.

    Two kinds of connection outlive the tests that opened them: the ones the test code
    used while Playwright's sync API ran (it runs the test code in a context of its own,
    with its own connection objects: tests/browser/conftest.py closes them when the
    browser closes, unless closing it fails), and those of the live server's threads that
    kept a browser's connection alive: they close it when the browser has gone, in their
    own time. Left
    connected, the database cannot be dropped ("is being accessed by other users"), and
    each run left its test databases behind on the server."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock():  # (replicas are the default database's mirrors in tests)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        connection.close()


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A real ``redis-server`` for a test module (tests.services: skipped with the reason
    without one, unless ``RULESITE_REQUIRE_REDIS=1``, as in CI)."""
    from tests.services import redis_server

    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.url


@pytest.fixture
def redis_cache(settings, redis_url):
    """Django's cache (the response cache's) on that Redis, empty at the start and end."""
    from django.core.cache import caches

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}}
    caches["default"].clear()
    yield caches["default"]
    caches["default"].clear()


@pytest.fixture
def two_games():
    """Two games of one published entry each: an edit to one leaves the other's pages."""
    from tests.factories import make_entry, make_game, written_together

    @written_together
    def build():
        ours, theirs = make_game(slug="blue-moon", name="Blue Moon"), make_game(slug="twilight", name="Twilight")
        return {
            "fight": make_entry(game=ours, title="Fight", body="Roll the die."),
            "dusk": make_entry(game=theirs, title="Dusk", body="The sun sets."),
        }

    return build()


@pytest.fixture(scope="session", autouse=True)
def _migrated_once():
    """The migrated database the throwaway databases of the tests that start servers are
    copied from (tests/processes.py), removed when the session ends."""
    yield
    import sys

    if "tests.processes" in sys.modules:  # only if a test made one
        sys.modules["tests.processes"].remove_migrated()


@pytest.hookimpl(trylast=True)  # after pytest's own order (by parameters of wider scopes)
def pytest_collection_modifyitems(items):
    """Every transactional test restores the migrated rows when it ends (Django's
    serialized rollback), whatever its own marker says.

    A transactional test's flush makes the content types and permissions anew, with new
    ids (post_migrate); a later test with ``serialized_rollback`` then loads the rows it
    saved at the start, with the old ids, and fails on their unique names. In one
    process the files' order kept those tests apart; spread over workers (pytest-xdist,
    ``make test``) any order happens.

    Then, in each module, the tests that read rows written once for it come first
    (tests/module_world.py)."""
    for item in items:
        marker = item.get_closest_marker("django_db")
        fixtures = getattr(item, "fixturenames", ())
        transactional = (marker is not None and marker.kwargs.get("transaction")) or (
            "transactional_db" in fixtures or "live_server" in fixtures
        )
        if transactional and not (marker is not None and marker.kwargs.get("serialized_rollback")):
            kwargs = {**(marker.kwargs if marker is not None else {}), "transaction": True, "serialized_rollback": True}
            item.add_marker(pytest.mark.django_db(**kwargs), append=False)
    # Each module's tests that read rows written once for it first (tests/module_world.py).
    from tests.module_world import in_world_order

    in_world_order(items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before a test's fixtures: the rows written once for its module that it does not ask
    for are rolled back (tests/module_world.py), so it never finds them."""
    from tests.module_world import close_unasked

    close_unasked(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a transactional test, the rows the migrations made (moderator groups, content
    types, permissions) are put back at once, not only when the next serialized test
    starts: its flush left the database empty, and a later test in a transaction (the
    usual kind) found no groups. In one process pytest-django ran the transactional tests
    last; spread over workers by module (``make test``), they come in any order."""
    yield
    marker = item.get_closest_marker("django_db")
    if nextitem is None or marker is None or not marker.kwargs.get("transaction"):
        return  # (the last test's teardown has ended the test databases too)
    from django.db import connections
    from pytest_django.plugin import blocking_manager_key

    with item.config.stash[blocking_manager_key].unblock():
        for connection in connections.all(initialized_only=True):
            contents = getattr(connection, "_test_serialized_contents", None)
            if contents is not None:
                connection.creation.deserialize_db_from_string(contents)
