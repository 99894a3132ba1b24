"""?ordering=id|updated_at pages a list by cursor: a crawl during edits neither skips nor
repeats an item; anything else named as ordering is a 400 (rules/api/pagination.py)."""

import base64
from urllib.parse import quote

import pytest

from rules.content.models import Entry
from tests.factories import make_entry, make_game
from tests.module_world import fixtures

from .conftest import get_json

pytestmark = pytest.mark.django_db


def build_ten():
    """Row by row (not ``written_together``): each entry's public ``updated_at`` differs, so
    a cursor of that ordering carries a position, not only an offset."""
    game = make_game(slug="zehn")
    return [make_entry(game=game, language="de", title=f"Eintrag {n:02d}") for n in range(10)]


# Written once for the module's tests that read it (tests.module_world).
_ten_of_the_module, ten = fixtures(build_ten, "ten")


def crawl(client, url: str, between=None) -> list[dict]:
    seen, pages = [], 0
    while url:
        page = get_json(client, url)
        assert "count" not in page
        seen += page["results"]
        url = page["next"] and page["next"].replace("http://testserver", "")
        pages += 1
        if between and pages == 1:
            between()
    return seen


def test_by_id_every_item_once_in_id_order(client, ten):
    seen = crawl(client, "/api/v1/entries/?ordering=id&page_size=3")
    assert [item["id"] for item in seen] == [entry.pk for entry in ten]


def test_edits_during_a_crawl_skip_or_repeat_nothing(client, ten):
    kept = {entry.pk for entry in ten[1:]}

    def edit():
        ten[0].delete()  # on the page already read
        renamed = Entry.objects.get(pk=ten[5].pk)
        renamed.title = "AAA zuerst"  # first by title: an offset crawl would shift
        renamed.save()
        make_entry(game=ten[1].game, language="de", title="Neu")

    seen = [item["id"] for item in crawl(client, "/api/v1/entries/?ordering=id&page_size=3", between=edit)]
    assert len(seen) == len(set(seen))
    assert kept <= set(seen)


def test_by_updated_at_oldest_change_first(client, ten):
    touched = Entry.objects.get(pk=ten[2].pk)
    touched.body = "Geändert."
    touched.save()
    seen = crawl(client, "/api/v1/entries/?ordering=updated_at&page_size=4")
    stamps = [item["updated_at"] for item in seen]
    assert stamps == sorted(stamps) and seen[-1]["id"] == touched.pk


@pytest.mark.parametrize("query", ["ordering=title", "ordering=", "ordering=ID", "ordering=-id"])
def test_an_ordering_it_cannot_do_is_a_400(client, ten, query):
    body = get_json(client, f"/api/v1/entries/?{query}", status=400)
    assert list(body["errors"]) == ["ordering"]


def test_by_cursor_page_is_not_read_and_a_cursor_alone_pages_by_id(client, ten):
    first = get_json(client, "/api/v1/entries/?ordering=id&page=2&page_size=3")
    assert [item["id"] for item in first["results"]] == [entry.pk for entry in ten[:3]]
    cursor = first["next"].split("cursor=")[1].split("&")[0]
    alone = get_json(client, f"/api/v1/entries/?cursor={cursor}&page_size=3")
    assert [item["id"] for item in alone["results"]] == [entry.pk for entry in ten[3:6]]
    # A malformed page is refused as everywhere, read or not.
    assert get_json(client, "/api/v1/entries/?ordering=id&page=x", status=404) == {"detail": "Invalid page."}


def forged(text: str) -> str:
    return quote(base64.b64encode(text.encode()).decode())


# Cursors a client can send that none of our next links ever held: positions that are no
# id or no time (each reached the database: a 500), offsets and directions that are no
# number, and what is not a cursor at all.
FORGED = [
    *(forged(f"p={p}") for p in (
        "abc", "1e999", "2024-13-45", "-1", "1.5", "9" * 25, "", "0x10", "1 OR 1=1", "٧", "2024-02-30",
        "2024-01-01T25:00:00", "9999-12-31 23:59:59+99:00", "x" * 5000,
    )),
    forged("o=abc&p=x"), forged("o=-1"), forged("r=yes"),
    "!!!", "%C3%A9", "bz1" + "A" * 3,
]  # fmt: skip


@pytest.mark.parametrize("name", ["entries", "sources", "errata", "faq", "games"])
@pytest.mark.parametrize("ordering", ["id", "updated_at"])
def test_a_forged_cursor_is_a_json_400_naming_it_on_every_list(client, world, name, ordering):
    assert len(FORGED) >= 20
    for cursor in FORGED:
        body = get_json(client, f"/api/v1/{name}/?ordering={ordering}&cursor={cursor}", status=400)
        assert list(body["errors"]) == ["cursor"], cursor
        assert "cursor" in body["detail"]


def test_a_cursor_of_the_other_ordering_is_a_400(client, ten):
    by_id = get_json(client, "/api/v1/entries/?ordering=id&page_size=3")["next"].split("cursor=")[1].split("&")[0]
    get_json(client, f"/api/v1/entries/?ordering=updated_at&cursor={by_id}", status=400)
    by_time = get_json(client, "/api/v1/entries/?ordering=updated_at&page_size=3")["next"]
    by_time = by_time.split("cursor=")[1].split("&")[0]
    get_json(client, f"/api/v1/entries/?ordering=id&cursor={by_time}", status=400)
    # and each still pages its own list
    assert get_json(client, f"/api/v1/entries/?ordering=updated_at&cursor={by_time}&page_size=3")["results"]


@pytest.mark.parametrize("name", ["games", "sources", "errata", "faq"])
def test_every_list_pages_by_cursor(client, world, name):
    seen = crawl(client, f"/api/v1/{name}/?ordering=updated_at&page_size=1")
    assert len(seen) == get_json(client, f"/api/v1/{name}/")["count"]
