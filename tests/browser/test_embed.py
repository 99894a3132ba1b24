"""The embed, on another site: a forum page from another origin includes our script
(the manual's snippet) and gets [[Game: Term]] links with the same previews, with
nothing but the script and the API asked of our host, under the forum's own strict
Content-Security-Policy. At phone and desktop sizes; screenshots as in test_previews.

The forum page is tests/browser/embed_host/index.html, served by a plain HTTP server on
a port of its own, with the live server's address in place of http://127.0.0.1:8000.
"""

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from rules.content.journal import unit_of_work
from tests.factories import make_entry, make_game, written_together

from .conftest import CSPViolations
from .test_previews import DESKTOP, PHONE, layout_shift, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

HOST_FILES = Path(__file__).parent / "embed_host"
PLACEHOLDER = b"http://127.0.0.1:8000"
TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css"}


@pytest.fixture
def forum_pages():
    """Pages a test writes for the forum to serve beside embed_host's files: name → HTML."""
    return {}


@pytest.fixture
def forum(live_server, forum_pages):
    """The forum's address: another origin (host and port) than the live server's."""
    site = live_server.url.encode()

    class Forum(BaseHTTPRequestHandler):
        def do_GET(self):
            name = "index.html" if self.path in ("/", "/index.html") else self.path.lstrip("/")
            path = HOST_FILES / name
            if name in forum_pages:
                body, suffix = forum_pages[name].encode().replace(PLACEHOLDER, site), ".html"
            elif "/" in name or not path.is_file():
                self.send_error(404)
                return
            else:
                body, suffix = path.read_bytes().replace(PLACEHOLDER, site), path.suffix
            self.send_response(200)
            self.send_header("Content-Type", TYPES.get(suffix, "application/octet-stream"))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forum)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
@written_together
def tavern():
    game = make_game(
        slug="tavern-brawl", name="Tavern Brawl", localized_names={"de": "Kneipenschlägerei"}
    )
    stool = make_entry(
        game=game,
        title="Bar Stool",
        number="4.2",
        aliases=["Stool"],
        body="A **bar stool** can be thrown once per round. It deals 2 damage to a [[Patron]] "
        "and breaks afterwards.\n\n- Pick it up.\n- Throw it.",
    )
    make_entry(
        game=game,
        title="Patron",
        body="Anyone drinking in the tavern. Patrons take sides in a brawl.",
    )
    make_entry(game=game, title="Seat", body="Where a patron sits until the brawl starts.")
    make_entry(
        game=game,
        language="de",
        title="Barhocker",
        body="Ein Barhocker.",
        translation_key=stool.translation_key,
    )
    return game


def watch(page, site: str):
    """Every request, and the errors a reader's console would show."""
    seen = {"requests": [], "errors": []}
    page.on("request", lambda request: seen["requests"].append(request.url))
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on(
        "console",
        lambda message: seen["errors"].append(message.text) if message.type == "error" else None,
    )
    return seen


def asked_of(seen, site: str) -> list[str]:
    return [url[len(site) :] for url in seen["requests"] if url.startswith(site + "/")]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_terms_written_on_another_site_become_links_with_previews(
    live_server, browser, forum, tavern, size
):
    site = live_server.url
    context = browser.new_context(**(DESKTOP if size == "desktop" else PHONE))
    page = context.new_page()
    seen = watch(page, site)
    csp = CSPViolations(page)
    try:
        page.goto(forum + "/")
        links = page.locator("a.rulesite-xref")
        expect(links).to_have_count(4)
        expect(links).to_have_text(["Bar Stool", "patrons", "Barhocker", "Seat"])
        # "Barhocker" is the German name; on this English page it is the English entry.
        hrefs = [links.nth(i).get_attribute("href") for i in range(4)]
        assert hrefs == [
            f"{site}/en/games/tavern-brawl/rules/bar-stool/",
            f"{site}/en/games/tavern-brawl/rules/patron/",
            f"{site}/en/games/tavern-brawl/rules/bar-stool/",
            f"{site}/en/games/tavern-brawl/rules/seat/",
        ]
        # What names nothing stays as written; so does markup shown as code.
        posts = page.locator("main").inner_text()
        assert (
            "[[Tavern Brawl: Flying Tankard]]" in posts and "[[Unknown Game: Bar Stool]]" in posts
        )
        expect(page.locator("code")).to_have_text("[[Tavern Brawl: Bar Stool]]")
        assert "As far as I read it, Bar Stool says" in posts

        shift, _ = layout_shift(page)  # the forum's own, and the links' text
        stool = links.first
        if size == "phone":
            stool.tap()
        else:
            stool.hover()
        box = page.locator("#rulesite-preview")
        expect(box).to_be_visible()
        expect(box.locator(".rulesite-preview-title")).to_have_text("4.2.Bar Stool")
        expect(box.locator(".rulesite-preview-meta")).to_have_text(
            f"Tavern Brawl · {urlsplit(site).netloc}"
        )
        expect(box.locator(".rulesite-preview-excerpt")).to_have_text(
            "A bar stool can be thrown once per round. It deals 2 damage to a Patron and breaks "
            "afterwards.\n• Pick it up.\n• Throw it."
        )
        # the host's styles (a serif font, purple links) do not reach into the preview
        font = box.evaluate("e => getComputedStyle(e.querySelector('p')).fontFamily")
        assert "Georgia" not in font and "system-ui" in font
        right = box.bounding_box()
        assert right["x"] >= 0 and right["x"] + right["width"] <= page.viewport_size["width"]
        shot(page, f"embed-{size}")
        score, shifts = layout_shift(page)
        assert score == shift, shifts  # the preview moved nothing

        # A link to one of our entries that the forum wrote itself previews too.
        page.keyboard.press("Escape")
        expect(box).to_have_count(0)
        plain = page.locator("#plain-link")
        if size == "phone":
            plain.tap()
        else:
            plain.hover()
        expect(box.locator(".rulesite-preview-title")).to_have_text("Patron")

        # Of our host: the script, one lookup per game as written, the plain link's preview.
        # Nothing else: no stylesheet, font or icon.
        asked = asked_of(seen, site)
        assert len(asked) == 6, asked
        assert asked[0] == "/static/js/previews.js"
        lookups = asked[1:5]
        assert all(
            url.startswith("/api/v1/entries/lookup/") and "language=en" in url for url in lookups
        )
        assert sorted(re.search(r"game=([^&]+)", url)[1] for url in lookups) == [
            "Kneipenschl%C3%A4gerei",
            "Tavern+Brawl",
            "Unknown+Game",
            "tavern-brawl",
        ]
        assert asked[5] == "/api/v1/entries/preview/?game=tavern-brawl&slug=patron&language=en"
        # and nothing from any third host
        assert {urlsplit(url).netloc for url in seen["requests"]} == {
            urlsplit(forum).netloc,
            urlsplit(site).netloc,
        }

        if size == "phone":  # the preview's link opens the entry on our site
            box.get_by_role("link", name=f"{urlsplit(site).netloc} →").tap()
            page.wait_for_url(f"{site}/en/games/tavern-brawl/rules/patron/")
        assert seen["errors"] == [] and csp.all() == []
    finally:
        context.close()


