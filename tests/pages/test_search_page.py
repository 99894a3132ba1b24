"""The search results page: query, filters, highlighting, paging, errors, languages."""

import re
from http import HTTPStatus

import pytest

from rules.content.journal import unit_of_work
from rules.pages.views import SEARCH_PAGE_SIZE
from rules.search import MAX_QUERY_LENGTH, MAX_RESULTS, SearchResults
from tests.factories import make_entry, make_erratum, make_game, make_many_entries, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def results_of(html: str) -> list[str]:
    """The result links of a results page, in order."""
    return re.findall(r'<a class="result-title" href="([^"]+)"', html)


def get(client, path="/en/search/", **params):
    response = client.get(path, params)
    assert response.status_code == HTTPStatus.OK
    return response.content.decode()


def next_link(html: str) -> str | None:
    """The page's "Next →" link as a path to GET, or None on the last page."""
    found = re.search(r'<a class="pagination-next" rel="next" href="\?([^"]+)"', html)
    return found and "/en/search/?" + found.group(1).replace("&amp;", "&")


def count_of(html: str) -> str:
    return re.search(r'<p class="results-count" role="status">([^<]*)</p>', html).group(1)


@written_together
def build_world():
    tokens = make_game(slug="token-game", name="Token Game", localized_names={"de": "Markerspiel"})
    other = make_game(slug="other-game", name="Other Game")
    reaction = make_entry(
        game=tokens, title="Reaction Window", body="A reaction is played after its triggering condition."
    )
    reaktion = make_entry(
        game=tokens,
        language="de",
        title="Reaktion",
        body="Eine Reaktion wird gespielt, nachdem ihre Bedingung eintritt.",
        translation_key=reaction.translation_key,
    )
    other_reaction = make_entry(game=other, title="Reaction Step", body="Each reaction resolves in order.")
    erratum = make_erratum(game=tokens, title="Reaction timing", corrected_text="A reaction waits.", affects=[reaction])
    question = make_question(game=tokens, question="Can a reaction cancel a reaction?", answer="No.")
    return {
        "tokens": tokens,
        "other": other,
        "reaction": reaction,
        "reaktion": reaktion,
        "other_reaction": other_reaction,
        "erratum": erratum,
        "question": question,
    }


# Written once for the module's tests that read it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")


def test_results_link_to_their_pages_with_matches_highlighted(client, world):
    html = get(client, q="reaction")
    links = results_of(html)
    assert world["reaction"].url_in("en") in links
    assert world["other_reaction"].url_in("en") in links
    assert re.search(r"<mark>[Rr]eaction</mark>", html)
    assert 'class="results-count"' in html
    assert '<meta name="robots" content="noindex">' in html


def test_a_numbered_rule_shows_its_number(client):
    entry = make_entry(number="4.2", title="Combat Step", body="Resolve each combat.")
    html = get(client, q="combat step")
    assert f'href="{entry.url_in("en")}"><span class="result-number">4.2.</span> Combat Step</a>' in html


def test_the_empty_search_page_is_a_form(client, world):
    html = get(client)
    assert 'id="search-q"' in html
    assert 'class="results"' not in html
    assert '<meta name="robots" content="noindex">' in html


def test_game_filter_narrows_the_results(client, world):
    html = get(client, q="reaction", game="token-game")
    links = results_of(html)
    assert world["reaction"].url_in("en") in links
    assert world["other_reaction"].url_in("en") not in links
    assert '<option value="token-game" selected>Token Game</option>' in html


def test_language_filter_narrows_the_results(client, world):
    links = results_of(get(client, q="reaktion", language="de"))
    assert links == [world["reaktion"].url_in("en")]
    assert results_of(get(client, q="reaktion", language="fr")) == []


def test_type_filter_narrows_the_results(client, world):
    entry_url = world["reaction"].url_in("en")
    erratum_url = "/en/games/token-game/errata/#reaction-timing"
    question_url = "/en/games/token-game/faq/#can-a-reaction-cancel-a-reaction"
    everything = results_of(get(client, q="reaction"))
    assert {entry_url, erratum_url, question_url} <= set(everything)

    entries = results_of(get(client, q="reaction", type="entry"))
    assert entry_url in entries and erratum_url not in entries and question_url not in entries
    assert results_of(get(client, q="reaction", type="erratum")) == [erratum_url]
    html = get(client, q="reaction", type="question")
    assert results_of(html) == [question_url]
    assert '<span class="result-type result-type-question">FAQ</span>' in html


