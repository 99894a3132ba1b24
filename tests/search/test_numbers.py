"""Rule numbers and former names as queries: "rule 10", "10", "regel 10", "601.2a" find
the rule with that number and the rule that had it until a release renumbered it
("Was 102.4 until v2."); a renamed rule's former title finds it.

Built on the three versions of the numbered document under
tests/importing/documents/releases (written apart from the code, with their expected
change lists)."""

import json

import pytest

from rules.content.models import Entry
from rules.search import search
from rules.search.numbers import asked
from tests.factories import make_entry, make_game
from tests.importing.test_releases import DOCUMENTS, SETS, import_version

pytestmark = pytest.mark.django_db

NAME = SETS[0]
EXPECTED = json.loads((DOCUMENTS / NAME / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture
def released(db):
    for version in ("v1", "v2", "v3"):
        import_version(NAME, version)


def moved(version: str) -> dict:
    """A rule that ``version`` renumbered whose old number another rule took."""
    lines = [line for line in EXPECTED[version] if line["change"] == "renumbered"]
    taken = {line["number"] for line in lines}
    return next(line for line in lines if line["previous_number"] in taken)


@pytest.mark.parametrize(
    "query, number",
    [
        ("10", "10"),
        ("rule 10", "10"),
        ("Regel 10", "10"),
        ("règle 7.3a", "7.3a"),
        ("reguła 3", "3"),
        ("601.2a", "601.2a"),
        ("§ 4", "4"),
        ("nr. 12", "12"),
        ("Rule 10.", "10"),
    ],
)
def test_a_number_query_is_read_as_one(query, number):
    assert asked(query) == number


@pytest.mark.parametrize("query", ["hand 10", "10 cards", "what does rule 10 say", "rule", "10 10"])
def test_other_queries_are_not(query):
    assert asked(query) is None


def test_a_number_finds_its_rule_and_the_rule_that_had_it(released):
    line = moved("v2")
    now = Entry.objects.get(game__slug=NAME, number=line["previous_number"])
    before = Entry.objects.get(game__slug=NAME, number=line["number"])
    for query in (line["previous_number"], f"rule {line['previous_number']}", f"regel {line['previous_number']}"):
        results = search(query, game=NAME, reader_language="en")
        first, second = results.hits[:2]
        assert (first.id, first.was) == (now.pk, None), query
        assert second.id == before.pk, query
        assert (second.was.number, second.was.version) == (line["previous_number"], "v2"), query
        assert results.suggestion is None and not results.corrected, query  # never "Did you mean rules 10?"


def test_the_page_and_the_api_say_what_the_number_was(client, released):
    line = moved("v2")
    page = client.get("/en/search/", {"q": f"rule {line['previous_number']}", "game": NAME}).content.decode()
    assert f"Was {line['previous_number']} until v2." in page
    assert "Did you mean" not in page and "Showing results for" not in page
    body = client.get("/api/v1/search/", {"q": line["previous_number"], "game": NAME}).json()
    assert body["results"][0]["was"] is None
    assert body["results"][1]["was"] == {"number": line["previous_number"], "until": "v2"}


def test_a_number_no_rule_has_is_searched_as_words():
    game = make_game(slug="numbers")
    make_entry(game=game, language="en", title="Hand Size", body="You may hold 10 cards at most.")
    results = search("10", game="numbers", reader_language="en")
    assert [hit.title for hit in results.hits] == ["Hand Size"] and results.hits[0].was is None


def test_a_former_title_finds_the_renamed_rule():
    """Renaming a published entry keeps its old title as an alias (``Entry.save``); the
    search index holds aliases, so the old name still finds the rule, by title and by
    a question, and nothing is called a misspelling."""
    game = make_game(slug="renamed")
    entry = make_entry(game=game, language="en", title="Exhaust", body="Turn the card sideways: it is spent.")
    make_entry(game=game, language="en", title="Ready", body="Turn every card upright at the start of your turn.")
    entry.title = "Tap"
    entry.save()
    for query in ("exhaust", "Exhaust", "how does exhaust work?"):
        results = search(query, game="renamed", reader_language="en")
        assert results.hits[0].title == "Tap", query
        assert not results.corrected and results.suggestion is None, query
