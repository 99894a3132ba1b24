"""Questions, as players type them at the table: the question path of the search.

Runs on SQLite and PostgreSQL alike (CI runs the suite on both): the question path
ranks in Python (``rules.search.bm25``), so both databases give the same order.
The semantic part is off here (the test settings' default); ``test_semantic.py`` tests
it and its fusion.
"""

import pytest
from django.test import override_settings
from django.utils import translation

from rules.moderation.translations import link
from rules.search import search
from rules.search.questions import read
from tests.factories import make_entry, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def titles(results, n=3) -> list[str]:
    return [hit.title for hit in results.hits[:n]]


def build_game():
    return make_game(slug="lanterns", name="Lanterns of Wyck")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


@pytest.fixture
@written_together
def glossary(game):
    """An English rules reference whose entries share the everyday words of questions."""
    entries = {
        "Timing Conflicts": (
            "If two or more abilities would resolve at the same moment, the active player "
            "chooses the order in which they resolve. Each ability still resolves fully."
        ),
        "Hand Size": (
            "At the end of your turn, if you hold more than seven cards, discard down to "
            "seven. You choose which cards to discard."
        ),
        "Empty Deck": (
            "When a player must draw a card from an empty deck, they shuffle their discard "
            "pile to form a new deck and lose one renown."
        ),
        "Playing Cards": (
            "On your turn you may play any number of cards from your hand. A card you play "
            "counts toward the turn's card limit from the moment it is revealed."
        ),
        "Turn Structure": (
            "A turn has three phases: draw, act, and rest. The player to the left of the "
            "first player takes the next turn. A player can do one thing in the rest phase."
        ),
        "Reactions": (
            "A reaction is an ability you may trigger after its condition occurs, even "
            "during another player's turn. Each reaction triggers once per condition."
        ),
    }
    return {title: make_entry(game=game, language="en", title=title, body=body) for title, body in entries.items()}


class TestReadingTheQuery:
    @pytest.mark.parametrize(
        "query, language",
        [
            ("who decides the order when two effects happen at once?", "en"),
            ("darf ich eine Reaktion im Zug meines Gegners spielen", "de"),
            ("czy mogę zagrać kartę w turze przeciwnika", "pl"),
            ("¿cuándo se roba una carta?", "es"),
            ("que se passe-t-il quand ma pioche est vide", "fr"),
            ("wat gebeurt er als mijn trekstapel leeg is", "nl"),
            ("posso giocare una carta durante il turno avversario", "it"),
        ],
    )
    def test_questions_are_questions_in_their_language(self, query, language):
        reading = read(query, reader="en")
        assert reading.is_question
        assert reading.language == language

    @pytest.mark.parametrize("query", ["Besitz und Kontrolle", "put into play", "hiden cost", "Reaktion", "fatalite"])
    def test_terms_stay_terms(self, query):
        assert not read(query, reader="en").is_question

    def test_question_words_and_function_words_are_dropped(self):
        assert read("what happens when my deck is empty?", reader="en").words == ["deck", "empty"]

    def test_rules_words_that_look_like_function_words_are_kept(self):
        words = read("who goes first after the last round?", reader="en").words
        assert "first" in words and "last" in words and "round" in words


class TestQuestionsFindTheirAnswer:
    @pytest.mark.parametrize(
        "question, answer",
        [
            ("who decides the order when two abilities resolve at the same time?", "Timing Conflicts"),
            ("what happens when my deck is empty and I have to draw?", "Empty Deck"),
            ("how many cards can I keep in my hand at the end of my turn", "Hand Size"),
            ("can I trigger a reaction during another player's turn?", "Reactions"),
        ],
    )
    def test_the_answer_comes_first(self, glossary, question, answer):
        results = search(question, game="lanterns", reader_language="en")
        assert results.kind == "question"
        assert titles(results, 1) == [answer], titles(results, 5)

    def test_the_snippet_highlights_the_questions_words(self, glossary):
        hit = search("what happens when my deck is empty?", game="lanterns", reader_language="en").hits[0]
        assert "<mark>empty</mark>" in hit.snippet and "<mark>deck</mark>" in hit.snippet
        assert "<mark>when</mark>" not in hit.snippet.lower()  # a question word is not what it is about

    def test_a_faq_question_asked_as_written_comes_first(self, game, glossary):
        make_question(
            game=game,
            language="en",
            question="Does a card I just played count for this turn's limit?",
            answer="Yes. It counts from the moment it is revealed.",
        )
        results = search("does a card I just played count for this turn's limit", game="lanterns", reader_language="en")
        assert results.hits[0].type == "question"

    def test_the_same_ranking_with_and_without_a_language_filter(self, glossary):
        question = "what happens when my deck is empty and I have to draw?"
        assert titles(search(question, game="lanterns", language="en")) == titles(
            search(question, game="lanterns", reader_language="en")
        )


