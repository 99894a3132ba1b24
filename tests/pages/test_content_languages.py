"""Content in a language the UI does not offer (French) keeps an address of its own."""

import re
from http import HTTPStatus

import pytest

from tests.builds import sitemap_documents
from tests.factories import make_entry, make_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def carte():
    game = make_game()
    french = make_entry(game=game, language="fr", title="Carte", body="Une carte se joue face visible.")
    make_entry(game=game, language="en", title="Card", body="A card is played face up.",
               translation_key=french.translation_key)
    return french


def test_its_canonical_address_shows_that_version(client, carte):
    response = client.get(carte.canonical_url())

    assert response.status_code == HTTPStatus.OK
    page = response.content.decode()
    assert "Une carte se joue face visible." in page
    assert 'lang="fr"' in page


def test_without_asking_for_it_the_reader_gets_the_translation_in_their_language(client, carte):
    response = client.get(carte.url_in("en"))

    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"] == f"/en/games/{carte.game.slug}/rules/card/"


def test_the_sitemap_lists_an_address_that_answers_without_a_redirect(client, carte):
    sitemap = b"".join(sitemap_documents(client)).decode()

    assert f"{carte.canonical_url()}</loc>".replace("&", "&amp;") in sitemap


@pytest.mark.parametrize("ui", ["en", "de"])
def test_every_other_language_link_opens_that_version(client, carte, ui):
    """The "Other languages" list of a page leads to each version itself, not back to
    the version in the reader's language (French has no UI of its own; Polish has)."""
    game = carte.game
    polish = make_entry(game=game, language="pl", title="Karta", body="Kartę zagrywa się odkrytą.",
                        translation_key=carte.translation_key)
    german = make_entry(game=game, language="de", title="Karte", body="Eine Karte wird offen gespielt.",
                        translation_key=carte.translation_key)
    english_page = client.get(f"/{ui}/games/{game.slug}/rules/card/")
    start = client.get(german.url_in("de")) if ui == "de" else english_page
    assert start.status_code == HTTPStatus.OK
    page = start.content.decode()
    links = re.findall(r'<a href="([^"]+)" hreflang="(\w+)"', page.split("entry-meta", 1)[1])
    assert {language for _url, language in links} == ({"fr", "pl", "de"} if ui == "en" else {"fr", "pl", "en"})
    for url, language in links:
        response = client.get(url.replace("&amp;", "&"))
        assert response.status_code == HTTPStatus.OK, url
        body = response.content.decode()
        expected = {"fr": "Une carte se joue", "pl": "Kartę zagrywa", "de": "Eine Karte wird", "en": "A card is played"}
        assert expected[language] in body, url
    assert polish.pk and german.pk
