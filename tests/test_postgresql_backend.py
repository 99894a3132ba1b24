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


def terminate(observer, pid: int) -> None:
    """The server ends the connection of its process ``pid`` (as a restart or
    ``idle_session_timeout`` does), and the process has exited."""
    with observer.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 10
    while activity(observer, pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)


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
    terminate(observer, pid)
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


# The content version, read on every request that may be cached and on every front-cache
# hit, by a statement prepared once per connection on libpq
# (``DatabaseWrapper.prepared_row``, ``rules.content.version.current``).


def prepared_runs(wrapper, name: str) -> int | None:
    """How many times this connection's server session has run the statement ``name``
    (None: not prepared there)."""
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT generic_plans + custom_plans FROM pg_prepared_statements WHERE name = %s", [name])
        row = cursor.fetchone()
    return None if row is None else row[0]


@pytest.mark.django_db(transaction=True)
def test_the_prepared_version_is_the_one_djangos_cursor_reads_and_follows_a_write():
    """Committed rows, read on an idle connection as a gunicorn thread's is between
    requests: every scope's version (tokens and time) from the prepared statement is the
    one Django's cursor reads (inside a transaction), it is the prepared statement that
    answered, and a write to one game moves that game's tag only."""
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's")
    from django.db import transaction

    from rules.content import version
    from tests.factories import make_entry, make_game

    fight, dusk = make_game(slug="fight-club"), make_game(slug="dusk-falls")
    entry = make_entry(game=fight, title="Initiative")
    make_entry(game=dusk, title="Nightfall")
    games = [None, "fight-club", "dusk-falls", "no-such-game"]

    def versions() -> dict:
        return {game: version.current(game, using=DEFAULT_DB_ALIAS) for game in games}

    def through_djangos_cursor() -> dict:
        with transaction.atomic():
            return versions()

    # Open and prepared, as between requests (with no connection Django's cursor opens one;
    # psycopg's DEALLOCATE ALL after an earlier test's rollback leaves it to prepare again).
    versions()
    runs = prepared_runs(connection, version.CURRENT_STATEMENT)
    before = versions()
    assert prepared_runs(connection, version.CURRENT_STATEMENT) == runs + len(games)
    assert before == through_djangos_cursor()
    assert before["fight-club"].game is not None and before["no-such-game"].game is None

    entry.body = "Roll for initiative."
    entry.save()
    after = versions()
    assert after["fight-club"].tag("fight-club") != before["fight-club"].tag("fight-club"), "the edited game's moved"
    assert after["dusk-falls"].tag("dusk-falls", True) == before["dusk-falls"].tag("dusk-falls", True), "not the other"
    assert after == through_djangos_cursor()


def test_inside_a_transaction_the_version_is_read_in_it(two_games):
    """A transaction open on the connection (here the test's own): the version is read
    in it, through Django's cursor, so it sees the transaction's own writes."""
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's")
    from rules.content import version

    fight = two_games["fight"]
    slug = fight.game.slug
    runs = prepared_runs(connection, version.CURRENT_STATEMENT)  # an earlier test's, on this connection
    before = version.current(slug, using=DEFAULT_DB_ALIAS).tag(slug)
    fight.body = "Roll two dice."
    fight.save()
    assert version.current(slug, using=DEFAULT_DB_ALIAS).tag(slug) != before
    assert prepared_runs(connection, version.CURRENT_STATEMENT) == runs, "Django's cursor read it, not the statement"


def test_a_statement_deallocated_by_hand_is_prepared_again(kept):
    reader, _observer = kept
    from rules.content.version import CURRENT_SQL, CURRENT_STATEMENT

    first = reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None])
    assert first is not None and prepared_runs(reader, CURRENT_STATEMENT) == 1
    with reader.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    assert reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None]) is None  # Django's cursor asks instead
    assert reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None]) == first
    assert prepared_runs(reader, CURRENT_STATEMENT) == 1


def test_a_connection_the_server_ended_gives_no_row_then_django_replaces_it(kept):
    """The server ends the connection between two hits: the prepared read gives up
    (nothing raised in the WSGI layer), Django's cursor raises Django's error, the end of
    the request closes the connection, and the next hit prepares on a new one."""
    from django.db import OperationalError

    from rules.content.version import CURRENT_SQL, CURRENT_STATEMENT

    reader, observer = kept
    first = reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None])
    pid = reader.connection.info.backend_pid
    terminate(observer, pid)
    assert reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None]) is None
    with pytest.raises(OperationalError), reader.cursor() as cursor:
        cursor.execute("SELECT 1")
    assert next_request(reader) != pid
    assert reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None]) == first


def test_with_prepared_statements_off_the_tag_is_read_through_djangos_cursor(kept):
    """``DJANGO_DB_PREPARED_STATEMENTS=0`` (a pooler that does not keep a session's
    prepared statements): nothing is prepared by name either."""
    from rules.content.version import CURRENT_SQL, CURRENT_STATEMENT

    reader, _observer = kept
    options = {key: value for key, value in reader.settings_dict["OPTIONS"].items() if key != "prepare_threshold"}
    reader.settings_dict = {**reader.settings_dict, "OPTIONS": options}
    assert reader.prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None]) is None
    assert prepared_runs(reader, CURRENT_STATEMENT) is None


