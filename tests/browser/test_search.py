"""A player mid-game looks something up: "/" to the search box, suggestions, results."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import make_entry, make_erratum, make_game, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# Screenshots go here to be looked at (SEARCH_SCREENSHOTS=/some/dir to keep them elsewhere).
SCREENSHOTS = Path(os.environ.get("SEARCH_SCREENSHOTS", "/tmp/rulesite-search-screenshots"))


def shot(page, name: str, **kwargs) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **kwargs)


@pytest.fixture
@written_together
def game():
    game = make_game(slug="reaction-game", name="Reaction Game", localized_names={"de": "Reaktionsspiel"})
    make_entry(
        game=game,
        title="Reaction Window",
        aliases=["Response window"],
        body="A **reaction** is played after its triggering condition resolves. Each reaction "
        "window closes when every player has passed in turn order.",
    )
    make_entry(game=game, title="Ready", body="Turn an exhausted card upright; a ready card can react.")
    make_entry(game=game, title="Reactive Armor", body="Prevent 1 damage when a reaction would deal damage.")
    make_entry(game=game, title="Exhaust", body="Turn the card sideways. An exhausted card cannot react.")
    make_entry(game=game, language="de", title="Reaktion", body="Eine Reaktion wird gespielt, nachdem …")
    make_erratum(game=game, title="Reaction timing", corrected_text="A reaction waits until the action resolves.")
    return game


@pytest.fixture
def errors(page):
    """Script errors on the page: a test asserts there are none."""
    found = []
    page.on("pageerror", lambda error: found.append(str(error)))
    page.on("console", lambda message: found.append(message.text) if message.type == "error" else None)
    return found


def test_slash_focuses_the_search_box_but_not_while_typing(live_server, page, game, errors):
    page.goto(f"{live_server.url}/en/games/reaction-game/rules/exhaust/")
    box = page.locator("#site-search")
    expect(box).not_to_be_focused()
    expect(page.locator(".search-key")).to_be_visible()  # the "/" hint

    page.keyboard.press("/")
    expect(box).to_be_focused()
    expect(box).to_have_value("")  # the "/" only moved the focus
    page.keyboard.type("a/b")
    expect(box).to_have_value("a/b")  # in the box, "/" is a character

    # In another field "/" is typed, not a shortcut.
    page.goto(f"{live_server.url}/en/search/")
    page.locator("#search-q").fill("and/or")
    page.locator("#search-q").press("/")
    expect(page.locator("#search-q")).to_be_focused()
    expect(page.locator("#search-q")).to_have_value("and/or/")
    assert errors == []


def test_suggestions_as_you_type_then_arrow_down_and_enter_opens_the_entry(live_server, page, game, errors):
    requests = []
    page.on("request", lambda request: requests.append(request.url) if "/suggest/" in request.url else None)
    page.goto(f"{live_server.url}/en/games/reaction-game/")
    box = page.locator("#site-search")
    assert box.get_attribute("role") == "combobox"
    expect(box).to_have_attribute("aria-expanded", "false")
    listbox = page.locator("#" + box.get_attribute("aria-controls"))
    expect(listbox).to_have_attribute("role", "listbox")

    box.click()
    box.press_sequentially("reac", delay=40)
    option = listbox.get_by_role("option").filter(has_text="Reaction Window")
    expect(option).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    # on a game's page the suggestions come from that game, in the UI language
    assert requests and all("game=reaction-game" in url and "language=en" in url for url in requests)
    assert "q=reac&" in requests[-1] and len(requests) < 4  # debounced: not one request a key
    titles = listbox.locator(".search-suggestion-title").all_inner_texts()
    assert "Reaction Window" in titles and "Reactive Armor" in titles
    assert "Exhaust" not in titles and "Reaktion" not in titles  # prefix matches, UI language only
    expect(box).not_to_have_attribute("aria-activedescendant", re.compile(".+"))

    box.press("ArrowDown")
    first = listbox.get_by_role("option").first
    expect(first).to_have_attribute("aria-selected", "true")
    shot(page, "suggestions-desktop")
    expect(box).to_have_attribute("aria-activedescendant", first.get_attribute("id"))
    first_title = first.locator(".search-suggestion-title").inner_text()
    while first_title != "Reaction Window":  # whatever the engine ranks first, walk to it
        box.press("ArrowDown")
        current = listbox.locator("[aria-selected=true]")
        first_title = current.locator(".search-suggestion-title").inner_text()
    box.press("Enter")
    page.wait_for_url(f"{live_server.url}/en/games/reaction-game/rules/reaction-window/")
    expect(page.locator("h1")).to_contain_text("Reaction Window")
    assert errors == []


def test_escape_closes_empty_input_shows_nothing_and_a_click_opens(live_server, page, game, errors):
    requests = []
    page.on("request", lambda request: requests.append(request.url) if "/suggest/" in request.url else None)
    page.goto(f"{live_server.url}/en/")
    box = page.locator("#site-search")
    listbox = page.locator("#site-search-suggestions")

    box.click()
    box.press_sequentially("rea", delay=40)
    expect(listbox.get_by_role("option").first).to_be_visible()
    box.press("Escape")
    expect(listbox).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).to_have_value("rea")

    box.fill("")
    page.wait_for_timeout(400)
    expect(listbox).to_be_hidden()
    assert all("q=&" not in url and not url.endswith("q=") for url in requests)
    # the request carries the UI language
    assert requests and all("language=en" in url for url in requests)

    box.press_sequentially("ready", delay=40)
    listbox.get_by_role("option").filter(has_text="Ready").click()
    page.wait_for_url(f"{live_server.url}/en/games/reaction-game/rules/ready/")
    assert errors == []


def test_a_stale_answer_never_replaces_a_newer_one(live_server, page, game, errors):
    # The answer for "rea" comes late, after the one for "reac": it must be ignored.
    page.add_init_script(
        """
        const realFetch = window.fetch;
        window.fetch = (url, options) => {
          if (String(url).includes("q=rea&")) {
            return new Promise((resolve) => setTimeout(() => resolve(new Response(
              JSON.stringify({query: "rea", results: [{title: "Stale Result", type: "entry", id: 1,
                language: "en", game: "x", url: "/en/", alias: null}]}),
              {headers: {"Content-Type": "application/json"}})), 900));
          }
          return realFetch(url, options);
        };
        """
    )
    page.goto(f"{live_server.url}/en/")
    box = page.locator("#site-search")
    box.click()
    box.press_sequentially("rea")
    page.wait_for_timeout(300)  # past the debounce: "rea" is asked
    box.press_sequentially("c")
    listbox = page.locator("#site-search-suggestions")
    expect(listbox.get_by_role("option").filter(has_text="Reaction Window")).to_be_visible()
    page.wait_for_timeout(1200)  # the stale answer has arrived by now
    expect(listbox.get_by_role("option").filter(has_text="Stale Result")).to_have_count(0)
    expect(listbox.get_by_role("option").filter(has_text="Reaction Window")).to_be_visible()


def test_enter_without_a_highlight_searches_and_shows_highlighted_results(live_server, page, game, errors):
    page.goto(f"{live_server.url}/en/games/reaction-game/rules/exhaust/")
    page.keyboard.press("/")
    page.keyboard.type("reaction")
    expect(page.locator("#site-search-suggestions").get_by_role("option").first).to_be_visible()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/en/search/\?q=reaction$"))

    expect(page.locator("head meta[name=robots]")).to_have_attribute("content", "noindex")
    results = page.locator("ol.results > li")
    expect(results.first).to_be_visible()
    assert results.count() >= 2
    expect(page.locator(".snippet mark").first).to_be_visible()
    assert page.locator(".snippet mark").first.inner_text().lower().startswith("reaction")
    expect(page.locator(".results-count")).to_contain_text("results")
    shot(page, "results-desktop", full_page=True)

    # Filter by type: errata only.
    page.locator("#id_type").select_option("erratum")
    page.locator(".search-page-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"type=erratum"))
    expect(page.locator("ol.results > li")).to_have_count(1)
    expect(page.locator(".result-type")).to_have_text("Erratum")
    assert errors == []


def test_phone_width(live_server, browser, game):
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/de/search/?q=reaktion")
        expect(page.locator("h1")).to_have_text("Suche")
        expect(page.locator(".snippet mark").first).to_be_visible()
        # nothing wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        shot(page, "results-phone", full_page=True)

        page.goto(f"{live_server.url}/en/search/?q=reaction")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        # One search box on a phone: the page's own (the header's is hidden here).
        expect(page.locator("#site-search")).to_be_hidden()
        expect(page.locator("#search-q")).to_have_value("reaction")
        shot(page, "results-phone-en", full_page=True)

        page.goto(f"{live_server.url}/en/")  # the header's box, with its suggestions
        box = page.locator("#site-search")
        box.press_sequentially("reac", delay=40)
        listbox = page.locator("#site-search-suggestions")
        expect(listbox.get_by_role("option").first).to_be_visible()
        box_left = listbox.bounding_box()
        assert box_left["x"] >= 0 and box_left["x"] + box_left["width"] <= 375
        shot(page, "suggestions-phone")
    finally:
        context.close()


def test_an_alias_typed_shows_which_entry_it_belongs_to(live_server, page, game, errors):
    page.goto(f"{live_server.url}/en/")
    box = page.locator("#site-search")
    box.click()
    box.press_sequentially("respo", delay=40)
    option = page.locator("#site-search-suggestions").get_by_role("option").first
    expect(option).to_contain_text("Response window → Reaction Window")
    option.click()
    page.wait_for_url(f"{live_server.url}/en/games/reaction-game/rules/reaction-window/")
    assert errors == []
