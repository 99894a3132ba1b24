"""A game moderator works through players' suggestions in a real browser, at 360 and
1280 px: from the dashboard's count to the queue, a review page with its word diff,
"Accept", and the public entry showing the new text; a rejection with a canned reason
and words of their own; a stale suggestion's three-way view, accepted with the merged
text. axe-core finds nothing in the queue or on the review pages.

The suggestions are made through the service (``suggestions.submit``), as the player's
page makes them. Screenshots go to MODERATOR_SCREENSHOTS.
"""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rules.content.models import Entry
from rules.moderation import suggestions
from rules.moderation.models import Suggestion
from rules.moderation.permissions import GAME_MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_entry_pickers import no_axe_violations_in
from tests.browser.test_moderator import errors, log_in  # noqa: F401 - errors is a fixture
from tests.factories import make_entry, make_game, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SCREENSHOTS = Path(os.environ.get("MODERATOR_SCREENSHOTS", "/tmp/rulesite-moderator-screenshots"))
WIDTHS = [360, 1280]


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def axe(page, found: list) -> None:
    """No script error so far; then axe-core finds nothing in the page's content. (axe
    itself applies inline styles, which the admin's policy refuses, and fetches the
    stylesheets' imports: those console errors are its own, and forgotten.)"""
    assert found == [], found
    no_axe_violations_in(page, "#content-main")
    page.wait_for_load_state("networkidle")
    found.clear()


