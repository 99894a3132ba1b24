"""The side-by-side page: one entry beside its version in another language (rules.pages.parallel)."""

from http import HTTPStatus

import pytest

from rules.content.querysets import Status
from tests.factories import make_entry, make_erratum, make_game, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


@written_together
def build_versions():
    game = make_game(slug="crown-war", name="Crown War", localized_names={"de": "Kronenkrieg"})
    english = make_entry(game=game, title="Ownership", body="The **owner** of a card.")
    german = make_entry(game=game, language="de", title="Besitz", body="Der **Besitzer** einer Karte.",
                        translation_key=english.translation_key)  # fmt: skip
    polish = make_entry(game=game, language="pl", title="Własność", body="**Właściciel** karty.",
                        translation_key=english.translation_key)  # fmt: skip
    return {"game": game, "en": english, "de": german, "pl": polish}


# Written once for the module's tests that read it (tests.module_world).
_versions_of_the_module, versions = fixtures(build_versions, "versions")


def get(client, url: str):
    response = client.get(url)
    return response, response.content.decode()


def test_both_versions_side_by_side_each_in_its_language(client, versions):
    response, html = get(client, "/en/games/crown-war/rules/ownership/compare/de/")
    assert response.status_code == HTTPStatus.OK
    assert '<html lang="en">' in html
    assert '<section class="parallel-column" aria-labelledby="column-' in html
    english_column = html.index('lang="en">\n    <p class="parallel-language"')
    german_column = html.index('lang="de">\n    <p class="parallel-language"')
    assert english_column < german_column
    assert "<strong>owner</strong>" in html and "<strong>Besitzer</strong>" in html
    assert 'href="/de/games/crown-war/rules/besitz/" hreflang="de">Besitz</a>' in html
    # The other comparisons and the swapped one.
    assert 'href="/en/games/crown-war/rules/ownership/compare/pl/"' in html
    assert 'href="/en/games/crown-war/rules/besitz/compare/en/?content=de"' in html
    # hreflang alternates: the same page in every UI language.
    assert (
        '<link rel="alternate" hreflang="de" href="http://testserver/de/games/crown-war/rules/ownership/compare/de/">'
        in html
    )


def test_linked_from_the_other_languages_of_every_translated_entry(client, versions):
    html = client.get("/en/games/crown-war/rules/ownership/").content.decode()
    assert 'href="/en/games/crown-war/rules/ownership/compare/de/">side by side' in html
    assert 'href="/en/games/crown-war/rules/ownership/compare/pl/">side by side' in html
    html = client.get("/de/games/crown-war/rules/besitz/").content.decode()
    assert 'href="/de/games/crown-war/rules/besitz/compare/en/">' in html


def test_the_swapped_page_and_an_entry_not_in_the_ui_language(client, versions):
    response, html = get(client, "/en/games/crown-war/rules/besitz/compare/en/?content=de")
    assert response.status_code == HTTPStatus.OK
    german_column = html.index('lang="de">\n    <p class="parallel-language"')
    english_column = html.index('lang="en">\n    <p class="parallel-language"')
    assert german_column < english_column


def test_a_slug_in_two_languages_picks_the_one_asked_for(client):
    game = make_game(slug="tiles")
    english = make_entry(game=game, title="Mulligan", body="Redraw once.")
    french = make_entry(game=game, language="fr", title="Mulligan", body="Repiochez une fois.")
    make_entry(
        game=game, language="de", title="Neu ziehen", body="Einmal neu.", translation_key=english.translation_key
    )
    make_entry(
        game=game, language="de", title="Neu ziehen (fr)", body="Einmal (fr).", translation_key=french.translation_key
    )
    assert english.slug == french.slug == "mulligan"
    html = client.get("/en/games/tiles/rules/mulligan/compare/de/").content.decode()
    assert "Redraw once." in html and "Einmal neu." in html
    html = client.get("/en/games/tiles/rules/mulligan/compare/de/?content=fr").content.decode()
    assert "Repiochez une fois." in html and "Einmal (fr)." in html


@pytest.mark.parametrize(
    "url",
    [
        "/de/games/crown-war/rules/ownership/compare/nl/",  # no Dutch version
        "/de/games/crown-war/rules/ownership/compare/xx/",  # not a language
        "/de/games/crown-war/rules/ownership/compare/en/",  # the same language
        "/de/games/crown-war/rules/nothing/compare/de/",  # no such entry
        "/de/games/no-game/rules/ownership/compare/de/",  # no such game
    ],
)
def test_a_real_404_in_the_reader_s_language(client, versions, url):
    response, html = get(client, url)
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert '<html lang="de">' in html and "Seite nicht gefunden" in html


def test_drafts_are_never_compared(client, versions):
    versions["pl"].status = Status.DRAFT
    versions["pl"].save()
    assert client.get("/en/games/crown-war/rules/ownership/compare/pl/").status_code == HTTPStatus.NOT_FOUND
    assert "compare/pl/" not in client.get("/en/games/crown-war/rules/ownership/").content.decode()


def test_each_column_reads_as_corrected_with_its_own_switch(client, versions):
    fix = make_erratum(game=versions["game"], title="Owner fix", original_text="The **owner** of a card.",
                       corrected_text="The **owner** of a card, until it leaves play.",
                       affects=[versions["en"]])  # fmt: skip
    html = client.get("/en/games/crown-war/rules/ownership/compare/de/").content.decode()
    assert f'id="as-printed-{versions["en"].pk}"' in html and "until it leaves play" in html
    assert f'<li id="erratum-{fix.pk}" lang="en">' in html  # where the change's number leads