# An unfiltered API list's page, read by a statement prepared once per connection on
# libpq (``DatabaseWrapper.prepared_fetchall``, ``rules.api.stored.CompiledPages``).

STORED_LISTS = [
    "/api/v1/games/",
    "/api/v1/entries/",
    "/api/v1/entries/?page_size=2&page=2",
    "/api/v1/entries/?page=last&page_size=3&format=json",
    "/api/v1/errata/",
    "/api/v1/faq/",
]


def stored_list_runs(wrapper) -> int:
    """How many times this connection's server session has run the stored lists' pages."""
    with wrapper.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(generic_plans + custom_plans), 0) FROM pg_prepared_statements "
            "WHERE name LIKE 'rulesite\\_stored\\_list\\_%%'"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_prepared_list_page_is_the_one_djangos_cursor_reads(client, settings):
    """Committed rows, read on an idle connection as between a gunicorn thread's requests:
    every unfiltered list is, byte for byte, what Django's cursor reads (inside a
    transaction, where the prepared statement stands aside), texts beyond ASCII and an
    item with no stored body included; it was the prepared statements that answered, and
    a write is in the next page they read."""
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's")
    from django.db import transaction

    from rules.derived.models import PublicItem
    from tests.factories import make_entry, make_erratum, make_game, make_question

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    moon, dusk = make_game(slug="blue-moon", name="Blue Moon"), make_game(slug="dusk", name="Dämmerung")
    fight = make_entry(game=moon, title="Fight", body="Würfle « zweimal » \u2028 then [[Boost]].")
    make_entry(game=moon, title="Boost", body="Then [[Fight]].")
    unstored = make_entry(game=dusk, language="pl", title="Żółw", body="Zażółć gęślą jaźń.")
    for number in range(4):
        make_entry(game=dusk, title=f"Night {number}")
    make_erratum(game=moon, title="Fix", corrected_text="Roll **twice**.", affects=[fight])
    make_question(game=dusk, question="Night?", answer="Yes, [[Night 1]].")
    PublicItem.objects.filter(kind="entry", object_id=unstored.pk).update(body=None)  # serialized per request

    def served() -> dict[str, bytes]:
        pages = {}
        for url in STORED_LISTS:
            response = client.get(url)
            assert response.status_code == 200, url
            pages[url] = response.content
        return pages

    served()  # open and prepared, as between requests
    runs = stored_list_runs(connection)
    prepared = served()
    assert stored_list_runs(connection) == runs + len(STORED_LISTS)
    with transaction.atomic():
        assert prepared == served(), "Django's cursor reads the same pages"
    assert stored_list_runs(connection) == runs + len(STORED_LISTS), "not the statements, in a transaction"
    assert "Żółw".encode() in prepared["/api/v1/entries/"] and b"\\u2028" in prepared["/api/v1/entries/"]

    fight.title = "Fight Hard"
    fight.save()
    assert b'"title":"Fight Hard"' in served()["/api/v1/entries/"]


def test_a_deallocated_list_statement_is_prepared_again(kept, settings):
    """psycopg's ``DEALLOCATE ALL`` (after a rollback of a transaction in which it prepared
    its own) or one by hand: that request's page is read by Django's cursor, the next
    prepares the statement again; with statements off nothing is prepared."""
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from rules.api.stored import CompiledList
    from rules.api.views import GameViewSet

    reader, _observer = kept
    view = GameViewSet()
    view.action, view.format_kwarg, view.kwargs = "list", None, {}
    view.request = Request(APIRequestFactory().get("/api/v1/games/"))
    compiled = CompiledList()._compile(view, reader, 0)
    name, sql, params = compiled[-1]
    page = [*params, b"50", b"0"]

    first = reader.prepared_fetchall(name, sql, page)
    assert first is not None and prepared_runs(reader, name) == 1
    with reader.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    assert reader.prepared_fetchall(name, sql, page) is None
    assert reader.prepared_fetchall(name, sql, page) == first
    assert prepared_runs(reader, name) == 1

    options = {key: value for key, value in reader.settings_dict["OPTIONS"].items() if key != "prepare_threshold"}
    reader.settings_dict = {**reader.settings_dict, "OPTIONS": options}
    with reader.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    assert reader.prepared_fetchall(name, sql, page) is None
    assert prepared_runs(reader, name) is None


def test_only_plain_parameters_are_sent_as_text():
    """A parameter libpq would get wrong as plain text is left to psycopg's adaptation."""
    import datetime

    from rulesite.postgresql.base import DatabaseWrapper

    sql, values = DatabaseWrapper.libpq_form("SELECT %s, %s, %s, '100%%', %s", ["Żółw", 7, True, None])
    assert sql == "SELECT $1, $2, $3, '100%', $4" and values == ["Żółw".encode(), b"7", b"true", None]
    assert DatabaseWrapper.libpq_form("SELECT %s", [datetime.date(2026, 12, 6)]) is None
    assert DatabaseWrapper.libpq_form("SELECT %s", [[1, 2]]) is None
    assert DatabaseWrapper.libpq_form("SELECT %s, %s", [1]) is None


