"""A moderator fixes a draft in a real browser: live preview, save, publish, public page."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rules.content.models import Entry
from rules.content.querysets import Status
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.factories import make_entry, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# Screenshots go here to be looked at (MODERATOR_SCREENSHOTS=/some/dir to keep them elsewhere).
SCREENSHOTS = Path(os.environ.get("MODERATOR_SCREENSHOTS", "/tmp/rulesite-moderator-screenshots"))


def shot(page, name: str, **kwargs) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **kwargs)


@pytest.fixture
def errors(page):
    """Script errors on the page: the test asserts there are none."""
    found = []
    page.on("pageerror", lambda error: found.append(str(error)))
    # The admin's pages link no icon, so Chromium asks for /favicon.ico: not this test's concern.
    page.on(
        "console",
        lambda message: found.append(f"{message.text} {message.location.get('url', '')}")
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico")
        else None,
    )
    return found


@pytest.fixture
def draft():
    game = make_game(slug="reaction-game", name="Reaction Game")
    make_entry(game=game, title="Exhaust", body="Turn the card sideways. An exhausted card cannot react.")
    return make_entry(
        game=game, title="Ready", body="Turn an exhausted card upright.", see_also=["Exhaust"], status=Status.DRAFT
    )


def log_in(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/admin/login/?next=/admin/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill("a-long-password")
    page.locator("#login-form [type=submit]").click()
    expect(page.locator("#user-tools")).to_contain_text(username)


def test_moderator_edits_with_the_live_preview_and_publishes(live_server, page, draft, errors):
    make_staff("maria", MODERATORS_GROUP)
    previews = []
    page.on("request", lambda request: previews.append(request) if request.url.endswith("/preview/") else None)
    assert page.context.request.get(f"{live_server.url}/en/games/reaction-game/rules/ready/").status == 404

    log_in(page, live_server.url, "maria")
    page.goto(f"{live_server.url}/admin/rules/entry/{draft.pk}/change/")
    frame = page.frame_locator(".md-preview-frame")
    # The saved text is previewed as soon as the form opens.
    expect(frame.locator("article.entry h1")).to_have_text("Ready")
    expect(frame.locator(".body")).to_contain_text("Turn an exhausted card upright.")

    body = page.locator("#id_body")
    body.fill("")
    body.press_sequentially("A **ready** card can react. After reacting, [[Exhaust]] it.", delay=5)
    expect(frame.locator(".body strong")).to_have_text("ready")
    link = frame.locator(".body a.xref")
    expect(link).to_have_text("Exhaust")
    expect(link).to_have_attribute("href", "/en/games/reaction-game/rules/exhaust/")
    expect(frame.locator(".body")).not_to_contain_text("**")
    expect(page.locator(".md-preview-status")).to_be_hidden()  # no error shown
    # Typing is debounced: far fewer requests than keystrokes.
    assert 1 < len(previews) < 20
    # The preview is styled by the public site's CSS, not the admin's.
    sheets = frame.locator("link[rel=stylesheet]")
    expect(sheets).to_have_attribute("href", "/static/css/site.css")
    shot(page, "1-change-form-with-preview", full_page=True)
    page.locator(".md-preview").screenshot(path=str(SCREENSHOTS / "2-preview-pane.png"))

    # A draft's "view on site" is the moderators' view of the page, marked not public.
    view_on_site = page.locator("a.viewsitelink")
    expect(view_on_site).to_have_attribute("href", f"/admin/rules/entry/{draft.pk}/view/")

    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    draft.refresh_from_db()
    assert draft.body == "A **ready** card can react. After reacting, [[Exhaust]] it."
    assert draft.status == Status.DRAFT

    staff_view = page.context.new_page()
    staff_view.goto(f"{live_server.url}/admin/rules/entry/{draft.pk}/view/")
    expect(staff_view.locator(".staff-banner")).to_contain_text("Not public: this is a draft.")
    expect(staff_view.locator("article.entry .body strong")).to_have_text("ready")
    shot(staff_view, "3-staff-view-of-the-draft", full_page=True)
    staff_view.close()

    # Publish from the change list with the bulk action.
    page.goto(f"{live_server.url}/admin/rules/entry/?status__exact=draft")
    page.locator(f"input.action-select[value='{draft.pk}']").check()
    page.locator("select[name=action]").select_option(label="Publish the selected items")
    page.locator("button[name=index]").click()
    expect(page.locator(".messagelist")).to_contain_text("1 item changed.")
    assert Entry.objects.get(pk=draft.pk).status == Status.PUBLISHED

    page.goto(f"{live_server.url}/en/games/reaction-game/rules/ready/")
    expect(page.locator("article.entry .body strong")).to_have_text("ready")
    xref = page.locator("article.entry .body a.xref")
    expect(xref).to_have_attribute("href", "/en/games/reaction-game/rules/exhaust/")
    expect(page.locator("article.entry .body")).to_contain_text("After reacting, Exhaust it.")
    shot(page, "4-public-page", full_page=True)
    assert errors == []


def test_preview_shows_a_quiet_error_and_recovers(live_server, page, draft, errors):
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")
    page.set_viewport_size({"width": 700, "height": 900})  # narrow: the preview stacks below the text
    page.goto(f"{live_server.url}/admin/rules/entry/{draft.pk}/change/")
    frame = page.frame_locator(".md-preview-frame")
    expect(frame.locator("article.entry h1")).to_have_text("Ready")
    body_box = page.locator("#id_body").bounding_box()
    pane_box = page.locator(".md-preview").bounding_box()
    assert pane_box["y"] > body_box["y"] + body_box["height"] - 1

    # The server refuses: the last good preview stays, dimmed, with the server's message.
    page.route("**/preview/", lambda route: route.fulfill(status=400, json={"error": "Too long to preview."}))
    page.locator("#id_body").fill("Something *new*.")
    expect(page.locator(".md-preview-status")).to_have_text("Too long to preview.")
    expect(page.locator(".md-preview")).to_have_class("md-preview is-stale")
    expect(frame.locator(".body")).to_contain_text("Turn an exhausted card upright.")
    shot(page, "5-preview-error-narrow", full_page=True)

    page.unroute("**/preview/")
    page.locator("#id_body").fill("Something *new* again.")
    expect(frame.locator(".body em")).to_have_text("new")
    expect(page.locator(".md-preview-status")).to_be_hidden()
    assert [e for e in errors if "400" not in e] == []  # the refused request is the only console error
