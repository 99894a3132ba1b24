"""A moderator says why they changed an entry, in a real browser: the reason is on the
version in the history page and in the activity log."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_moderator import log_in
from tests.factories import make_entry, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SCREENSHOTS = Path(os.environ.get("MODERATOR_SCREENSHOTS", "/tmp/rulesite-moderator-screenshots"))


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_a_reason_typed_on_the_form_is_in_the_history_and_the_activity_log(live_server, page, csp_violations):
    game = make_game(name="Arkham Horror")
    entry = make_entry(game=game, title="Reaction", body="Old text.")
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")
    page.goto(f"{live_server.url}/admin/rules/entry/{entry.pk}/change/")

    reason = page.get_by_label("Reason for this change")
    expect(reason).to_have_value("")
    expect(reason).to_have_attribute("maxlength", "100")
    page.locator("#id_body").fill("New text.")
    reason.fill("Official FAQ 1.3, p. 4")
    shot(page, "reason-1-change-form")
    page.locator("input[name=_continue]").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    expect(page.get_by_label("Reason for this change")).to_have_value("")  # for the next change only

    page.goto(f"{live_server.url}/admin/rules/entry/{entry.pk}/history/")
    newest = page.locator("tr.history-version").first
    expect(newest.locator(".history-who")).to_have_text("maria")
    expect(newest.locator(".history-why")).to_have_text("Official FAQ 1.3, p. 4")
    expect(newest.locator(".history-what")).to_contain_text("New")
    shot(page, "reason-2-history")

    page.goto(f"{live_server.url}/admin/activity/")
    row = page.locator("#activity tbody tr").first
    expect(row).to_contain_text("Entry: Reaction")
    expect(row.locator("td").nth(5)).to_have_text("Official FAQ 1.3, p. 4")
    shot(page, "reason-3-activity")
    assert csp_violations.all() == []
