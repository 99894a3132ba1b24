"""A player steps through a rulebook, follows a deep link to a numbered rule, and prints a
booklet: in Chromium, at phone (360 px) and desktop widths, with screenshots saved for a
person to look at (RULESITE_SCREENSHOT_DIR keeps them; see tests/browser/conftest.py)."""

import io
import re
import threading
import unicodedata
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from rules.content.models import Entry, Source
from tests.builds import goto_built, run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_source, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

VIEWPORTS = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 900}}
SECTION = Entry.Kind.SECTION

# In document order; the tree decides, not the order in which they were written.
RULEBOOK = [
    ("Setting Up", "1", None),
    ("The Round", "2", None),
    ("Draw Phase", "2.1", "The Round"),
    ("Action Phase", "2.2", "The Round"),
    ("Reactions During Actions", "2.2a", "Action Phase"),
    ("End of the Game", "3", None),
]
CASTING = "\n\n".join(
    [
        "Casting a spell takes several steps, in this order.",
        *(
            f"**601.{n}** " + "Step text that fills a few lines on a phone so the page needs scrolling. " * 4
            for n in range(1, 6)
        ),
        "**601.2a** To propose the casting of a spell, a player first moves that card to the stack.",
        *(
            f"**601.{n}** " + "More rules below the one the link points at, long enough to scroll. " * 4
            for n in range(6, 12)
        ),
    ]
)


@pytest.fixture
@written_together
def game():
    game = make_game(slug="little-war", name="Little War", localized_names={"de": "Kleiner Krieg"})
    source = make_source(game=game, title="Little War Rulebook", kind=Source.Kind.RULEBOOK, version="2nd printing")
    written = {}
    for order, (title, number, _parent) in reversed(list(enumerate(RULEBOOK))):  # written backwards
        written[title] = make_entry(
            game=game, kind=SECTION, title=title, number=number, order=order, source=source,
            body=f"The rules of {title.lower()}. " * 6,
        )  # fmt: skip
    for title, _number, parent in RULEBOOK:
        if parent:
            written[title].parent = written[parent]
            written[title].save()
    make_entry(game=game, title="Casting Spells", body=CASTING, source=source)
    make_entry(game=game, title="Attack", body="Roll the dice.")
    make_entry(game=game, title="Zone", body="A place cards can be.")
    make_erratum(
        game=game, title="Reactions clarified", original_text="The rules of reactions during actions.",
        corrected_text="The rules of reactions, which wait until the action resolves.",
        affects=[written["Reactions During Actions"]],
    )  # fmt: skip
    return game


