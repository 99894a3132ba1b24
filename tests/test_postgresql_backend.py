"""The PostgreSQL backend's health check (``rulesite/postgresql/base.py``): a connection
an earlier request left open is checked without a round trip while it is well, and a
connection the server ended is replaced before the request's first query."""

import time

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections

pytestmark = pytest.mark.django_db


def open_connection():
    """A connection of its own to the test database, kept between requests and checked."""
    wrapper = connections.create_connection(DEFAULT_DB_ALIAS)
    wrapper.settings_dict = {**wrapper.settings_dict, "CONN_MAX_AGE": 600, "CONN_HEALTH_CHECKS": True}
    wrapper.ensure_connection()
    return wrapper


@pytest.fixture
def kept():
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's")
    wrappers = [open_connection(), open_connection()]
    yield wrappers
    for wrapper in wrappers:
        wrapper.close()


def next_request(wrapper) -> int:
    """What the end of one request and the first query of the next do to a kept
    connection (``close_old_connections``, then the query): the backend's process id."""
    wrapper.close_if_unusable_or_obsolete()
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def activity(observer, pid: int) -> str | None:
    """The last statement the server process ``pid`` ran, None once it has exited."""
    with observer.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row[0] if row else None


def test_a_well_connection_is_checked_without_asking_the_server(kept):
    reader, observer = kept
    with reader.cursor() as cursor:
        cursor.execute("SELECT 'the last request'")
    pid = reader.connection.info.backend_pid
    reader.close_if_unusable_or_obsolete()  # the request ends
    reader.close_if_health_check_failed()  # the next one's first query checks first
    # Django's own check would have sent SELECT 1 here.
    assert activity(observer, pid) == "SELECT 'the last request'"
    assert next_request(reader) == pid


def test_a_connection_the_server_ended_is_replaced_before_the_next_request(kept):
    reader, observer = kept
    pid = reader.connection.info.backend_pid
    with observer.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 10
    while activity(observer, pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert activity(observer, pid) is None
    new = next_request(reader)  # no error: a new connection
    assert new != pid


def test_a_well_connection_the_server_spoke_on_is_asked_and_kept(kept):
    reader, observer = kept
    with reader.cursor() as cursor:
        cursor.execute("LISTEN rulesite_backend_test")
    pid = reader.connection.info.backend_pid
    with observer.cursor() as cursor:
        cursor.execute("NOTIFY rulesite_backend_test")
    time.sleep(0.2)  # the notification reaches the kept connection's socket
    assert next_request(reader) == pid


def test_an_entry_page_query_is_planned_once_per_connection_for_every_entry(client, settings):
    """Prepared statements (``DJANGO_DB_PREPARED_STATEMENTS``): after the pages of six
    different entries, the server holds the entry page's query prepared, once, and has
    run it as prepared for the entries after the threshold."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    from tests.factories import make_entry, make_game

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    game = make_game()
    entries = [make_entry(game=game, title=f"Term {number}") for number in range(8)]
    for entry in entries:
        assert client.get(entry.url_in("en")).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans + custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE %s AND statement LIKE %s",
            ['SELECT "rules_entry"."id"%', '%"rules_entry"."slug" = $%'],
        )
        runs = [row[0] for row in cursor.fetchall()]
    assert len(runs) == 1 and runs[0] >= len(entries) - settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
