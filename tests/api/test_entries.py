"""/api/v1/entries/: the entry contract, its filters, and that only published items show."""

import datetime
from http import HTTPStatus

import pytest

from rules.content.models import Entry
from rules.content.querysets import Status
from rules.moderation.translations import mark_up_to_date
from tests.factories import make_entry, make_erratum, make_game, make_question

from .conftest import BASE, changed_at, get_json, result_ids, set_changed_at

HIDDEN = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]


def api(entry):
    return f"{BASE}/api/v1/entries/{entry.pk}/"


def page(entry):
    return f"{BASE}/{entry.language}/games/{entry.game.slug}/rules/{entry.slug}/"


def test_entry_detail_contract(client, world):
    du, besitz, section, source = world["du"], world["besitz"], world["section"], world["source"]
    referrer, you = world["referrer"], world["you"]
    erratum, question = world["erratum"], world["question"]
    du.refresh_from_db()
    besitz_link = {
        "id": besitz.pk,
        "title": "Besitz und Kontrolle",
        "slug": "besitz-und-kontrolle",
        "url": api(besitz),
        "html_url": page(besitz),
    }

    data = get_json(client, f"/api/v1/entries/{du.pk}/")

    assert data == {
        "id": du.pk,
        "url": api(du),
        "html_url": f"{BASE}/de/games/marvel-champions/rules/du-und-dein/",
        "game": "marvel-champions",
        "language": "de",
        "title": "Du und Dein",
        "slug": "du-und-dein",
        "aliases": ["Du", "Dein"],
        "kind": "glossary",
        "number": "2.3",
        "parent": {
            "id": section.pk,
            "title": "Spielbegriffe",
            "slug": "spielbegriffe",
            "number": "2",
            "url": api(section),
        },
        "body": "Meint den Spieler, der die [[Kontrolle]] hat. Siehe [[Fehlt noch|dort]].",
        "body_html": (
            "<p>Meint den Spieler, der die "
            f'<a class="xref" href="{page(besitz)}">Kontrolle</a> hat.'
            ' Siehe <span class="xref xref-wanted">dort</span>.</p>'
        ),
        # see-also in written order first, then the body's [[links]]; wanted ones are null
        "cross_references": [
            {"label": "Besitz und Kontrolle", "in_body": False, "target": besitz_link},
            {"label": "Gibt es nicht", "in_body": False, "target": None},
            {"label": "Kontrolle", "in_body": True, "target": besitz_link},
            {"label": "Fehlt noch", "in_body": True, "target": None},
        ],
        "referenced_by": [
            {"id": referrer.pk, "title": "Spieler", "slug": "spieler", "url": api(referrer)}
        ],
        "children": [],
        "translations": [
            {
                "id": you.pk,
                "language": "en",
                "title": "You and Your",
                "slug": "you-and-your",
                "url": api(you),
                "html_url": f"{BASE}/en/games/marvel-champions/rules/you-and-your/",
            }
        ],
        "errata": [
            {
                "id": erratum.pk,
                "title": "Korrektur zu Du",
                "url": f"{BASE}/api/v1/errata/{erratum.pk}/",
            }
        ],
        "faq_questions": [
            {
                "id": question.pk,
                "question": "Bin ich gemeint?",
                "url": f"{BASE}/api/v1/faq/{question.pk}/",
            }
        ],
        "source": {
            "id": source.pk,
            "title": "Referenzhandbuch",
            "kind": "rules_reference",
            "official": True,
            "url": f"{BASE}/api/v1/sources/{source.pk}/",
        },
        "page": "12",
        "is_fragment": False,
        # Its erratum's passage is not in the text: listed, nothing applied.
        "corrections": {
            "corrected_html": None,
            "printed_html": None,
            "errata": [
                {"id": erratum.pk, "title": "Korrektur zu Du", "url": f"{BASE}/api/v1/errata/{erratum.pk}/",
                 "footnote": None, "places": 0},
            ],
        },  # fmt: skip
        "translation_status": None,
        "navigation": {
            "sequence": "glossary",
            "previous": {**{k: v for k, v in besitz_link.items() if k != "html_url"}, "number": ""},
            "next": {"id": referrer.pk, "title": "Spieler", "slug": "spieler", "number": "", "url": api(referrer)},
            "ancestors": [],
        },
        "anchors": [],
        "previous_numbers": [],
        "as_of": None,
        "removed_in": None,
        "updated_at": changed_at(du),
    }


