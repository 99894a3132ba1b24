"""A real browser: Debian's Chromium driven by Playwright (no browser download).

Without Chromium on the machine these tests skip with a visible reason so `make test`
still passes for a new user; CI sets RULESITE_REQUIRE_BROWSER=1, which turns the skip
into a failure, so CI can never pass with the browser tests silently skipped.
"""

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",  # needed as root
    "--disable-gpu",
    "--disable-background-networking",  # no calls to hosts this machine cannot reach
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    executable = _chromium()
    if executable is None:
        if os.environ.get("RULESITE_REQUIRE_BROWSER") == "1":
            pytest.fail("RULESITE_REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install -y chromium)")
        pytest.skip("no chromium on PATH: install Debian's chromium to run the browser tests")
    # Playwright's sync API runs an event loop; Django's async-safety check would refuse
    # database access from the test thread while it runs.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from django.db import connections
    from playwright.sync_api import sync_playwright

    # Playwright's sync API leaves the test code with new connection objects; hand them
    # the serialized migrated rows (the moderator groups) so that serialized_rollback
    # keeps restoring them after each browser test's flush.
    saved = {alias: getattr(connections[alias], "_test_serialized_contents", None) for alias in connections}
    with sync_playwright() as playwright:
        for alias, contents in saved.items():
            if contents is not None and not hasattr(connections[alias], "_test_serialized_contents"):
                connections[alias]._test_serialized_contents = contents
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
        connections.close_all()  # this context's own: the test databases are dropped next


@pytest.fixture
def page(browser):
    """A desktop page without the site's service worker: a page whose requests a test
    stubs (``page.route``) must make them itself, not through the worker, which fetches
    past the stubs. The offline tests (test_offline.py) make contexts that allow it."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, service_workers="block")
    page = context.new_page()
    yield page
    context.close()


# Every Content-Security-Policy violation a page reports: the document's
# `securitypolicyviolation` events (collected by a script Playwright runs before the
# page's own) and Chromium's console errors for them, which also cover frames that run
# no script (the admin's sandboxed preview) and workers.
CSP_LISTENER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"} ` +
                    `at ${event.sourceFile || event.documentURI}:${event.lineNumber}`);
});
"""


class CSPViolations:
    def __init__(self, page):
        self.page = page
        self.console = []
        page.add_init_script(CSP_LISTENER)
        page.on("console", self._on_console)

    def _on_console(self, message) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(message.text)

    def all(self) -> list[str]:
        """The violations seen so far: the open document's events and every console report."""
        try:
            events = self.page.evaluate("window.__csp || []")
        except Exception:  # the page is navigating; its console reports are still kept
            events = []
        return [*events, *self.console]


@pytest.fixture
def csp_violations(page):
    return CSPViolations(page)


# Screenshots a test run saves, for a person to look at: one directory per run
# (pytest's base temporary directory, or RULESITE_SCREENSHOT_DIR to keep them, e.g. as
# CI artifacts). save_screenshot(page, "name") writes name.png there and returns its path.
@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory):
    configured = os.environ.get("RULESITE_SCREENSHOT_DIR")
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("screenshots", numbered=False)


@pytest.fixture
def save_screenshot(screenshot_dir):
    def save(page, name: str, *, full_page: bool = True) -> Path:
        path = screenshot_dir / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return save
