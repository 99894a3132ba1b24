"""Whole-response caching: served from the cache, never stale, never for moderators,
with ETag, Last-Modified, 304 and Cache-Control (rulesite/response_cache.py)."""

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from faq.models import Question
from rules.content import version as content_version
from rules.content.models import Entry, Erratum
from rules.content.querysets import Status
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

DUMMY_CACHE = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


@written_together
def build_world():
    game = make_game(slug="blue-moon", name="Blue Moon")
    fight = make_entry(game=game, title="Fight", body="Roll the die.")
    boost = make_entry(game=game, title="Boost", body="Then [[Fight]].", see_also=["Fight"])
    erratum = make_erratum(game=game, title="Fix", corrected_text="Roll twice.", affects=[fight])
    question = make_question(game=game, question="Roll?", answer="Yes.", related_entries=[fight])
    return {"game": game, "fight": fight, "boost": boost, "erratum": erratum, "question": question}


# Written once for the module's tests that read it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")


def urls(world) -> list[str]:
    game, fight = world["game"], world["fight"]
    return [
        "/en/",
        f"/en/games/{game.slug}/",
        fight.get_absolute_url(),
        f"/en/games/{game.slug}/errata/",
        f"/en/games/{game.slug}/faq/",
        "/en/feeds/changes/",
        "/sitemap.xml",
        f"/api/v1/entries/{fight.pk}/",
        "/api/v1/entries/?page_size=50",
        "/api/v1/errata/",
        "/api/v1/faq/",
        "/api/v1/search/?q=roll",
    ]


def queries(client, url, **headers):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, headers=headers)
    return response, len(captured)


def test_a_second_request_is_answered_from_the_cache(client, world):
    for url in urls(world):
        first, _ = queries(client, url)
        second, count = queries(client, url)
        assert first.status_code == second.status_code == 200, url
        assert second.content == first.content, url
        assert count == 1, f"{url}: only the content version is read"


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda w: setattr_save(w["fight"], body="Roll three dice."), id="entry save"),
        pytest.param(lambda w: Entry.objects.filter(pk=w["fight"].pk).update(title="Fight!"), id="queryset update"),
        pytest.param(lambda w: setattr_save(w["erratum"], corrected_text="Roll thrice."), id="erratum save"),
        pytest.param(lambda w: w["erratum"].affects.clear(), id="m2m change"),
        pytest.param(lambda w: Question.objects.filter(pk=w["question"].pk).delete(), id="question delete"),
        pytest.param(lambda w: setattr_save(w["fight"], status=Status.DRAFT), id="unpublish"),
        pytest.param(lambda w: setattr_save(w["game"], name="Blue Moon Legends"), id="game rename"),
    ],
)
def test_every_write_reaches_every_cached_response(client, world, write):
    before = {url: client.get(url).content for url in urls(world)}
    version = content_version.current()

    write(world)

    assert content_version.current().token != version.token
    after = {url: client.get(url).content for url in urls(world)}
    changed = [url for url in before if before[url] != after[url]]
    assert changed, "the write changed what at least one response shows"
    # None of them was served from the cache: each equals a fresh rendering.
    with override_settings(CACHES=DUMMY_CACHE):
        from django.test import Client

        fresh = Client()
        for url in urls(world):
            if url != "/sitemap.xml":  # lastmod is rendered from the same rows either way
                assert fresh.get(url).content == after[url], url


def setattr_save(obj, **values):
    for name, value in values.items():
        setattr(obj, name, value)
    obj.save()


def test_a_rolled_back_write_never_brings_back_an_old_response(client, world):
    from django.db import transaction

    version = content_version.current()
    with transaction.atomic():
        setattr_save(world["fight"], body="Draft text.")
        client.get(world["fight"].get_absolute_url())
        transaction.set_rollback(True)
    assert content_version.current() == version
    setattr_save(world["fight"], body="Other text.")
    assert "Other text." in client.get(world["fight"].get_absolute_url()).content.decode()


