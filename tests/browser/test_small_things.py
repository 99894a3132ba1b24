"""What a player notices on a phone: one search box on the search page at 390 px, and an
erratum's "Affects" and "Source" on lines of their own; axe-core finds nothing."""

import pytest

from tests.browser.test_accessibility import AXE, describe
from tests.factories import make_entry, make_erratum, make_game, make_source

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_one_search_box_on_a_phone_and_erratum_facts_on_their_own_lines(live_server, browser, scheme):
    game = make_game(slug="small-game", name="Small Game")
    entry = make_entry(game=game, title="Attack", body="Roll a die.")
    make_erratum(game=game, title="Attack fix", affects=[entry], source=make_source(game=game, title="FAQ 1.1"))
    for width, boxes in ((390, 1), (1280, 2)):
        context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=scheme)
        page = context.new_page()
        try:
            page.goto(f"{live_server.url}/en/search/?q=attack")
            visible = [box for box in page.locator("input[type=search]").all() if box.is_visible()]
            assert len(visible) == boxes, width
            page.goto(f"{live_server.url}/en/games/small-game/errata/")
            affects = page.locator(".erratum-facts dt", has_text="Affects:").bounding_box()
            source = page.locator(".erratum-facts dt", has_text="Source:").bounding_box()
            assert source["y"] >= affects["y"] + affects["height"] - 1, width  # a line of its own
            assert describe(AXE.run(page)) == [], width
        finally:
            context.close()
