"""Each page's <head> says what it is: title, description and OpenGraph tags from its own
content, so a shared link previews well (rules/templatetags/page_meta.py)."""

from html.parser import HTMLParser

import pytest
from django.conf import settings

from tests.browser.reading import build_reading_game
from tests.builds import content_of, get_built
from tests.factories import make_entry, make_game

pytestmark = pytest.mark.django_db

UI_LANGUAGES = [code for code, _name in settings.LANGUAGES]
LOCALES = {"en": "en_US", "de": "de_DE", "pl": "pl_PL", "nl": "nl_NL"}


class Head(HTMLParser):
    """The <title> and every <meta> of a page, attributes unescaped as a browser reads them."""

    def __init__(self, html: str):
        super().__init__()
        self.title, self.meta, self._in_title = "", {}, False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and ("property" in attrs or "name" in attrs):
            self.meta.setdefault(attrs.get("property") or attrs["name"], []).append(attrs.get("content"))

    def handle_endtag(self, tag):
        self._in_title = self._in_title and tag != "title"

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def head(client, path: str, status: int = 200, **headers) -> Head:
    response = get_built(client, path, **headers)
    assert response.status_code == status, path
    return Head(content_of(response).decode())


@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_every_page_has_its_own_title_description_and_opengraph(client, language):
    reading = build_reading_game()
    descriptions = set()
    for name, (path, status) in reading.pages(language).items():
        page = head(client, path, status, follow=True)
        meta = {key: values[0] for key, values in page.meta.items()}
        where = f"{language} {name}"
        assert page.title.endswith(" · rulesite"), where
        assert meta["og:title"] == page.title.removesuffix(" · rulesite"), where
        assert meta["description"] == meta["og:description"] and len(meta["description"]) >= 20, where
        assert meta["og:url"].startswith("http://testserver/"), where
        assert meta["og:site_name"] == "rulesite", where
        assert meta["og:locale"] == LOCALES[language], where
        assert sorted(page.meta["og:locale:alternate"]) == sorted(v for k, v in LOCALES.items() if k != language)
        assert meta["og:type"] == ("article" if name in ("entry", "section") else "website"), where
        assert meta["twitter:card"] == "summary_large_image", where
        assert meta["og:image"].startswith("http://testserver/") and meta["og:image:width"] == "1200", where
        descriptions.add(meta["description"])
    # Home, game, entry, errata, FAQ, search and 404 each say something of their own.
    assert len(descriptions) >= 7


def test_an_entrys_description_is_its_text_plain_and_cut_at_a_word(client):
    game = make_game(slug="meta-game", name="Meta Game")
    make_entry(game=game, title="Exhaust", body="Turn it.")
    body = (
        "The **owner** of a card is the player who started the game with it; see [[Exhaust]] "
        "and [[Exhaust|turning cards]].\n\n- A card enters play under its owner's control.\n"
        "- Control ends when the card leaves play, whatever happens to it afterwards & so on."
    )
    entry = make_entry(game=game, title="Ownership", body=body)
    meta = head(client, entry.url_in("en")).meta
    description = meta["description"][0]
    assert description.startswith(
        "The owner of a card is the player who started the game with it; see Exhaust and turning cards. "
        "A card enters play under its owner's control."
    )
    assert len(description) <= 160 and description.endswith("…")
    assert not description.endswith(" …")  # cut after a whole word
    assert description[:-1] in " ".join(description[:-1].split())  # one line, single spaces
    assert meta["article:modified_time"][0].startswith(str(entry.updated_at.year))


def test_an_entry_without_text_is_described_by_its_title(client):
    game = make_game(slug="meta-empty", name="Empty Game")
    entry = make_entry(game=game, title="Wanted Term", body="")
    assert head(client, entry.url_in("en")).meta["description"] == ["Wanted Term: a rule of Empty Game."]
    assert head(client, entry.url_in("de")).meta["description"] == ["Wanted Term: eine Regel aus Empty Game."]


def test_quotes_and_angle_brackets_in_a_title_reach_the_preview_as_written(client):
    game = make_game(slug="meta-quotes", name='The "Big" Game')
    entry = make_entry(game=game, title='Say "No" <now> & then', body='A "quoted" <b>bold</b> word; <now> is text.')
    response = client.get(entry.url_in("en"))
    html = response.content.decode()
    page = Head(html)
    assert page.meta["og:title"] == ['Say "No" <now> & then · The "Big" Game']
    assert page.title == 'Say "No" <now> & then · The "Big" Game · rulesite'
    # Markup the body allows is dropped; a tag it shows as text stays text.
    assert page.meta["description"] == ['A "quoted" bold word; <now> is text.']
    assert "<now>" not in html and "&lt;now&gt;" in html


def test_search_pages_name_the_query(client):
    page = head(client, "/en/search/?q=%22ready%22")
    assert page.meta["og:title"] == ['Search: "ready"']
    assert page.meta["og:url"] == ["http://testserver/en/search/?q=%22ready%22"]


@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1/entries/", "/api/v1/docs/", "/api/v1/redoc/"])
def test_the_apis_html_pages_describe_themselves(client, path):
    page = head(client, path, HTTP_ACCEPT="text/html")
    assert page.meta["description"][0].startswith("The read-only JSON API of rulesite")
    assert page.meta["og:description"] == page.meta["description"]
    assert page.meta["og:title"][0]
    assert page.meta["og:url"] == [f"http://testserver{path}"]
    assert page.meta["og:site_name"] == ["rulesite"]


PREVIEW_BOTS = {
    "facebook": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "twitter": "Twitterbot/1.0",
    "slack": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
}


@pytest.mark.parametrize("bot", PREVIEW_BOTS)
def test_a_shared_link_previews_with_the_game_s_card_in_the_reader_s_language(client, bot):
    from io import BytesIO

    from django.contrib.staticfiles import finders
    from django.templatetags.static import static
    from PIL import Image

    from tests.builds import run_background_tasks

    game = make_game(slug="star-wars-tcg", name="Star Wars Trading Card Game",
                     localized_names={"pl": "Star Wars Trading Card Game (2002)"})  # fmt: skip
    entry = make_entry(game=game, language="pl", title="Piloci", body="Pilot to postać.")
    agent = {"HTTP_USER_AGENT": PREVIEW_BOTS[bot]}

    def fetch(url: str):
        response = client.get(url.removeprefix("http://testserver"), **agent)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return response, body

    cards = {}
    for language in ("pl", "en"):
        page = head(client, entry.url_in(language), **agent)
        meta = {key: values[0] for key, values in page.meta.items()}
        assert meta["twitter:card"] == "summary_large_image" and meta["twitter:image"] == meta["og:image"]
        assert meta["og:image:alt"] == game.name_in(language)
        # Not drawn yet: the bot is sent to the site's card, an image all the same.
        first, _ = fetch(meta["og:image"])
        assert first.status_code == 302 and first["Location"] == static("img/card.png")
        assert Image.open(finders.find("img/card.png")).size == (1200, 630)
        run_background_tasks()  # the worker draws it
        image, body = fetch(meta["og:image"])
        assert image.status_code == 200 and image["Content-Type"] == "image/png"
        assert Image.open(BytesIO(body)).size == (1200, 630)
        cards[language] = body
        # The game's page shares the same card.
        assert head(client, f"/{language}/games/{game.slug}/", **agent).meta["og:image"][0] == meta["og:image"]
    assert cards["pl"] != cards["en"]  # the name each reader's pages show: "(2002)" in Polish
    home = head(client, "/en/", **agent).meta["og:image"][0]
    assert home.startswith("http://testserver/static/") and "card" in home
