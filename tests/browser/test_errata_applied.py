"""A player reads an entry as corrected by its errata, each change marked and linked to
its erratum, switches to the printed text and back without any script, at phone and
desktop sizes. Screenshots: see tests/browser/screens.py."""

from datetime import date

import pytest
from playwright.sync_api import expect

from tests.browser.screens import SIZES, no_axe_violations, no_horizontal_scroll, shot
from tests.factories import make_entry, make_erratum, make_game, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
@written_together
def world():
    game = make_game(slug="harbour-lords", name="Harbour Lords")
    make_entry(game=game, title="Ship", body="A ship carries goods.")
    make_entry(game=game, title="Storm", body="Storms sink ships.")
    trade = make_entry(
        game=game,
        title="Trading",
        number="6",
        body=(
            "On your turn you may trade once with the **market**.\n\n"
            "1. Choose up to 3 goods from your [[Ship]].\n"
            "2. Sell them for 2 coins each.\n"
            "3. Draw a harbour card.\n\n"
            "During a [[Storm]], no player may trade."
        ),
    )
    fixes = [
        make_erratum(game=game, title="Smaller cargo", original_text="Choose up to 3 goods",
                     corrected_text="Choose up to **2** goods", published_on=date(2023, 11, 2), affects=[trade]),
        make_erratum(game=game, title="Storm trading", original_text="During a [[Storm]], no player may trade.",
                     corrected_text="During a [[Storm]], only the first player may trade, and only once.",
                     published_on=date(2024, 4, 18), affects=[trade]),
        make_erratum(game=game, title="Coin value", original_text="Sell them for 3 coins each.",
                     corrected_text="Sell them for 1 coin each.", affects=[trade]),
    ]  # fmt: skip
    return {"game": game, "trade": trade, "fixes": fixes}


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_read_as_corrected_then_as_printed(live_server, browser, world, size):
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    page.goto(f"{live_server.url}/en/games/harbour-lords/rules/trading/")
    cargo, storm, coins = world["fixes"]

    # As corrected: the corrected words, marked, each followed by its erratum's number.
    corrected = page.locator(".body-corrected")
    expect(corrected).to_be_visible()
    expect(page.locator(".body-printed")).to_be_hidden()
    expect(corrected.locator("ins.erratum-change").first).to_have_text("Choose up to ")
    # (The number's link is named by the erratum's title, for screen readers.)
    expect(corrected.locator("li").first).to_have_text("Choose up to 2 goods1 Smaller cargo from your Ship.")
    expect(corrected).to_contain_text("only the first player may trade, and only once.")
    storm_link = corrected.locator("a.xref", has_text="Storm")
    expect(storm_link).to_have_attribute("href", "/en/games/harbour-lords/rules/storm/")
    expect(corrected.locator("a.erratum-ref")).to_have_count(2)
    notice = page.locator(".errata-notice")
    expect(notice).to_contain_text("As corrected by the errata")
    expect(notice.locator("li").nth(0)).to_have_text("Smaller cargo, Nov. 2, 2023")
    expect(notice.locator("li").nth(1)).to_have_text("Storm trading, April 18, 2024")
    # Not found: said so, not guessed ("Sell them for 2 coins" is what the text says).
    expect(notice).to_contain_text("The passage that Coin value replaces was not found in this text")
    expect(corrected).to_contain_text("Sell them for 2 coins each.")
    no_horizontal_scroll(page)
    shot(page, f"errata-applied-{size}-corrected", full_page=True)
    no_axe_violations(page)

    # The printed text, one click away; the replaced passages struck through.
    page.get_by_text("As printed", exact=True).click()
    printed = page.locator(".body-printed")
    expect(printed).to_be_visible()
    expect(corrected).to_be_hidden()
    expect(printed.locator("li").first).to_have_text("Choose up to 3 goods1 Smaller cargo from your Ship.")
    # "Choose up to 3 goods", and the storm line in three pieces (before, in and after its link)
    expect(printed.locator("del.erratum-change")).to_have_count(4)
    shot(page, f"errata-applied-{size}-printed", full_page=True)
    no_axe_violations(page)

    # A change's number leads to its erratum on the page.
    page.get_by_text("As corrected", exact=True).click()
    corrected.locator("a.erratum-ref").nth(1).click()
    expect(page).to_have_url(f"{live_server.url}/en/games/harbour-lords/rules/trading/#erratum-{storm.pk}")
    box = page.locator(f"#erratum-{storm.pk}")
    expect(box).to_be_in_viewport()
    expect(box).to_contain_text("Storm trading")
    shot(page, f"errata-applied-{size}-erratum")
    context.close()


def test_the_switch_works_from_the_keyboard(live_server, page, world, csp_violations):
    page.goto(f"{live_server.url}/en/games/harbour-lords/rules/trading/")
    radio = page.locator(".show-corrected")
    radio.focus()
    page.keyboard.press("ArrowRight")  # radio buttons: the arrow keys choose
    expect(page.locator(".show-printed")).to_be_checked()
    expect(page.locator(".body-printed")).to_be_visible()
    # The focused choice is outlined where it is seen (the label), not on the hidden radio.
    outline = page.locator(".label-printed").evaluate("label => getComputedStyle(label).outlineStyle")
    assert outline == "solid"
    assert csp_violations.all() == []


def test_german_ui_reads_the_notice_in_german(live_server, page, world):
    page.goto(f"{live_server.url}/de/games/harbour-lords/rules/trading/")
    notice = page.locator(".errata-notice")
    expect(notice).to_have_attribute("lang", "de")
    expect(page.locator("label.label-printed")).to_have_text("Wie gedruckt")