@pytest.fixture(params=list(VIEWPORTS))
def sized(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield request.param, page, errors
    assert errors == []
    context.close()


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def in_view(page, selector: str) -> bool:
    return page.evaluate(
        """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
                           return r.top >= 0 && r.top < window.innerHeight; }""",
        selector,
    )


def test_step_through_the_rulebook_and_find_your_place_in_the_contents(live_server, game, sized, save_screenshot):
    size, page, _errors = sized
    page.goto(f"{live_server.url}/en/games/little-war/rules/setting-up/")
    seen = [page.locator("h1").inner_text()]
    nav = page.get_by_role("navigation", name="Rulebook")
    expect(nav.locator("a[rel=prev]")).to_have_count(0)  # the first section
    save_screenshot(page, f"rulebook-entry-first-{size}")
    while nav.locator("a[rel=next]").count():
        following = nav.locator("a[rel=next]").get_attribute("href")
        nav.locator("a[rel=next]").click()
        page.wait_for_url(lambda url, following=following: url.endswith(following))  # and loaded
        seen.append(page.locator("h1").inner_text())
    assert seen == [f"{number}. {title}" for title, number, _parent in RULEBOOK]

    # the deepest section: its ancestors in the breadcrumbs, previous and next to step on
    nav.locator("a[rel=prev]").click()
    expect(page.locator("h1")).to_have_text("2.2a. Reactions During Actions")
    crumbs = page.get_by_role("navigation", name="Breadcrumbs").get_by_role("link")
    expect(crumbs).to_have_text(["Games", "Little War", "2. The Round", "2.2. Action Phase"])
    no_sideways_scroll(page)
    nav.scroll_into_view_if_needed()
    save_screenshot(page, f"rulebook-entry-deep-{size}")
    box = nav.bounding_box()
    assert box["width"] <= VIEWPORTS[size]["width"]

    nav.get_by_role("link", name="Contents").click()
    page.wait_for_url(re.compile(r"/en/games/little-war/rules/\?at=reactions-during-actions#toc-reactions-during-actions$"))
    here = page.locator('[aria-current="location"]')
    expect(here).to_have_count(1)
    expect(here).to_have_text("2.2a. Reactions During Actions")
    expect(page.locator(".toc-here-label")).to_have_text("You are here")
    assert in_view(page, ".toc-here")
    no_sideways_scroll(page)
    save_screenshot(page, f"rulebook-contents-{size}", full_page=False)
    # nested: the marked section is inside Action Phase's list, inside The Round's
    assert page.locator("#toc-the-round #toc-action-phase #toc-reactions-during-actions").count() == 1


def test_a_deep_link_opens_the_page_at_its_rule_and_search_uses_it(live_server, game, sized, save_screenshot):
    size, page, _errors = sized
    page.goto(f"{live_server.url}/en/games/little-war/rules/casting-spells/#601.2a")
    rule = page.locator('[id="601.2a"]')
    expect(rule).to_contain_text("To propose the casting of a spell")
    assert in_view(page, '[id="601.2a"]')
    assert page.evaluate("document.querySelector(':target').id") == "601.2a"
    # marked where the page opened
    assert rule.evaluate("el => getComputedStyle(el).backgroundColor") not in ("rgba(0, 0, 0, 0)", "transparent")
    save_screenshot(page, f"rulebook-deep-link-{size}", full_page=False)

    page.goto(f"{live_server.url}/en/search/?q=propose+stack")
    result = page.locator(".result-title").first
    expect(result).to_have_attribute("href", "/en/games/little-war/rules/casting-spells/#601.2a")
    expect(page.locator(".result .snippet").first).to_contain_text("… 601.2a To propose")
    save_screenshot(page, f"rulebook-search-result-{size}", full_page=False)
    result.click()
    page.wait_for_url("**/casting-spells/#601.2a")
    assert in_view(page, '[id="601.2a"]')


def test_the_booklet_on_screen_and_on_paper(live_server, game, sized, save_screenshot, tmp_path):
    size, page, _errors = sized
    goto_built(page, f"{live_server.url}/en/games/little-war/print/rules/")
    expect(page.locator("h1")).to_have_text("Little War Rulebook")
    expect(page.locator(".booklet-print")).to_be_visible()  # the script shows the button
    no_sideways_scroll(page)
    save_screenshot(page, f"booklet-screen-{size}", full_page=False)

    # the contents link within the page
    page.locator(".booklet-toc").get_by_role("link", name="2.2a. Reactions During Actions").click()
    assert page.url.endswith("#2.2a")
    assert in_view(page, '[id="2.2a"]')
    footnote_mark = page.locator('[id="2.2a"] .footnote-ref a')
    expect(footnote_mark).to_have_text("1")
    footnote_mark.click()
    expect(page.locator("#fn-1")).to_contain_text("Reactions clarified")
    expect(page.locator("#fn-1 ins").last).to_contain_text("wait until the action resolves")
    # the words that went, as one change ("reactions during actions." → "reactions, which …")
    expect(page.locator("#fn-1 del")).to_have_text(["reactions during actions."])

    page.emulate_media(media="print")
    for chrome in [".site-header", ".site-footer", ".breadcrumbs", ".booklet-actions", ".skip-link"]:
        assert page.locator(chrome).evaluate("el => getComputedStyle(el).display") == "none", chrome
    assert page.locator(".booklet-title-page").evaluate("el => getComputedStyle(el).breakAfter") == "page"
    assert page.locator(".booklet-toc").evaluate("el => getComputedStyle(el).breakAfter") == "page"
    page.evaluate("window.scrollTo(0, 0)")
    save_screenshot(page, f"booklet-print-{size}")

    printed = page.pdf(format="A4", print_background=True)
    (tmp_path / "printed.pdf").write_bytes(printed)
    viewer = page.context.new_page()  # Chromium's PDF viewer, to look at the pages
    viewer.goto((tmp_path / "printed.pdf").as_uri() + "#page=2")
    viewer.wait_for_timeout(1500)
    save_screenshot(viewer, f"booklet-printed-pdf-{size}", full_page=False)
    viewer.close()
    pdf = PdfReader(io.BytesIO(printed))
    # NFKC: Chromium sets "fi" as one ligature glyph, which reads back as "ﬁ"
    pages = [" ".join(unicodedata.normalize("NFKC", p.extract_text()).split()) for p in pdf.pages]
    (tmp_path / f"booklet-{size}.txt").write_text("\n\n".join(pages))
    assert pages[0].startswith("Little War Little War Rulebook")  # the title page, no navigation
    assert "Contents" in pages[1] and "Little War Rulebook" not in pages[1]
    navigation = ["Skip to content", "Search the rules", "Download as PDF", "Breadcrumbs"]
    assert not any(text in " ".join(pages) for text in navigation)
    body = " ".join(pages[2:])
    positions = [body.index(f"{number}. {title}") for title, number, _parent in RULEBOOK]
    assert positions == sorted(positions)
    assert "Reactions clarified" in body


def test_the_pdf_link_gives_the_booklet_as_a_pdf(live_server, game, browser, save_screenshot):
    page = browser.new_page(viewport={"width": 1000, "height": 1300})
    goto_built(page, f"{live_server.url}/de/games/little-war/print/glossary/")
    link = page.get_by_role("link", name="Als PDF herunterladen")
    response = page.request.get(live_server.url + link.get_attribute("href"))
    if response.status == 503:  # being prepared: the worker builds it (rules.builds)
        run_background_tasks()
        response = page.request.get(live_server.url + link.get_attribute("href"))
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    body = response.body()
    goto_built(page, f"{live_server.url}/en/games/little-war/print/rules.pdf")
    page.goto(f"{live_server.url}/en/games/little-war/print/rules.pdf#page=3")  # in Chromium's PDF viewer
    page.wait_for_timeout(1500)
    save_screenshot(page, "booklet-fpdf2-pdf", full_page=False)
    page.close()
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages)
    # German labels, English content (the game has no German text yet)
    assert "Glossar" in text and "Stand:" in text and "To propose the casting of a spell" in " ".join(text.split())


