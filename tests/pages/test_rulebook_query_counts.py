"""The rulebook pages keep a fixed number of queries as a game grows: an entry page with
previous/next and ancestors is still the entry row alone; the contents and the booklets
read the game's entries in one query whatever their number."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.models import Entry, Source
from tests.builds import get_built, run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_source, written_together

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _uncached(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


@written_together
def build(n: int):
    """n chapters of n rules each, a glossary of n entries, an erratum per chapter, and a
    rule whose page shows three ancestors."""
    game = make_game()
    source = make_source(game=game, title="Rulebook", kind=Source.Kind.RULEBOOK)
    deepest = None
    for chapter in range(1, n + 1):
        top = make_entry(
            game=game, kind=Entry.Kind.SECTION, title=f"Chapter {chapter}", number=str(chapter),
            order=chapter * 100, source=source,
        )  # fmt: skip
        for rule in range(1, n + 1):
            sub = make_entry(
                game=game, kind=Entry.Kind.SECTION, title=f"Rule {chapter}.{rule}", number=f"{chapter}.{rule}",
                order=chapter * 100 + rule, parent=top, source=source, body=f"**{chapter}.{rule}a** A rule.",
            )  # fmt: skip
        deep = make_entry(
            game=game, kind=Entry.Kind.SECTION, title=f"Deep {chapter}", number=f"{chapter}.{rule}a",
            parent=sub, order=chapter * 100 + 99, source=source,
        )  # fmt: skip
        deepest = deepest or deep  # the first chapter's: it has a next section
        make_erratum(game=game, title=f"Erratum {chapter}", affects=[top, sub])
        make_entry(game=game, title=f"Term {chapter}", body="A term.")
    return game, deepest


PAGES = {
    "entry": lambda game, deep: deep.url_in("en"),
    "contents": lambda game, deep: f"/en/games/{game.slug}/rules/?at={deep.slug}",
    "glossary booklet": lambda game, deep: f"/en/games/{game.slug}/print/glossary/",
    "rules booklet": lambda game, deep: f"/en/games/{game.slug}/print/rules/",
    "rules booklet as PDF": lambda game, deep: f"/en/games/{game.slug}/print/rules.pdf",
}


BOOKLETS = {"glossary booklet", "rules booklet", "rules booklet as PDF"}


def count(client, url: str) -> int:
    get_built(client, url)  # a booklet is built in the background first (rules.builds)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def build_queries(client, url: str) -> int:
    """The queries of making a booklet in the background."""
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert run_background_tasks() == 1
    return len(queries)


@pytest.mark.parametrize("page", list(PAGES))
def test_queries_do_not_grow_with_the_game(client, page, django_assert_num_queries):
    small, small_deep = build(2)
    big, big_deep = build(6)  # 3 times the chapters, 9 times the rules
    if page in BOOKLETS:
        made = build_queries(client, PAGES[page](small, small_deep))
        client.get(PAGES[page](big, big_deep))
        with django_assert_num_queries(made):
            run_background_tasks()
    expected = count(client, PAGES[page](small, small_deep))
    get_built(client, PAGES[page](big, big_deep))
    with django_assert_num_queries(expected):
        response = client.get(PAGES[page](big, big_deep))
    assert response.status_code == 200


def test_an_entry_page_with_its_place_in_the_rulebook_is_still_the_entry_row(client, django_assert_num_queries):
    game, deep = build(3)
    with django_assert_num_queries(2):  # the content version, the entry with its stored page (none here)
        html = client.get(deep.url_in("en")).content.decode()
    assert 'rel="prev"' in html and 'rel="next"' in html
    assert ">Chapter 1</a></li>" in html and ">Rule 1.3</a></li>" in html  # breadcrumbs


def test_the_contents_queries(client, django_assert_num_queries):
    """The content version, the game with its content languages (stored with their
    counts: rules.derived.game_pages), then one query of entries: the contents read no more."""
    game, deep = build(2)
    with django_assert_num_queries(3):
        client.get(PAGES["contents"](game, deep))


@pytest.mark.parametrize("page", sorted(BOOKLETS))
def test_a_booklets_queries(client, page, django_assert_num_queries):
    """A booklet built in the background (rules.builds) is served from the content
    version, the game with its content languages (stored with their counts), whether it
    has entries and the file's record: four small queries, none of the entries themselves."""
    game, deep = build(2)
    get_built(client, PAGES[page](game, deep))
    with django_assert_num_queries(4):
        client.get(PAGES[page](game, deep))
