"""A player reading a translation sees whether it is up to date with its original, and
when it is not, what changed there as a word diff, at phone and desktop sizes.
Screenshots: see tests/browser/screens.py."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from rules.content.querysets import Status
from rules.moderation.translations import start_translation
from tests.browser.screens import SIZES, no_axe_violations, no_horizontal_scroll, shot
from tests.factories import make_entry, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def translate(entry, language, title, body):
    user = get_user_model().objects.get_or_create(username="translator")[0]
    draft = start_translation(entry, language, user)
    draft.title, draft.body = title, body  # translated while a draft, then published
    draft.save()
    draft.status = Status.PUBLISHED
    draft.save()
    return draft


@pytest.fixture
def world():
    game = make_game(slug="ember-road", name="Ember Road")
    camp = make_entry(game=game, title="Camp", body="At night, each traveller rests. Resting heals 2 wounds.")
    march = make_entry(game=game, title="March", body="Move up to 3 spaces along the road.")
    translate(camp, "de", "Lager", "Nachts ruht jeder Reisende. Ausruhen heilt 2 Wunden.")
    translate(march, "de", "Marsch", "Ziehe bis zu 3 Felder die Straße entlang.")
    camp.body = "At night, each traveller rests. Resting heals 1 wound, or 2 beside a fire."
    camp.save()  # the original changed after its translation
    return game


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_up_to_date_and_outdated_translations(live_server, browser, world, size):
    context = browser.new_context(**SIZES[size])
    page = context.new_page()

    page.goto(f"{live_server.url}/de/games/ember-road/rules/marsch/")
    status = page.locator(".translation-status")
    expect(status).to_have_class("notice translation-status translation-current")
    expect(status).to_contain_text("Übersetzung aktuell")
    expect(status.get_by_role("link", name="March")).to_have_attribute("hreflang", "en")
    no_horizontal_scroll(page)
    shot(page, f"translation-status-{size}-current", full_page=True)
    no_axe_violations(page)

    page.goto(f"{live_server.url}/de/games/ember-road/rules/lager/")
    status = page.locator(".translation-status")
    expect(status).to_have_class("notice translation-status notice-warning translation-outdated")
    expect(status).to_contain_text("Das Original wurde seit dieser Übersetzung geändert")
    diff = status.locator(".translation-diff")
    expect(diff).to_have_attribute("lang", "en")
    expect(diff).to_have_text("At night, each traveller rests. Resting heals 1 wound, or 2 wounds.beside a fire.")
    expect(diff.locator("del")).to_have_text(["wounds."])
    expect(diff.locator("ins")).to_have_text(["1 wound, or ", "beside a fire."])
    no_horizontal_scroll(page)
    shot(page, f"translation-status-{size}-outdated", full_page=True)
    no_axe_violations(page)

    # From the status to both texts side by side.
    status.get_by_role("link", name="Nebeneinander vergleichen").click()
    expect(page).to_have_url(f"{live_server.url}/de/games/ember-road/rules/lager/compare/en/")
    expect(page.locator(".parallel-column").nth(0).locator(".translation-outdated")).to_be_visible()
    shot(page, f"translation-status-{size}-compare", full_page=True)
    no_axe_violations(page)
    context.close()


def test_a_moderator_reviews_the_change_and_marks_the_translation_up_to_date(live_server, page, world):
    from rules.moderation.permissions import MODERATORS_GROUP
    from tests.admin.conftest import make_staff

    make_staff("maria", MODERATORS_GROUP)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.locator("#id_username").fill("maria")
    page.locator("#id_password").fill("a-long-password")
    page.locator("#login-form [type=submit]").click()

    lager = world.entries.get(language="de", title="Lager")
    page.goto(f"{live_server.url}/admin/rules/entry/{lager.pk}/change/")
    row = page.locator("#translations-panel tr.current-version")
    expect(row).to_contain_text("the original changed")
    row.get_by_role("link", name="Check…").click()
    expect(page.locator(".translation-diff ins").first).to_have_text("1 wound, or ")
    shot(page, "translation-status-admin-review", full_page=True)
    page.get_by_role("button", name="Mark as up to date").click()
    expect(page.locator(".messagelist")).to_contain_text("is marked up to date with the English original")
    expect(page.locator("#translations-panel tr.current-version")).to_contain_text("up to date")

    page.goto(f"{live_server.url}/de/games/ember-road/rules/lager/")
    expect(page.locator(".translation-status")).to_contain_text("Übersetzung aktuell")
