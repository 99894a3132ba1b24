"""/api/v1/faq/: questions, their rendered answers and the entries they are about."""

import datetime
from http import HTTPStatus

import pytest

from faq.models import Question
from rules.content.querysets import Status
from tests.factories import make_entry, make_game, make_question

from .conftest import BASE, changed_at, get_json, result_ids, set_changed_at

HIDDEN = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]


def test_question_detail_contract(client, world):
    question, du, source = world["question"], world["du"], world["source"]
    question.refresh_from_db()
    du_page = f"{BASE}/de/games/marvel-champions/rules/du-und-dein/"

    data = get_json(client, f"/api/v1/faq/{question.pk}/")

    assert data == {
        "id": question.pk,
        "url": f"{BASE}/api/v1/faq/{question.pk}/",
        "html_url": f"{BASE}/de/games/marvel-champions/faq/#bin-ich-gemeint",
        "game": "marvel-champions",
        "language": "de",
        "question": "Bin ich gemeint?",
        "slug": "bin-ich-gemeint",
        "answer": "Ja, siehe **[[Dein]]**.",
        # [[Dein]] is an alias of a related entry
        "answer_html": (
            f'<p>Ja, siehe <strong><a class="xref" href="{du_page}">Dein</a></strong>.</p>'
        ),
        "topic": "Grundlagen",
        "related_entries": [
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
        "page": "4",
        "updated_at": changed_at(question),
    }


def test_filters(client, world):
    # Questions have no kind: "topic" is their grouping.
    other = make_question(game=make_game(slug="blue-moon"), language="nl", topic="Kaarten")
    mine = world["question"].pk
    cases = {
        "game=blue-moon": [other.pk],
        "game=no-such-game": [],
        "language=de": [mine],
        "language=en": [],
        "topic=Grundlagen": [mine],
        "topic=Kampf": [],
    }
    for query, expected in cases.items():
        assert result_ids(client, f"/api/v1/faq/?{query}") == expected, query


def test_filter_updated_after(client, world):
    set_changed_at(Question, datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC))
    assert result_ids(client, "/api/v1/faq/?updated_after=2023-12-31") == [world["question"].pk]
    assert result_ids(client, "/api/v1/faq/?updated_after=2024-01-02") == []


@pytest.mark.parametrize("status", HIDDEN)
def test_hidden_question_is_not_listed_and_its_detail_is_404(client, world, status):
    hidden = make_question(game=world["game"], language="de", status=status)
    assert result_ids(client, "/api/v1/faq/") == [world["question"].pk]
    data = get_json(client, f"/api/v1/faq/{hidden.pk}/", status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "No Question matches the given query."}


@pytest.mark.parametrize("status", HIDDEN)
def test_related_entries_lists_only_published_entries(client, world, status):
    hidden = make_entry(game=world["game"], language="de", title="Geheim", status=status)
    world["question"].related_entries.add(hidden)
    data = get_json(client, f"/api/v1/faq/{world['question'].pk}/")
    assert [entry["id"] for entry in data["related_entries"]] == [world["du"].pk]