class TestLanguages:
    def test_a_common_english_word_in_another_language_does_not_win(self, game, glossary):
        # A Polish entry quoting English card text: "the", "at", "of" are in it.
        make_entry(
            game=game,
            language="pl",
            title="Tekst kart",
            body='Karta z tekstem "the end of the turn" działa na koniec tury. Zob. "at the same time".',
        )
        results = search("what happens at the end of the turn?", game="lanterns", reader_language="en")
        assert results.hits[0].language == "en"

    def test_the_readers_language_comes_first_among_equals(self, game):
        make_entry(game=game, language="en", title="Mulligan", body="Redraw your opening hand once.")
        make_entry(game=game, language="pl", title="Mulligan", body="Raz możesz dobrać rękę od nowa.")
        assert search("mulligan", game="lanterns", reader_language="pl").hits[0].language == "pl"
        assert search("mulligan", game="lanterns", reader_language="en").hits[0].language == "en"

    def test_the_page_prefers_the_ui_language(self, game):
        make_entry(game=game, language="en", title="Mulligan", body="Redraw your opening hand once.")
        make_entry(game=game, language="de", title="Mulligan", body="Einmal darfst du neu ziehen.")
        with translation.override("de"):
            assert search("mulligan", game="lanterns").hits[0].language == "de"

    def test_a_translation_in_the_readers_language_comes_first(self, game):
        german = make_entry(
            game=game, language="de", title="Ablagestapel", body="Abgeworfene Karten kommen offen auf den Ablagestapel."
        )
        english = make_entry(game=game, language="en", title="Discard Pile", body="Discarded cards go face up here.")
        link(german, english, None)
        results = search("Ablagestapel", game="lanterns", reader_language="en")
        assert [(hit.title, hit.language) for hit in results.hits[:2]] == [
            ("Discard Pile", "en"),
            ("Ablagestapel", "de"),
        ]


class TestCompounds:
    @pytest.fixture
    def german(self, game):
        make_entry(
            game=game,
            language="de",
            title="Spielzone des Spielers",
            body="Verbündete und Upgrades liegen vor dir. Karten im Spiel bleiben hier, bis sie abgelegt werden.",
        )
        make_entry(game=game, language="de", title="Zug", body="In deinem Zug spielst du Karten aus deiner Hand.")
        make_entry(
            game=game, language="nl", title="Trekstapel", body="Je trekt kaarten van de bovenkant van je stapel."
        )

    def test_a_german_compounds_last_part_finds_it(self, german):
        assert titles(search("Zone", game="lanterns", language="de"), 1) == ["Spielzone des Spielers"]

    def test_a_german_question_about_the_part(self, german):
        results = search("was liegt in meiner Zone?", game="lanterns", reader_language="de")
        assert titles(results, 1) == ["Spielzone des Spielers"]

    def test_a_dutch_compounds_last_part_finds_it(self, german):
        assert titles(search("stapel", game="lanterns", language="nl"), 1) == ["Trekstapel"]


class TestCorrections:
    def test_a_corrected_query_says_so_and_highlights(self, game, glossary):
        results = search("reacton", game="lanterns", language="en")
        assert results.corrected and results.suggestion in ("reaction", "reactions")
        assert "<mark>" in results.hits[0].snippet

    def test_an_accent_left_out_finds_the_title(self, game):
        make_entry(
            game=game, language="fr", title="Fatalité", body="Quand la Fatalité frappe, chaque joueur perd une vie."
        )
        make_entry(game=game, language="fr", title="Défausse", body="Les cartes jouées vont dans la défausse.")
        assert titles(search("fatalite", game="lanterns"), 1) == ["Fatalité"]
        assert titles(search("fatalite", game="lanterns", language="fr"), 1) == ["Fatalité"]
        assert titles(search("fatalite"), 1) == ["Fatalité"]
        assert titles(search("defausse", reader_language="en"), 1) == ["Défausse"]

    def test_a_misspelt_word_in_a_question_is_corrected(self, glossary):
        results = search("can I trigger a reacton on another player's turn?", game="lanterns", reader_language="en")
        assert titles(results, 1) == ["Reactions"]
        # the question as typed, only the misspelt word replaced: not its content words alone
        assert results.suggestion in (
            "can I trigger a reaction on another player's turn?", "can I trigger a reactions on another player's turn?"
        )

    def test_a_common_word_the_index_lacks_is_no_misspelling(self, client, game, glossary):
        """ "gave" is one letter from "game", which the index holds: it was "corrected",
        and the page said "Showing results for controls card game opponent"."""
        make_entry(game=game, language="en", title="Game End", body="The game ends when the deck is empty.")
        question = "who controls a card I gave to my opponent?"
        results = search(question, game="lanterns", reader_language="en")
        assert results.kind == "question" and not results.corrected and results.suggestion is None
        page = client.get("/en/search/", {"q": question, "game": "lanterns"}).content.decode()
        assert "Showing results for" not in page and "Did you mean" not in page


class TestPages:
    def test_the_page_shows_what_it_searched_for_instead(self, client, game, glossary):
        page = client.get("/en/search/", {"q": "reacton", "game": "lanterns"}).content.decode()
        assert "Showing results for" in page and "reaction" in page
        assert "Search instead for" in page and "reacton" in page

    def test_the_api_says_the_query_was_corrected(self, client, glossary):
        body = client.get("/api/v1/search/", {"q": "reacton", "game": "lanterns"}).json()
        assert body["suggestion"] in ("reaction", "reactions") and body["corrected"] is True
        assert body["results"][0]["title"] == "Reactions"

    def test_the_api_says_how_it_read_the_query(self, client, glossary):
        body = client.get("/api/v1/search/", {"q": "what happens when my deck is empty?", "game": "lanterns"}).json()
        assert body["read_as"] == "question"
        assert body["results"][0]["title"] == "Empty Deck"


@override_settings(RULESITE_SEMANTIC="off")
def test_questions_work_with_the_semantic_part_off(glossary):
    assert titles(search("what happens when my deck is empty?", game="lanterns", reader_language="en"), 1) == [
        "Empty Deck"
    ]