def test_with_the_api_unreachable_the_text_stays_as_written(live_server, browser, forum, tavern):
    site = live_server.url
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page, site)
    try:
        page.route(f"{site}/api/**", lambda route: route.abort("connectionrefused"))
        page.goto(forum + "/")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
        before = page.locator("main").inner_text()
        assert "[[Tavern Brawl: Bar Stool]] says" in before and "[[Seat]]" in before
        expect(page.locator("a.rulesite-xref")).to_have_count(0)
        page.locator("#plain-link").hover()
        page.wait_for_timeout(800)
        expect(page.locator("#rulesite-preview")).to_have_count(0)
        # The only console lines are Chromium's own notes of the refused requests.
        assert seen["errors"] and all(
            error.startswith("Failed to load resource: net::ERR_CONNECTION_REFUSED")
            for error in seen["errors"]
        ), seen["errors"]
    finally:
        context.close()


LONG_THREAD = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy"
    content="default-src 'self'; script-src 'self' http://127.0.0.1:8000; connect-src http://127.0.0.1:8000;
      img-src data:">
  <title>A long thread</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <main><p id="post">{terms}</p></main>
  <script src="http://127.0.0.1:8000/static/js/previews.js" data-game="Kneipenschlägerei" defer></script>
</body>
</html>
"""


def test_a_page_with_many_long_terms_gets_every_one_linked(live_server, browser, forum, forum_pages):
    """60 terms: one lookup of 50 whose URL would be long goes as a POST (from another
    origin, so CORS lets that POST through), the other 10 as a GET; every term that names an
    entry is linked to it, the unknown ones stay as written."""
    game = make_game(slug="tavern-brawl", name="Tavern Brawl", localized_names={"de": "Kneipenschlägerei"})
    titles = [f"Überlange Regel Nummer {number} über die Theke" for number in range(60)]
    with unit_of_work():  # one pipeline run, as an import
        for title in titles:
            make_entry(game=game, title=title, body=f"{title}: what it says.")
    unknown = ["Nowhere Rule", "Ghost Tankard"]
    written = [*titles[:30], *unknown, *titles[30:]]
    forum_pages["long.html"] = LONG_THREAD.format(terms=" and ".join(f"[[{term}]]" for term in written))
    site = live_server.url
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page, site)
    lookups = []
    page.on(
        "request",
        lambda request: lookups.append((request.method, request.url))
        if "/api/v1/entries/lookup/" in request.url
        else None,
    )
    csp = CSPViolations(page)
    try:
        page.goto(forum + "/long.html")
        links = page.locator("a.rulesite-xref")
        expect(links).to_have_count(60)
        shown = links.all_inner_texts()
        assert shown == titles
        hrefs = [links.nth(i).get_attribute("href") for i in (0, 59)]
        assert hrefs == [
            f"{site}/en/games/tavern-brawl/rules/uberlange-regel-nummer-0-uber-die-theke/",
            f"{site}/en/games/tavern-brawl/rules/uberlange-regel-nummer-59-uber-die-theke/",
        ]
        text = page.locator("#post").inner_text()
        assert "[[Nowhere Rule]]" in text and "[[Ghost Tankard]]" in text
        assert sorted(method for method, _url in lookups) == ["GET", "POST"], lookups
        post_url = next(url for method, url in lookups if method == "POST")
        assert post_url == f"{site}/api/v1/entries/lookup/"
        assert seen["errors"] == [] and csp.all() == []
    finally:
        context.close()
