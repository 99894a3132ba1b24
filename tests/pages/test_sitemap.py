"""sitemap.xml and robots.txt, read the way a crawler reads them."""

import datetime
import xml.etree.ElementTree as ET
from http import HTTPStatus

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.querysets import Status
from tests.builds import content_of, get_built, run_background_tasks, sitemap_documents
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
BASE = "http://testserver"
HIDDEN = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]


def read_sitemap(client) -> dict[str, dict]:
    """loc → {"lastmod": …, "alternates": {hreflang: href}} for every <url> of every
    sitemap the index lists."""
    assert client.get("/sitemap.xml")["Content-Type"] == "application/xml"
    urls = {}
    for document in sitemap_documents(client)[1:]:
        root = ET.fromstring(document)
        for url in root.findall(f"{SM}url"):
            urls[url.findtext(f"{SM}loc")] = {
                "lastmod": url.findtext(f"{SM}lastmod"),
                "alternates": {link.get("hreflang"): link.get("href") for link in url.findall(f"{XHTML}link")},
            }
    return urls


def set_updated(obj, day: int) -> None:
    type(obj).objects.filter(pk=obj.pk).update(
        updated_at=datetime.datetime(2025, 2, day, 9, tzinfo=datetime.UTC)
    )


def build_game():
    return make_game(slug="moon", name="Blue Moon")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


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

    sitemap = b"".join(sitemap_documents(client)).decode()

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
    """The index and the pages' sitemap are a fixed number of queries; a game's entries
    are a file built in the background, from a fixed number of queries too."""

    @written_together
    def add(game, n):
        for _ in range(n):
            entry = make_entry(game=game)
            make_entry(game=game, language="de", translation_key=entry.translation_key)
            make_erratum(game=game)
            make_question(game=game)

    small, large = make_game(), make_game()
    add(small, 2)
    with CaptureQueriesContext(connection) as index_small:
        client.get("/sitemap.xml")
        client.get("/sitemaps/pages.xml")
    with CaptureQueriesContext(connection) as build_small:
        get_built(client, f"/sitemaps/{small.slug}/en.xml")
    add(large, 15)
    add(make_game(), 2)
    with django_assert_num_queries(len(index_small)):
        client.get("/sitemap.xml")
        client.get("/sitemaps/pages.xml")
    with django_assert_num_queries(len(build_small)):
        get_built(client, f"/sitemaps/{large.slug}/en.xml")
    assert len(read_sitemap(client)) > 60


def test_the_index_names_a_sitemap_per_game_and_language_with_its_last_change(client, game):
    other = make_game(slug="sun", name="Sun")
    set_updated(make_entry(game=game, title="Card"), 3)
    set_updated(make_entry(game=game, language="de", title="Karte"), 9)
    make_entry(game=other, title="Ray", status=Status.DRAFT)

    root = ET.fromstring(client.get("/sitemap.xml").content)
    listed = {item.findtext(f"{SM}loc"): item.findtext(f"{SM}lastmod") for item in root.iter(f"{SM}sitemap")}

    assert listed == {
        f"{BASE}/sitemaps/pages.xml": None,
        f"{BASE}/sitemaps/moon/de.xml": "2025-02-09",
        f"{BASE}/sitemaps/moon/en.xml": "2025-02-03",
    }
    assert client.get("/sitemaps/sun/en.xml").status_code == HTTPStatus.NOT_FOUND  # drafts only


def test_a_games_sitemap_is_built_once_and_served_as_a_file(client, game):
    make_entry(game=game, title="Card")
    first = client.get("/sitemaps/moon/en.xml")
    assert first.status_code == HTTPStatus.SERVICE_UNAVAILABLE and first["Retry-After"]
    run_background_tasks()
    response = client.get("/sitemaps/moon/en.xml", HTTP_ACCEPT_ENCODING="identity")
    assert response.status_code == HTTPStatus.OK
    assert response["ETag"].startswith('"') and response["Accept-Ranges"] == "bytes"
    assert b"/en/games/moon/rules/card/" in content_of(response)
    # A crawler's query string or port changes nothing and makes nothing again.
    again = client.get("/sitemaps/moon/en.xml?x=1", HTTP_HOST="testserver:8123", HTTP_ACCEPT_ENCODING="identity")
    assert again["ETag"] == response["ETag"]


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
