"""Deep links to numbered rules inside a text: ``…/rules/<slug>/#601.2a``.

The paragraphs of a body that open with a rule number carry it as their id, and search
links a hit in such a paragraph to it (with the snippet showing that paragraph).
"""

import re

import pytest

from rules.search import search
from rules.shared.anchors import add_rule_ids, rule_at, rule_number
from tests.factories import make_entry, make_erratum, make_game

CASTING = """Casting a spell takes several steps.

**601.1** Previously, the action of casting a spell was called "playing" it.

**601.2** To cast a spell is to take it from where it is and put it on the stack.

**601.2a** To propose the casting of a spell, a player first moves that card to the stack.

**601.2b** If the spell is modal, the player announces the mode choice.

2 players each draw a card: no rule number opens this paragraph.

## 602. Activating Abilities

602.1a An activated ability has a cost and an effect, written "[Cost]: [Effect]."
"""


def ids(html: str) -> list[str]:
    return re.findall(r' id="([^"]+)"', html)


class TestWhatIsARuleNumber:
    @pytest.mark.parametrize(
        ("line", "number"),
        [
            ("601.2a To propose the casting", "601.2a"),
            ("2.3 Setting up", "2.3"),
            ("100.1.4. Nested", "100.1.4"),
            ("7. Combat", "7"),
            ("7a Optional rule", "7a"),
            ("  601.2 indented", "601.2"),
            ("601.2a", "601.2a"),
        ],
    )
    def test_numbers_that_open_a_line(self, line, number):
        assert rule_number(line) == number

    @pytest.mark.parametrize("line", ["2 players each draw", "2nd player", "Rule 601.2a says", "601.2a)", "1,5 cards"])
    def test_lines_that_open_with_none(self, line):
        assert rule_number(line) is None


class TestIdsInHtml:
    def test_paragraphs_headings_and_items_that_open_with_a_number_get_it_as_id(self):
        html = add_rule_ids(
            "<p><strong>601.2a</strong> To cast</p><h2>602. Abilities</h2><ul><li>603.1 Triggered</li></ul>"
            "<p>2 players</p><p>See 601.2a.</p>"
        )
        assert ids(html) == ["601.2a", "602", "603.1"]
        assert "<p>2 players</p>" in html and "<p>See 601.2a.</p>" in html

    def test_a_number_names_its_first_paragraph_only(self):
        assert ids(add_rule_ids("<p>1.1 One</p><p>1.1 Again</p>")) == ["1.1"]

    def test_text_without_digits_is_returned_as_it_is(self):
        html = "<p>No numbers here.</p>"
        assert add_rule_ids(html) is html


@pytest.mark.django_db
class TestStoredBody:
    def test_an_entry_body_is_stored_with_its_rule_ids(self):
        entry = make_entry(title="Casting Spells", body=CASTING)
        assert ids(entry.body_html) == ["601.1", "601.2", "601.2a", "601.2b", "602", "602.1a"]
        assert '<p id="601.2a"><strong>601.2a</strong> To propose' in entry.body_html

    def test_ids_written_in_a_text_are_dropped_and_only_rule_numbers_become_ids(self):
        entry = make_entry(title="Sneaky", body='<span id="content">x</span>\n\n<p id="x">1.1 Rule</p>')
        assert ids(entry.body_html) == ["1.1"]  # the sanitiser drops "content" and "x"

    def test_an_erratum_shown_on_the_page_has_no_ids(self):
        game = make_game()
        entry = make_entry(game=game, title="Casting Spells", body=CASTING)
        erratum = make_erratum(game=game, corrected_text="**601.2a** Corrected.", affects=[entry])
        assert ids(erratum.corrected_html) == []

    def test_the_entry_page_opens_at_a_rule(self, client):
        entry = make_entry(title="Casting Spells", body=CASTING)
        html = client.get(entry.url_in("en")).content.decode()
        assert html.count('id="601.2a"') == 1
        assert len(ids(html)) == len(set(ids(html)))  # every id on the page once


