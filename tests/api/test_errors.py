"""Bad input gets a JSON answer a client can show, never a 500 or an HTML page."""

from http import HTTPStatus
from urllib.parse import quote

import pytest

from .conftest import get_json

LISTS = [f"/api/v1/{name}/" for name in ("games", "sources", "entries", "errata", "faq")]
CONTENT_LISTS = LISTS[1:]  # the lists with a game and language of their own
LONG = "x" * 5000


@pytest.fixture(autouse=True)
def _world(world):
    """Every list has items, so a filter that were ignored would show."""


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("page_size=abc", "page_size"),
        ("page_size=0", "page_size"),
        ("page_size=-5", "page_size"),
        ("page_size=1.5", "page_size"),
        ("page_size=%00", "page_size"),
        ("page_size=" + "9" * 5000, "page_size"),  # longer than int() accepts
        ("updated_after=yesterday", "updated_after"),
        ("updated_after=2024-13-01", "updated_after"),
        ("updated_after=2024-01-01%00", "updated_after"),
        ("updated_after=0001-01-01T00:00:00%2B05:00", "updated_after"),  # before year 1 in UTC
        ("updated_after=" + LONG, "updated_after"),
        ("language=xx", "language"),
        ("language=de%00", "language"),
        ("language=" + LONG, "language"),
    ],
)
def test_bad_query_parameter_is_400_json(client, url, query, parameter):
    data = get_json(client, f"{url}?{query}", status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == f"Invalid query parameter: {parameter}."
    assert list(data["errors"]) == [parameter]
    assert isinstance(data["errors"][parameter][0], str)


@pytest.mark.parametrize("url", CONTENT_LISTS)
@pytest.mark.parametrize(
    ("query", "parameter"),
    [("game=%00", "game"), ("game=" + LONG, "game"), ("game=a%00b", "game")],
)
def test_bad_game_is_400_json(client, url, query, parameter):
    data = get_json(client, f"{url}?{query}", status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == f"Invalid query parameter: {parameter}."


@pytest.mark.parametrize(
    "url",
    ["/api/v1/sources/?kind=poster", "/api/v1/entries/?kind=x%00", "/api/v1/errata/?kind=" + LONG],
)
def test_bad_kind_is_400_json(client, url):
    data = get_json(client, url, status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == "Invalid query parameter: kind."


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/entries/?slug=%00",
        "/api/v1/entries/?slug=" + LONG,
        "/api/v1/faq/?topic=%00",
        "/api/v1/faq/?topic=" + LONG,
    ],
)
def test_bad_text_filter_is_400_json(client, url):
    assert get_json(client, url, status=HTTPStatus.BAD_REQUEST)["detail"].startswith(
        "Invalid query parameter:"
    )


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("page", ["abc", "0", "999", "%00", "9" * 5000])
def test_bad_page_is_404_json(client, url, page):
    data = get_json(client, f"{url}?page={page}", status=HTTPStatus.NOT_FOUND)
    assert data["detail"].startswith("Invalid page")


@pytest.mark.parametrize("url", LISTS)
def test_unknown_and_long_parameters_are_ignored(client, url):
    data = get_json(client, f"{url}?{LONG}={LONG}&nonsense=%00")
    assert data["count"] >= 1


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/entries/999999/",
        "/api/v1/entries/abc/",
        "/api/v1/entries/99999999999999999999999999/",  # beyond a 64-bit integer
        "/api/v1/entries/%00/",
        f"/api/v1/entries/{quote(LONG)}/",
        "/api/v1/errata/999999/",
        "/api/v1/faq/999999/",
        "/api/v1/sources/999999/",
        "/api/v1/games/no-such-game/",
        "/api/v1/games/%00/",
    ],
)
def test_unknown_detail_is_404_json(client, url):
    data = get_json(client, url, status=HTTPStatus.NOT_FOUND)
    assert list(data) == ["detail"]
    assert data["detail"] == "Not found." or data["detail"].endswith("matches the given query.")


@pytest.mark.parametrize(
    "url",
    ["/api/v1/no-such-endpoint/", "/api/v1/entries/1/no-such-action/", "/api/v1/games/a%00b/"],
)
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_unknown_api_url_is_404_json_not_the_html_page(client, url, method):
    response = getattr(client, method)(url)
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}


def test_missing_trailing_slash_still_redirects(client):
    response = client.get("/api/v1/entries?language=de")
    assert response.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert response["Location"] == "/api/v1/entries/?language=de"


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("url", [*LISTS, "/api/v1/games/marvel-champions/"])
def test_writing_is_405_json(client, method, url, world):
    if url.endswith("/entries/"):
        url = f"{url}{world['du'].pk}/"
    response = getattr(client, method)(url, data={"title": "x"}, content_type="application/json")
    assert response.status_code == HTTPStatus.METHOD_NOT_ALLOWED
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"] == f'Method "{method.upper()}" not allowed.'
    assert "GET" in response["Allow"] and method.upper() not in response["Allow"]
