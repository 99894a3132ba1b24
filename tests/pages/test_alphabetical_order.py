"""Lists of titles on the pages are in the alphabetical order of their language.

The game page's A–Z glossary and its letter links, an entry's "Referenced by", the
games on the home page and in the search form's game filter (rules.shared.collation).
"""

import random
import re

import pytest

from tests.factories import make_entry, make_game

pytestmark = pytest.mark.django_db

# (content language, UI language of the page, titles in dictionary order, letters of the index)
GLOSSARIES = {
    "de": ("de", ["Abwerfen", "Angriff", "Ärger", "Öffnen", "Ort", "Über", "Uhr", "Zug"], ["A", "O", "U", "Z"]),
    "pl": (
        "pl",
        ["Akcja", "Ąb", "Lufa", "Łucznik", "Sąd", "Szansa", "Ściana", "Zamek", "Źródło", "Żeton"],
        ["A", "L", "Ł", "S", "Ś", "Z", "Ź", "Ż"],
    ),
    "nl": ("nl", ["Aanval", "Ijs", "IJzer", "Inzet", "Jager"], ["A", "I", "J"]),
    "es": ("en", ["Chico", "Llama", "Luz", "Nube", "Ñandú", "Oro"], ["C", "L", "N", "Ñ", "O"]),
    "en": ("en", ["Éclair", "Exhaust", "“Quoted” rule", "Zone"], ["E", "Q", "Z"]),
}


def glossary_titles(html: str) -> list[str]:
    glossary = html[html.index('<dl class="glossary"') : html.index("</dl>")]
    return re.findall(r'<li><a href="[^"]+">([^<]+)</a>', glossary)


def shuffled(titles: list[str], seed: str) -> list[str]:
    titles = titles[:]
    random.Random(seed).shuffle(titles)
    return titles


@pytest.mark.parametrize("language", GLOSSARIES)
def test_game_page_glossary_is_in_the_order_and_letters_of_its_language(client, language):
    ui, titles, letters = GLOSSARIES[language]
    game = make_game(slug=f"order-{language}")
    for title in shuffled(titles, language):  # stored (and so read) in another order
        make_entry(game=game, language=language, title=title)

    html = client.get(f"/{ui}/games/{game.slug}/").content.decode()

    assert glossary_titles(html) == titles
    index = html[html.index('<p class="letter-index"') :]
    index = index[: index.index("</p>")]
    assert re.findall(r'<a href="#letter-([^"]+)">([^<]+)</a>', index) == [(letter, letter) for letter in letters]
    # every jump link has its target, in the same order
    assert re.findall(r'<dt id="letter-([^"]+)">', html) == letters


def test_polish_glossary_files_each_title_under_its_letter(client):
    game = make_game(slug="pl-letters")
    for title in ["Łucznik", "Lufa", "Ściana", "Sąd"]:
        make_entry(game=game, language="pl", title=title)
    html = client.get(f"/pl/games/{game.slug}/").content.decode()
    sections = re.findall(r'<dt id="letter-([^"]+)">[^<]*</dt>\s*<dd><ul>(.*?)</ul></dd>', html, re.S)
    assert [(letter, re.findall(r">([^<]+)</a>", items)) for letter, items in sections] == [
        ("L", ["Lufa"]),
        ("Ł", ["Łucznik"]),
        ("S", ["Sąd"]),
        ("Ś", ["Ściana"]),
    ]


def test_referenced_by_is_in_the_order_of_the_entrys_language(client):
    game = make_game(slug="refs-pl")
    target = make_entry(game=game, language="pl", title="Cel")
    order = ["Lufa", "Łucznik", "Sąd", "Szansa", "Ściana", "Zamek", "Żeton"]
    for title in shuffled(order, "refs"):
        make_entry(game=game, language="pl", title=title, see_also=["Cel"])
    html = client.get(target.url_in("pl")).content.decode()
    section = html[html.index('id="referenced-by-heading"') :]
    section = section[: section.index("</section>")]
    assert re.findall(r'lang="pl">([^<]+)</a>', section) == order


def test_home_page_and_search_filter_list_games_by_their_name_in_the_ui_language(client):
    # Stored names in one order, German names in another: the German page follows the German names.
    for slug, name, german in [
        ("g1", "Alpha", "Zauberwald"),
        ("g2", "Beta", "Ärgernis"),
        ("g3", "Gamma", "Ostwind"),
        ("g4", "Delta", "Abenteuer"),
    ]:
        game = make_game(slug=slug, name=name, localized_names={"de": german})
        make_entry(game=game, language="de")
    home = client.get("/de/").content.decode()
    assert re.findall(r'class="card-title" href="[^"]+">([^<]+)</a>', home) == [
        "Abenteuer",
        "Ärgernis",
        "Ostwind",
        "Zauberwald",
    ]
    search = client.get("/de/search/").content.decode()
    select = search[search.index('name="game"') :]
    select = select[: select.index("</select>")]
    assert re.findall(r'<option value="g\d">([^<]+)</option>', select) == [
        "Abenteuer",
        "Ärgernis",
        "Ostwind",
        "Zauberwald",
    ]
