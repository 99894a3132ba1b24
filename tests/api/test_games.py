"""/api/v1/games/: games by slug, with published entry counts and content languages."""

import datetime
from http import HTTPStatus

import pytest

from rules.content.models import Game
from rules.content.querysets import Status
from tests.factories import make_entry, make_game

from .conftest import BASE, changed_at, get_json, result_ids, set_changed_at


def test_game_detail_contract(client, world):
    game = world["game"]
    game.refresh_from_db()
    data = get_json(client, "/api/v1/games/marvel-champions/")
    assert data == {
        "slug": "marvel-champions",
        "name": "Marvel Champions",
        "localized_names": {"de": "Marvel Champions: Das Kartenspiel"},
        "publisher": "Fantasy Flight Games",
        "year": 2019,
        "bgg_id": 285774,
        "entry_count": 5,
        "languages": ["en", "de"],
        "url": f"{BASE}/api/v1/games/marvel-champions/",
        "html_url": f"{BASE}/en/games/marvel-champions/",
        "updated_at": changed_at(game),
    }


def test_games_list_counts_only_published_entries(client, world):
    empty = make_game(slug="arkham", name="Arkham Horror")
    for status in (Status.DRAFT, Status.REVIEW, Status.ARCHIVED):
        make_entry(game=empty, language="fr", status=status)
        make_entry(game=world["game"], language="pl", status=status)
    data = get_json(client, "/api/v1/games/")
    assert data["count"] == 2
    assert [(g["slug"], g["entry_count"], g["languages"]) for g in data["results"]] == [
        ("arkham", 0, []),
        ("marvel-champions", 5, ["en", "de"]),
    ]


def test_unknown_game_is_404(client, db):
    data = get_json(client, "/api/v1/games/no-such-game/", status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "No Game matches the given query."}


def test_filter_language_selects_games_with_published_entries_in_it(client, world):
    other = make_game(slug="blue-moon", name="Blue Moon")
    make_entry(game=other, language="nl")
    make_entry(game=other, language="en", status=Status.DRAFT)
    assert result_ids(client, "/api/v1/games/?language=nl", key="slug") == ["blue-moon"]
    assert result_ids(client, "/api/v1/games/?language=en", key="slug") == ["marvel-champions"]
    assert result_ids(client, "/api/v1/games/?language=fr", key="slug") == []
    # filtering does not change what entry_count counts
    assert get_json(client, "/api/v1/games/?language=en")["results"][0]["entry_count"] == 5


def test_filter_updated_after(client, world):
    make_game(slug="blue-moon", name="Blue Moon")
    set_changed_at(Game, datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC))
    set_changed_at(Game, datetime.datetime(2024, 6, 1, tzinfo=datetime.UTC), slug="blue-moon")
    url = "/api/v1/games/?updated_after="
    assert result_ids(client, url + "2024-03-01", key="slug") == ["blue-moon"]
    assert result_ids(client, url + "2024-07-01", key="slug") == []


@pytest.mark.parametrize(("size", "shown"), [("100", 100), ("101", 100), ("100000", 100), ("7", 7)])
def test_page_size_up_to_100(client, db, size, shown):
    Game.objects.bulk_create(Game(slug=f"game-{n:03}", name=f"Game {n:03}") for n in range(105))
    data = get_json(client, f"/api/v1/games/?page_size={size}")
    assert data["count"] == 105
    assert len(data["results"]) == shown
    assert data["next"] == f"{BASE}/api/v1/games/?page=2&page_size={size}"


def test_default_page_size_is_20(client, db):
    Game.objects.bulk_create(Game(slug=f"game-{n:03}", name=f"Game {n:03}") for n in range(25))
    assert len(get_json(client, "/api/v1/games/")["results"]) == 20
