"""The change lists of entries, errata and FAQ questions at 1280 × 800: the Status column
is on screen, inside the list's box, with no sideways scrolling (rules/admin/lists.py),
in English and German; axe-core finds nothing in the list.

The content is what made it fall off before: a game with a long name, long titles, a
rule section, a fragment, a dated erratum. Screenshots go to MODERATOR_SCREENSHOTS.
"""

import datetime
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rules.content.querysets import Status
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_entry_pickers import no_axe_violations_in
from tests.browser.test_moderator import log_in
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SCREENSHOTS = Path(os.environ.get("MODERATOR_SCREENSHOTS", "/tmp/rulesite-moderator-screenshots"))

LISTS = {
    "entries": ("/admin/rules/entry/", "Draft"),
    "errata": ("/admin/rules/erratum/", "In review"),
    "questions": ("/admin/faq/question/", "Archived"),
}


@pytest.fixture
@written_together
def content():
    thrones = make_game(name="A Game of Thrones: The Card Game (Second Edition)", slug="agot2")
    polish = make_game(name="Star Wars Trading Card Game", slug="swtcg")
    entry = make_entry(game=thrones, title="Redirect (Melee game only)", status=Status.DRAFT)
    make_entry(game=thrones, title="Put into Play", kind="section", number="2.1", is_fragment=True)
    make_entry(game=polish, language="pl", title="„Zagranie” zdolnością aktywowaną, kartą bitewną i kartą misji")
    make_erratum(game=thrones, title="Challenges: who may declare defenders", status=Status.REVIEW,
                 kind="clarification", published_on=datetime.date(2026, 11, 23), affects=[entry])  # fmt: skip
    make_erratum(game=polish, language="pl", title="Zdolności aktywne w strefie budowy")
    make_question(game=thrones, question="Can a character with stealth be chosen as a defender?",
                  topic="Challenges", status=Status.ARCHIVED)  # fmt: skip
    make_question(game=polish, language="pl", question="Czy mogę zagrać zdolność dwa razy?")


def measure(page) -> dict:
    """Where the Status column is, against the list's box and the window."""
    return page.evaluate(
        """() => {
          const box = (el) => el.getBoundingClientRect();
          const results = document.querySelector('#changelist .results');
          const cells = [...document.querySelectorAll('#result_list th.column-status, #result_list td.field-status')];
          return {
            results: {left: box(results).left, right: box(results).right,
                      scrollWidth: results.scrollWidth, clientWidth: results.clientWidth},
            page: {scrollWidth: document.documentElement.scrollWidth, clientWidth: innerWidth},
            status: cells.map((el) => ({left: box(el).left, right: box(el).right, text: el.innerText.trim()})),
          };
        }"""
    )


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_status_column_is_visible_at_1280(live_server, page, content, language):
    make_staff("maria", MODERATORS_GROUP)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    log_in(page, live_server.url, "maria")

    for name, (path, status) in LISTS.items():
        page.goto(live_server.url + path)
        expect(page.locator("#result_list")).to_be_visible()
        found = measure(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"list-1280-{name}-{language}.png"))

        assert found["page"]["scrollWidth"] <= found["page"]["clientWidth"], name
        assert found["results"]["scrollWidth"] <= found["results"]["clientWidth"], (name, found["results"])
        rows = page.locator("#result_list tbody tr").count()
        assert rows >= 2 and len(found["status"]) == 1 + rows, name  # the heading and every row
        for cell in found["status"]:
            assert found["results"]["left"] <= cell["left"] < cell["right"] <= found["results"]["right"], (name, cell)
            assert cell["right"] <= 1280, (name, cell)
        if language == "en":
            assert status in [cell["text"] for cell in found["status"]], name
        no_axe_violations_in(page, "#content-main")
