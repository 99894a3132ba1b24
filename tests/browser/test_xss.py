"""No script from content ever runs: the XSS corpus (tests/xss_vectors.txt, through
tests/xss.py) in every field moderators and imports fill, rendered on every public page
kind and in the admin, in Chromium.

Detection is the browser's own: a hook every page gets before its scripts
(``window.__xss``, which the vectors call with their number) and a dialog handler (for
``alert``/``confirm``/``prompt``). Vectors that need a click or a hover (``onclick``,
``javascript:`` links) are caught by what the browser built: no element may carry an
event-handler attribute, and no link, frame, form or embed may point at a script URL.

This test runs Chromium with the Content-Security-Policy switched off (``bypass_csp``),
so the sanitising is tested on its own: the policy is the second wall, tested by
tests/browser/test_csp.py; one page kind per surface is checked again with the policy on,
which must report no violation (content that needs an exception would show up there).
"""

import re
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from tests.browser.conftest import CSP_LISTENER
from tests.xss import MARK, VECTORS, import_corpus, make_corpus_game, one_line, packed

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

HOOK = "window.__xss = [];"

# What the browser built that a click or a hover could run: event-handler attributes,
# and script URLs in anything that navigates, loads or submits. URLs are read through
# the browser's own parser (entities, tabs and case already resolved).
DANGEROUS_DOM = """() => {
  const found = [];
  const scriptish = (value) => {
    let url;
    try { url = new URL(value, document.baseURI); } catch (e) { return false; }
    return ["javascript:", "vbscript:"].includes(url.protocol) ||
           (url.protocol === "data:" && !/^data:image\\/(png|gif|jpeg|webp)[;,]/i.test(value.trim()));
  };
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on")) found.push(`${el.tagName} ${name}=${attr.value}`);
      if (["href", "xlink:href", "src", "action", "formaction", "data", "poster", "background"].includes(name)
          && scriptish(attr.value)) found.push(`${el.tagName} ${name}=${attr.value}`);
      if (name === "srcdoc" && !el.classList.contains("md-preview-frame")) found.push(`${el.tagName} srcdoc`);
    }
    if (el.tagName === "SCRIPT" && !el.src && el.type !== "application/json") found.push("inline script");
    if (["OBJECT", "EMBED"].includes(el.tagName) || (el.tagName === "BASE" && el.hasAttribute("href")))
      found.push(el.tagName);
    if (el.tagName === "META" && (el.httpEquiv || "").toLowerCase() === "refresh") found.push("meta refresh");
  }
  return found;
}"""


class Browser:
    """One browser context with the hook, the dialog handler and the checks."""

    def __init__(self, browser, base_url: str, *, bypass_csp: bool):
        self.context = browser.new_context(
            viewport={"width": 1200, "height": 900}, bypass_csp=bypass_csp
        )
        self.context.add_init_script(HOOK)
        self.context.add_init_script(CSP_LISTENER)
        self.context.set_default_timeout(15_000)
        self.page = self.context.new_page()
        self.base_url = base_url
        self.executed: list[str] = []  # dialogs and hook calls, with the page they ran on
        self.dangerous: list[str] = []
        self.violations: list[str] = []
        self.page.on("dialog", self._on_dialog)
        self.page.on(
            "console",
            lambda m: (
                self.violations.append(m.text) if "Content Security Policy" in m.text else None
            ),
        )

    def _on_dialog(self, dialog) -> None:
        self.executed.append(f"{dialog.type}({dialog.message}) on {self.page.url}")
        dialog.dismiss()

    def visit(self, path: str, status: int = 200):
        response = self.page.goto(self.base_url + path)
        assert response.status == status, path
        self.page.wait_for_load_state("load")
        return self.page

    def check(self) -> None:
        """After the page did its work: what ran, and what a click could run, in every frame."""
        # Two rendering updates, where autofocus runs and animations begin (a broken
        # image's or video's onerror has already fired by ``load``).
        self.page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        for frame in self.page.frames:
            try:  # one round trip per frame
                ran, found, csp = frame.evaluate(f"[window.__xss || [], ({DANGEROUS_DOM})(), window.__csp || []]")
            except Exception:  # a frame without scripts (the sandboxed preview): see below
                ran, found, csp = [], [], []
            self.executed += [f"__xss.push({n}) on {frame.url}" for n in ran]
            self.dangerous += [f"{item} on {frame.url}" for item in found]
            self.violations += csp

    def check_preview_frame(self) -> None:
        """The sandboxed preview runs no script; what it holds is read from outside."""
        frame = self.page.frame_locator(".md-preview-frame")
        found = frame.locator("body").evaluate(DANGEROUS_DOM.replace("() =>", "(_) =>", 1))
        self.dangerous += [f"{item} in the preview" for item in found]

    def close(self) -> None:
        self.context.close()


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture
def corpus(tmp_path):
    world = make_corpus_game()
    world["text_game"], world["json_game"] = import_corpus(tmp_path)
    User.objects.create_superuser("root", "root@example.org", "a-long-password")
    return world


