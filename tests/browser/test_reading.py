"""What a player sees and does in Chromium, at phone (360 px) and desktop width: the
dark theme follows the system, every focused control shows a ring that stands out, the
skip link skips, the A–Z letters jump to their titles in the language's own order, and
each page tells a link preview what it is.

Each test saves screenshots (tests/browser/conftest.py, save_screenshot).
"""

import re
from urllib.parse import unquote

import pytest
from django.conf import settings
from playwright.sync_api import expect

from rules.content.journal import unit_of_work
from tests.browser.reading import build_reading_game
from tests.builds import goto_built
from tests.factories import make_entry, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 360, "height": 740}}


@pytest.fixture(params=list(VIEWPORTS))
def viewport(request):
    return request.param


@pytest.fixture
def open_page(browser):
    contexts = []

    def open_page(viewport: str, scheme: str = "light"):
        context = browser.new_context(viewport=VIEWPORTS[viewport], color_scheme=scheme)
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


def rgb(css: str) -> tuple[float, ...]:
    """"rgb(1, 2, 3)" or "rgba(1, 2, 3, 0.5)" → (r, g, b[, a])."""
    return tuple(float(part) for part in re.findall(r"[\d.]+", css))


def luminance(css: str) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = rgb(css)[:3]
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(one: str, other: str) -> float:
    high, low = sorted([luminance(one), luminance(other)], reverse=True)
    return (high + 0.05) / (low + 0.05)


# --- dark theme -------------------------------------------------------------------------


def test_the_theme_follows_the_system_setting(live_server, open_page, viewport, save_screenshot):
    reading = build_reading_game()
    path = reading.pages("en")["entry"][0]
    colours = {}
    for scheme in ("light", "dark"):
        page = open_page(viewport, scheme)
        page.goto(live_server.url + path)
        colours[scheme] = page.evaluate(
            """() => {
                const style = (selector, property) => getComputedStyle(document.querySelector(selector))[property];
                return {
                    paper: style("html", "backgroundColor"),
                    ink: style("body", "color"),
                    card: style("article.entry", "backgroundColor"),
                    link: style("article.entry .body a", "color"),
                    header: style(".site-header", "backgroundColor"),
                    field: style("#site-search", "backgroundColor"),
                    fieldInk: style("#site-search", "color"),
                    errata: style(".errata-box", "backgroundColor"),
                };
            }"""
        )
        save_screenshot(page, f"theme-{viewport}-{scheme}-entry")
    light, dark = colours["light"], colours["dark"]
    assert luminance(light["paper"]) > 0.8 and luminance(dark["paper"]) < 0.05
    assert luminance(dark["card"]) < 0.05 and luminance(dark["errata"]) < 0.1
    for theme in (light, dark):
        assert contrast(theme["ink"], theme["paper"]) >= 7
        assert contrast(theme["link"], theme["card"]) >= 4.5
        assert contrast(theme["fieldInk"], theme["field"]) >= 4.5
        assert contrast("rgb(255, 255, 255)", theme["header"]) >= 4.5


# --- focus ------------------------------------------------------------------------------

# The focused element's ring: its outline, and the colour behind the ring on each side
# (what is painted at that point under the element, opaque layers only).
FOCUS_RING = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    const away = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth) / 2;
    const points = [
        [box.left - away, box.top + box.height / 2], [box.right + away, box.top + box.height / 2],
        [box.left + box.width / 2, box.top - away], [box.left + box.width / 2, box.bottom + away],
    ];
    const behind = [];
    for (const [x, y] of points) {
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
        let colour = getComputedStyle(document.documentElement).backgroundColor;
        for (const node of document.elementsFromPoint(x, y)) {
            if (node === el || el.contains(node)) continue;
            const background = getComputedStyle(node).backgroundColor;
            const alpha = background.startsWith("rgba") ? parseFloat(background.split(",")[3]) : 1;
            if (alpha === 1) { colour = background; break; }
        }
        behind.push(colour);
    }
    return {
        element: el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " "
            + (el.innerText || el.value || "").trim().slice(0, 30),
        style: style.outlineStyle, width: parseFloat(style.outlineWidth), colour: style.outlineColor, behind,
    };
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_focusable_element_shows_a_ring_that_stands_out(
    live_server, open_page, viewport, scheme, save_screenshot
):
    reading = build_reading_game()
    page = open_page(viewport, scheme)
    pages = reading.pages("en")
    seen = 0
    for name in ("home", "game", "entry", "errata", "faq", "search", "404"):
        path, status = pages[name]
        assert goto_built(page, live_server.url + path).status == status
        first = None
        for step in range(400):
            page.keyboard.press("Tab")
            ring = page.evaluate(FOCUS_RING)
            if ring is None or ring["element"] == first:
                break  # back at the start: every element of the page has had the focus
            first = first or ring["element"]
            seen += 1
            where = f"{name}: {ring['element']}"
            assert ring["style"] != "none" and ring["width"] >= 2, where
            assert ring["behind"], where
            for colour in ring["behind"]:
                assert contrast(ring["colour"], colour) >= 3, f"{where}: ring {ring['colour']} on {colour}"
            if name == "entry" and step == 0:
                save_screenshot(page, f"focus-{viewport}-{scheme}-skip-link", full_page=False)
            if name == "search" and "search-q" in ring["element"]:
                save_screenshot(page, f"focus-{viewport}-{scheme}-search-field", full_page=False)
        else:
            pytest.fail(f"{name}: the focus never came back round")
    assert seen > 60


