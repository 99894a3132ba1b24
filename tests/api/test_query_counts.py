"""Every list costs the same number of queries for 2 items as for 20.

Each entry has see-also references, a [[link]], a wanted label, a parent, a source,
two translations, errata and FAQ questions, and is linked from other entries: every
relation the entry JSON shows. If any of them were loaded per entry, the 20-entry
count would be higher.
"""

import pytest

from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.module_world import fixtures

from .conftest import get_json


@written_together
def populate(n: int) -> None:
    game = make_game(slug="big-game", name="Big Game")
    source = make_source(game=game, language="en")
    section = make_entry(game=game, language="en", title="Section", kind="section", number="1")
    entries = []
    for i in range(n):
        entry = make_entry(
            game=game,
            language="en",
            title=f"Term {i}",
            number=f"1.{i}",
            parent=section,
            source=source,
            page=str(i),
            body=f"Compare [[Term {(i + 3) % n}]].",
            see_also=[f"Term {(i + 1) % n}", f"Term {(i + 2) % n}", "Not written yet"],
        )
        for language in ("de", "pl"):
            make_entry(game=game, language=language, translation_key=entry.translation_key)
        entries.append(entry)
    for i, entry in enumerate(entries):
        neighbour = entries[(i + 1) % n]
        for _ in range(2):
            make_erratum(game=game, language="en", affects=[entry, neighbour], source=source)
            make_question(
                game=game, language="en", related_entries=[entry, neighbour], source=source
            )
        make_source(game=game, language="de")
        make_entry(game=make_game(), language="nl")  # one more game with content


# The number of entries, module-scoped: pytest runs the tests grouped by it, and the
# game of each size is written once for its tests (tests.module_world).
@pytest.fixture(scope="module", params=[2, 20])
def n(request):
    return request.param


_populated_of_the_module, populated = fixtures(populate, "populated", by=("n",))


# The queries of one page, whatever its length; each starts with the content version
# (rulesite.response_cache), read before the cache is asked:
QUERIES = {
    # Games, entries, errata and FAQ questions: version, count, the page's ids with each
    # item's JSON as stored when it last changed (rules.api.stored)
    "/api/v1/entries/?language=en&kind=glossary&page_size=100": 3,
    "/api/v1/games/?page_size=100": 3,
    # version, count, page (with game), releases
    "/api/v1/sources/?page_size=100": 4,
    "/api/v1/errata/?page_size=100": 3,
    "/api/v1/faq/?page_size=100": 3,
}


@pytest.mark.parametrize(("url", "queries"), QUERIES.items())
def test_list_queries_do_not_grow_with_items(client, populated, django_assert_num_queries, n, url, queries):
    with django_assert_num_queries(queries):
        data = get_json(client, url)
    assert len(data["results"]) >= n


@pytest.mark.parametrize("n", [2], indirect=True, scope="module")
def test_an_unfiltered_list_is_counted_once_per_content_version(client, populated, django_assert_num_queries):
    """A second page size of the same list needs no count until content changes; a new,
    an unpublished and a deleted entry each show in the next count at once."""
    before = get_json(client, "/api/v1/entries/?page_size=100")["count"]
    with django_assert_num_queries(2):  # version, page
        assert get_json(client, "/api/v1/entries/?page_size=99")["count"] == before
    added = make_entry(game=make_game(), language="en", title="Added later")
    assert get_json(client, "/api/v1/entries/?page_size=98")["count"] == before + 1
    added.status = "draft"
    added.save()
    assert get_json(client, "/api/v1/entries/?page_size=97")["count"] == before
    make_entry(game=added.game, language="de")
    assert get_json(client, "/api/v1/entries/?page_size=96")["count"] == before + 1
    added.game.delete()
    assert get_json(client, "/api/v1/entries/?page_size=95")["count"] == before
    games = get_json(client, "/api/v1/games/?page_size=100")["count"]
    make_game()
    assert get_json(client, "/api/v1/games/?page_size=99")["count"] == games + 1


def test_entries_measured_are_fully_linked(client, populated, n):
    """The entries of the query-count test really carry every relation."""
    data = get_json(client, "/api/v1/entries/?language=en&kind=glossary&page_size=100")
    assert data["count"] == n
    for entry in data["results"]:
        targets = [ref["target"] for ref in entry["cross_references"]]
        assert len(targets) == 4 and targets.count(None) == 1  # three links, one wanted
        assert [t["language"] for t in entry["translations"]] == ["de", "pl"]
        assert len(entry["errata"]) == 4 and len(entry["faq_questions"]) == 4
        assert len(entry["referenced_by"]) >= 1
        assert entry["parent"]["title"] == "Section" and entry["source"] is not None


@pytest.mark.parametrize("n", [20], indirect=True, scope="module")
def test_entry_detail_query_count(client, populated, django_assert_num_queries):
    entry_id = get_json(client, "/api/v1/entries/?language=en&kind=glossary")["results"][0]["id"]
    # version, the entry (with game and source, and its stored relations)
    with django_assert_num_queries(2):
        get_json(client, f"/api/v1/entries/{entry_id}/")