def watching_triggers(table: str) -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [table])
        else:
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", [table])
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.parametrize(
    "table", [*content_version.WATCHED_TABLES, *content_version.RELEASE_TABLES, *content_version.FAQ_TABLES]
)
def test_every_watched_table_keeps_its_triggers_after_all_migrations(db, table):
    """A migration that rebuilds a table (SQLite) drops its triggers; the version would
    then miss writes to it, and caches would serve old pages."""
    wanted = {
        statement.split()[2]
        for statement in content_version.watch_sql(connection.vendor, [table])
    }
    assert wanted <= watching_triggers(table)


@pytest.mark.parametrize(
    "table", [*content_version.WATCHED_TABLES, *content_version.RELEASE_TABLES, *content_version.FAQ_TABLES]
)
def test_every_watched_table_changes_its_games_token_after_all_migrations(db, table):
    wanted = {
        statement.split()[2]
        for statement in content_version.watch_games_sql(connection.vendor, [table])
        if statement.startswith("CREATE TRIGGER")
    }
    assert len(wanted) == 3 and wanted <= watching_triggers(table)


def game_urls(game, entry) -> list[str]:
    """Every kind of page of one game (each keyed by that game's token)."""
    return [
        f"/en/games/{game.slug}/",
        entry.get_absolute_url(),
        f"/en/games/{game.slug}/errata/",
        f"/en/games/{game.slug}/faq/",
        f"/en/games/{game.slug}/rules/",
        f"/en/games/{game.slug}/feeds/changes/",
        f"/en/games/{game.slug}/feeds/errata/",
    ]


@pytest.fixture
@written_together
def other_game():
    """A second game, with a page of each kind."""
    game = make_game(slug="twilight", name="Twilight")
    dusk = make_entry(game=game, title="Dusk", body="The sun sets.")
    make_erratum(game=game, title="Dusk fix", corrected_text="It sets twice.", affects=[dusk])
    make_question(game=game, question="Dark?", answer="Yes.", related_entries=[dusk])
    return {"game": game, "dusk": dusk}


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda w: setattr_save(w["fight"], body="Roll three dice."), id="entry save"),
        pytest.param(lambda w: Entry.objects.filter(pk=w["fight"].pk).update(title="Fight!"), id="queryset update"),
        pytest.param(lambda w: w["erratum"].affects.clear(), id="m2m change"),
        pytest.param(lambda w: Question.objects.filter(pk=w["question"].pk).delete(), id="question delete"),
        pytest.param(lambda w: setattr_save(w["game"], name="Blue Moon Legends"), id="game rename"),
        pytest.param(lambda w: make_entry(game=w["game"], title="New", body="Fresh."), id="entry added"),
    ],
)
def test_a_write_to_one_game_leaves_every_other_games_pages_cached(client, world, other_game, write):
    """Narrower invalidation: the pages of the game written to are rendered again, the
    other game's come from the cache (one query: the version), and lists across games
    show the write."""
    theirs = game_urls(other_game["game"], other_game["dusk"])
    ours = game_urls(world["game"], world["fight"])
    across = ["/en/", "/api/v1/entries/?page_size=50", "/en/feeds/changes/"]
    before = {url: client.get(url) for url in theirs + ours + across}
    assert all(response.status_code == 200 for response in before.values()), {
        url: response.status_code for url, response in before.items()
    }

    write(world)

    for url in theirs:
        response, count = queries(client, url)
        assert count == 1, f"{url}: another game's write emptied its cached page"
        assert response.content == before[url].content, url
    rendered = [url for url in ours + across if queries(client, url)[1] > 1]
    assert rendered == ours + across, "every page of the game written to and every list across games is rendered again"


def test_an_entry_moved_to_another_game_changes_both_games_pages(client, world, other_game):
    theirs, ours = f"/en/games/{other_game['game'].slug}/", f"/en/games/{world['game'].slug}/"
    assert "Boost" not in client.get(theirs).content.decode()
    assert "Boost" in client.get(ours).content.decode()
    setattr_save(world["boost"], game=other_game["game"])
    assert "Boost" in client.get(theirs).content.decode()
    assert "Boost" not in client.get(ours).content.decode()


