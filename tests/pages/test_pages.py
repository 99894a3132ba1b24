"""Every public page, in every UI language, as a reader gets it."""

from http import HTTPStatus

import pytest
from django.conf import settings

from rules.content.querysets import Status
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.module_world import fixtures

UI_LANGUAGES = [code for code, _name in settings.LANGUAGES]
pytestmark = pytest.mark.django_db


@written_together
def build_world():
    game = make_game(slug="ownership-game", name="Ownership Game", localized_names={"de": "Besitzspiel"})
    source = make_source(game=game, language="de", title="Regelreferenz")
    besitz = make_entry(
        game=game,
        language="de",
        title="Besitz und Kontrolle",
        body="Der Besitzer einer Karte.\n\n- Karten kommen ins Spiel.\n    - Ein Upgrade wechselt.",
        see_also=["Spieler", "Fehlt noch"],
        source=source,
        page="12",
    )
    spieler = make_entry(
        game=game,
        language="de",
        title="Spieler",
        body="Ein Spieler. Siehe [[Besitz und Kontrolle]].",
        see_also=["Besitz und Kontrolle"],
    )
    ownership = make_entry(
        game=game, language="en", title="Ownership and Control", translation_key=besitz.translation_key
    )
    erratum = make_erratum(
        game=game,
        language="de",
        title="Korrektur zu Besitz",
        original_text="Karten wechseln nie.",
        corrected_text="Karten wechseln selten.",
        affects=[besitz],
    )
    question = make_question(game=game, language="de", question="Wer besitzt die Karte?", related_entries=[besitz])
    return {
        "game": game,
        "besitz": besitz,
        "spieler": spieler,
        "ownership": ownership,
        "erratum": erratum,
        "question": question,
    }


# Written once for the module's tests that read it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")


def page_urls(world):
    game = world["game"].slug
    return [
        "/{lang}/",
        f"/{{lang}}/games/{game}/",
        f"/{{lang}}/games/{game}/rules/{world['besitz'].slug}/",
        f"/{{lang}}/games/{game}/errata/",
        f"/{{lang}}/games/{game}/faq/",
        "/{lang}/search/?q=Besitz",
    ]


@pytest.mark.parametrize("language", UI_LANGUAGES)
def test_every_page_renders_in_every_ui_language(client, world, language):
    for template in page_urls(world):
        url = template.format(lang=language)
        response = client.get(url, follow=True)
        assert response.status_code == HTTPStatus.OK, url
        html = response.content.decode()
        assert f'<html lang="{language}">' in html, url
        for code in UI_LANGUAGES:
            assert f'hreflang="{code}"' in html, url
        assert 'hreflang="x-default"' in html


@pytest.mark.parametrize(
    ("language", "not_found"),
    [
        ("en", "Page not found"),
        ("de", "Seite nicht gefunden"),
        ("pl", "Nie znaleziono strony"),
        ("nl", "Pagina niet gevonden"),
    ],
)
def test_404_is_a_real_page_in_the_readers_language(client, language, not_found):
    response = client.get(f"/{language}/games/no-such-game/")
    assert response.status_code == HTTPStatus.NOT_FOUND
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    assert not_found in html
    assert 'role="search"' in html


def test_unknown_entry_is_404(client, world):
    response = client.get(f"/de/games/{world['game'].slug}/rules/no-such-entry/")
    assert response.status_code == HTTPStatus.NOT_FOUND


def test_entry_page_shows_body_references_errata_faq_source(client, world):
    response = client.get(f"/de/games/{world['game'].slug}/rules/{world['besitz'].slug}/")
    html = response.content.decode()
    assert '<article class="entry" lang="de">' in html
    assert "<li>Ein Upgrade wechselt.</li>" in html  # the nested bullet
    # see also: a resolved label links (with a preview: class xref), an unresolved one is
    # plain text, marked as the text's unresolved [[links]] are
    spieler = f"/de/games/{world['game'].slug}/rules/spieler/"
    assert f'<a class="xref" href="{spieler}">Spieler</a>' in html
    assert '<span class="xref xref-wanted"' in html and "Fehlt noch</span>" in html
    # referenced by: "Spieler" links here with [[Besitz und Kontrolle]]
    referenced_by = html[html.index('id="referenced-by-heading"') :]
    assert "Verweise auf diesen Eintrag" in referenced_by[:200]
    assert ">Spieler</a></li>" in referenced_by
    # erratum with a readable diff, FAQ question, source and page
    assert "<del>nie.</del><ins>selten.</ins>" in html
    assert "Wer besitzt die Karte?" in html
    assert "Regelreferenz" in html and "12" in html
    # other languages
    assert 'hreflang="en" lang="en">Ownership and Control' in html