def test_an_entry_shows_its_text_as_corrected_its_rules_and_its_status_as_a_translation(client, db):
    game = make_game(slug="magie")
    rules = make_entry(
        game=game, title="Casting Spells", kind=Entry.Kind.SECTION, number="601",
        body="**601.1** Cast a spell from your hand.\n\n**601.2a** Pay its cost.",
    )  # fmt: skip
    erratum = make_erratum(
        game=game, title="Cost errata", original_text="Pay its cost.", corrected_text="Pay its total cost.",
        affects=[rules],
    )  # fmt: skip
    translated = make_entry(
        game=game, language="de", title="Zauber wirken", body="Zahle die Kosten.", translation_key=rules.translation_key
    )
    mark_up_to_date(translated, None, original=rules)  # as a moderator marks it

    data = get_json(client, f"/api/v1/entries/{rules.pk}/")
    corrected = data["corrections"]
    assert "<ins" in corrected["corrected_html"] and "total" in corrected["corrected_html"]
    assert "<del" in corrected["printed_html"]
    assert [(e["id"], e["footnote"], e["places"]) for e in corrected["errata"]] == [(erratum.pk, 1, 1)]
    page = f"{BASE}/en/games/magie/rules/casting-spells/"
    assert data["anchors"] == [
        {"number": "601.1", "html_url": f"{page}#601.1"},
        {"number": "601.2a", "html_url": f"{page}#601.2a"},
    ]

    status = get_json(client, f"/api/v1/entries/{translated.pk}/")["translation_status"]
    assert status["original"]["id"] == rules.pk and status["original"]["language"] == "en"
    assert status["up_to_date"] is True and status["checked_on"]
    rules.body += "\n\n**601.3** A new rule."
    rules.save()
    assert get_json(client, f"/api/v1/entries/{translated.pk}/")["translation_status"]["up_to_date"] is False


def test_section_lists_its_children_and_a_child_its_parent(client, world):
    section = get_json(client, f"/api/v1/entries/{world['section'].pk}/")
    assert section["kind"] == "section"
    assert section["parent"] is None
    assert [child["id"] for child in section["children"]] == [world["du"].pk]
    assert section["children"][0]["number"] == "2.3"


def test_an_entry_linking_twice_is_listed_once_in_referenced_by(client, world):
    # "Du und Dein" links "Besitz und Kontrolle" by see-also and by [[Kontrolle]].
    data = get_json(client, f"/api/v1/entries/{world['besitz'].pk}/")
    assert [ref["id"] for ref in data["referenced_by"]] == [world["du"].pk]


def test_entries_list_is_paginated_and_ordered(client, world):
    data = get_json(client, "/api/v1/entries/?game=marvel-champions&language=de")
    assert data["count"] == 4
    assert data["next"] is None and data["previous"] is None
    assert [item["title"] for item in data["results"]] == [
        "Besitz und Kontrolle",
        "Du und Dein",
        "Spielbegriffe",
        "Spieler",
    ]
    # list items have the full detail shape, translations included
    du = data["results"][1]
    assert du == get_json(client, f"/api/v1/entries/{world['du'].pk}/")


def test_entries_list_pages_follow_next_links(client, world):
    first = get_json(client, "/api/v1/entries/?page_size=2")
    assert first["count"] == 5 and len(first["results"]) == 2
    assert first["next"] == f"{BASE}/api/v1/entries/?page=2&page_size=2"
    second = get_json(client, first["next"])
    assert second["previous"] == f"{BASE}/api/v1/entries/?page_size=2"
    seen = [item["id"] for item in first["results"] + second["results"]]
    assert len(set(seen)) == 4