def test_no_vector_runs_anywhere(live_server, browser, corpus):
    chrome = Browser(browser, live_server.url, bypass_csp=True)
    page = chrome.page
    game, carrier = corpus["game"], corpus["carrier"]
    names = packed(200)

    # -- public pages ---------------------------------------------------------------------
    chrome.visit("/en/")
    shown = [normalized(t) for t in page.locator(".card-title").all_inner_texts()]
    assert normalized(names[0]) in shown and normalized(names[-1]) in shown  # names shown as text
    chrome.check()

    for each in [game, *corpus["extra_games"]]:
        chrome.visit(f"/en/games/{each.slug}/")
        assert normalized(page.locator("h1").inner_text()) == normalized(each.name)
        chrome.check()
    sources = page.locator("#sources-heading + ul li")
    chrome.visit(f"/en/games/{game.slug}/")
    expect(sources).to_have_count(len(corpus["sources"]))
    listed = normalized(" ".join(sources.all_inner_texts()))
    assert all(normalized(source.title) in listed for source in corpus["sources"])
    assert (
        page.locator("#sources-heading + ul a[href^='https://example.org/rules?v=']").count() > 30
    )

    chrome.visit(carrier.get_absolute_url())
    body = page.locator("article.entry .body")
    expect(body).to_contain_text(f"{MARK} text.")
    assert "__xss.push(" in body.inner_text()  # the vectors are there, as text
    expect(page.locator("main")).to_contain_text(
        normalized(one_line(VECTORS[-1]))
    )  # an alias or label
    expect(page.locator("article.erratum")).to_have_count(1 + len(corpus["errata"]))
    chrome.check()
    for entry in corpus["titled"]:
        chrome.visit(entry.get_absolute_url())
        assert normalized(page.locator("article.entry h1").inner_text()) == normalized(entry.title)
        chrome.check()

    chrome.visit(f"/en/games/{game.slug}/errata/")
    expect(page.locator("article.erratum")).to_have_count(1 + len(corpus["errata"]))
    expect(page.locator("article.erratum ins").first).to_be_attached()  # the word diff
    chrome.check()
    chrome.visit(f"/en/games/{game.slug}/faq/")
    expect(page.locator("article.question")).to_have_count(len(corpus["questions"]))
    chrome.check()

    # Both imports, through every page kind of their games.
    read = []
    for imported, shown in ((corpus["text_game"], "__xss.push("), (corpus["json_game"], MARK)):
        chrome.visit(f"/en/games/{imported.slug}/")
        chrome.check()
        entries = imported.entries.order_by("order")
        assert entries.count() > 10
        for entry in entries:
            chrome.visit(entry.get_absolute_url())
            expect(page.locator("article.entry .body")).to_contain_text(shown)
            read.append(page.locator("article.entry .body").inner_text())
            chrome.check()
    # The plain-text import shows its text as written: markup-looking text is text.
    assert "<script>__xss.push(1)</script>" in read[0]
    assert "<img src=x onerror=__xss.push(11)>" in read[0]
    assert f"<%= __xss.push({len(VECTORS)}) %>" in " ".join(read)
    for kind in ("errata", "faq"):
        chrome.visit(f"/en/games/{corpus['json_game'].slug}/{kind}/")
        expect(page.locator("main")).to_contain_text(MARK)
        chrome.check()

    # Search results (titles, snippets) and queries reflected into the page.
    for number in (1, 2, 3):
        chrome.visit(f"/en/search/?q={MARK}&page={number}")
        expect(page.locator(".results .result").first).to_be_visible()
        chrome.check()
    for vector in VECTORS[::10]:
        chrome.visit(f"/en/search/?q={quote(one_line(vector)[:200])}")
        assert page.locator("#search-q").input_value() == one_line(vector)[:200]
        chrome.check()
    chrome.visit(f"/en/games/{game.slug}/rules/{quote(VECTORS[10])}/", status=404)
    chrome.check()

    # Suggestions as you type (built by static/js/search.js from the API's JSON).
    chrome.visit(f"/en/games/{game.slug}/")
    page.locator("#site-search").press_sequentially(MARK[:6], delay=20)
    expect(page.locator("#site-search-suggestions [role=option]").first).to_be_visible()
    chrome.check()

    # -- the admin --------------------------------------------------------------------------
    chrome.visit("/admin/login/")
    page.locator("#id_username").fill("root")
    page.locator("#id_password").fill("a-long-password")
    page.locator("#login-form [type=submit]").click()
    expect(page.locator("#user-tools")).to_contain_text("root")
    for path in [
        "/admin/rules/entry/?all=",
        "/admin/rules/erratum/",
        "/admin/faq/question/",
        "/admin/rules/game/",
        "/admin/rules/source/",
        "/admin/worklists/wanted/",
        "/admin/worklists/errata/",
        "/admin/activity/",
    ]:
        chrome.visit(path)
        expect(page.locator("#content")).to_contain_text("__xss.push(")  # the corpus, as text
        chrome.check()
    for item, field in [
        (carrier, "#id_body"),
        (corpus["erratum"], "#id_corrected_text"),
        (corpus["questions"][0], "#id_answer"),
    ]:
        opts = item._meta
        chrome.visit(f"/admin/{opts.app_label}/{opts.model_name}/{item.pk}/change/")
        assert page.locator(field).input_value().startswith(f"{MARK} text.")
        frame = page.frame_locator(".md-preview-frame")
        expect(frame.locator("main")).to_contain_text(MARK)
        page.locator(field).press("Control+Home")  # before the unclosed tags of the corpus
        typed = "Typed <img src=x onerror=__xss.push(999)> [and](javascript:__xss.push(998)) previewed.\n\n"
        page.locator(field).press_sequentially(typed, delay=2)
        expect(frame.locator("main")).to_contain_text(re.compile(r"Typed .*previewed\."))
        chrome.check()
        chrome.check_preview_frame()
        chrome.visit(f"/admin/{opts.app_label}/{opts.model_name}/{item.pk}/history/")
        expect(page.locator("#content")).to_contain_text("__xss.push(")
        chrome.check()
    for item in [corpus["sources"][0], game]:
        opts = item._meta
        chrome.visit(f"/admin/{opts.app_label}/{opts.model_name}/{item.pk}/change/")
        chrome.check()
    chrome.visit(f"/admin/rules/entry/{carrier.pk}/history/")
    # The history shows the corpus in a diff.
    expect(page.locator("#content ins, #content del").first).to_be_attached()
    chrome.close()

    assert chrome.executed == []
    assert chrome.dangerous == []


def test_no_vector_runs_and_nothing_is_refused_with_the_policy_on(live_server, browser, corpus):
    """The same content under the Content-Security-Policy: nothing runs, and nothing in it
    needs an exception (no violation report)."""
    chrome = Browser(browser, live_server.url, bypass_csp=False)
    game, carrier = corpus["game"], corpus["carrier"]
    for path in [
        "/en/",
        f"/en/games/{game.slug}/",
        carrier.get_absolute_url(),
        f"/en/games/{game.slug}/errata/",
        f"/en/games/{game.slug}/faq/",
        f"/en/search/?q={MARK}",
        corpus["json_game"].entries.get(slug="carrier-0").get_absolute_url(),
    ]:
        chrome.visit(path)
        expect(chrome.page.locator("main")).to_contain_text(MARK)
        chrome.check()
    chrome.close()
    assert chrome.executed == []
    assert chrome.dangerous == []
    assert chrome.violations == []
