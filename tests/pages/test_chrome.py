"""The site's chrome (rendered once per UI language: rules/templatetags/fragments.py)
is in the language of each page, whatever was rendered before it in the process."""

import pytest

from tests.factories import make_entry, make_game

pytestmark = pytest.mark.django_db

PLACEHOLDERS = {"en": "Search the rules…", "de": "Regeln durchsuchen …", "pl": "Przeszukaj zasady…", "nl": "Regels doorzoeken…"}


def test_each_language_gets_its_own_chrome_and_each_page_its_own_form(client):
    game = make_game(slug="chrome-game")
    entry = make_entry(game=game, title="Chrome")
    for language in ["en", "de", "pl", "nl", "en", "pl"]:
        html = client.get(entry.url_in(language)).content.decode()
        assert PLACEHOLDERS[language] in html, language
        assert 'data-game="chrome-game"' in html  # the page's own part of the search form
        search = client.get(f"/{language}/search/?q=zzqx").content.decode()
        assert PLACEHOLDERS[language] in search and 'value="zzqx"' in search
        assert "data-game=" not in search