# --- Filters: one hit and one miss each ------------------------------------------------


@pytest.fixture
def other_game_entry(world):
    return make_entry(game=make_game(slug="blue-moon"), language="de", title="Kampf")


def test_filter_game(client, world, other_game_entry):
    assert result_ids(client, "/api/v1/entries/?game=blue-moon") == [other_game_entry.pk]
    assert result_ids(client, "/api/v1/entries/?game=no-such-game") == []


def test_filter_language(client, world):
    assert result_ids(client, "/api/v1/entries/?language=en") == [world["you"].pk]
    assert result_ids(client, "/api/v1/entries/?language=fr") == []


def test_filter_kind(client, world):
    assert result_ids(client, "/api/v1/entries/?kind=section") == [world["section"].pk]
    assert result_ids(client, "/api/v1/entries/?kind=ruling") == []


def test_filter_slug_with_game_and_language_finds_one_entry(client, world, other_game_entry):
    # the same slug in another game is not a match
    make_entry(game=other_game_entry.game, language="de", title="Du und Dein")
    url = "/api/v1/entries/?game=marvel-champions&language=de&slug="
    assert result_ids(client, url + "du-und-dein") == [world["du"].pk]
    assert result_ids(client, url + "no-such-slug") == []


def test_filter_slug_finds_an_entry_by_a_former_slug(client, world, other_game_entry):
    """An old citation still resolves: the entry is found by the slug it had, and its
    JSON shows the current one."""
    du = world["du"]
    du.title = "Du, Dein und Deins"
    du.save()
    url = "/api/v1/entries/?game=marvel-champions&language=de&slug="
    [found] = get_json(client, url + "du-und-dein")["results"]
    assert (found["id"], found["slug"]) == (du.pk, "du-dein-und-deins")
    assert result_ids(client, url + "du-dein-und-deins") == [du.pk]
    # another game's former slug is no match here
    other = other_game_entry
    other.title = "Angriff"
    other.save()
    assert result_ids(client, url + "kampf") == []


@pytest.fixture
def dated(world):
    """Every entry last changed on 1 January 2024, "Du und Dein" on 1 June 2024."""
    jan = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    set_changed_at(Entry, jan)
    set_changed_at(Entry, jan.replace(month=6), pk=world["du"].pk)
    return world


@pytest.mark.parametrize(
    ("value", "hit"),
    [
        ("2024-03-01", True),  # a date means its midnight, UTC
        ("2024-06-01", False),  # strictly after: the item at that very moment is not repeated
        ("2024-05-31T23:59:59Z", True),
        ("2024-06-01T00:00:00Z", False),
        ("2024-06-01T01:00:00%2B02:00", True),  # 23:00 UTC the day before
        ("2024-06-01T03:00:00%2B02:00", False),  # 01:00 UTC
        # an unencoded "+" arrives as a space; the offset still counts
        ("2024-06-01T01:00:00+02:00", True),
    ],
)
def test_filter_updated_after(client, dated, value, hit):
    ids = result_ids(client, f"/api/v1/entries/?updated_after={value}")
    assert ids == ([dated["du"].pk] if hit else [])


# --- Only published items, at the top level and nested ---------------------------------


@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_entry_is_not_listed_and_its_detail_is_404(client, world, status):
    hidden = make_entry(game=world["game"], language="de", title="Geheim", status=status)
    assert hidden.pk not in result_ids(client, "/api/v1/entries/?page_size=100")
    data = get_json(client, f"/api/v1/entries/{hidden.pk}/", status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "No Entry matches the given query."}


