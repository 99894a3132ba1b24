"""Bulk data files: one download plus the change feed from its cursor is an exact mirror
(rules/api/bulk.py), made in the background, never holding a draft, served like a static
file (gzip, ETag, Range)."""

import gzip
import json

import pytest

from rules.content.models import Entry
from rules.content.querysets import Status
from tests.api.conftest import get_json
from tests.builds import content_of, get_built, run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.mirror import FeedMirror, paged
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


@written_together
def build_two_games():
    moon = make_game(slug="mond", name="Mond")
    source = make_source(game=moon, language="de", title="Regeln")
    zug = make_entry(game=moon, language="de", title="Zug", body="Siehe [[Karte]].", source=source)
    make_entry(game=moon, language="de", title="Karte", body="Eine Karte.")
    make_entry(game=moon, language="en", title="Card", body="A card.", translation_key=zug.translation_key)
    make_erratum(game=moon, language="de", title="Fix", affects=[zug])
    make_question(game=moon, language="de", question="Wann ziehe ich?", related_entries=[zug])
    make_entry(game=moon, language="de", title="Entwurf", body="GEHEIMER ENTWURF", status=Status.DRAFT)
    sun = make_game(slug="sonne", name="Sonne")
    make_entry(game=sun, language="en", title="Ray", body="Light.")
    return moon, sun


# Written once for the module's tests that read it (tests.module_world).
_two_games_of_the_module, two_games = fixtures(build_two_games, "two_games")


def bulk_file(client, url: str) -> dict:
    response = get_built(client, url)
    assert response.status_code == 200, content_of(response)[:300]
    assert response["Content-Type"] == "application/json"
    return json.loads(content_of(response))


def mirror_from(document: dict) -> FeedMirror:
    """A client's mirror: the file's items, keyed as the feed names them."""
    mirror = FeedMirror(document["cursor"])
    from rules.content.models import Game

    for section, kind in (("games", "game"), ("sources", "source"), ("entries", "entry"), ("errata", "erratum"),
                          ("questions", "question")):  # fmt: skip
        for item in document[section]:
            pk = Game.objects.get(slug=item["slug"]).pk if kind == "game" else item["id"]
            mirror.items[(kind, pk)] = item
    return mirror


def test_the_list_names_every_file_and_what_each_holds_once_made(client, two_games):
    listed = get_json(client, "/api/v1/bulk/")
    pairs = [(f["game"], f["language"]) for f in listed]
    assert pairs == [(None, None), ("mond", "de"), ("mond", "en"), ("sonne", "en")]
    assert listed[0]["url"] == "http://testserver/api/v1/bulk/all.json"
    assert listed[1]["url"] == "http://testserver/api/v1/bulk/mond/de.json"
    assert all(f["size"] is None and f["cursor"] is None for f in listed)  # asked for, not made yet

    run_background_tasks()
    listed = get_json(client, "/api/v1/bulk/")
    for item in listed:
        response = client.get(item["url"])
        body = content_of(response)
        assert response.status_code == 200 and len(body) == item["size"]
        import hashlib

        assert hashlib.sha256(body).hexdigest() == item["sha256"]
        assert json.loads(body)["cursor"] == item["cursor"]


def test_the_file_of_everything_holds_what_the_lists_hold_and_no_draft(client, two_games):
    document = bulk_file(client, "/api/v1/bulk/all.json")
    assert (document["format"], document["game"], document["language"]) == (1, None, None)
    assert mirror_from(document).as_lists() == paged(client)
    assert "GEHEIM" not in json.dumps(document)


def test_a_game_and_language_file_holds_only_those(client, two_games):
    document = bulk_file(client, "/api/v1/bulk/mond/de.json")
    assert {e["title"] for e in document["entries"]} == {"Zug", "Karte"}
    assert [g["slug"] for g in document["games"]] == ["mond"]
    assert len(document["errata"]) == 1 and len(document["questions"]) == 1
    assert get_json(client, "/api/v1/bulk/mond/pl.json", status=404)["detail"]
    assert get_json(client, "/api/v1/bulk/mond/xx.json", status=404)["detail"]
    assert get_json(client, "/api/v1/bulk/nowhere/de.json", status=404)["detail"]


def test_one_file_and_the_feed_from_its_cursor_keep_an_exact_mirror(client, two_games):
    moon, sun = two_games
    mirror = mirror_from(bulk_file(client, "/api/v1/bulk/all.json"))
    zug = Entry.objects.get(game=moon, title="Zug")
    zug.title = "Spielzug"
    zug.save()
    Entry.objects.get(game=moon, title="Karte").delete()
    draft = Entry.objects.get(title="Entwurf")
    draft.status = Status.PUBLISHED
    draft.save()
    make_erratum(game=sun, language="en", title="Ray fix", affects=[Entry.objects.get(title="Ray")])
    mirror.follow(client)
    assert mirror.as_lists() == paged(client)


def test_not_made_yet_is_a_json_503_and_made_it_is_served_like_a_static_file(client, two_games):
    response = client.get("/api/v1/bulk/all.json")
    assert response.status_code == 503 and response["Retry-After"]
    assert response.json()["detail"]
    run_background_tasks()
    plain = client.get("/api/v1/bulk/all.json")
    body = content_of(plain)
    packed = client.get("/api/v1/bulk/all.json", headers={"accept-encoding": "gzip"})
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(content_of(packed)) == body
    again = client.get("/api/v1/bulk/all.json", headers={"if-none-match": plain["ETag"]})
    assert again.status_code == 304
    part = client.get("/api/v1/bulk/all.json", headers={"range": "bytes=0-9"})
    assert part.status_code == 206 and content_of(part) == body[:10]
    # Any Accept gets the file (it is JSON whatever the client prefers).
    assert client.get("/api/v1/bulk/all.json", headers={"accept": "text/html"}).status_code == 200


def test_an_unpublished_text_is_not_served_from_a_file_made_before(client, two_games):
    moon, _sun = two_games
    bulk_file(client, "/api/v1/bulk/mond/de.json")
    bulk_file(client, "/api/v1/bulk/all.json")
    karte = Entry.objects.get(game=moon, title="Karte")
    karte.status = Status.DRAFT
    karte.save()
    assert client.get("/api/v1/bulk/mond/de.json").status_code == 503
    assert client.get("/api/v1/bulk/all.json").status_code == 503
    run_background_tasks()
    assert "Eine Karte" not in json.dumps(bulk_file(client, "/api/v1/bulk/all.json"))


def test_bulk_downloads_never_count_against_the_api_rate(client, two_games):
    """Stored bytes, the cheap way to a full copy (the manual): 30 downloads at 20 a minute
    get no 429, where the lists are limited."""
    from django.core.cache import cache
    from django.test import override_settings

    bulk_file(client, "/api/v1/bulk/mond/de.json")  # made
    cache.clear()
    with override_settings(API_RATE="20/minute"):
        for n in range(30):
            response = client.get("/api/v1/bulk/mond/de.json", headers={"accept-encoding": "gzip"})
            assert response.status_code == 200, (n, response.status_code)
        statuses = [client.get(f"/api/v1/entries/?page_size={n + 1}").status_code for n in range(25)]
    assert 429 in statuses
