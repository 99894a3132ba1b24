"""A moderator links a FAQ question and an erratum to entries in a real browser: the
picker offers only the game and language chosen in the form, each entry labelled with
both, under the site's CSP; a link to another game's entry is refused on the field.

Two games each have a German entry "Reaktion", shown alike before.
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from faq.models import Question
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_moderator import log_in
from tests.factories import make_entry, make_erratum, make_game, written_together

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

SCREENSHOTS = Path(os.environ.get("MODERATOR_SCREENSHOTS", "/tmp/rulesite-moderator-screenshots"))


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
@written_together
def games():
    arkham = make_game(name="Arkham Horror", slug="arkham")
    marvel = make_game(name="Marvel Champions", slug="marvel")
    entries = {
        "arkham": make_entry(game=arkham, language="de", title="Reaktion"),
        "arkham-window": make_entry(game=arkham, language="de", title="Reaktionsfenster"),
        "arkham-en": make_entry(game=arkham, language="en", title="Reaction"),
        "marvel": make_entry(game=marvel, language="de", title="Reaktion"),
    }
    return arkham, marvel, entries


def no_axe_violations_in(page, *selectors: str) -> None:
    """axe-core (offline) finds nothing in these parts of the page: the form and, when
    open, the picker's list. (The rest is Django's own admin chrome: its breadcrumbs'
    links are told apart by colour alone, which axe reports on every admin page.) Not
    in the CSP tests: axe itself applies inline styles, which the policy reports."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context={"include": [[selector] for selector in selectors]})
    assert results.violations_count == 0, results.generate_report()


def search(page, field: str, term: str):
    """Open the picker of ``field``, type ``term``; the options it offers."""
    page.locator(f".field-{field} .select2-selection").click()
    page.keyboard.type(term, delay=20)
    options = page.locator(".select2-results__option:not(.loading-results)")
    expect(options.first).to_be_visible()
    page.wait_for_load_state("networkidle")
    return options


def test_the_question_picker_offers_the_chosen_games_entries_only(live_server, page, games, csp_violations):
    arkham, marvel, entries = games
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")
    page.goto(f"{live_server.url}/admin/faq/question/add/")
    page.locator("#id_question").fill("Wann darf ich reagieren?")
    page.locator("#id_answer").fill("Nach dem Auslöser.")

    # No game chosen yet: the picker says what to do and offers nothing.
    options = search(page, "related_entries", "reak")
    expect(options).to_have_text(["Choose the game and language first: only their entries can be chosen."])
    page.keyboard.press("Escape")

    page.locator("#id_game").select_option(label="Arkham Horror")
    page.locator("#id_language").select_option("de")
    options = search(page, "related_entries", "reak")
    expect(options).to_have_text([
        "Reaktion (Arkham Horror, German, Glossary entry)",
        "Reaktionsfenster (Arkham Horror, German, Glossary entry)",
    ])  # fmt: skip
    shot(page, "picker-1-question-offers-its-game")
    options.first.click()
    chosen = page.locator(".field-related_entries .select2-selection__choice")
    expect(chosen).to_have_count(1)
    expect(chosen).to_contain_text("Reaktion (Arkham Horror, German, Glossary entry)")

    # Another game chosen in the form: the picker follows it at once.
    page.keyboard.press("Escape")
    page.locator("#id_game").select_option(label="Marvel Champions")
    expect(search(page, "related_entries", "reak")).to_have_text(
        ["Reaktion (Marvel Champions, German, Glossary entry)"]
    )
    page.keyboard.press("Escape")
    page.locator("#id_game").select_option(label="Arkham Horror")

    page.locator("input[name=_save]").click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    question = Question.objects.get()
    assert list(question.related_entries.all()) == [entries["arkham"]]
    assert csp_violations.all() == []


def test_a_link_to_another_games_entry_is_refused_on_the_field(live_server, page, games, csp_violations):
    arkham, marvel, entries = games
    erratum = make_erratum(game=arkham, language="de", title="Reaktionen korrigiert", affects=[entries["arkham"]])
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")
    page.goto(f"{live_server.url}/admin/rules/erratum/{erratum.pk}/change/")
    chosen = page.locator(".field-affects .select2-selection__choice")
    expect(chosen).to_contain_text("Reaktion (Arkham Horror, German, Glossary entry)")

    # Moved to Marvel Champions, the erratum still names Arkham's entry: refused, and said where.
    page.locator("#id_game").select_option(label="Marvel Champions")
    page.locator("input[name=_continue]").click()
    error = page.locator(".field-affects .errorlist")
    expect(error).to_have_text(
        "“Reaktion” (Arkham Horror, German) is not of this erratum's game and language (Marvel Champions, German): "
        "an erratum or FAQ question is only about entries of its own game and language."
    )
    shot(page, "picker-2-erratum-refused")
    erratum.refresh_from_db()
    assert erratum.game == arkham

    # The moderator swaps the entry for Marvel's "Reaktion" and saves.
    page.locator(".field-affects .select2-selection__choice__remove").click()
    page.keyboard.press("Escape")
    options = search(page, "affects", "reak")
    expect(options).to_have_text(["Reaktion (Marvel Champions, German, Glossary entry)"])
    options.first.click()
    page.locator("input[name=_continue]").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    erratum.refresh_from_db()
    assert (erratum.game, list(erratum.affects.all())) == (marvel, [entries["marvel"]])
    assert csp_violations.all() == []


def test_the_picker_passes_axe_closed_open_and_with_an_error(live_server, page, games):
    arkham, marvel, entries = games
    erratum = make_erratum(game=arkham, language="de", title="Reaktionen korrigiert", affects=[entries["arkham"]])
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")
    page.goto(f"{live_server.url}/admin/rules/erratum/{erratum.pk}/change/")
    no_axe_violations_in(page, "#content-main")
    # The search box is named by the field's label.
    expect(page.locator(".field-affects .select2-search__field")).to_have_attribute("aria-label", "Affects")

    search(page, "affects", "reak")
    no_axe_violations_in(page, "#content-main", ".select2-dropdown")
    page.keyboard.press("Escape")

    page.locator("#id_game").select_option(label="Marvel Champions")
    page.locator("input[name=_continue]").click()
    expect(page.locator(".field-affects .errorlist")).to_be_visible()
    no_axe_violations_in(page, "#content-main")
