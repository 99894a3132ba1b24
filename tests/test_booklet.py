"""The printed booklet: a game's glossary or rulebook on one page made to print."""

import re
from collections import Counter

import pytest

from rules.content.models import Entry, Source
from rules.content.querysets import Status
from tests.builds import content_of, get_built
from tests.factories import make_entry, make_erratum, make_game, make_source, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

SECTION = Entry.Kind.SECTION


def get(client, path, **params):
    response = get_built(client, path, data=params)
    assert response.status_code == 200, response.status_code
    return content_of(response).decode()


def entry_ids(html: str) -> list[str]:
    return re.findall(r'<section class="booklet-entry booklet-depth-\d" id="([^"]+)"', html)


def all_ids(html: str) -> list[str]:
    return re.findall(r' id="([^"]+)"', html)


@pytest.fixture
@written_together
def glossary_game():
    game = make_game(slug="gra", name="Gra", localized_names={"pl": "Gra planszowa"})
    source = make_source(game=game, language="pl", title="Instrukcja", version="1.2", attribution="Wydawca")
    for title, body in [
        ("Zasięg", "Odległość w polach."),
        ("Łucznik", "Strzela na **zasięg 2**."),
        ("Atak", "Rzuć kośćmi."),
        ("Lasso", "Łapie jednostkę."),
    ]:
        make_entry(game=game, language="pl", title=title, body=body, source=source)
    make_entry(game=game, language="pl", title="Szkic", status=Status.DRAFT)
    return game


@written_together
def build_rules_game():
    game = make_game(slug="rules-game", name="Rules Game")
    source = make_source(game=game, title="Core Rulebook", kind=Source.Kind.RULEBOOK, version="v2")

    def section(title, order, parent=None, number="", body="Text."):
        return make_entry(
            game=game, title=title, kind=SECTION, order=order, parent=parent, number=number, body=body, source=source
        )

    turn = section("The Turn", 1, number="2")
    casting = section("Casting", 2, parent=turn, number="2.1", body="**2.1a** Pay the cost.\n\n**2.1b** Resolve it.")
    section("Setup", 0, number="1")
    section("Combat", 3, parent=turn, number="2.2", body="**2.1a** A number used again in this text.")
    make_erratum(
        game=game,
        title="Cost clarified",
        original_text="Pay the cost.",
        corrected_text="Pay the full cost.",
        affects=[casting],
    )
    make_erratum(game=game, title="Draft erratum", corrected_text="Not yet.", affects=[casting], status=Status.DRAFT)
    return game


# Written once for the module's tests that read it (tests.module_world).
_rules_game_of_the_module, rules_game = fixtures(build_rules_game, "rules_game")


class TestGlossaryBooklet:
    def test_title_page_contents_and_entries_a_to_z(self, client, glossary_game):
        html = get(client, "/pl/games/gra/print/glossary/")
        start = html.index('class="booklet-title-page"')
        title_page = html[start : html.index("</header>", html.index("booklet-title-page"))]
        assert "Gra planszowa" in title_page and "<h1>Słowniczek</h1>" in title_page
        assert "Instrukcja, 1.2" in title_page and "Wydawca" in title_page
        assert "4 wpisy" in title_page  # the entries counted, the draft not
        # Polish order: Ł after L; letters as the game page groups them
        assert re.findall(r'<h3>([^<]+)</h3>', html) == ["Atak", "Lasso", "Łucznik", "Zasięg"]
        assert re.findall(r'<h2 class="booklet-part-title" id="([^"]+)">', html) == [
            "letter-A", "letter-L", "letter-Ł", "letter-Z",
        ]  # fmt: skip
        toc = html[html.index('class="booklet-toc"') : html.index("</nav>", html.index('class="booklet-toc"'))]
        assert re.findall(r'<a href="#(entry-[a-z-]+)">', toc) == entry_ids(html)
        assert "Strzela na <strong>zasięg 2</strong>." in html
        assert "Szkic" not in html

    def test_no_navigation_in_print_and_the_print_styles(self, client, glossary_game):
        html = get(client, "/en/games/gra/print/glossary/")
        assert "/static/css/rulebook.css" in html and "/static/js/booklet.js" in html
        assert 'class="booklet-actions"' in html  # hidden in print by rulebook.css

    def test_a_game_without_a_glossary_says_there_is_nothing_to_print(self, client, rules_game):
        html = get(client, "/en/games/rules-game/print/glossary/")
        assert "Nothing to print yet" in html and "Download as PDF" not in html


