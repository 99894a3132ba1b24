"""Stepping through a rulebook: reading order, previous/next on every entry, the contents.

Previous, next and ancestors are stored with each entry when anything is written
(``rules.content.rulebook`` through ``rules.derived.relations``), so the entry page stays one query.
"""

import re

import pytest

from rules.content.models import Entry, Source
from rules.content.querysets import Status
from rules.derived.relations import compute
from tests.factories import make_entry, make_game, make_source, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

SECTION = Entry.Kind.SECTION


def section(game, title, order, parent=None, number="", **kwargs):
    return make_entry(game=game, title=title, kind=SECTION, order=order, parent=parent, number=number, **kwargs)


def place(entry):
    entry.refresh_from_db()
    return entry.relations["navigation"]


def titles(items):
    return [item["title"] if item else None for item in items]


@written_together
def build_book():
    """A rulebook whose sections were added out of document order: the tree decides."""
    game = make_game(slug="tiny-epic", name="Tiny Epic")
    source = make_source(game=game, title="Rulebook", kind=Source.Kind.RULEBOOK)
    setup = section(game, "Setup", 1, number="1", source=source)
    turn = section(game, "The Turn", 2, number="2", source=source)
    # Added later with a lower order: still read under its parent, after it.
    draw = section(game, "Draw", 0, parent=turn, number="2.1", source=source)
    play = section(game, "Play", 5, parent=turn, number="2.2", source=source)
    reactions = section(game, "Reactions", 6, parent=play, number="2.2a", source=source)
    end = section(game, "End of the Game", 3, number="3", source=source)
    return game, source, {e.title: e for e in (setup, turn, draw, play, reactions, end)}


# Written once for the module's tests that read it (tests.module_world).
_book_of_the_module, book = fixtures(build_book, "book")


class TestReadingOrder:
    def test_sections_step_through_the_tree_in_document_order(self, book):
        _game, _source, s = book
        order = ["Setup", "The Turn", "Draw", "Play", "Reactions", "End of the Game"]
        for index, title in enumerate(order):
            nav = place(s[title])
            assert nav["sequence"] == "rules"
            assert (nav["previous"] or {}).get("title") == (order[index - 1] if index else None)
            assert (nav["next"] or {}).get("title") == (order[index + 1] if index + 1 < len(order) else None)

    def test_a_section_knows_its_ancestors_top_first(self, book):
        _game, _source, s = book
        assert titles(place(s["Reactions"])["ancestors"]) == ["The Turn", "Play"]
        assert place(s["Setup"])["ancestors"] == []

    def test_each_rulebook_is_its_own_sequence(self, book):
        game, _source, s = book
        other = make_source(game=game, title="Learn to Play", kind=Source.Kind.RULEBOOK)
        first = section(game, "Welcome", 0, source=other)
        second = section(game, "Your First Game", 1, source=other)
        assert place(first)["previous"] is None and place(first)["next"]["title"] == "Your First Game"
        assert place(second)["next"] is None
        assert place(s["Setup"])["previous"] is None  # not "Welcome": another rulebook

    def test_glossary_entries_step_through_the_alphabet_of_their_language(self):
        game = make_game()
        for title in ["Łucznik", "Zasięg", "Atak", "Lasso"]:
            make_entry(game=game, language="pl", title=title)
        make_entry(game=game, language="en", title="Bow")  # another language: another glossary
        order = [e.title for e in Entry.objects.filter(game=game, language="pl")]
        by_title = {e.title: place(e) for e in Entry.objects.filter(game=game, language="pl")}
        assert sorted(order, key=lambda t: ["Atak", "Lasso", "Łucznik", "Zasięg"].index(t))  # Ł after L
        assert by_title["Lasso"]["next"]["title"] == "Łucznik"
        assert by_title["Łucznik"]["previous"]["title"] == "Lasso"
        assert by_title["Zasięg"]["next"] is None and by_title["Atak"]["previous"] is None
        assert by_title["Łucznik"]["sequence"] == "glossary" and by_title["Łucznik"]["letter"] == "letter-Ł"

    def test_drafts_are_in_no_sequence_and_publishing_one_links_its_neighbours(self, book):
        game, source, s = book
        draft = section(game, "Cleanup", 4, number="4", source=source, status=Status.DRAFT)
        assert place(draft) is None
        assert place(s["End of the Game"])["next"] is None
        draft.status = Status.PUBLISHED
        draft.save()
        assert place(s["End of the Game"])["next"]["title"] == "Cleanup"
        assert place(draft)["previous"]["title"] == "End of the Game"

    def test_deleting_a_section_joins_its_neighbours(self, book):
        _game, _source, s = book
        s["End of the Game"].delete()
        assert place(s["Reactions"])["next"] is None

    def test_deleting_a_source_moves_its_sections_to_the_rulebook_citing_none(self, book):
        game, source, s = book
        loose = section(game, "Appendix", 9)
        assert place(loose)["previous"] is None
        source.delete()
        assert place(loose)["previous"]["title"] == "End of the Game"

    def test_a_loop_of_parents_still_reads_every_section_once(self):
        game = make_game()
        a = section(game, "A", 0)
        b = section(game, "B", 1, parent=a)
        Entry.objects.filter(pk=a.pk).update(parent=b)  # a loop no form allows
        navigation = {pk: rel["navigation"] for pk, rel in compute(game.pk).items()}
        assert {navigation[a.pk]["next"]["title"], navigation[b.pk]["previous"]["title"]} == {"B", "A"}


