"""What a player notices on the way to a rule: one name per game in their language on
every page, entry counts of the language they will read, an erratum's facts one to a
line."""

import re

import pytest

from tests.factories import make_entry, make_erratum, make_game, make_source, written_together

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.fixture
@written_together
def star_wars(db):
    game = make_game(slug="star-wars-tcg", name="Star Wars Trading Card Game",
                     localized_names={"pl": "Star Wars Trading Card Game (2002)"})  # fmt: skip
    for n in range(5):
        make_entry(game=game, language="pl", title=f"Zasada {n}")
    return game


@pytest.mark.parametrize("language", ["en", "de", "pl", "nl"])
def test_a_game_has_one_name_in_each_ui_language_on_every_page(client, star_wars, language):
    name = star_wars.name_in(language)
    home = client.get(f"/{language}/").content.decode()
    card = re.search(r'<a class="card-title" href="[^"]+">([^<]+)</a>', home).group(1)
    game_page = client.get(f"/{language}/games/{star_wars.slug}/").content.decode()
    heading = re.search(r"<h1>([^<]+)</h1>", game_page).group(1)
    entry = star_wars.entries.first()
    entry_page = client.get(entry.url_in(language)).content.decode()
    crumb = re.search(rf'<a href="/{language}/games/{star_wars.slug}/">([^<]+)</a>', entry_page).group(1)
    assert card == heading == crumb == name, (card, heading, crumb)


def test_the_home_card_counts_the_entries_of_the_language_the_reader_will_read(client, db):
    game = make_game(slug="marvel", name="Marvel Champions")
    for n in range(3):
        make_entry(game=game, language="en", title=f"Rule {n}")
    for n in range(2):
        make_entry(game=game, language="de", title=f"Regel {n}")
    polish = make_game(slug="polish-only", name="Polish Only")
    for n in range(4):
        make_entry(game=polish, language="pl", title=f"Zasada {n}")

    def card(language: str, slug: str) -> str:
        home = client.get(f"/{language}/").content.decode()
        return text_of(re.search(rf'<a class="card-title" href="/{language}/games/{slug}/">.*?</li>', home, re.S))

    assert "3 entries" in card("en", "marvel")
    assert "2 Einträge" in card("de", "marvel")
    assert "4 entries in Polish" in card("en", "polish-only")  # the page will show Polish
    assert "3 items in het Engels" in card("nl", "marvel")  # no Dutch: the page shows English
    assert "4 wpisy" in card("pl", "polish-only")


def text_of(match) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(0)))


def test_an_erratum_says_what_it_affects_and_its_source_on_lines_of_their_own(client, db):
    game = make_game(slug="errata-game", name="Errata Game")
    entry = make_entry(game=game, title="Attack")
    source = make_source(game=game, title="FAQ 1.1")
    make_erratum(game=game, title="Attack fix", affects=[entry], source=source, page="3")
    page = client.get(f"/en/games/{game.slug}/errata/").content.decode()
    facts = re.search(r'<dl class="meta erratum-facts"[^>]*>(.*?)</dl>', page, re.S).group(1)
    rows = re.findall(r"<div><dt>(.*?)</dt>\s*<dd>(.*?)</dd></div>", facts, re.S)
    assert [label for label, _ in rows] == ["Affects:", "Source:"]
    assert "Attack" in rows[0][1] and "FAQ 1.1" in rows[1][1] and "page 3" in rows[1][1]
