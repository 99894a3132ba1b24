"""Atom feeds of recent changes and errata, read the way a feed reader reads them."""

import datetime
import xml.etree.ElementTree as ET
from http import HTTPStatus

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.journal import unit_of_work
from rules.content.querysets import Status
from tests.factories import make_entry, make_erratum, make_game, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
HIDDEN = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]


def read_feed(client, url):
    response = client.get(url)
    assert response.status_code == HTTPStatus.OK, url
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)


def items(feed) -> list[dict]:
    return [
        {
            "title": entry.findtext(f"{ATOM}title"),
            "link": entry.find(f"{ATOM}link").get("href"),
            "id": entry.findtext(f"{ATOM}id"),
            "updated": entry.findtext(f"{ATOM}updated"),
            "summary": entry.findtext(f"{ATOM}summary"),
            "lang": entry.get(XML_LANG),
        }
        for entry in feed.findall(f"{ATOM}entry")
    ]


def touch(obj, minutes_ago: int) -> None:
    """Set updated_at (auto_now) to a known time, without a save."""
    type(obj).objects.filter(pk=obj.pk).update(
        updated_at=datetime.datetime(2025, 1, 1, 12, tzinfo=datetime.UTC)
        - datetime.timedelta(minutes=minutes_ago)
    )


def build_game():
    return make_game(slug="moon", name="Blue Moon", localized_names={"de": "Blauer Mond"})


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def test_site_feed_lists_published_entries_newest_first(client, game):
    old = make_entry(game=game, title="Old rule")
    new = make_entry(game=game, language="de", title="Neue Regel", body="Ein **neuer** Text.")
    touch(old, minutes_ago=10)
    touch(new, minutes_ago=1)
    for status in HIDDEN:
        make_entry(game=game, title=f"Secret {status}", status=status)

    feed = read_feed(client, "/en/feeds/changes/")

    assert feed.get(XML_LANG) == "en"
    assert [(i["title"], i["lang"]) for i in items(feed)] == [
        ("Neue Regel", "de"),
        ("Old rule", "en"),
    ]
    first = items(feed)[0]
    assert first["link"] == f"http://testserver{new.url_in('en')}"
    assert first["updated"].startswith("2025-01-01T11:59")
    assert first["summary"] == "<p>Ein <strong>neuer</strong> Text.</p>"
    assert "Secret" not in ET.tostring(feed, encoding="unicode")


def test_feed_item_ids_are_stable_across_languages_and_renames(client, game):
    entry = make_entry(game=game, title="Reactions")
    before = items(read_feed(client, "/en/feeds/changes/"))[0]["id"]
    entry.title = "Responses"
    entry.save()

    after = items(read_feed(client, "/de/feeds/changes/"))[0]

    assert after["title"] == "Responses"
    assert after["id"] == before
    assert after["link"].endswith("/de/games/moon/rules/responses/")


def test_titles_are_plain_text_and_bodies_sanitised_html(client, game):
    make_entry(
        game=game, title="Cards <b> & tokens", body="Text <script>alert(1)</script> [[Missing]]."
    )

    item = items(read_feed(client, "/en/feeds/changes/"))[0]

    # ElementTree undoes the XML escaping once: what a reader shows is the title as typed.
    assert item["title"] == "Cards <b> & tokens"
    assert "<script" not in item["summary"]
    # A tag written in a text is shown as text (rules.shared.markdown), inert in the summary's HTML.
    assert "Text &lt;script&gt;alert(1)&lt;/script&gt; " in item["summary"]


def test_site_feed_is_limited_to_fifty_items(client, game):
    with unit_of_work():  # one pipeline run, as an import: still 51 changes
        for n in range(51):
            make_entry(game=game, title=f"Rule {n}")

    assert len(items(read_feed(client, "/en/feeds/changes/"))) == 50


def test_game_feed_follows_the_content_language_of_the_ui_language(client, game):
    make_entry(game=game, language="de", title="Karte")
    make_entry(game=game, language="de", title="Spieler")
    make_entry(game=game, language="en", title="Card")
    make_entry(game=make_game(), title="Other game's rule")

    german = read_feed(client, "/de/games/moon/feeds/changes/")
    english = read_feed(client, "/en/games/moon/feeds/changes/")
    # No Polish content: the game's main language (most content), as its pages show.
    polish = read_feed(client, "/pl/games/moon/feeds/changes/")

    assert {i["title"] for i in items(german)} == {"Karte", "Spieler"}
    assert {i["lang"] for i in items(german)} == {"de"}
    assert {i["title"] for i in items(english)} == {"Card"}
    assert english.findtext(f"{ATOM}title") == "Blue Moon: recently changed entries"
    assert {i["title"] for i in items(polish)} == {"Karte", "Spieler"}
    assert {i["link"].split("/")[3] for i in items(polish)} == {"pl"}  # the reader's UI language