class TestEntryPage:
    def test_previous_contents_and_next_links(self, client, book):
        _game, _source, s = book
        html = client.get(s["Play"].url_in("en")).content.decode()
        nav = html[html.index('<nav class="step-nav"') : html.index("</nav>", html.index('<nav class="step-nav"'))]
        assert re.search(r'rel="prev" href="/en/games/tiny-epic/rules/draw/"', nav)
        assert re.search(r'rel="next" href="/en/games/tiny-epic/rules/reactions/"', nav)
        assert 'href="/en/games/tiny-epic/rules/?at=play#toc-play">Contents</a>' in nav

    def test_the_breadcrumbs_show_every_ancestor(self, client, book):
        _game, _source, s = book
        html = client.get(s["Reactions"].url_in("en")).content.decode()
        crumbs = html[html.index('class="breadcrumbs"') : html.index("</nav>", html.index('class="breadcrumbs"'))]
        assert re.findall(r">([^<>]+)</a>", crumbs) == ["Games", "Tiny Epic", "2. The Turn", "2.2. Play"]
        assert 'aria-current="page">2.2a. Reactions<' in crumbs

    def test_a_glossary_entry_steps_through_the_glossary_and_goes_back_to_its_letter(self, client):
        game = make_game(slug="glossy")
        make_entry(game=game, title="Attack")
        block = make_entry(game=game, title="Block")
        html = client.get(block.url_in("en")).content.decode()
        assert 'rel="prev" href="/en/games/glossy/rules/attack/"' in html
        assert 'rel="next"' not in html
        assert 'href="/en/games/glossy/#letter-B">Glossary A–Z</a>' in html

    def test_in_german(self, client, book):
        _game, _source, s = book
        html = client.get(s["Play"].url_in("de")).content.decode()
        assert ">Inhalt</a>" in html and ">Zurück<" in html and ">Weiter<" in html


class TestContentsPage:
    def test_every_section_in_document_order_nested_under_its_parent(self, client, book):
        html = client.get("/en/games/tiny-epic/rules/").content.decode()
        toc = html[html.index('class="toc-list"') :]
        assert re.findall(r'<li id="toc-([a-z-]+)">', toc) == [
            "setup", "the-turn", "draw", "play", "reactions", "end-of-the-game",
        ]  # fmt: skip
        # Reactions is inside Play's list, inside The Turn's.
        assert re.search(r'id="toc-play">.*?<ol class="toc-list"><li id="toc-reactions">', toc)
        assert "aria-current" not in toc

    def test_the_readers_place_is_marked(self, client, book):
        html = client.get("/en/games/tiny-epic/rules/", {"at": "play"}).content.decode()
        assert re.search(
            r'<li id="toc-play"><a href="/en/games/tiny-epic/rules/play/" class="toc-here" aria-current="location">',
            html,
        )
        assert html.count('aria-current="location"') == 1
        assert "You are here" in html

    def test_an_unknown_place_marks_nothing(self, client, book):
        response = client.get("/en/games/tiny-epic/rules/", {"at": "<script>"})
        assert response.status_code == 200 and 'aria-current="location"' not in response.content.decode()

    def test_rulebooks_under_their_source_titles_with_a_print_link_each(self, client, book):
        game, source, _s = book
        other = make_source(game=game, title="Learn to Play", kind=Source.Kind.RULEBOOK)
        section(game, "Welcome", 1, source=other)  # as early as Setup: the rulebook added first comes first
        html = client.get("/en/games/tiny-epic/rules/").content.decode()
        assert re.findall(r'<h2 id="book-\d+"[^>]*>([^<]+)</h2>', html) == ["Rulebook", "Learn to Play"]
        assert f'href="/en/games/tiny-epic/print/rules/?source={other.pk}"' in html

    def test_a_game_without_sections_says_so(self, client):
        make_entry(game=make_game(slug="only-glossary"), title="Attack")
        response = client.get("/en/games/only-glossary/rules/")
        assert response.status_code == 200
        assert "no rule sections" in response.content.decode()

    def test_unknown_game_is_404(self, client):
        assert client.get("/en/games/nope/rules/").status_code == 404

    def test_content_language_can_be_asked_for(self, client, book):
        game, _source, s = book
        german = section(game, "Aufbau", 0, language="de", translation_key=s["Setup"].translation_key)
        html = client.get("/en/games/tiny-epic/rules/", {"content": "de", "at": german.slug}).content.decode()
        assert "Aufbau" in html and "Setup" not in html
        assert 'aria-current="location"' in html
        # the German entry's page, read with the English UI, links there
        entry_html = client.get("/en/games/tiny-epic/rules/aufbau/?content=de").content.decode()
        assert "/en/games/tiny-epic/rules/?at=aufbau&amp;content=de#toc-aufbau" in entry_html