class TestRuleOfAnOffset:
    TEXT = "Intro line\n601.1 First rule\nits second line\n601.2a Second rule"

    @pytest.mark.parametrize(
        ("word", "rule"), [("Intro", None), ("First", "601.1"), ("second line", "601.1"), ("Second rule", "601.2a")]
    )
    def test_the_rule_whose_paragraph_holds_the_offset(self, word, rule):
        assert rule_at(self.TEXT, self.TEXT.index(word)) == rule


@pytest.mark.django_db
class TestSearchLinksToTheRule:
    @pytest.fixture
    def entry(self):
        game = make_game(slug="mtg", name="Magic")
        return make_entry(game=game, title="Casting Spells", body=CASTING)

    def test_a_hit_in_a_numbered_paragraph_links_to_it_and_shows_it(self, entry):
        [hit] = search("propose moves", game="mtg").hits
        assert hit.url == "/en/games/mtg/rules/casting-spells/#601.2a"
        assert hit.snippet.startswith("… 601.2a To <mark>propose</mark>")

    def test_the_paragraph_with_most_of_the_words_wins(self, entry):
        # "spell" is in 601.1 first; "modal" and "mode" only in 601.2b.
        [hit] = search("spell modal mode", game="mtg").hits
        assert hit.url.endswith("#601.2b")

    def test_a_later_numbered_heading_and_its_rule(self, entry):
        [hit] = search("activated ability cost", game="mtg").hits
        assert hit.url.endswith("#602.1a")

    def test_a_hit_before_any_rule_links_to_the_page(self, entry):
        [hit] = search("several steps", game="mtg").hits
        assert hit.url == "/en/games/mtg/rules/casting-spells/"

    def test_a_title_match_links_to_the_page(self, entry):
        [hit] = search("casting spells", game="mtg").hits
        assert "#" not in hit.url

    def test_the_api_gives_the_rule_in_the_hit_url(self, entry, client):
        data = client.get("/api/v1/search/", {"q": "propose moves", "game": "mtg"}).json()
        assert data["results"][0]["url"].endswith("/en/games/mtg/rules/casting-spells/#601.2a")

    def test_the_search_page_links_to_the_rule(self, entry, client):
        html = client.get("/en/search/", {"q": "propose moves"}).content.decode()
        assert 'href="/en/games/mtg/rules/casting-spells/#601.2a"' in html


@pytest.mark.django_db
class TestPreviewOfARule:
    """Previews (hover, focus, tap) of a link to ``…/#601.2a`` show that rule."""

    URL = "/api/v1/entries/preview/"

    @pytest.fixture(autouse=True)
    def entry(self):
        return make_entry(game=make_game(slug="mtg", name="Magic"), title="Casting Spells", body=CASTING)

    def test_the_excerpt_starts_at_the_rule_and_the_url_keeps_it(self, client):
        data = client.get(self.URL, {"game": "mtg", "slug": "casting-spells", "rule": "601.2a"}).json()
        assert data["excerpt"].startswith("601.2a To propose the casting of a spell")
        assert data["url"].endswith("/en/games/mtg/rules/casting-spells/#601.2a")
        assert data["truncated"] is True

    def test_a_rule_the_text_does_not_have_gives_its_start(self, client):
        data = client.get(self.URL, {"game": "mtg", "slug": "casting-spells", "rule": "999.9"}).json()
        assert data["excerpt"].startswith("Casting a spell takes several steps")
        assert data["url"].endswith("/casting-spells/")

    @pytest.mark.parametrize("rule", ["601.2a; DROP", '601"', "a601", "", "1" * 40])
    def test_a_rule_that_is_no_rule_number_is_a_400(self, client, rule):
        response = client.get(self.URL, {"game": "mtg", "slug": "casting-spells", "rule": rule})
        assert response.status_code == 400
        assert "rule" in response.json()["errors"]

    def test_one_query_still(self, client, django_assert_max_num_queries, settings):
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
        with django_assert_max_num_queries(2):  # the content version, the entry
            client.get(self.URL, {"game": "mtg", "slug": "casting-spells", "rule": "601.2a"})