def test_errata_feed_lists_published_errata_newest_first_linking_their_anchor(client, game):
    entry = make_entry(game=game, title="Card")
    older = make_erratum(
        game=game, title="Older fix", published_on=datetime.date(2024, 3, 1), affects=[entry]
    )
    newer = make_erratum(game=game, title="Newer fix", corrected_text="Draw *two* cards.")
    touch(older, minutes_ago=30)
    touch(newer, minutes_ago=5)
    for status in HIDDEN:
        make_erratum(game=game, title=f"Secret fix {status}", status=status)
    make_erratum(game=game, language="de", title="Deutsche Korrektur")

    feed = read_feed(client, "/en/games/moon/feeds/errata/")

    found = items(feed)
    assert [i["title"] for i in found] == ["Newer fix", "Older fix"]
    assert found[0]["link"] == "http://testserver/en/games/moon/errata/#newer-fix"
    assert found[0]["summary"] == "<p>Draw <em>two</em> cards.</p>"
    assert found[0]["lang"] == "en"
    published = feed.findall(f"{ATOM}entry")[1].findtext(f"{ATOM}published")
    assert published.startswith("2024-03-01")
    assert "Secret" not in ET.tostring(feed, encoding="unicode")


@pytest.mark.parametrize(
    "url", ["/en/games/no-such-game/feeds/changes/", "/en/games/no-such-game/feeds/errata/"]
)
def test_unknown_game_is_a_404_page(client, url):
    response = client.get(url)

    assert response.status_code == HTTPStatus.NOT_FOUND
    assert 'class="error-page"' in response.content.decode()  # the site's 404 page


def test_unpublishing_removes_an_item(client, game):
    entry = make_entry(game=game, title="Withdrawn rule")
    erratum = make_erratum(game=game, title="Withdrawn fix")
    entry.status = Status.ARCHIVED
    entry.save()
    erratum.status = Status.DRAFT
    erratum.save()

    assert items(read_feed(client, "/en/games/moon/feeds/changes/")) == []
    assert items(read_feed(client, "/en/feeds/changes/")) == []
    assert items(read_feed(client, "/en/games/moon/feeds/errata/")) == []


@pytest.mark.parametrize(
    "url", ["/en/feeds/changes/", "/en/games/moon/feeds/changes/", "/en/games/moon/feeds/errata/"]
)
def test_feed_queries_do_not_grow_with_items(client, game, url, django_assert_num_queries):
    @written_together
    def add(n):
        for _ in range(n):
            target = make_entry(game=game)
            make_entry(game=game, body=f"See [[{target.title}]].")
            make_erratum(game=game)

    add(2)
    with CaptureQueriesContext(connection) as small:
        read_feed(client, url)
    add(10)
    with django_assert_num_queries(len(small)):
        read_feed(client, url)


def test_pages_name_their_feeds_in_the_head(client, game):
    make_entry(game=game, title="Card")

    home = client.get("/en/").content.decode()
    game_page = client.get("/en/games/moon/").content.decode()
    entry_page = client.get("/en/games/moon/rules/card/").content.decode()

    site_feed = (
        '<link rel="alternate" type="application/atom+xml" title="Recently changed entries"'
        ' href="/en/feeds/changes/">'
    )
    assert site_feed in home
    assert "/games/moon/feeds/" not in home
    for page in (game_page, entry_page):
        assert site_feed in page
        assert (
            'title="Blue Moon: recently changed entries" href="/en/games/moon/feeds/changes/"'
            in page
        )
        assert 'title="Blue Moon: errata" href="/en/games/moon/feeds/errata/"' in page
    # Visible links too, for readers whose browser does not announce feeds.
    assert '<a href="/en/feeds/changes/" type="application/atom+xml">' in home
    assert '<a href="/en/games/moon/feeds/changes/" type="application/atom+xml">' in game_page
    for feed_url in (
        "/en/feeds/changes/",
        "/en/games/moon/feeds/changes/",
        "/en/games/moon/feeds/errata/",
    ):
        assert client.get(feed_url).status_code == HTTPStatus.OK
