"""/api/v1/sources/: the documents entries, errata and questions cite."""

import datetime

from rules.content.models import Source
from tests.factories import make_game, make_source

from .conftest import BASE, changed_at, get_json, result_ids, set_changed_at


def test_source_detail_contract(client, world):
    source = world["source"]
    source.refresh_from_db()
    data = get_json(client, f"/api/v1/sources/{source.pk}/")
    assert data == {
        "id": source.pk,
        "url": f"{BASE}/api/v1/sources/{source.pk}/",
        "game": "marvel-champions",
        "language": "de",
        "title": "Referenzhandbuch",
        "kind": "rules_reference",
        "version": "1.6",
        "official": True,
        "source_url": "https://example.org/referenz.pdf",
        "attribution": "Asmodee",
        "releases": [],
        "updated_at": changed_at(source),
    }


def test_sources_list(client, world):
    data = get_json(client, "/api/v1/sources/")
    assert data["count"] == 1
    assert data["results"][0]["title"] == "Referenzhandbuch"


def test_filters(client, world):
    fan = make_source(
        game=make_game(slug="blue-moon"),
        language="nl",
        title="Vertaling",
        kind=Source.Kind.COMMUNITY_TRANSLATION,
        official=False,
    )
    official = world["source"].pk
    cases = {
        "game=blue-moon": [fan.pk],
        "game=no-such-game": [],
        "language=de": [official],
        "language=fr": [],
        "kind=community_translation": [fan.pk],
        "kind=errata": [],
        "official=true": [official],
        "official=false": [fan.pk],
    }
    for query, expected in cases.items():
        assert result_ids(client, f"/api/v1/sources/?{query}") == expected, query


def test_filter_updated_after(client, world):
    set_changed_at(Source, datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC))
    assert result_ids(client, "/api/v1/sources/?updated_after=2023-12-31") == [world["source"].pk]
    assert result_ids(client, "/api/v1/sources/?updated_after=2024-01-01T00:00:00Z") == []
