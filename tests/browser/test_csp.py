"""The Content-Security-Policy in a real browser: every kind of page works under it, and
Chromium reports not one violation (rulesite/settings/base.py, CONTENT_SECURITY_POLICY).

A violation is what a page would lose under the policy (a blocked script, style, frame
or worker), so each page is also checked for doing its job: the search box suggests,
Swagger UI lists the operations, ReDoc renders them, the admin's preview updates.
"""

import pytest
from playwright.sync_api import expect

from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_moderator import log_in
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
@written_together
def game():
    game = make_game(slug="policy-game", name="Policy Game")
    ready = make_entry(
        game=game, title="Ready", body="Turn an **exhausted** card upright. See [[Exhaust]]."
    )
    make_entry(game=game, title="Exhaust", body="Turn the card sideways.", see_also=["Ready"])
    make_erratum(
        game=game,
        title="Ready timing",
        original_text="Ready at the start of the round.",
        corrected_text="Ready at the end of the round.",
        affects=[ready],
    )
    make_question(
        game=game,
        question="Can a ready card react?",
        answer="Yes, *once*.",
        related_entries=[ready],
    )
    return game


def visit(page, url: str, *, status: int = 200):
    response = page.goto(url)
    assert response.status == status, url
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"], url
    page.wait_for_load_state("networkidle")


def test_public_pages_work_without_a_violation(live_server, page, game, csp_violations):
    base = f"{live_server.url}/en"

    visit(page, f"{base}/")
    expect(page.locator(".card-title")).to_have_text(["Policy Game"])
    box = page.locator("#site-search")
    box.click()
    box.press_sequentially("rea", delay=30)
    expect(page.locator("#site-search-suggestions").get_by_role("option").first).to_contain_text(
        "Ready"
    )
    assert csp_violations.all() == [], "home"

    visit(page, f"{base}/games/policy-game/")
    expect(page.locator("main")).to_contain_text("Exhaust")
    assert csp_violations.all() == [], "game"

    visit(page, f"{base}/games/policy-game/rules/ready/")
    expect(page.locator("article.entry .body strong")).to_have_text("exhausted")
    expect(page.locator("main")).to_contain_text("Ready timing")
    assert csp_violations.all() == [], "entry"

    visit(page, f"{base}/games/policy-game/errata/")
    expect(page.locator("article.erratum h2")).to_contain_text("Ready timing")
    assert csp_violations.all() == [], "errata"

    visit(page, f"{base}/games/policy-game/faq/")
    expect(page.locator("article.question")).to_contain_text("Can a ready card react?")
    assert csp_violations.all() == [], "faq"

    visit(page, f"{base}/search/?q=exhaust")
    expect(page.locator(".results .result-title").first).to_be_visible()
    assert csp_violations.all() == [], "search"

    visit(page, f"{base}/games/policy-game/rules/no-such-rule/", status=404)
    expect(page.locator("form[role=search]").last).to_be_visible()
    assert csp_violations.all() == [], "404"


def test_a_cached_page_keeps_its_policy(live_server, page, game):
    url = f"{live_server.url}/en/games/policy-game/"
    first = page.request.get(url)
    again = page.request.get(url)
    assert first.status == again.status == 200
    assert again.headers["content-security-policy"] == first.headers["content-security-policy"]
    assert "script-src 'self'" in again.headers["content-security-policy"]


def test_api_docs_render_their_operations_without_a_violation(live_server, page, csp_violations):
    visit(page, f"{live_server.url}/api/v1/docs/")
    expect(page.locator(".opblock-summary-path").first).to_be_visible(timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/v1/entries/" in path for path in paths), paths
    assert csp_violations.all() == [], "swagger"

    visit(page, f"{live_server.url}/api/v1/redoc/")
    # ReDoc renders an operation per path in its side menu and in the body.
    expect(page.locator("[role=menuitem]").first).to_be_visible(timeout=15_000)
    expect(page.locator("h2").filter(has_text="entries").first).to_be_attached()
    # Its search box filters the menu (ReDoc's search index runs in a web worker).
    page.locator("input[placeholder='Search...']").fill("suggest")
    expect(page.locator("[data-role='search:results'] li").first).to_be_visible(timeout=10_000)
    # ReDoc's bundle shows a logo from its makers' CDN beside "API docs by Redocly":
    # that one request is refused by the policy (the docs work offline), nothing else.
    blocked_logo = [
        v
        for v in csp_violations.all()
        if "cdn.redoc.ly/redoc/logo-mini.svg" in v and "img-src" in v
    ]
    assert blocked_logo, "the policy refuses the CDN logo"
    assert [v for v in csp_violations.all() if v not in blocked_logo] == [], "redoc"


def test_admin_pages_and_the_live_preview_work_without_a_violation(
    live_server, page, game, csp_violations
):
    make_staff("maria", MODERATORS_GROUP)
    visit(page, f"{live_server.url}/admin/login/?next=/admin/")
    expect(page.locator("#login-form")).to_be_visible()
    assert csp_violations.all() == [], "admin login"

    log_in(page, live_server.url, "maria")
    page.wait_for_load_state("networkidle")
    expect(page.locator("#content-main")).to_contain_text("Entries")
    assert csp_violations.all() == [], "admin index"

    entry = game.entries.get(slug="ready")
    visit(page, f"{live_server.url}/admin/rules/entry/{entry.pk}/change/")
    frame = page.frame_locator(".md-preview-frame")
    expect(frame.locator(".body strong")).to_have_text("exhausted")
    page.locator("#id_body").fill("A *freshly* typed rule.")
    expect(frame.locator(".body em")).to_have_text("freshly")
    # The frame's look comes from the site's stylesheet, not an inline style.
    assert frame.locator("main.wrap").evaluate("m => getComputedStyle(m).paddingTop") == "16px"
    assert csp_violations.all() == [], "admin change form"

    visit(page, f"{live_server.url}/admin/rules/entry/")
    expect(page.locator("#result_list")).to_contain_text("Exhaust")
    assert csp_violations.all() == [], "admin change list"

    for path, shows in [
        (f"/admin/rules/entry/{entry.pk}/history/", "Ready"),
        ("/admin/rules/entry/import/", "Import"),
        ("/admin/worklists/", "Wanted"),
        ("/admin/activity/", "Ready"),
        (f"/admin/faq/question/{game.faq_questions.get().pk}/change/", "Can a ready card react?"),
    ]:
        visit(page, live_server.url + path)
        expect(page.locator("#content")).to_contain_text(shows)
        assert csp_violations.all() == [], path

    visit(page, f"{live_server.url}/admin/rules/entry/{entry.pk}/view/")
    expect(page.locator(".staff-banner")).to_be_visible()
    assert page.locator(".staff-banner").evaluate("b => getComputedStyle(b).marginTop") == "16px"
    assert csp_violations.all() == [], "staff view"