class TestRulebookBooklet:
    def test_sections_in_document_order_with_their_numbers_as_anchors(self, client, rules_game):
        html = get(client, "/en/games/rules-game/print/rules/")
        assert "<h1>Core Rulebook</h1>" in html
        assert entry_ids(html) == ["1", "2", "2.1", "2.2"]
        headings = re.findall(r'<h(\d)><span class="number">([^<]+)</span> ([^<]+)', html)
        assert headings == [
            ("2", "1.", "Setup"), ("2", "2.", "The Turn"), ("3", "2.1.", "Casting"), ("3", "2.2.", "Combat")
        ]
        toc = html[html.index('class="booklet-toc"') : html.index("</nav>", html.index('class="booklet-toc"'))]
        assert re.findall(r'<a href="#([^"]+)">', toc) == ["1", "2", "2.1", "2.2"]

    def test_every_id_on_the_page_is_unique(self, client, rules_game):
        html = get(client, "/en/games/rules-game/print/rules/")
        assert [i for i, n in Counter(all_ids(html)).items() if n > 1] == []
        assert 'id="2.1a"' in html and 'id="2.1b"' in html  # Casting's rules; Combat's repeat has none

    def test_errata_are_footnotes_under_their_entry(self, client, rules_game):
        html = get(client, "/en/games/rules-game/print/rules/")
        casting = html[html.index('id="2.1"') : html.index('id="2.2"')]
        assert re.search(
            r'Casting<sup class="footnote-ref"><a href="#fn-1" id="fnref-1" aria-label="Erratum 1">1</a></sup>', casting
        )
        footnotes = casting[casting.index('class="booklet-footnotes"') :]
        assert '<li id="fn-1" value="1"' in footnotes and "Cost clarified" in footnotes
        assert "<ins>full </ins>" in footnotes  # the change, as a word diff
        assert "Draft erratum" not in html
        assert "1 erratum" in html  # on the title page

    def test_the_text_is_printed_as_corrected_and_marked(self, client, rules_game):
        html = get(client, "/en/games/rules-game/print/rules/")
        casting = html[html.index('id="2.1"') : html.index('class="booklet-footnotes"', html.index('id="2.1"'))]
        assert "Pay the full cost." in re.sub(r"<[^>]+>", "", casting).replace("1 Cost clarified", "")
        assert 'class="erratum-change"' in casting  # the corrected passage is marked
        assert 'href="#fn-1"' in casting.split("</h", 1)[1]  # and linked to its footnote
        assert "#erratum-" not in casting  # no link to the entry page's erratum boxes

    def test_one_rulebook_of_several(self, client, rules_game):
        other = make_source(game=rules_game, title="Quick Start", kind=Source.Kind.RULEBOOK)
        make_entry(game=rules_game, title="Welcome", kind=SECTION, source=other)
        both = get(client, "/en/games/rules-game/print/rules/")
        assert "<h1>Rules</h1>" in both
        part_titles = re.findall(r'<h2 class="booklet-part-title" id="[^"]+">([^<]+)</h2>', both)
        assert part_titles == ["Core Rulebook", "Quick Start"]
        one = get(client, "/en/games/rules-game/print/rules/", source=other.pk)
        assert "<h1>Quick Start</h1>" in one and "Welcome" in one and "Setup" not in one

    @pytest.mark.parametrize("source", ["abc", "-1", "99999", "1e3", "０"])
    def test_a_rulebook_that_is_not_there_is_404(self, client, rules_game, source):
        assert client.get("/en/games/rules-game/print/rules/", {"source": source}).status_code == 404

    @pytest.mark.parametrize("path", ["/en/games/rules-game/print/faq/", "/en/games/nope/print/rules/"])
    def test_unknown_booklets_are_404(self, client, rules_game, path):
        assert client.get(path).status_code == 404

    def test_in_dutch(self, client, rules_game):
        html = get(client, "/nl/games/rules-game/print/rules/")
        assert "Inhoud" in html and "Downloaden als pdf" in html


def test_the_game_page_links_the_contents_and_both_booklets(client, rules_game):
    make_entry(game=rules_game, title="Attack")
    html = get(client, "/en/games/rules-game/")
    for href in [
        "/en/games/rules-game/rules/", "/en/games/rules-game/print/rules/", "/en/games/rules-game/print/glossary/"
    ]:
        assert f'href="{href}"' in html
