"""Limits a stranger cannot turn against players (rules.moderation.suggestion_limits):
what one connection spends on an item is its own, so no one else's sends refuse a player
who has not sent on that item; previews have a limit of their own and the minimum fill
time too."""

import re
from http import HTTPStatus

import pytest

from rules.moderation import suggestion_limits, suggestions
from rules.moderation.models import Suggestion
from tests.factories import make_entry, make_game
from tests.module_world import fixtures

from .sending import fields, later, opened, send

pytestmark = pytest.mark.django_db

BODY = "Turn the card sideways. It is exausted."
URL = "/en/games/blue-moon/rules/exhaust/suggest/"
OTHER_URL = "/en/games/blue-moon/rules/ready/suggest/"


def build_entry():
    game = make_game(slug="blue-moon", name="Blue Moon")
    make_entry(game=game, title="Ready", slug="ready", body="Turn it upright.")
    return make_entry(game=game, title="Exhaust", slug="exhaust", body=BODY)


# Written once for the module's tests that read it (tests.module_world).
_entry_of_the_module, entry = fixtures(build_entry, "entry")


def test_twenty_sends_from_four_addresses_do_not_refuse_a_fifth(client, entry):
    """The attack: a stranger sends from a few connections until the item's counter is
    full. A player who has not sent on the item is not refused."""
    shown = opened(client, URL)
    with later():
        statuses = [
            client.post(URL, fields(**shown, comment=f"Spam {n} from {a}."), REMOTE_ADDR=f"203.0.113.{a}").status_code
            for a in range(1, 5)
            for n in range(5)
        ]
        assert statuses == [HTTPStatus.FOUND] * 20
        player = client.post(URL, fields(**shown, comment="A real typo."), REMOTE_ADDR="198.51.100.50")
    assert player.status_code == HTTPStatus.FOUND
    suggestion = Suggestion.objects.get(comment="A real typo.")
    assert player["Location"] == suggestion.get_absolute_url()
    assert client.get(player["Location"]).status_code == HTTPStatus.OK


def test_one_connection_on_one_item_is_limited_for_the_hour(entry):
    """Per item and address: PER_TARGET an hour, even once the address's own ten-minute
    window has started again; another item, or another address, is not affected."""
    me, someone = suggestions.address_hash("203.0.113.1"), suggestions.address_hash("198.51.100.2")
    hour = 1_000 * suggestion_limits.TARGET_WINDOW  # the start of an hour's window
    for _ in range(suggestion_limits.PER_TARGET):
        assert suggestion_limits.take(me, "entry", entry.pk, now=hour) is None
    next_window = hour + suggestion_limits.ADDRESS_WINDOW  # the address may send again...
    refusal = suggestion_limits.take(me, "entry", entry.pk, now=next_window)
    assert refusal is not None  # ...but not on this item until the hour is over
    assert refusal.minutes == (suggestion_limits.TARGET_WINDOW - suggestion_limits.ADDRESS_WINDOW) // 60
    assert suggestion_limits.take(me, "entry", entry.pk + 1, now=next_window) is None
    assert suggestion_limits.take(someone, "entry", entry.pk, now=next_window) is None
    assert suggestion_limits.take(me, "entry", entry.pk, now=hour + suggestion_limits.TARGET_WINDOW) is None


def test_previews_have_a_limit_of_their_own(client, entry):
    shown = opened(client, URL)
    preview = fields(**shown, proposal=BODY.replace("exausted", "exhausted"), action="preview")
    with later():
        for _ in range(suggestion_limits.PREVIEWS):
            page = client.post(URL, preview)
            assert page.status_code == HTTPStatus.OK
            assert "<ins>exhausted.</ins>" in page.content.decode()
        refused = client.post(URL, preview)
        assert refused.status_code == HTTPStatus.TOO_MANY_REQUESTS
        html = refused.content.decode()
        assert re.search(r"Too many previews from your connection; try again in \d+ minutes?\.", html)
        assert int(refused["Retry-After"]) > 0
        # Sending is counted apart: a player who previewed a lot can still send.
        assert client.post(URL, {**preview, "action": "send"}).status_code == HTTPStatus.FOUND
        # Another connection previews as before.
        assert client.post(URL, preview, REMOTE_ADDR="198.51.100.9").status_code == HTTPStatus.OK
    assert Suggestion.objects.count() == 1


def test_a_preview_sooner_than_a_person_could_is_a_form_error(client, entry):
    shown = opened(client, URL)
    proposal = BODY.replace("exausted", "exhausted")
    page = client.post(URL, fields(**shown, proposal=proposal, action="preview"))
    assert page.status_code == HTTPStatus.OK
    html = page.content.decode()
    assert "That was very quick." in html
    assert "<ins>" not in html  # no diff computed
    assert f">\n{proposal}</textarea>" in html  # what was typed is kept
    with later():
        again = client.post(URL, fields(**shown, proposal=proposal, action="preview"))
    assert "<ins>exhausted.</ins>" in again.content.decode()


def test_forms_with_errors_count_nothing(client, entry):
    for _ in range(suggestion_limits.PREVIEWS + suggestion_limits.PER_ADDRESS + 5):
        assert send(client, URL, kind="", action="preview").status_code == HTTPStatus.OK
        assert send(client, URL, kind="").status_code == HTTPStatus.OK
    assert send(client, URL, action="preview").status_code == HTTPStatus.OK
    assert send(client, URL).status_code == HTTPStatus.FOUND