def test_body_links_point_at_their_targets(client, world):
    html = client.get(f"/de/games/{world['game'].slug}/rules/spieler/").content.decode()
    href = f"/de/games/{world['game'].slug}/rules/{world['besitz'].slug}/"
    assert f'<a class="xref" href="{href}">Besitz und Kontrolle</a>' in html


def test_language_switch_lands_on_the_translation(client, world):
    game = world["game"].slug
    response = client.get(f"/en/games/{game}/rules/{world['besitz'].slug}/")
    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"] == f"/en/games/{game}/rules/ownership-and-control/"
    html = client.get(f"/de/games/{game}/rules/{world['besitz'].slug}/").content.decode()
    assert f'hreflang="en" href="http://testserver/en/games/{game}/rules/ownership-and-control/"' in html


def test_entry_without_translation_is_shown_with_a_notice(client, world):
    game = world["game"].slug
    response = client.get(f"/pl/games/{game}/rules/spieler/")
    html = response.content.decode()
    assert response.status_code == HTTPStatus.OK
    assert '<html lang="pl">' in html
    assert '<article class="entry" lang="de">' in html
    assert 'class="notice"' in html and "Deutsch" in html


def test_game_page_lists_glossary_sources_and_links(client, world):
    html = client.get(f"/de/games/{world['game'].slug}/").content.decode()
    assert "Besitzspiel" in html
    assert ">Besitz und Kontrolle</a>" in html and ">Spieler</a>" in html
    assert "Regelreferenz" in html
    assert f'href="/de/games/{world["game"].slug}/faq/"' in html
    assert f'href="/de/games/{world["game"].slug}/errata/"' in html


def test_game_page_in_a_language_without_content_says_so(client, world):
    html = client.get(f"/nl/games/{world['game'].slug}/").content.decode()
    assert 'class="notice"' in html
    assert '<dl class="glossary" lang="de">' in html


@pytest.mark.parametrize("status", [Status.DRAFT, Status.REVIEW, Status.ARCHIVED])
def test_unpublished_items_never_appear(client, world, status):
    game = world["game"]
    draft = make_entry(game=game, language="de", title="Geheimer Entwurf", status=status)
    make_erratum(game=game, language="de", title="Geheimes Erratum", status=status, affects=[world["besitz"]])
    make_question(game=game, language="de", question="Geheime Frage?", status=status, related_entries=[world["besitz"]])
    make_entry(game=game, language="de", title="Entwurf mit Verweis", status=status, see_also=["Besitz und Kontrolle"])
    for url in [
        "/de/",
        f"/de/games/{game.slug}/",
        f"/de/games/{game.slug}/rules/{world['besitz'].slug}/",
        f"/de/games/{game.slug}/errata/",
        f"/de/games/{game.slug}/faq/",
        "/de/search/?q=Geheim",
    ]:
        html = client.get(url).content.decode()
        for secret in ("Geheimer Entwurf", "Geheimes Erratum", "Geheime Frage", "Entwurf mit Verweis"):
            assert secret not in html, (url, secret)
    assert client.get(f"/de/games/{game.slug}/rules/{draft.slug}/").status_code == HTTPStatus.NOT_FOUND


def test_reference_to_a_draft_is_not_a_link(client, world):
    game = world["game"]
    make_entry(game=game, language="de", title="Fehlt noch", status=Status.DRAFT)
    html = client.get(f"/de/games/{game.slug}/rules/{world['besitz'].slug}/").content.decode()
    assert "Fehlt noch</span>" in html


def test_search_page_highlights_matches(client, world):
    html = client.get("/de/search/?q=besitzer").content.decode()
    assert "<mark>Besitzer</mark>" in html


@pytest.mark.parametrize(
    "query", ["", "%00", "a" * 10000, "!!!???", "' OR 1=1 --", 'title:"x" AND NEAR(', "\u0000abc"]
)
def test_absurd_search_queries_never_fail(client, world, query):
    response = client.get("/en/search/", {"q": query})
    assert response.status_code == HTTPStatus.OK


@pytest.mark.parametrize(
    ("language", "see_also", "glossary"),
    [
        ("en", "See also", "Glossary A–Z"),
        ("de", "Siehe auch", "Glossar A–Z"),
        ("pl", "Zobacz też", "Słowniczek A–Z"),
        ("nl", "Zie ook", "Woordenlijst A–Z"),
    ],
)
def test_ui_is_translated(client, world, language, see_also, glossary):
    """A smoke test per catalogue: compiled, found through LOCALE_PATHS, and used."""
    game = world["game"].slug
    assert see_also in client.get(f"/{language}/games/{game}/rules/{world['spieler'].slug}/").content.decode()
    assert glossary in client.get(f"/{language}/games/{game}/").content.decode()
