"""/api/v1/errata/: corrections, their rendered text and the entries they affect."""

import datetime
from http import HTTPStatus

import pytest

from rules.content.models import Erratum
from rules.content.querysets import Status
from tests.factories import make_entry, make_erratum, make_game

from .conftest import BASE, changed_at, get_json, result_ids, set_changed_at

HIDDEN = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]


def test_erratum_detail_contract(client, world):
    erratum, du, source = world["erratum"], world["du"], world["source"]
    erratum.published_on = datetime.date(2024, 2, 29)
    erratum.kind = Erratum.Kind.CLARIFICATION
    erratum.save()
    du_page = f"{BASE}/de/games/marvel-champions/rules/du-und-dein/"

    data = get_json(client, f"/api/v1/errata/{erratum.pk}/")

    assert data == {
        "id": erratum.pk,
        "url": f"{BASE}/api/v1/errata/{erratum.pk}/",
        "html_url": f"{BASE}/de/games/marvel-champions/errata/#korrektur-zu-du",
        "game": "marvel-champions",
        "language": "de",
        "title": "Korrektur zu Du",
        "slug": "korrektur-zu-du",
        "kind": "clarification",
        "original_text": "Du bist immer gemeint.",
        "corrected_text": "Gemeint ist der Spieler, der [[Du und Dein|die Karte]] kontrolliert.",
        # [[links]] resolve to the entries the erratum affects
        "corrected_html": (
            f'<p>Gemeint ist der Spieler, der <a class="xref" href="{du_page}">die Karte</a>'
            " kontrolliert.</p>"
        ),
        "affects": [
            {
                "id": du.pk,
                "title": "Du und Dein",
                "slug": "du-und-dein",
                "url": f"{BASE}/api/v1/entries/{du.pk}/",
            }
        ],
        "source": {
            "id": source.pk,
            "title": "Referenzhandbuch",
            "kind": "rules_reference",
            "official": True,
            "url": f"{BASE}/api/v1/sources/{source.pk}/",
        },
        "page": "3",
        "published_on": "2024-02-29",
        "updated_at": changed_at(erratum),
    }


def test_html_url_of_a_language_without_ui_uses_the_default_ui(client, db):
    erratum = make_erratum(game=make_game(slug="blue-moon"), language="fr", title="Correction")
    data = get_json(client, f"/api/v1/errata/{erratum.pk}/")
    assert data["html_url"] == f"{BASE}/en/games/blue-moon/errata/#correction"


def test_filters(client, world):
    other = make_erratum(
        game=make_game(slug="blue-moon"),
        language="nl",
        title="Wijziging",
        kind=Erratum.Kind.RULE_CHANGE,
    )
    mine = world["erratum"].pk
    cases = {
        "game=blue-moon": [other.pk],
        "game=no-such-game": [],
        "language=de": [mine],
        "language=en": [],
        "kind=rule_change": [other.pk],
        "kind=clarification": [],
    }
    for query, expected in cases.items():
        assert result_ids(client, f"/api/v1/errata/?{query}") == expected, query


def test_filter_updated_after(client, world):
    set_changed_at(Erratum, datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC))
    assert result_ids(client, "/api/v1/errata/?updated_after=2023-12-31") == [world["erratum"].pk]
    assert result_ids(client, "/api/v1/errata/?updated_after=2024-01-02") == []


@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_erratum_is_not_listed_and_its_detail_is_404(client, world, status):
    hidden = make_erratum(game=world["game"], language="de", status=status)
    assert result_ids(client, "/api/v1/errata/") == [world["erratum"].pk]
    data = get_json(client, f"/api/v1/errata/{hidden.pk}/", status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "No Erratum matches the given query."}


@pytest.mark.parametrize("status", HIDDEN)
def test_affects_lists_only_published_entries(client, world, status):
    hidden = make_entry(game=world["game"], language="de", title="Geheim", status=status)
    world["erratum"].affects.add(hidden)
    data = get_json(client, f"/api/v1/errata/{world['erratum'].pk}/")
    assert [entry["id"] for entry in data["affects"]] == [world["du"].pk]