def no_sideways_scrolling(page) -> None:
    """The page is no wider than the window (long words wrap, the three texts stack)."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width


@pytest.fixture
@written_together
def queue_world():
    game = make_game(name="Arcadia", slug="arcadia")
    other = make_game(name="Blue Moon", slug="blue-moon")
    attack = make_entry(game=game, title="Attack", body="Exhaust a unit to attack an adjacent enemy unit.")
    defend = make_entry(game=game, title="Defend", body="A defending unit rolls one die.")
    typo = suggestions.submit(
        attack,
        kind=Suggestion.Kind.WRONG_RULE,
        comment="Ranged units can attack too (rulebook p. 12).",
        proposal="Exhaust a unit to attack an adjacent or ranged enemy unit.",
        address="203.0.113.7",
    )
    wrong = suggestions.submit(
        defend, kind=Suggestion.Kind.TYPO, comment="Two dice, surely?", proposal="A defending unit rolls two dice."
    )
    elsewhere = make_entry(game=other, title="Move", body="Move up to 2 spaces.")
    suggestions.submit(elsewhere, kind=Suggestion.Kind.TYPO, comment="Not for this moderator.")
    moderator = make_staff("maria", GAME_MODERATORS_GROUP, [game])
    return {"game": game, "attack": attack, "defend": defend, "typo": typo, "wrong": wrong, "moderator": moderator}


@pytest.mark.parametrize("width", WIDTHS)
def test_a_moderator_accepts_one_suggestion_and_rejects_another(live_server, page, queue_world, errors, width):  # noqa: F811
    page.set_viewport_size({"width": width, "height": 900})
    typo, wrong, attack = queue_world["typo"], queue_world["wrong"], queue_world["attack"]
    log_in(page, live_server.url, "maria")

    # The dashboard counts this moderator's games' open suggestions only.
    count = page.locator("#count-suggestions")
    expect(count).to_have_text("2")
    page.get_by_role("link", name="Players' suggestions to review").click()

    # The queue: newest first, with the item, kind, comment and age.
    rows = page.locator("tr.suggestion-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Defend")
    expect(rows.nth(1)).to_contain_text("Attack")
    expect(rows.nth(1)).to_contain_text("Wrong or outdated rule")
    expect(rows.nth(1)).to_contain_text("Ranged units can attack too")
    expect(rows.nth(1)).to_contain_text("ago")
    expect(page.locator("#changelist")).not_to_contain_text("Not for this moderator.")
    axe(page, errors)
    shot(page, f"suggestions-queue-{width}")

    # The review page: the comment, the kind, the word diff.
    rows.nth(1).get_by_role("link").click()
    expect(page.locator("h1")).to_have_text(f"Suggestion #{typo.pk}")
    expect(page.locator(".suggestion-comment")).to_have_text("Ranged units can attack too (rulebook p. 12).")
    expect(page.locator("#suggestion-kind")).to_have_text("Wrong or outdated rule")
    expect(page.locator("#suggestion-diff ins")).to_have_text("or ranged ")
    expect(page.locator("#suggestion-three-way")).to_have_count(0)
    axe(page, errors)
    if width == 360:
        no_sideways_scrolling(page)
    shot(page, f"suggestion-review-{width}")

    page.locator("#accept-form [type=submit]").click()
    accepted = f"Suggestion #{typo.pk} is accepted: “Attack” has the new text."
    expect(page.locator(".messagelist")).to_contain_text(accepted)
    expect(page).to_have_url(re.compile(r"/admin/suggestions/$"))
    expect(rows).to_have_count(1)

    # The public entry shows the new text; its history credits the suggestion.
    page.goto(f"{live_server.url}{attack.canonical_url()}")
    expect(page.locator("article.entry .body")).to_contain_text("an adjacent or ranged enemy unit")
    page.goto(f"{live_server.url}/admin/rules/entry/{attack.pk}/history/")
    expect(page.locator("#content-main")).to_contain_text(f"suggestion #{typo.pk} accepted")
    assert Entry.objects.get(pk=attack.pk).history.latest().history_user == queue_world["moderator"]

    # A rejection with a canned reason and words of the moderator's own.
    page.goto(f"{live_server.url}/admin/suggestions/")
    rows.nth(0).get_by_role("link").click()
    expect(page.locator("h1")).to_have_text(f"Suggestion #{wrong.pk}")
    page.get_by_label("Already correct").check()
    page.get_by_label("In your words (the player reads it)").fill("The rulebook says one die (p. 7).")
    page.locator("#reject-form [type=submit]").click()
    expect(page.locator(".messagelist")).to_contain_text(f"Suggestion #{wrong.pk} is rejected")
    expect(page.locator(".worklist-empty")).to_have_text("No suggestion is waiting for review.")
    wrong.refresh_from_db()
    assert wrong.status == Suggestion.Status.REJECTED
    assert wrong.reason == "Already correct. The rulebook says one die (p. 7)."
    assert Entry.objects.get(pk=queue_world["defend"].pk).body == "A defending unit rolls one die."

    # Decided suggestions are one filter away, with their decision.
    page.locator("#changelist-filter").get_by_role("link", name="Rejected").click()
    expect(page.locator("tr.suggestion-row")).to_have_count(1)
    page.locator("tr.suggestion-row").get_by_role("link").click()
    expect(page.locator(".suggestion-reason")).to_have_text("Already correct. The rulebook says one die (p. 7).")
    expect(page.locator("#suggestion-decide")).to_have_count(0)
    assert errors == [], errors


@pytest.mark.parametrize("width", WIDTHS)
def test_a_stale_suggestion_is_merged_by_hand_never_overwritten(live_server, page, queue_world, errors, width):  # noqa: F811
    page.set_viewport_size({"width": width, "height": 900})
    typo, attack = queue_world["typo"], queue_world["attack"]
    newer = "Exhaust a unit to attack an adjacent enemy unit. Flying units ignore terrain."
    entry = Entry.objects.get(pk=attack.pk)  # edited by a colleague after the suggestion was made
    entry.body = newer
    entry.save()
    log_in(page, live_server.url, "maria")

    page.goto(f"{live_server.url}/admin/suggestions/{typo.pk}/")
    expect(page.locator("#suggestion-stale-notice")).to_be_visible()
    columns = page.locator(".suggestion-three-way > div")
    expect(columns).to_have_count(3)
    expect(columns.nth(0)).to_contain_text("What the player saw")
    expect(columns.nth(0)).to_contain_text("Exhaust a unit to attack an adjacent enemy unit.")
    expect(columns.nth(1)).to_contain_text("Flying units ignore terrain.")
    expect(columns.nth(2)).to_contain_text("an adjacent or ranged enemy unit")
    expect(page.locator("#accept-form")).to_have_count(0)  # no blind overwrite
    boxes = [columns.nth(k).bounding_box() for k in range(3)]
    if width >= 1280:  # side by side
        assert boxes[0]["y"] == boxes[1]["y"] == boxes[2]["y"]
    else:  # one under the other
        assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]
        no_sideways_scrolling(page)
    axe(page, errors)
    shot(page, f"suggestion-three-way-{width}")

    text = page.get_by_label("Text to apply")
    expect(text).to_have_value(typo.proposal)  # "Edit then accept" starts from the proposal
    merged = "Exhaust a unit to attack an adjacent or ranged enemy unit. Flying units ignore terrain."
    text.fill(merged)
    page.locator("#edit-form [type=submit]").click()
    expect(page.locator(".messagelist")).to_contain_text(f"Suggestion #{typo.pk} is accepted")
    assert Entry.objects.get(pk=attack.pk).body == merged
    assert Entry.objects.get(pk=attack.pk).history.latest().history_change_reason == (
        f"suggestion #{typo.pk} accepted (edited)"
    )
    assert errors == [], errors


def test_no_vector_runs_in_the_queue_or_on_a_review_page(live_server, browser):
    """The XSS corpus in every comment, proposal and e-mail address, viewed in the queue
    and on review pages (fresh and stale: every text shown three ways) in Chromium with
    the Content-Security-Policy off, so the escaping is tested on its own: nothing runs,
    and nothing a click could run is built (tests/browser/test_xss.py's checks)."""
    from tests.browser.test_xss import Browser
    from tests.xss import VECTORS, one_line

    game = make_game(name="Arcadia", slug="arcadia")
    entry = make_entry(game=game, title="Attack", body="Exhaust a unit to attack.")
    made = [
        suggestions.submit(
            entry, kind="other", comment=f"{vector} {k}", proposal=f"{vector}\n\n{entry.body}", address=f"192.0.2.{k}"
        )
        for k, vector in enumerate(VECTORS[:120])
    ]
    made += [
        suggestions.submit(entry, kind="typo", comment=f"{vector} {k}", proposal=vector, address=f"198.51.100.{k}")
        for k, vector in enumerate(VECTORS[120:])
    ]
    corpus = suggestions.submit(entry, kind="typo", comment="\n".join(VECTORS)[:4000], proposal="\n\n".join(VECTORS))
    Suggestion.objects.filter(pk=corpus.pk).update(email=one_line(VECTORS[10])[:254])
    make_staff("maria", GAME_MODERATORS_GROUP, [game])

    chrome = Browser(browser, live_server.url, bypass_csp=True)
    try:
        log_in(chrome.page, live_server.url, "maria")
        for path in ("/admin/suggestions/", "/admin/suggestions/?page=2", "/admin/suggestions/?page=3"):
            chrome.visit(path)
            expect(chrome.page.locator("tr.suggestion-row").first).to_be_visible()
            chrome.check()
        for suggestion in [corpus, *made[::10]]:
            chrome.visit(f"/admin/suggestions/{suggestion.pk}/")
            expect(chrome.page.locator(".suggestion-comment")).to_contain_text("__xss.push(")  # as text
            chrome.check()
        entry.body = "Changed since."
        entry.save()
        chrome.visit(f"/admin/suggestions/{corpus.pk}/")
        expect(chrome.page.locator(".suggestion-three-way")).to_contain_text("<script>__xss.push(1)</script>")
        expect(chrome.page.locator(".suggestion-email")).to_have_text(one_line(VECTORS[10])[:254])
        chrome.check()
        assert chrome.executed == []
        assert chrome.dangerous == []
    finally:
        chrome.close()
