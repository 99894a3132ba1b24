"""A group plays with cards in two languages: a player opens an entry beside its
version in the other language, from the entry's "Other languages" list. Two columns on
a desktop, stacked on a phone. Screenshots: see tests/browser/screens.py."""

import pytest
from playwright.sync_api import expect

from tests.browser.screens import SIZES, no_axe_violations, no_horizontal_scroll, shot
from tests.factories import make_entry, make_game, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
@written_together
def world():
    game = make_game(slug="moon-guard", name="Moon Guard", localized_names={"de": "Mondwache"})
    english = make_entry(
        game=game,
        title="Ownership and Control",
        body="The **owner** of a card is the player who started the game with it in their deck.\n\n"
        "- The **controller** of a card is the player who has it in their play area.\n"
        "- A card you control but do not own returns to its owner when it leaves play.",
    )
    make_entry(
        game=game,
        language="de",
        title="Besitz und Kontrolle",
        body="Der **Besitzer** einer Karte ist der Spieler, der das Spiel mit ihr in seinem Deck begonnen hat.\n\n"
        "- Der **Kontrolleur** einer Karte ist der Spieler, der sie in seinem Spielbereich hat.\n"
        "- Eine Karte, die du kontrollierst, aber nicht besitzt, kehrt zu ihrem Besitzer zurück, "
        "wenn sie das Spiel verlässt.",
        translation_key=english.translation_key,
    )
    make_entry(game=game, language="pl", title="Własność i kontrola", body="**Właściciel** karty …",
               translation_key=english.translation_key)  # fmt: skip
    return game


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_side_by_side_from_the_other_languages_list(live_server, browser, world, size):
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    page.goto(f"{live_server.url}/en/games/moon-guard/rules/ownership-and-control/")
    page.locator(".entry-meta a.compare-link", has_text="side by side").first.click()
    expect(page).to_have_url(f"{live_server.url}/en/games/moon-guard/rules/ownership-and-control/compare/de/")

    columns = page.locator(".parallel-column")
    expect(columns).to_have_count(2)
    left, right = columns.nth(0), columns.nth(1)
    expect(left).to_have_attribute("lang", "en")
    expect(right).to_have_attribute("lang", "de")
    expect(left.locator("h2")).to_have_text("Ownership and Control")
    expect(right.locator("h2")).to_have_text("Besitz und Kontrolle")
    expect(right.locator("strong").first).to_have_text("Besitzer")
    a, b = left.bounding_box(), right.bounding_box()
    if size == "desktop":  # two columns, tops aligned
        assert b["x"] >= a["x"] + a["width"] and abs(a["y"] - b["y"]) < 1, (a, b)
    else:  # stacked, full width
        assert b["y"] >= a["y"] + a["height"] and abs(a["x"] - b["x"]) < 1, (a, b)
        assert a["width"] > 300
    no_horizontal_scroll(page)
    shot(page, f"parallel-{size}", full_page=True)
    no_axe_violations(page)

    # Swap, then compare with the third language.
    page.get_by_role("link", name="Swap the columns").click()
    expect(page.locator(".parallel-column").nth(0)).to_have_attribute("lang", "de")
    page.goto(f"{live_server.url}/en/games/moon-guard/rules/ownership-and-control/compare/de/")
    page.locator(".parallel-links a", has_text="Polski").click()
    expect(page.locator(".parallel-column").nth(1)).to_have_attribute("lang", "pl")
    context.close()


def test_no_such_version_is_a_404_in_the_reader_s_language(live_server, page, world):
    response = page.goto(f"{live_server.url}/de/games/moon-guard/rules/ownership-and-control/compare/nl/")
    assert response.status == 404
    expect(page.locator("h1")).to_have_text("Seite nicht gefunden")