def test_a_statement_whose_plan_no_longer_fits_is_prepared_again(kept):
    """A migration changed what a prepared statement reads ("cached plan must not change
    result type"): that read is left to Django's cursor, and the next is prepared anew
    (not refused for ever as a name already taken)."""
    reader, _observer = kept
    with reader.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE plan_test (value integer)")
        cursor.execute("INSERT INTO plan_test VALUES (7)")
    assert reader.prepared_row("plan_test", "SELECT value FROM plan_test", []) == (b"7",)
    with reader.cursor() as cursor:
        cursor.execute("ALTER TABLE plan_test ALTER COLUMN value TYPE text")
        cursor.execute("UPDATE plan_test SET value = 'seven'")
    assert reader.prepared_row("plan_test", "SELECT value FROM plan_test", []) is None
    assert reader.prepared_row("plan_test", "SELECT value FROM plan_test", []) == (b"seven",)


# The pages' queries (``rules.content.prepared.PreparedQuery``), run on libpq with their
# rows loaded by psycopg's loaders (``DatabaseWrapper.prepared_load``).


@pytest.mark.django_db(transaction=True)
def test_the_pages_prepared_queries_give_djangos_rows_and_the_same_digest(client, settings):
    """Committed rows, on an idle connection: each page query's rows from the libpq
    statement are Django's cursor's (inside a transaction), value, type and repr, so the
    digest that says which stored page fits is the same; it was the statement that
    answered; and a stored entry page and game page are served, not rendered again."""
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's")
    from django.db import transaction
    from django.urls import reverse
    from django.utils import translation

    from rules.pages import page_context, stored_game_pages, stored_pages
    from tests.factories import make_entry, make_game, make_source
    from tests.pages.test_stored_pages import MARKER, mark_stored

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    game = make_game(slug="blue-moon", name="Blue Moon", localized_names={"de": "Blauer Mond"})
    source = make_source(game=game, title="Rulebook", official=True)
    fight = make_entry(game=game, title="Fight", body="Würfle « zweimal ».", source=source, number="4.1")
    make_entry(game=game, language="de", title="Kampf", body="Würfle.", translation_key=fight.translation_key)
    calls = [
        (stored_pages.ENTRY_PAGE_VERSIONS, ("blue-moon", fight.slug)),
        (stored_pages.ENTRY_PAGE_STORED, ("blue-moon", fight.slug, "en")),
        (stored_pages.ENTRY_PAGE_STORED_GZIP, ("blue-moon", fight.slug, "de")),
        (stored_game_pages.GAME_PAGE_STORED, ("blue-moon", "en")),
        (stored_game_pages.GAME_PAGE_STORED_GZIP, ("blue-moon", "de")),
        (stored_game_pages.GAME_PAGE_LISTS, ("blue-moon",)),
        (page_context.GAME_LANGUAGES, ("blue-moon",)),
        (page_context.GAME_SOURCES, ("blue-moon", "en")),
    ]

    def reads() -> list:
        return [query.read(*values) for query, values in calls]

    reads()  # open and prepared, as between requests
    runs = [prepared_runs(connection, query.statement) or 0 for query, _values in calls]
    prepared = reads()
    assert [prepared_runs(connection, query.statement) for query, _values in calls] == [run + 1 for run in runs]
    with transaction.atomic():
        through_cursor = reads()
    for (query, _values), ours, djangos in zip(calls, prepared, through_cursor, strict=True):
        assert ours.rows, query.statement
        assert [repr(row) for row in ours.rows] == [repr(row) for row in djangos.rows], query.statement
        assert ours.digest == djangos.digest
        for item, other in zip(ours.instances(), djangos.instances(), strict=True):
            assert {**vars(item), "_state": None} == {**vars(other), "_state": None}, query.statement

    stored_pages.refresh()
    mark_stored()
    with translation.override("en"):
        urls = [fight.url_in("en"), reverse("rules:game", args=["blue-moon"])]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.content.decode().endswith(MARKER), f"{url}: the stored page"


def test_a_statement_the_server_refuses_to_prepare_is_not_asked_again(kept):
    """A statement the server cannot prepare (here of a table that is not there) is left
    to Django's cursor without a failed round trip on every later request."""
    reader, observer = kept
    pid = reader.connection.info.backend_pid
    assert reader.prepared_row("refused", "SELECT value FROM no_such_table", []) is None
    assert activity(observer, pid) == "SELECT value FROM no_such_table"
    with reader.cursor() as cursor:
        cursor.execute("SELECT 'the next request'")
    assert reader.prepared_row("refused", "SELECT value FROM no_such_table", []) is None
    assert activity(observer, pid) == "SELECT 'the next request'", "not prepared again"
