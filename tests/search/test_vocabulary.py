"""The typo vocabulary (``SearchWord``): persisted and kept at index time, so a process
that has never seen the index corrects a misspelt word without reading the documents.

Every test that changes the index ends by comparing the table with what the documents
hold (``assert_consistent``): the counts must follow saves, edits, unpublishing,
deletes, a game's deletion, imports and a rebuild exactly.
"""

import importlib

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.models import Game
from rules.content.querysets import Status
from rules.search import fuzzy, search
from rules.search.models import SearchDocument, SearchWord
from tests.factories import make_entry, make_erratum, make_game, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def build_game():
    return make_game(slug="heroes", name="Heroes")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


@pytest.fixture(autouse=True)
def _fresh_process():
    """Each test starts like a new process: no vocabulary in memory."""
    fuzzy.forget()
    yield
    fuzzy.forget()


def table() -> dict[tuple[str, str, str], int]:
    return {(w.language, w.field, w.folded): w.document_count for w in SearchWord.objects.all()}


def assert_consistent() -> None:
    expected = fuzzy.counted(SearchDocument.objects.values_list("language", "names", "body_text"))
    assert table() == expected


def words_of(field: str, language: str = "en") -> set[str]:
    return set(SearchWord.objects.filter(field=field, language=language).values_list("folded", flat=True))


