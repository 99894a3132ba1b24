"""Page queries stay flat as entries, cross-references, errata and FAQ questions grow."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.pages import stored_pages
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


@written_together
def build(n: int):
    game = make_game()
    hub = make_entry(game=game, title="Hub", see_also=[f"Term {i}" for i in range(n)] + ["Missing"])
    for i in range(n):
        other = make_entry(game=game, title=f"Term {i}", see_also=["Hub"], body=f"See [[Term {(i + 1) % n}]].")
        make_erratum(game=game, title=f"Erratum {i}", affects=[hub, other])
        make_question(game=game, question=f"Question {i}?", related_entries=[hub, other])
        make_entry(game=game, language="de", title=f"Begriff {i}", translation_key=other.translation_key)
    return game, hub


def build_both():
    """A game of 2 entries and one of 25, each with its hub (``build``)."""
    return {"small": build(2), "big": build(25)}


# Written once for the module's tests (tests.module_world).
_games_of_the_module, games = fixtures(build_both, "games")


@pytest.fixture(autouse=True)
def _uncached(settings):
    """The rendering path is measured: the whole-response cache is off."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("page", ["entry", "game", "errata", "faq", "home"])
def test_query_count_does_not_grow(client, games, page, django_assert_num_queries):
    (small_game, small_hub), (big_game, big_hub) = games["small"], games["big"]
    urls = {
        "entry": lambda game, hub: hub.url_in("en"),
        "game": lambda game, hub: f"/en/games/{game.slug}/",
        "errata": lambda game, hub: f"/en/games/{game.slug}/errata/",
        "faq": lambda game, hub: f"/en/games/{game.slug}/faq/",
        "home": lambda game, hub: "/en/",
    }[page]
    small = count_queries(client, urls(small_game, small_hub))
    with django_assert_num_queries(small):
        client.get(urls(big_game, big_hub))


def test_entry_page_reads_the_entry_row_only(client, games, django_assert_num_queries):
    """The content version, then the entry with its game and source: everything it
    shows of other items is stored with it when anything is written (rules.derived.relations),
    and, in the same query, the page the worker stored (rules.pages.stored_pages)."""
    _game, hub = games["big"]
    with django_assert_num_queries(2):
        response = client.get(hub.url_in("en"))
    html = response.content.decode()
    for i in range(25):
        assert f">Term {i}</a>" in html  # see also, and referenced by
        assert f"Erratum {i}</a>" in html
        assert f"Question {i}?" in html
    assert "Missing" in html and "xref-wanted" in html  # a label with no entry: not a link


def test_game_page_reads_stored_lists_not_entries(client, games):
    """The content version, the game's language rows with the page the worker stored
    beside them (none yet: rules.pages.stored_game_pages), the same rows with their lists
    and counts (stored: rules.derived.game_pages), its sources (their releases too, when
    it has any): no query lists entries, errata or questions, whatever the size of the
    game. With the page stored, the lists are not read at all."""
    game, _hub = games["big"]
    with CaptureQueriesContext(connection) as queries:
        html = client.get(f"/en/games/{game.slug}/").content.decode()
    assert len(queries) == 4
    listing = [query["sql"] for query in queries if 'FROM "rules_entry"' in query["sql"]]
    assert not listing, listing
    assert all(f">Term {i}</a>" in html for i in range(25)) and "Errata (25)" in html
    stored_pages.refresh()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/en/games/{game.slug}/").content.decode() == html
    assert len(queries) == 3
    assert not [query["sql"] for query in queries if "glossary_html" in query["sql"]]
