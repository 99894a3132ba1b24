"""rules.content.prepared: a query compiled once gives what its queryset gives, on every call."""

import pytest

from rules.content.models import Entry, Game
from rules.content.prepared import PreparedQuery
from rules.content.querysets import Status
from rules.pages.views import ENTRY_PAGE_VERSIONS
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
    assert [entry.title for entry in ENTRY_PAGE_VERSIONS(game.slug, "besitz")] == ["Besitz", "Ownership"]

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
