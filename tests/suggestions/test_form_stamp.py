"""The form's signed ``started`` stamp (rules.pages.suggestion_form): it belongs to one
item and one visitor (their CSRF cookie's secret) and lives an hour, so one stamp cannot
serve a script for a day, on every item, from every connection. A stamp that does not fit
is a form error that says why, with the text kept, never a 500."""

from http import HTTPStatus

import pytest
from django.test import Client

from rules.moderation.models import Suggestion
from rules.pages.suggestion_form import MAX_FORM_AGE
from tests.factories import make_entry, make_erratum, make_game, written_together
from tests.module_world import fixtures

from .sending import fields, hidden_value, later, opened

pytestmark = pytest.mark.django_db

URL = "/en/games/blue-moon/rules/exhaust/suggest/"
READY = "/en/games/blue-moon/rules/ready/suggest/"
ERRATUM = "/en/games/blue-moon/errata/exhaust/suggest/"
PROPOSAL = "Turn the card sideways. It is exhausted."


@written_together
def build_game():
    game = make_game(slug="blue-moon", name="Blue Moon")
    make_entry(game=game, title="Exhaust", slug="exhaust", body="Turn the card sideways. It is exausted.")
    make_entry(game=game, title="Ready", slug="ready", body="Turn it upright.")
    make_erratum(game=game, title="Exhaust", slug="exhaust", corrected_text="Exhausted cards cannot attack.")
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def refused_with(response, message: str) -> str:
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    assert message in html
    assert f">\n{PROPOSAL}</textarea>" in html  # the text is kept
    return html


@pytest.mark.parametrize("other", [READY, ERRATUM])
def test_a_stamp_from_another_item_is_a_form_error(client, game, other):
    shown = opened(client, URL)
    with later():
        response = client.post(other, fields(started=shown["started"], proposal=PROPOSAL))
    refused_with(response, "This form was opened for another item.")
    assert not Suggestion.objects.exists()


def test_a_stamp_from_another_visitor_is_a_form_error(client, game):
    shown = opened(client, URL)
    stranger = Client()
    opened(stranger, URL)  # a visitor of their own, with their own CSRF cookie
    with later():
        response = stranger.post(URL, fields(**shown, proposal=PROPOSAL))
        refused_with(response, "This form was opened in another browser session.")
        cookieless = Client().post(URL, fields(**shown, proposal=PROPOSAL))
        refused_with(cookieless, "This form was opened in another browser session.")
    assert not Suggestion.objects.exists()
    # The page sent back starts the form again for this visitor: sent again, it goes through.
    fresh = hidden_value(response.content.decode(), "started")
    with later(2 * 10):
        again = stranger.post(URL, fields(**{**shown, "started": fresh}, proposal=PROPOSAL))
    assert again.status_code == HTTPStatus.FOUND
    assert Suggestion.objects.count() == 1


def test_a_stamp_lives_an_hour(client, game):
    shown = opened(client, URL)
    with later(MAX_FORM_AGE + 60):
        response = client.post(URL, fields(**shown, proposal=PROPOSAL))
    html = refused_with(response, "This form was open for too long.")
    assert not Suggestion.objects.exists()
    fresh = hidden_value(html, "started")
    assert fresh != shown["started"]
    shown = opened(client, URL)
    with later(MAX_FORM_AGE - 60):
        assert client.post(URL, fields(**shown, proposal=PROPOSAL)).status_code == HTTPStatus.FOUND
    assert MAX_FORM_AGE == 60 * 60


@pytest.mark.parametrize("started", ["", "1700000000", "forged:stamp", "eyJ0IjoxfQ:1:bad"])
def test_a_missing_or_forged_stamp_is_a_form_error(client, game, started):
    shown = opened(client, URL)
    with later():
        response = client.post(URL, fields(**{**shown, "started": started}, proposal=PROPOSAL))
    assert response.status_code == HTTPStatus.OK and "errorlist" in response.content.decode()
    assert not Suggestion.objects.exists()


def test_the_messages_speak_the_players_language(client, game):
    shown = opened(client, "/de/games/blue-moon/rules/exhaust/suggest/")
    with later():
        response = client.post(READY.replace("/en/", "/de/"), fields(started=shown["started"], proposal=PROPOSAL))
    refused_with(response, "Dieses Formular wurde für einen anderen Text geöffnet.")
