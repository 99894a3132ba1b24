"""rules.content.prepared: a query compiled once gives what its queryset gives, on every call."""

import pytest

from rules.content.models import Entry, Game
from rules.content.prepared import PreparedQuery
from rules.content.querysets import Status
from rules.pages.stored_pages import ENTRY_PAGE_VERSIONS
from tests.factories import make_entry, make_game, make_source

pytestmark = pytest.mark.django_db


def stored(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def page_queryset(game, slug):
    return Entry.objects.published().filter(game__slug=game, slug=slug).for_page().order_by()


@pytest.fixture
def versions():
    game = make_game(slug="prepared-game", name="Prepared")
    source = make_source(game=game, language="de", title="Regelreferenz")
    german = make_entry(game=game, language="de", title="Besitz", slug="besitz", source=source, aliases=["Kontrolle"])
    english = make_entry(game=game, language="en", title="Ownership", slug="besitz", body="Has **no** source.")
    make_entry(game=game, language="pl", title="Szkic", slug="besitz", status=Status.DRAFT)
    make_entry(game=make_game(slug="other-game"), language="de", title="Besitz", slug="besitz")
    return game, german, english


def test_it_loads_every_field_and_the_related_rows_the_queryset_loads(versions, django_assert_num_queries):
    game, german, english = versions
    expected = sorted(page_queryset(game.slug, "besitz"), key=lambda entry: entry.language)

    for _ in range(2):  # compiled on the first call, reused on the second
        with django_assert_num_queries(1):
            loaded = sorted(ENTRY_PAGE_VERSIONS(game.slug, "besitz"), key=lambda entry: entry.language)
            assert [stored(entry) for entry in loaded] == [stored(entry) for entry in expected]
            assert [entry.pk for entry in loaded] == [german.pk, english.pk]  # not the draft, not the other game
            assert loaded[0].source.title == "Regelreferenz" and loaded[1].source is None
            assert {entry.game.name for entry in loaded} == {"Prepared"}
            assert loaded[0].aliases == ["Kontrolle"]  # JSON decoded, as the queryset does


def test_each_call_reads_the_database_again(versions):
    game, german, _english = versions
    # In no order (the query has none: the page sorts the versions itself).
    assert sorted(entry.title for entry in ENTRY_PAGE_VERSIONS(game.slug, "besitz")) == ["Besitz", "Ownership"]

    Entry.objects.filter(pk=german.pk).update(title="Besitz (neu)")
    Game.objects.filter(pk=game.pk).update(name="Renamed")

    loaded = ENTRY_PAGE_VERSIONS(game.slug, "besitz")
    assert sorted(entry.title for entry in loaded) == ["Besitz (neu)", "Ownership"]
    assert {entry.game.name for entry in loaded} == {"Renamed"}
    assert ENTRY_PAGE_VERSIONS("no-such-game", "besitz") == []


def test_values_that_look_like_sql_are_only_values(versions):
    game, _german, _english = versions
    assert ENTRY_PAGE_VERSIONS(game.slug, "besitz' OR '1'='1") == []
    assert ENTRY_PAGE_VERSIONS("%", "%") == []


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda slug: Entry.objects.filter(slug=slug, title=slug), "exactly one SQL parameter; it is 2"),
        (lambda slug: Entry.objects.filter(title="fixed"), "exactly one SQL parameter; it is 0"),
        (lambda slug: Entry.objects.filter(slug=slug).values("pk"), "plain model instances"),
        (lambda slug: Game.objects.filter(slug=slug), "loads Game, not Entry"),
    ],
)
def test_what_cannot_be_prepared_is_refused_when_first_run(build, message):
    with pytest.raises(ValueError, match=message):
        PreparedQuery(Entry, build, 1)("x")


def test_the_game_pages_queries_load_what_their_querysets_load(django_assert_num_queries):
    """Every page of a game reads the game with its stored languages (``GAME_LANGUAGES``);
    the game page reads its sources and their public releases (``game_sources``)."""
    from rules.content.releases import Release
    from rules.derived.models import GameLanguage
    from rules.pages.page_context import GAME_LANGUAGES, game_sources

    game = make_game(slug="shelf-game", name="Shelf")
    make_entry(game=game, language="de", title="Regal")
    make_entry(game=game, language="en", title="Shelf")
    make_entry(game=make_game(slug="shelf-game-2"), language="de", title="Anderes")
    book = make_source(game=game, language="de", title="Buch")
    make_source(game=game, language="de", title="Blatt")
    make_source(game=game, language="en", title="Book")
    for sequence, (version, held) in enumerate([("1.0", False), ("1.1", False), ("2.0", True)], start=1):
        Release.objects.create(source=book, sequence=sequence, version=version, held=held)

    with django_assert_num_queries(1):
        rows = sorted(GAME_LANGUAGES("shelf-game"), key=lambda row: row.language)
    expected = GameLanguage.objects.filter(game=game).order_by("language")
    assert [stored(row) for row in rows] == [stored(row) for row in expected]
    assert [row.language for row in rows] == ["de", "en"] and {row.game.name for row in rows} == {"Shelf"}
    assert GAME_LANGUAGES("no-such-game") == []

    with django_assert_num_queries(2):
        sources = game_sources("shelf-game", "de")
    assert [source.title for source in sources] == ["Blatt", "Buch"]  # as Source orders them, German only
    by_title = {source.title: source for source in sources}
    # Public releases newest first, not the one held for review, and without documents.
    assert [release.version for release in by_title["Buch"].public_releases] == ["1.1", "1.0"]
    assert by_title["Blatt"].public_releases == []
    assert "pending_document" in by_title["Buch"].public_releases[0].get_deferred_fields()
    with django_assert_num_queries(1):
        assert game_sources("shelf-game", "pl") == []