def test_moderators_are_never_served_from_or_into_the_public_cache(client, world, django_user_model):
    fight, url = world["fight"], world["fight"].get_absolute_url()
    anonymous, _ = queries(client, url)
    moderator = django_user_model.objects.create_superuser("mod", "mod@example.com", "pw")
    client.force_login(moderator)

    with CaptureQueriesContext(connection) as captured:
        seen = client.get(url)
    rendered = any("rules_entry" in query["sql"] for query in captured)
    assert rendered, "rendered for the moderator, not taken from the cache"
    assert "private" in seen["Cache-Control"]
    assert "public" not in seen["Cache-Control"]

    # A draft the moderator looks at through the admin never reaches the public cache.
    draft = make_entry(game=world["game"], title="Secret", body="Draft text.", status=Status.DRAFT)
    assert client.get(f"/admin/rules/entry/{draft.pk}/view/").status_code == 200
    client.logout()
    for path in [url, f"/en/games/{world['game'].slug}/", "/api/v1/entries/?page_size=50"]:
        assert "Secret" not in client.get(path).content.decode()
    assert fight.pk  # the published entry stays


def test_the_admin_is_never_cached(admin_client, client, world):
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert "public" not in response.get("Cache-Control", "")


def test_validators_and_conditional_get(client, world):
    url = world["fight"].get_absolute_url()
    response = client.get(url)
    etag, modified = response["ETag"], response["Last-Modified"]
    cache_control = set(response["Cache-Control"].replace(" ", "").split(","))
    assert {"public", "max-age=0", "s-maxage=60"} <= cache_control

    assert client.get(url, headers={"if-none-match": etag}).status_code == 304
    assert client.get(url, headers={"if-modified-since": modified}).status_code == 304

    setattr_save(world["fight"], body="Roll three dice.")
    changed = client.get(url, headers={"if-none-match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_json_whose_linked_entry_changed_gets_a_new_validator(client, world):
    url = f"/api/v1/entries/{world['boost'].pk}/"
    etag = client.get(url)["ETag"]
    fight = world["fight"]
    fight.title = "Fight hard"  # the old title stays an alias: the link still resolves
    fight.save()
    response = client.get(url, headers={"if-none-match": etag})
    assert response.status_code == 200
    assert "Fight hard" in response.content.decode()
    assert response["ETag"] != etag


def test_caching_off_keeps_the_validators(client, world):
    url = world["fight"].get_absolute_url()
    with override_settings(CACHES=DUMMY_CACHE):
        from django.test import Client

        uncached = Client()
        uncached.get(url)
        response, count = queries(uncached, url)
        assert count > 1
        assert response.has_header("ETag") and response.has_header("Last-Modified")
        assert uncached.get(url, headers={"if-none-match": response["ETag"]}).status_code == 304


def test_languages_and_api_views_are_cached_apart(client, world):
    entry_page_en = client.get("/api/v1/entries/", headers={"accept-language": "en"})
    entry_page_de = client.get("/api/v1/entries/", headers={"accept-language": "de"})
    assert entry_page_en.status_code == entry_page_de.status_code == 200
    browsable = client.get("/api/v1/entries/", headers={"accept": "text/html"})
    json = client.get("/api/v1/entries/", headers={"accept": "application/json"})
    assert browsable["Content-Type"].startswith("text/html")
    assert json["Content-Type"] == "application/json"
    assert client.get("/de/").content != client.get("/pl/").content


def test_errors_are_not_cached(client, world):
    missing = f"/en/games/{world['game'].slug}/rules/not-yet/"
    assert client.get(missing).status_code == 404
    make_entry(game=world["game"], title="Not yet")
    assert client.get(missing).status_code == 200


def test_erratum_rows_written_by_raw_sql_change_the_version(world):
    version = content_version.current()
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Erratum._meta.db_table} SET title = %s", ["Raw"])
    assert content_version.current().token != version.token


def test_clients_that_take_gzip_get_it_compressed_once_with_the_same_validator(client, world):
    import gzip

    for url in urls(world):
        plain = client.get(url)
        packed, _ = queries(client, url, **{"Accept-Encoding": "gzip, deflate, br"})
        again, count = queries(client, url, **{"Accept-Encoding": "gzip"})
        assert plain.status_code == packed.status_code == 200, url
        assert "Content-Encoding" not in plain, url
        if len(plain.content) < 200:  # too short to be worth it (robots.txt-sized)
            continue
        assert packed["Content-Encoding"] == "gzip", url
        assert "Accept-Encoding" in packed["Vary"], url
        assert gzip.decompress(packed.content) == plain.content, url
        assert len(packed.content) < len(plain.content), url
        # The compressed bytes come from the cache as they were stored.
        assert count == 1 and again.content == packed.content, url
        # One (weak) ETag for the representation, whatever the encoding; each revalidates.
        assert packed["ETag"] == plain["ETag"] and plain["ETag"].startswith('W/"'), url
        for encoding in ("gzip", "identity"):
            revalidated = client.get(url, headers={"Accept-Encoding": encoding, "If-None-Match": packed["ETag"]})
            assert revalidated.status_code == 304, (url, encoding)


def test_gzip_is_the_same_bytes_with_caching_off(client, world):
    url = "/api/v1/entries/?page_size=50"
    with override_settings(CACHES=DUMMY_CACHE):
        from django.test import Client

        uncached = Client()
        first = uncached.get(url, headers={"Accept-Encoding": "gzip"})
        second, count = queries(uncached, url, **{"Accept-Encoding": "gzip"})
    assert count > 1  # rendered again, not cached
    assert first["Content-Encoding"] == "gzip"
    assert first.content == second.content and first["ETag"] == second["ETag"]


def test_what_the_cache_keeps_is_compressed_for_size_and_what_it_does_not_for_speed(client, world):
    """A response the cache stores is sent to every later reader: compressed small. One it
    does not (caching off) is compressed for the one reader waiting: fast, a little larger
    (rules.shared.compression). The same JSON and validator either way."""
    import gzip

    url = "/api/v1/entries/?page_size=50"
    kept = client.get(url, headers={"Accept-Encoding": "gzip"})
    with override_settings(CACHES=DUMMY_CACHE):
        from django.test import Client

        once = Client().get(url, headers={"Accept-Encoding": "gzip"})
    assert kept["Content-Encoding"] == once["Content-Encoding"] == "gzip"
    assert gzip.decompress(kept.content) == gzip.decompress(once.content)
    assert kept["ETag"] == once["ETag"]
    assert len(kept.content) < len(once.content)


def test_the_admin_and_moderators_never_get_compressed_responses(admin_client, world):
    # Responses that carry a CSRF token or session data are never compressed (BREACH).
    for url in ("/admin/", world["fight"].get_absolute_url()):
        response = admin_client.get(url, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, url
        assert "Content-Encoding" not in response, url


def test_migrating_back_and_forth_leaves_derived_data_to_the_complete_schema(transactional_db):
    """A ``migrate`` back (or to a state short of the latest) leaves tables the derived
    steps read missing: it must not run them, and the full ``migrate`` after does."""
    from django.core.management import call_command

    make_entry(game=make_game(slug="kept", name="Kept"), title="Kept", body="A rule.")  # derived steps have work
    call_command("migrate", "rules", "0016", verbosity=0)
    try:
        assert "rules_release" not in connection.introspection.table_names()
    finally:
        call_command("migrate", verbosity=0)
    assert {"rules_release", "rules_releasechange"} <= set(connection.introspection.table_names())
    for table in content_version.RELEASE_TABLES:
        assert {statement.split()[2] for statement in content_version.watch_sql(connection.vendor, [table])} <= (
            watching_triggers(table)
        )
