"""A cached search answer is keyed by the vectors it used (``rules.content.version``'s
vectors token, ``rulesite.cache_key``): the worker embedding new content after it was
written shows on the very next search, on the page and in the API, though the content
version did not move; pages that read no vector stay cached through an embedding."""

import pytest

from rules.content import version as content_version
from rules.search import semantic
from tests.factories import make_entry, make_game

pytestmark = pytest.mark.django_db

QUESTION = "What happens to a card when I discard it?"


@pytest.fixture
def game(real):
    game = make_game(slug="mond", name="Mond")
    make_entry(
        game=game, language="de", title="Ablegen",
        body="Wenn du eine Karte ablegst, kommt sie offen auf deinen Ablagestapel. "
        "Abgelegte Karten kehren nicht auf deine Hand zurück.",
    )  # fmt: skip
    make_entry(
        game=game, language="de", title="Kampf",
        body="Der Angreifer wählt ein Ziel und vergleicht die Stärke der Einheiten.",
    )  # fmt: skip
    return game


def titles(client) -> list[str]:
    response = client.get("/api/v1/search/", {"q": QUESTION, "game": "mond"})
    assert response.status_code == 200
    return [hit["title"] for hit in response.json()["results"]]


def test_an_embedding_the_worker_finished_shows_on_the_next_search(client, game, django_assert_num_queries):
    before = content_version.current()
    assert "Ablegen" not in titles(client)  # no vector yet: English words find no German text
    page = client.get("/en/search/", {"q": QUESTION})
    entry_page = client.get("/de/games/mond/")
    assert semantic.refresh() == 2  # the worker's run

    after = content_version.current()
    assert after.token == before.token and after.vectors != before.vectors
    assert titles(client)[0] == "Ablegen"
    assert "Ablegen" in client.get("/en/search/", {"q": QUESTION}).content.decode()
    assert "Ablegen" not in page.content.decode()
    # The game page reads no vector: still the cached copy (one query: the version).
    with django_assert_num_queries(1):
        assert client.get("/de/games/mond/")["ETag"] == entry_page["ETag"]