@pytest.fixture
def serve_html():
    """Serves one page of HTML from a plain HTTP server of its own (another origin than
    the live server's, and a real one: Chromium keeps a page not served from the local
    network from asking it); returns its address."""
    servers = []

    def serve(html: str) -> str:
        body = html.encode()

        class Page(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_deep_link_pasted_on_another_site_previews_its_rule(live_server, game, browser, serve_html, save_screenshot):
    """The embed script (static/js/previews.js) on a forum: a link to …/#601.2a previews
    that rule, not the first lines of the entry."""
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    link = f"{live_server.url}/en/games/little-war/rules/casting-spells/#601.2a"
    forum = serve_html(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Forum</title></head><body>"
        f"<p>See <a id='deep' href='{link}'>the casting rule</a> and "
        f"<a id='whole' href='{link.split('#')[0]}'>the whole entry</a>.</p>"
        f"<script src='{live_server.url}/static/js/previews.js' defer></script></body></html>"
    )
    page.goto(forum)
    page.locator("#deep").hover()
    excerpt = page.locator("#rulesite-preview .rulesite-preview-excerpt")
    expect(excerpt).to_contain_text("601.2a To propose the casting of a spell")
    save_screenshot(page, "rulebook-preview-of-a-deep-link", full_page=False)
    page.mouse.move(0, 0)
    expect(page.locator("#rulesite-preview")).to_have_count(0)
    page.locator("#whole").hover()
    expect(excerpt).to_contain_text("Casting a spell takes several steps")
    page.close()