class TestFreshProcess:
    def test_a_misspelt_title_word_is_corrected_from_the_table_alone(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        fuzzy.forget()
        with CaptureQueriesContext(connection) as queries:
            assert fuzzy.correct("recations", "en") == "reactions"
        read = " ".join(q["sql"] for q in queries.captured_queries)
        assert "rules_searchword" in read
        # Reading every document to build a vocabulary made the first misspelt query slow.
        assert "rules_searchdocument" not in read
        assert len(queries.captured_queries) <= 2  # the content version, the words

    def test_a_first_misspelt_search_finds_and_suggests(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        fuzzy.forget()
        found = search("recations")
        assert found.suggestion == "reactions"
        assert [hit.title for hit in found.hits] == ["Reactions"]

    def test_the_table_is_the_source(self, game):
        """A word only the table knows is a correction target; the documents are not read."""
        SearchWord.objects.create(
            language="en", field="names", folded="reactions", word="reactions", document_count=1
        )
        assert fuzzy.correct("recations", "en") == "reactions"
        assert fuzzy.correct("recations", None) == "reactions"
        assert fuzzy.correct("recations", "de") is None

    def test_title_words_before_body_words_with_their_cutoffs(self, game):
        make_entry(game=game, title="Ambush", body="Turn the card sideways when you activate it.")
        assert fuzzy.correct("ambhus", "en") == "ambush"  # a title word: ratio 83 ≥ 75
        assert fuzzy.correct("sidewasy", "en") == "sideways"  # a body word: ratio 88 ≥ 85
        assert fuzzy.correct("sidwaes", "en") is None  # a body word: ratio 80 < 85
        make_entry(game=game, title="Sideways", body="Exhausted.")
        assert fuzzy.correct("sidwaes", "en") == "sideways"  # now a title word too
        assert_consistent()

    def test_written_form_with_diacritics_is_the_suggestion(self, game):
        make_entry(game=game, language="pl", title="Zdolności", body="Zdolności aktywowane kosztują zasoby.")
        assert fuzzy.correct("zdolnosic", "pl") == "zdolności"
        assert ("pl", "names", "zdolnosci") in table()
        assert_consistent()


class TestKeptAtIndexTime:
    def test_a_saved_entry_is_a_correction_target_at_once(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        assert search("ambhus").suggestion is None  # this process now holds a vocabulary
        make_entry(game=game, title="Ambush", body="An ambush card enters play face down.")
        assert search("ambhus").suggestion == "ambush"
        assert_consistent()

    def test_an_import_is_a_correction_target_at_once(self, game):
        from rules.importing import ImportOptions, import_document

        make_entry(game=game, title="Reactions", body="A triggered ability.")
        assert search("scvenger").suggestion is None
        import_document(
            "Scavenger\nA scavenger returns a discarded attachment.\n\nSurge\nReveal one more card.\n",
            ImportOptions(game="heroes", language="en", kind="glossary"),
        )
        assert search("scvenger").suggestion == "scavenger"
        assert {"scavenger", "surge"} <= words_of("names")
        assert {"returns", "discarded", "attachment", "reveal"} <= words_of("body")
        assert_consistent()

    def test_errata_and_questions_count_too(self, game):
        make_erratum(game=game, title="Hidden cost", corrected_text="Hidden cost is not an activation cost.")
        make_question(game=game, question="Can I mulligan twice?", answer="No, never.")
        assert {"hidden", "cost", "mulligan", "twice"} <= words_of("names")
        assert fuzzy.correct("mulligna", "en") == "mulligan"
        assert_consistent()

    def test_a_word_counts_its_documents(self, game):
        first = make_entry(game=game, title="Shield", body="Blocks damage.")
        make_entry(game=game, title="Shield wall", body="Blocks more damage.")
        assert table()[("en", "names", "shield")] == 2
        assert table()[("en", "body", "blocks")] == 2
        first.delete()
        assert table()[("en", "names", "shield")] == 1
        assert_consistent()

    def test_an_edit_moves_the_words(self, game):
        entry = make_entry(game=game, title="Reactions", aliases=["Responses"], body="A triggered ability.")
        assert search("respnoses").suggestion == "responses"
        assert fuzzy.correct("trigered", "en") == "triggered"
        entry.aliases = []
        entry.body = "They interrupt an effect."
        entry.save()
        assert "responses" not in words_of("names") and "triggered" not in words_of("body")
        assert search("respnoses").suggestion is None
        assert fuzzy.correct("trigered", "en") is None
        assert fuzzy.correct("interupt", "en") == "interrupt"
        assert_consistent()

    def test_an_edit_that_keeps_the_words_writes_none(self, game):
        entry = make_entry(game=game, title="Reactions", body="A triggered ability.")
        before = list(SearchWord.objects.order_by("id").values_list("id", "document_count"))
        entry.number = "4.2"  # the document changes, its words do not
        entry.save()
        assert list(SearchWord.objects.order_by("id").values_list("id", "document_count")) == before


class TestDeletes:
    def test_a_deleted_entrys_words_are_no_longer_suggested(self, game):
        entry = make_entry(game=game, title="Reactions", body="A triggered ability.")
        make_entry(game=game, title="Shield", body="Blocks damage.")
        assert search("recations").suggestion == "reactions"
        entry.delete()
        assert search("recations").suggestion is None
        assert fuzzy.correct("trigered", "en") is None
        assert "reactions" not in words_of("names")
        assert_consistent()

    def test_an_unpublished_entrys_words_are_no_longer_suggested(self, game):
        entry = make_entry(game=game, title="Reactions", body="A triggered ability.")
        assert search("recations").suggestion == "reactions"
        entry.status = Status.DRAFT
        entry.save()
        assert search("recations").suggestion is None
        assert table() == {}

    def test_a_deleted_games_words_go_with_its_documents(self, game):
        """The documents go by cascade in the database, not through the index code."""
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        make_erratum(game=game, title="Hidden cost", corrected_text="Hidden cost.")
        make_question(game=game, question="Can I mulligan twice?", answer="No, never.")
        other = make_game(slug="other")
        make_entry(game=other, title="Shield", body="Blocks damage.")
        assert search("recations").suggestion == "reactions"
        Game.objects.filter(pk=game.pk).delete()
        assert SearchDocument.objects.count() == 1
        assert search("recations").suggestion is None
        assert words_of("names") == {"shield"}
        assert_consistent()

    def test_a_game_deleted_and_imported_again_counts_once(self, game):
        from rules.importing import ImportOptions, import_document
        from rules.importing.canonical import export_game

        make_entry(game=game, title="Ambush", body="An ambush card enters play face down.")
        exported = export_game(game)
        Game.objects.all().delete()
        assert table() == {}
        import_document(exported, ImportOptions(game="heroes", language=""))
        assert table()[("en", "names", "ambush")] == 1
        assert_consistent()


class TestRebuild:
    def test_a_rebuild_keeps_the_table_consistent(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        make_entry(game=game, language="de", title="Karte", body="Eine Karte liegt offen aus.")
        make_question(game=game, question="Can I mulligan twice?", answer="No.")
        expected = table()
        call_command("rebuild_search_index", stdout=None)
        assert table() == expected
        assert_consistent()

    def test_a_rebuild_repairs_the_table(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        SearchWord.objects.filter(folded="reactions").delete()
        SearchWord.objects.create(
            language="en", field="names", folded="stale", word="stale", document_count=3
        )
        SearchWord.objects.filter(folded="triggered").update(document_count=7)
        call_command("rebuild_search_index", stdout=None)
        assert_consistent()
        assert fuzzy.correct("recations", "en") == "reactions"
        assert fuzzy.correct("stael", "en") is None

    def test_the_migration_fills_the_table_from_existing_documents(self, game):
        from types import SimpleNamespace

        from django.apps import apps

        make_entry(game=game, title="Reactions", body="A triggered ability.")
        make_entry(game=game, language="pl", title="Zdolności", body="Zdolności aktywowane kosztują zasoby.")
        expected = table()
        SearchWord.objects.all().delete()
        migration = importlib.import_module("rules.migrations.0006_search_words")
        migration.fill(apps, SimpleNamespace(connection=connection))
        assert table() == expected
        assert_consistent()
