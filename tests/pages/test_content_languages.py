"""Content in a language the UI does not offer (French) keeps an address of its own."""

from http import HTTPStatus

import pytest

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
    assert response["Location"] == "/en/games/%s/rules/card/" % carte.game.slug


def test_the_sitemap_lists_an_address_that_answers_without_a_redirect(client, carte):
    sitemap = client.get("/sitemap.xml").content.decode()

    assert f"{carte.canonical_url()}</loc>".replace("&", "&amp;") in sitemap