def test_an_unknown_filter_value_is_a_form_error_not_a_failure(client, world):
    html = get(client, q="reaction", game="no-such-game", type="nonsense")
    assert html.count('class="field-error"') == 2
    assert results_of(html) == []


def test_content_in_another_language_is_marked_with_lang(client, world):
    # German only (with all languages, the English translation would come first)
    html = get(client, q="reaktion", language="de")
    link = re.search(r'<a class="result-title" href="[^"]+"[^>]*>', html).group(0)
    assert 'lang="de"' in link
    # in the reader's own language, no lang override
    html = get(client, q="reaction", language="en")
    link = re.search(r'<a class="result-title" href="[^"]+"[^>]*>', html).group(0)
    assert "lang=" not in link


def test_a_german_term_shows_the_english_translation_first_then_the_german_entry(client, world):
    titles = re.findall(r'<a class="result-title" href="[^"]+"[^>]*>([^<]+)</a>', get(client, q="reaktion"))
    assert titles[:2] == ["Reaction Window", "Reaktion"]


def test_twenty_results_a_page_and_the_links_keep_the_filters(client):
    game = make_game(slug="paging-game")
    with unit_of_work():  # one pipeline run, as an import
        for n in range(25):
            make_entry(game=game, title=f"Token {n:02d}", body="A token on a card.")
        make_entry(title="Token elsewhere", body="Another game's token.")  # filtered out

    first = get(client, q="token", game="paging-game", language="en")
    assert len(results_of(first)) == 20
    next_link = re.search(r'<a class="pagination-next" rel="next" href="([^"]+)"', first).group(1)
    assert next_link == "?q=token&amp;game=paging-game&amp;language=en&amp;page=2"
    assert 'class="pagination-prev"' not in first

    second = client.get("/en/search/" + next_link.replace("&amp;", "&")).content.decode()
    second_links = results_of(second)
    assert len(second_links) == 5
    assert not set(second_links) & set(results_of(first))
    assert all("/games/paging-game/" in link for link in second_links)
    prev_link = re.search(r'<a class="pagination-prev" rel="prev" href="([^"]+)"', second).group(1)
    assert prev_link == "?q=token&amp;game=paging-game&amp;language=en"
    assert 'class="pagination-next"' not in second


def test_a_page_past_the_last_is_the_last_page_and_nonsense_is_the_first(client, world):
    only = get(client, q="reaction")
    assert len(results_of(only)) == 4  # the entries, the erratum and the question
    for page in ("2", "40", "99999999999999999999"):
        html = get(client, q="reaction", page=page)
        assert results_of(html) == results_of(only)  # as Django's Paginator.get_page answers
        assert count_of(html) == "4 results"
    for page in ("0", "-3", "abc", "9" * 5000, ""):
        assert results_of(get(client, q="reaction", page=page)) == results_of(only)


