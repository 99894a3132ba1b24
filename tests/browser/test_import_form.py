"""The moderator's import form in Chromium: started from the admin's front page with a
game, it offers that game's language and sources; choosing another game brings its
own, choosing a source its language; axe-core finds nothing in the form."""

import pytest
from playwright.sync_api import expect

from rules.content.models import Source
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_entry_pickers import no_axe_violations_in
from tests.browser.test_moderator import log_in
from tests.factories import make_entry, make_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_import_form_brings_each_game_s_language_and_sources(live_server, page, save_screenshot):
    dutch = make_game(slug="blauwe-maan", name="Blauwe Maan")
    regels = Source.objects.create(game=dutch, language="nl", title="Spelregels", kind="rulebook", version="1")
    make_entry(game=dutch, language="nl", title="Regel 1", source=regels)
    polish = make_game(slug="gwiezdne", name="Gwiezdne Wojny")
    faq = Source.objects.create(game=polish, language="pl", title="FAQ i errata", kind="faq")
    make_entry(game=polish, language="pl", title="Piloci", source=faq)
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")

    box = page.locator("#import-module")
    box.get_by_label("Game").select_option(label="Blauwe Maan")
    box.get_by_role("button", name="Import a document…").click()
    expect(page.locator("#id_game")).to_have_value(str(dutch.pk))
    expect(page.locator("#id_language")).to_have_value("nl")
    expect(page.locator("#id_source option")).to_have_text(["(a new source)", "Spelregels (Dutch, 1)"])
    no_axe_violations_in(page, "#content-main")
    save_screenshot(page, "import-form")

    page.locator("#id_game").select_option(label="Gwiezdne Wojny")
    expect(page.locator("#id_language")).to_have_value("pl")
    expect(page.locator("#id_source option")).to_have_text(["(a new source)", "FAQ i errata (Polish)"])
    page.locator("#id_language").select_option("en")
    page.locator("#id_source").select_option(label="FAQ i errata (Polish)")
    expect(page.locator("#id_language")).to_have_value("pl")
