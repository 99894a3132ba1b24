"""sitemap.xml and robots.txt, read the way a crawler reads them."""

import datetime
import xml.etree.ElementTree as ET
from http import HTTPStatus

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.querysets import Status
from tests.factories import make_entry, make_erratum, make_game, make_question

pytestmark = pytest.mark.django_db

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
BASE = "http://testserver"
HIDDEN = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]


def read_sitemap(client) -> dict[str, dict]:
    """loc → {"lastmod": …, "alternates": {hreflang: href}} for every <url>."""
    response = client.get("/sitemap.xml")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "application/xml"
    root = ET.fromstring(response.content)
    return {
        url.findtext(f"{SM}loc"): {
            "lastmod": url.findtext(f"{SM}lastmod"),
            "alternates": {
                link.get("hreflang"): link.get("href") for link in url.findall(f"{XHTML}link")
            },
        }
        for url in root.findall(f"{SM}url")
    }


def set_updated(obj, day: int) -> None:
    type(obj).objects.filter(pk=obj.pk).update(
        updated_at=datetime.datetime(2025, 2, day, 9, tzinfo=datetime.UTC)
    )


@pytest.fixture
def game():
    return make_game(slug="moon", name="Blue Moon")


def test_published_entries_at_their_canonical_urls_with_lastmod(client, game):
    english = make_entry(game=game, title="Card")
    german = make_entry(game=game, language="de", title="Karte")
    french = make_entry(game=game, language="fr", title="Carte")  # no French UI: English UI
    set_updated(english, 3)
    set_updated(german, 4)

    urls = read_sitemap(client)

    assert urls[f"{BASE}/en/games/moon/rules/card/"]["lastmod"] == "2025-02-03"
    assert urls[f"{BASE}/de/games/moon/rules/karte/"]["lastmod"] == "2025-02-04"
    # No French UI: the English UI, asking for the French version itself.
    assert french.canonical_url() == "/en/games/moon/rules/carte/?content=fr"
    assert f"{BASE}/en/games/moon/rules/carte/?content=fr" in urls
    # once each, not once per UI language
    assert f"{BASE}/de/games/moon/rules/card/" not in urls
    assert f"{BASE}/en/games/moon/rules/karte/" not in urls


@pytest.mark.parametrize("status", HIDDEN)
def test_unpublished_entries_are_not_listed(client, game, status):
    make_entry(game=game, title="Visible rule")
    make_entry(game=game, title="Secret rule", status=status)

    sitemap = client.get("/sitemap.xml").content.decode()

    assert "/rules/visible-rule/" in sitemap
    assert "secret" not in sitemap


def test_translations_are_alternates_of_each_other(client, game):
    card = make_entry(game=game, title="Card")
    make_entry(game=game, language="de", title="Karte", translation_key=card.translation_key)
    make_entry(
        game=game,
        language="pl",
        title="Karta",
        translation_key=card.translation_key,
        status=Status.DRAFT,
    )
    lonely = make_entry(game=game, title="Lonely")

    urls = read_sitemap(client)

    expected = {
        "en": f"{BASE}/en/games/moon/rules/card/",
        "de": f"{BASE}/de/games/moon/rules/karte/",
    }
    assert urls[expected["en"]]["alternates"] == expected
    assert urls[expected["de"]]["alternates"] == expected  # no draft Polish version
    assert urls[f"{BASE}{lonely.canonical_url()}"]["alternates"] == {}


def test_home_and_game_pages_in_every_ui_language_with_hreflang(client, game):
    entry = make_entry(game=game, title="Card")
    set_updated(entry, 7)
    set_updated(game, 1)  # the game's own row changed earlier than its entries

    urls = read_sitemap(client)

    languages = ["en", "de", "pl", "nl"]
    for language in languages:
        home = urls[f"{BASE}/{language}/"]
        assert home["alternates"] == {code: f"{BASE}/{code}/" for code in languages}
        game_page = urls[f"{BASE}/{language}/games/moon/"]
        assert game_page["alternates"] == {code: f"{BASE}/{code}/games/moon/" for code in languages}
        assert game_page["lastmod"] == "2025-02-07"  # its last published entry change


@pytest.mark.parametrize("status", HIDDEN)
def test_faq_and_errata_pages_only_for_games_with_published_ones(client, status):
    both = make_game(slug="both")
    make_question(game=both)
    make_erratum(game=both)
    hidden_only = make_game(slug="hidden-only")
    make_question(game=hidden_only, status=status)
    make_erratum(game=hidden_only, status=status)

    urls = read_sitemap(client)

    assert f"{BASE}/en/games/both/faq/" in urls
    assert f"{BASE}/de/games/both/errata/" in urls
    assert f"{BASE}/en/games/hidden-only/" in urls  # the game itself is public
    assert f"{BASE}/en/games/hidden-only/faq/" not in urls
    assert f"{BASE}/en/games/hidden-only/errata/" not in urls


def test_errata_page_lastmod_is_its_last_published_change(client, game):
    published = make_erratum(game=game)
    later_draft = make_erratum(game=game, status=Status.DRAFT)
    set_updated(published, 10)
    set_updated(later_draft, 20)
    type(game).objects.filter(pk=game.pk).update(
        updated_at=datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    )

    assert read_sitemap(client)[f"{BASE}/en/games/moon/errata/"]["lastmod"] == "2025-02-10"


def test_sitemap_queries_do_not_grow_with_entries(client, django_assert_num_queries):
    def add(game, n):
        for _ in range(n):
            entry = make_entry(game=game)
            make_entry(game=game, language="de", translation_key=entry.translation_key)
            make_erratum(game=game)
            make_question(game=game)

    add(make_game(), 2)
    with CaptureQueriesContext(connection) as small:
        read_sitemap(client)
    add(make_game(), 2)
    add(make_game(), 15)
    with django_assert_num_queries(len(small)):
        urls = read_sitemap(client)
    assert len(urls) > 60


def test_robots_txt(client):
    response = client.get("/robots.txt")

    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert "User-agent: *" in lines
    assert "Allow: /" in lines
    assert "Disallow: /admin/" in lines
    for language in ("en", "de", "pl", "nl"):
        assert f"Disallow: /{language}/search/" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines
    # Nothing public is shut out.
    assert "Disallow: /" not in lines
    assert not any(line == f"Disallow: /{language}/" for line in lines for language in ("en", "de"))


def test_robots_txt_names_the_sitemap_on_the_requested_host(client, settings):
    settings.ALLOWED_HOSTS = ["rules.example.org"]
    response = client.get("/robots.txt", HTTP_HOST="rules.example.org", secure=True)

    assert (
        "Sitemap: https://rules.example.org/sitemap.xml" in response.content.decode().splitlines()
    )
