"""axe-core in Chromium on every kind of public page, in every UI language, light and
dark, at desktop and phone width: no violation.

axe-core's script ships inside axe-playwright-python, so this runs offline. Every rule
axe runs by default is checked (WCAG 2.x A and AA, and axe's best practices: landmarks,
headings, colour contrast, names of links and controls ...). The pages are those of a
game made for it (tests/browser/reading.py), with each thing a page can show; the
Polish and Dutch pages show its English content with the "not in your language" notice.
"""

import itertools
import json
import re
from collections.abc import Iterator

import pytest
from axe_playwright_python.base import AxeResults
from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS as AXE_OPTIONS
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from playwright.sync_api import expect

from tests.browser.reading import build_reading_game
from tests.builds import goto_built

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

UI_LANGUAGES = [code for code, _name in settings.LANGUAGES]
SCHEMES = ["light", "dark"]
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 360, "height": 740}}

AXE = Axe()


def describe(results) -> list[str]:
    """Each violation: rule, impact, help and the first few offending elements."""
    lines = []
    for violation in results.response["violations"]:
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"][:4]]
        summary = violation["nodes"][0].get("failureSummary", "").replace("\n", " ")
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}; {summary[:300]}")
    return lines


# What every axe rule but the colour ones reads of how a page is laid out: each element's
# box on the page, whether it is shown, and whether it scrolls (as one JSON text: half
# the time of a list sent back item by item).
LAYOUT = """JSON.stringify(Array.from(document.querySelectorAll("*"), (element) => {
  const box = element.getBoundingClientRect(), style = getComputedStyle(element);
  return [element.tagName, box.x + scrollX, box.y + scrollY, box.width, box.height,
          style.display, style.visibility, style.overflowX, style.overflowY];
}))"""
# axe with its colour rules alone ("cat.color": text contrast, links told apart by
# colour), as it runs them by default (AAA's enhanced contrast stays off).
AXE_COLOUR_RULES = f"""axe.run({{...{json.dumps(AXE_OPTIONS)}, rules: Object.fromEntries(axe.getRules()
  .filter((rule) => !rule.tags.includes("cat.color")).map((rule) => [rule.ruleId, {{enabled: false}}]))}})"""


def with_axe(context):
    """``context``, whose every page gets axe's script as it loads, before its own
    scripts: sent to Chromium once, not once per page (``axe_in_each_scheme``)."""
    context.add_init_script(AXE.axe_script)
    return context


def axe_in_each_scheme(page) -> Iterator[tuple[str, list[str]]]:
    """Each colour scheme, with axe's violations on the open page in it (``describe``),
    the page switched to the scheme where it stands (``emulate_media``) while the caller
    looks at it (a screenshot). The site's schemes are colours alone: CSS
    (``prefers-color-scheme``; no script reads it) whose dark block sets colours
    (static/css/site.css). So

    - the page is checked once its scripts are done (``settle``): axe in the light sees
      what a reader sees, and nothing changes between the light run and the dark one;
    - a page switched is the page loaded in that scheme: one load per page, and axe's
      script once per page (put in here unless its context has it: ``with_axe``);
    - in the dark only the colour rules can answer otherwise: there axe runs those alone,
      once the page is seen laid out exactly as in the light (``LAYOUT``), so that every
      other rule's answer is the light run's. A scheme that moved, hid or showed
      anything would fail here, not pass unchecked."""
    if not page.evaluate("typeof axe === 'object'"):
        page.evaluate(AXE.axe_script)
    settle(page)
    light_layout = None
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        if light_layout is None:
            results = page.evaluate(f"axe.run({json.dumps(AXE_OPTIONS)})")
            light_layout = page.evaluate(LAYOUT)  # the page as axe left it, just before the switch
        else:
            layout = page.evaluate(LAYOUT)
            if layout != light_layout:
                change = layout_change(light_layout, layout)
                raise AssertionError(f"{page.url} is laid out otherwise in the {scheme}: {change}")
            results = page.evaluate(AXE_COLOUR_RULES)
        yield scheme, describe(AxeResults(results))


def settle(page) -> None:
    """Wait until the page is as its scripts leave it: static/js/offline.js marks <html
    data-offline-checked> once saved games have caught up, or once it knows none is saved.
    After a game's page has opened the offline store, every page of the context loads it
    (a <script> added to the page) and catches up, on a busy machine after ``load``. (A
    locator's wait: ``wait_for_function`` polls with the ``eval`` the site's CSP refuses.)
    A page without that script (one a test wrote) is as it loaded."""
    if page.locator("script[data-worker]").count():
        expect(page.locator("html")).to_have_attribute("data-offline-checked", re.compile("."))