def test_the_skip_link_moves_past_the_header(live_server, open_page, viewport, save_screenshot):
    reading = build_reading_game()
    page = open_page(viewport)
    page.goto(live_server.url + reading.pages("en")["entry"][0])
    skip = page.locator("a.skip-link")
    expect(skip).not_to_be_in_viewport()

    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    expect(skip).to_have_text("Skip to content")
    save_screenshot(page, f"skip-link-{viewport}-shown", full_page=False)

    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "content"
    page.keyboard.press("Tab")
    # the next stop is the first link of the page's content (the breadcrumbs), not the
    # search box or the language switcher
    assert page.evaluate("document.activeElement.closest('main') !== null")
    expect(page.locator("nav.breadcrumbs a").first).to_be_focused()


# --- A–Z letters ------------------------------------------------------------------------

POLISH = {
    "L": ["Las", "Limit", "Lufa"],
    "Ł": ["Łódź", "Łucznik", "Łuk"],
    "S": ["Sąd", "Strefa", "Szansa"],
    "Ś": ["Ściana", "Śluza", "Świt"],
    "Z": ["Zamek", "Ząb", "Zwój"],
    "Ż": ["Żeton", "Żołnierz", "Życie"],
}


def test_letter_links_jump_to_titles_in_the_languages_order(live_server, open_page, viewport, save_screenshot):
    game = make_game(slug="litery", name="Gra liter")
    titles = [title for group in POLISH.values() for title in group]
    with unit_of_work():  # one pipeline run, as an import
        for title in reversed(titles):  # written in another order than shown
            make_entry(game=game, language="pl", title=title, body=f"Opis: {title}.")
        for n in range(1, 41):  # rule sections below the glossary: a page long enough to scroll
            make_entry(game=game, language="pl", kind="section", number=str(n), title=f"Rozdział {n}", order=n)
    page = open_page(viewport)
    page.goto(f"{live_server.url}/pl/games/litery/")

    links = page.locator("p.letter-index a")
    expect(links).to_have_text(list(POLISH))
    shown = page.locator("dl.glossary dd li a").all_inner_texts()
    assert shown == titles

    for letter in ("Ś", "Ł", "Ż"):
        page.locator("p.letter-index").get_by_role("link", name=letter, exact=True).click()
        expect(page).to_have_url(re.compile(r"#letter-"))
        assert unquote(page.url.split("#", 1)[1]) == f"letter-{letter}"
        heading = page.locator(f'dl.glossary dt[id="letter-{letter}"]')
        expect(heading).to_be_in_viewport()
        top = heading.bounding_box()["y"]
        assert 0 <= top <= 40, f"{letter} is at {top}px, not at the top"
        following = heading.locator("xpath=following-sibling::dd[1]//a").all_inner_texts()
        assert following == POLISH[letter]
        if letter == "Ś":
            save_screenshot(page, f"letters-{viewport}-pl-jumped-to-S-acute", full_page=False)


# --- link previews ----------------------------------------------------------------------


def test_every_page_describes_itself_for_link_previews(live_server, open_page, viewport):
    reading = build_reading_game()
    page = open_page(viewport)
    for language in ("en", "de"):
        for name, (path, status) in reading.pages(language).items():
            response = goto_built(page, live_server.url + path)
            assert response.status == status
            meta = page.evaluate(
                """() => Object.fromEntries([...document.querySelectorAll("meta[property], meta[name]")]
                    .map(m => [m.getAttribute("property") || m.getAttribute("name"), m.content]))"""
            )
            title = page.title()
            where = f"{language} {name}"
            assert title.endswith(" · rulesite"), where
            assert meta["og:title"] == title.removesuffix(" · rulesite"), where
            assert meta["og:description"] == meta["description"] and len(meta["description"]) >= 20, where
            # A booklet built in the background (rules.builds, served as a file with ranges)
            # names the site's own address (DJANGO_SITE_URL), whatever host this reader used.
            built = response.headers.get("accept-ranges") == "bytes"
            assert meta["og:url"] == (settings.SITE_URL + path if built else page.url), where
            assert meta["og:site_name"] == "rulesite", where
            assert meta["og:locale"] == {"en": "en_US", "de": "de_DE"}[language], where
            assert meta["og:type"] == ("article" if name in ("entry", "section") else "website"), where
    # The English entry's preview is its own text, plain, cut at a word.
    page.goto(live_server.url + reading.pages("en")["entry"][0])
    description = page.locator('meta[property="og:description"]').get_attribute("content")
    assert description.startswith(
        "The owner of a card is the player who started the game with it. See Exhaust and the zones."
    )
    assert "**" not in description and "[[" not in description and "<" not in description
    assert len(description) <= 160 and description.endswith("…")
