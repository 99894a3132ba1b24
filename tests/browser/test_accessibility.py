"""axe-core in Chromium on every kind of public page, in every UI language, light and
dark, at desktop and phone width: no violation.

axe-core's script ships inside axe-playwright-python, so this runs offline. Every rule
axe runs by default is checked (WCAG 2.x A and AA, and axe's best practices: landmarks,
headings, colour contrast, names of links and controls ...). The pages are those of a
game made for it (tests/browser/reading.py), with each thing a page can show; the
Polish and Dutch pages show its English content with the "not in your language" notice.
"""

import json
from collections.abc import Iterator

import pytest
from axe_playwright_python.base import AxeResults
from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS as AXE_OPTIONS
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings

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


def axe_in_each_scheme(page) -> Iterator[tuple[str, list[str]]]:
    """Each colour scheme, with axe's violations on the open page in it (``describe``),
    the page switched to the scheme where it stands (``emulate_media``) while the caller
    looks at it (a screenshot). The site's schemes are CSS alone (``prefers-color-scheme``;
    no script reads it), so a page switched is the page loaded in that scheme: one load
    and one copy of axe's script per page, not one per scheme."""
    page.evaluate(AXE.axe_script)
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        yield scheme, describe(AxeResults(page.evaluate(f"axe.run({json.dumps(AXE_OPTIONS)})")))


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_every_page_has_no_axe_violation(live_server, browser, language, viewport, save_screenshot):
    reading = build_reading_game()
    context = browser.new_context(viewport=VIEWPORTS[viewport])
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
    context = browser.new_context(viewport=VIEWPORTS[viewport])
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