@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_items_are_never_nested_in_an_entry(client, world, status):
    game, du, section = world["game"], world["du"], world["section"]
    # one hidden item in every relation an entry shows
    key = du.translation_key
    make_entry(game=game, language="pl", title="Ty", translation_key=key, status=status)
    make_erratum(game=game, language="de", title="Entwurf", affects=[du], status=status)
    make_question(game=game, language="de", related_entries=[du], status=status)
    make_entry(game=game, language="de", title="Verweis", see_also=["Du und Dein"], status=status)
    make_entry(game=game, language="de", title="Unterpunkt", parent=section, status=status)
    make_entry(game=game, language="de", title="Geheim", status=status)
    du.see_also = [*du.see_also, "Geheim"]
    du.save()  # "Geheim" names only a hidden entry

    data = get_json(client, f"/api/v1/entries/{du.pk}/")

    assert [t["language"] for t in data["translations"]] == ["en"]
    assert [e["id"] for e in data["errata"]] == [world["erratum"].pk]
    assert [q["id"] for q in data["faq_questions"]] == [world["question"].pk]
    assert [r["id"] for r in data["referenced_by"]] == [world["referrer"].pk]
    targets = {ref["label"]: ref["target"] for ref in data["cross_references"]}
    assert targets["Geheim"] is None
    section_data = get_json(client, f"/api/v1/entries/{section.pk}/")
    assert [c["id"] for c in section_data["children"]] == [du.pk]


@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_parent_is_null(client, world, status):
    section = world["section"]
    assert get_json(client, f"/api/v1/entries/{world['du'].pk}/")["parent"]["id"] == section.pk
    section.status = status
    section.save()
    assert get_json(client, f"/api/v1/entries/{world['du'].pk}/")["parent"] is None


@pytest.mark.parametrize("status", HIDDEN)
def test_unpublished_target_is_not_shown(client, world, status):
    besitz = world["besitz"]
    besitz.status = status
    besitz.save()
    data = get_json(client, f"/api/v1/entries/{world['du'].pk}/")
    assert [ref["target"] for ref in data["cross_references"]] == [None, None, None, None]


@pytest.mark.parametrize("status", HIDDEN)
def test_unpublishing_a_target_unlinks_it_from_stored_bodies(client, world, status):
    besitz = world["besitz"]
    assert "besitz-und-kontrolle" in get_json(client, f"/api/v1/entries/{world['du'].pk}/")["body_html"]
    besitz.status = status
    besitz.save()
    data = get_json(client, f"/api/v1/entries/{world['du'].pk}/")
    assert "besitz-und-kontrolle" not in data["body_html"]
    assert '<span class="xref xref-wanted">Kontrolle</span>' in data["body_html"]


# --- body_html is safe ---------------------------------------------------------------


def test_body_html_is_sanitised(client, db):
    entry = make_entry(
        body=(
            "Text <script>alert(1)</script>\n\n"
            "<img src=x onerror=alert(1)>\n\n"
            "[x](javascript:alert(1)) and [ok](https://example.org/)"
        )
    )
    html = get_json(client, f"/api/v1/entries/{entry.pk}/")["body_html"]
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()  # shown as text (rules.shared.markdown): no element, no handler
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "javascript:" not in html.lower()
    assert '<a href="https://example.org/">ok</a>' in html  # ordinary links survive


@pytest.mark.parametrize(
    "value",
    [
        datetime.datetime(2026, 11, 24, 10, 5, 3, 123456, tzinfo=datetime.UTC),
        datetime.datetime(2026, 11, 24, 10, 5, 3, tzinfo=datetime.UTC),
        datetime.datetime(2024, 3, 31, 2, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
    ],
)
def test_an_entry_row_writes_its_time_as_every_timestamp_field_does(value):
    """An entry's updated_at (built without its declared field) and the other resources'
    (DRF's DateTimeField with the settings' format and time zone) read alike."""
    from rest_framework import serializers

    from rules.api.serializers import timestamp

    assert timestamp(value) == serializers.DateTimeField().to_representation(value)
