"""A reader switches language on an entry and lands on the same entry."""

import pytest

from tests.factories import make_entry, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_switch_from_german_to_english_lands_on_the_translation(live_server, page, tmp_path):
    game = make_game(slug="switch-game", name="Switch Game")
    german = make_entry(game=game, language="de", title="Besitz und Kontrolle", body="Der **Besitzer** einer Karte.")
    make_entry(
        game=game,
        language="en",
        title="Ownership and Control",
        body="The **owner** of a card.",
        translation_key=german.translation_key,
    )
    make_entry(game=game, language="en", title="Decoy", body="Not this one.")

    page.goto(f"{live_server.url}/de/games/switch-game/rules/besitz-und-kontrolle/")
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.locator("h1").inner_text() == "Besitz und Kontrolle"

    page.locator("nav.language-switcher").get_by_role("link", name="English").click()
    page.wait_for_load_state()

    assert page.url == f"{live_server.url}/en/games/switch-game/rules/ownership-and-control/"
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").inner_text() == "Ownership and Control"
    assert page.locator("article.entry strong").inner_text() == "owner"
    page.screenshot(path=str(tmp_path / "entry-en.png"), full_page=True)