def layout_change(before: str, after: str) -> str:
    """What differs between two ``LAYOUT`` texts: the element count if it changed, and
    the first elements laid out otherwise (before, after)."""
    before_elements, after_elements = json.loads(before), json.loads(after)
    pairs = itertools.zip_longest(before_elements, after_elements)
    moved = [pair for pair in pairs if pair[0] != pair[1]]
    if len(before_elements) != len(after_elements):
        return f"{len(before_elements)} elements, then {len(after_elements)}; {moved[:5]}"
    return str(moved[:5])


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_every_page_has_no_axe_violation(live_server, browser, language, viewport, save_screenshot):
    reading = build_reading_game()
    context = with_axe(browser.new_context(viewport=VIEWPORTS[viewport]))
    page = context.new_page()
    found = {}
    checked = 0
    try:
        for name, (path, status) in reading.pages(language).items():
            response = goto_built(page, live_server.url + path)
            assert response.status == status, path
            # FAQ answers folded in <details> are checked open too.
            page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            for scheme, violations in axe_in_each_scheme(page):
                checked += 1
                if violations:
                    found[f"{path} ({scheme})"] = violations
                    save_screenshot(page, f"axe-{language}-{scheme}-{viewport}-{name}")
    finally:
        context.close()
    assert checked == len(reading.pages(language)) * len(SCHEMES)
    assert found == {}, "\n".join(f"{path}:\n  " + "\n  ".join(lines) for path, lines in found.items())


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_search_suggestions_have_no_axe_violation(live_server, browser, viewport, save_screenshot):
    """The search box's suggestions, open over the page as a reader types."""
    build_reading_game()
    context = with_axe(browser.new_context(viewport=VIEWPORTS[viewport]))
    page = context.new_page()
    found = {}
    try:
        page.goto(f"{live_server.url}/en/games/reading-game/")
        page.locator("#site-search").press_sequentially("own", delay=30)
        options = page.locator("#site-search-suggestions").get_by_role("option")
        options.first.wait_for()
        assert "Ownership and Control" in options.all_inner_texts()[0]
        for scheme, violations in axe_in_each_scheme(page):
            assert options.first.is_visible(), scheme  # still open in each scheme
            save_screenshot(page, f"axe-suggestions-{scheme}-{viewport}", full_page=False)
            found[scheme] = violations
    finally:
        context.close()
    assert found == dict.fromkeys(SCHEMES, [])


def test_a_fault_in_one_scheme_is_found_in_that_scheme_only(browser):
    """The schemes are switched in place (``axe_in_each_scheme``): a page whose text is
    unreadable in the dark only has a violation in the dark only."""
    context = browser.new_context()
    page = context.new_page()
    try:
        page.set_content(
            '<!doctype html><html lang="en"><head><title>Schemes</title><style>'
            "@media (prefers-color-scheme: dark) { body { background: #000; color: #111; } }"
            "</style></head><body><main><h1>Schemes</h1><p>Read me.</p></main></body></html>"
        )
        found = {scheme: [line.split(" ")[0] for line in lines] for scheme, lines in axe_in_each_scheme(page)}
    finally:
        context.close()
    assert found == {"light": [], "dark": ["color-contrast"]}


@pytest.mark.parametrize(
    "dark_rule",
    [".aside { display: none; }", ".aside { padding: 2rem; }", "main { overflow-y: scroll; height: 3rem; }"],
)
def test_a_scheme_that_changes_more_than_colours_is_refused(browser, dark_rule):
    """Only axe's colour rules run in the dark (``axe_in_each_scheme``), which is sound
    while the dark scheme changes colours alone: one that hides, moves, resizes or
    scrolls anything fails the check, rather than leaving the rest of axe unasked."""
    context = browser.new_context()
    page = context.new_page()
    try:
        page.set_content(
            '<!doctype html><html lang="en"><head><title>Schemes</title><style>'
            f"@media (prefers-color-scheme: dark) {{ {dark_rule} }}"
            '</style></head><body><main><h1>Schemes</h1><p class="aside">Read me.</p>'
            "<p>And me.</p></main></body></html>"
        )
        with pytest.raises(AssertionError, match="laid out otherwise in the dark"):
            list(axe_in_each_scheme(page))
    finally:
        context.close()