def test_paging_reaches_every_result_counted_when_more_match_than_are_ranked(client):
    make_many_entries(MAX_RESULTS + 50, "quokka")
    html = get(client, q="quokka")
    note = (
        f"More than {MAX_RESULTS} results; showing the best {MAX_RESULTS}. "
        "Narrow your search with the game or language filters."
    )
    assert count_of(html) == note
    seen, pages = [], 1
    while True:
        links = results_of(html)
        assert links, f"page {pages} is empty"
        assert count_of(html) == note
        assert f"Page {pages} of " in html
        seen += links
        path = next_link(html)
        if path is None:
            break
        pages += 1
        assert path.endswith(f"&page={pages}")
        html = client.get(path).content.decode()
    assert len(seen) == len(set(seen)) == MAX_RESULTS  # what the note says, every one reachable
    assert pages == -(-MAX_RESULTS // SEARCH_PAGE_SIZE)
    assert f"Page {pages} of {pages}" in html and 'class="pagination-prev"' in html

    # One past the last, or far past it: the last page again, never an empty one.
    for past in (pages + 1, 10**6):
        again = get(client, q="quokka", page=str(past))
        assert results_of(again) == results_of(html)
        assert f"Page {pages} of {pages}" in again and next_link(again) is None


@pytest.mark.parametrize(("extra", "truncated"), [(0, False), (1, True)])
def test_the_note_says_so_only_when_more_matched(client, monkeypatch, extra, truncated):
    monkeypatch.setattr("rules.search.service.MAX_RESULTS", 30)
    make_many_entries(30 + extra, "quokka")
    html = get(client, q="quokka")
    expected = "More than 30 results; showing the best 30." if truncated else "30 results"
    assert count_of(html).startswith(expected)
    second = client.get(next_link(html)).content.decode()
    assert len(results_of(html) + results_of(second)) == 30 and next_link(second) is None


@pytest.mark.parametrize(
    ("language", "note"),
    [
        ("de", f"Mehr als {MAX_RESULTS} Treffer; angezeigt werden die besten {MAX_RESULTS}. "
               "Grenze deine Suche mit dem Spiel- oder Sprachfilter ein."),
        ("pl", f"Ponad {MAX_RESULTS} wyników; pokazujemy {MAX_RESULTS} najlepszych. "
               "Zawęź wyszukiwanie filtrem gry lub języka."),
        ("nl", f"Meer dan {MAX_RESULTS} resultaten; je ziet de beste {MAX_RESULTS}. "
               "Verfijn je zoekopdracht met het spel- of taalfilter."),
    ],
)  # fmt: skip
def test_the_note_speaks_the_readers_language(client, language, note):
    make_many_entries(MAX_RESULTS + 1, "quokka")
    assert count_of(get(client, f"/{language}/search/", q="quokka")) == note


def test_nothing_matched_says_so(client, world):
    html = get(client, q="xylophone")
    assert results_of(html) == []
    assert "Nothing matched “xylophone”." in html


def test_too_long_query_is_a_form_error_with_status_200(client, world):
    html = get(client, q="reaction " + "a" * MAX_QUERY_LENGTH)
    assert 'class="field-error"' in html
    assert f"use at most {MAX_QUERY_LENGTH} characters" in html
    assert 'aria-invalid="true"' in html
    assert results_of(html) == []
    # exactly the limit is fine
    assert 'class="field-error"' not in get(client, q="r" * MAX_QUERY_LENGTH)


@pytest.mark.parametrize(
    "query",
    [
        "\x00",
        "reac\x00tion",
        "' OR 1=1 --",
        "'; DROP TABLE rules_entry; --",
        'title:"reaction" AND NEAR(a b)',
        "reaction*",
        '"unbalanced',
        "(((",
        "-reaction",
        "%",
        "_",
        "\\",
        "<script>alert(1)</script>",
    ],
)
def test_hostile_queries_give_200(client, world, query):
    html = get(client, q=query)
    assert "<script>alert(1)</script>" not in html


def test_did_you_mean_links_to_the_corrected_query_keeping_filters(client, world, monkeypatch):
    def fake_search(query, **kwargs):
        return SearchResults(query, [], 0, suggestion="reaction")

    monkeypatch.setattr("rules.pages.views.search_service", fake_search)
    html = get(client, q="recation", game="token-game", page="2")
    assert 'Did you mean <a href="?q=reaction&amp;game=token-game">reaction</a>?' in html


def test_the_page_speaks_german_under_de(client, world):
    html = get(client, "/de/search/", q="reaktion")
    assert '<html lang="de">' in html
    assert "<h1>Suche</h1>" in html
    assert "1 Treffer" in html
    assert "Alle Spiele" in html and "Sprache des Inhalts" in html and "Alle Arten" in html
    assert '<option value="token-game">Markerspiel</option>' in html  # the game's German name
    assert "Regel" in html  # the type label
    assert world["reaktion"].url_in("de") in results_of(html)
    too_long = get(client, "/de/search/", q="a" * (MAX_QUERY_LENGTH + 1))
    assert "Deine Suche ist zu lang" in too_long
    assert "Keine Treffer für „xylophon“." in get(client, "/de/search/", q="xylophon")


@pytest.mark.parametrize(("count", "label"), [(1, "1 wynik"), (3, "3 wyniki"), (5, "5 wyników"), (22, "22 wyniki")])
def test_polish_counts_use_the_right_plural(client, count, label):
    game = make_game(slug="plural-game")
    with unit_of_work():  # one pipeline run, as an import
        for n in range(count):
            make_entry(game=game, title=f"Żeton {n}", body="Żeton na karcie.")
    html = get(client, "/pl/search/", q="żeton", game="plural-game")
    assert f'<p class="results-count" role="status">{label}</p>' in html
