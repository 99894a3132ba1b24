"""The search engine: what a player typing two words mid-game gets back.

Runs on SQLite (FTS5) and PostgreSQL (tsvector) alike: CI runs the suite on both.
"""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from rules.content.models import Entry
from rules.content.querysets import Status
from rules.search import MAX_RESULTS, QueryTooLong, search, suggest
from rules.search.models import SearchDocument
from tests.factories import make_entry, make_erratum, make_game, make_many_entries, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def titles(results) -> list[str]:
    return [hit.title for hit in results.hits]


def build_game():
    return make_game(slug="heroes", name="Heroes")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


class TestLanguages:
    def test_german_inflections_meet(self, game):
        make_entry(game=game, language="de", title="Karte", body="Eine Karte liegt offen aus.")
        assert titles(search("Karten", language="de")) == ["Karte"]

    def test_polish_cases_meet(self, game):
        make_entry(game=game, language="pl", title="Budowanie", body="Jednostki stoją w strefie budowy do końca tury.")
        assert titles(search("strefa budowy", language="pl")) == ["Budowanie"]

    def test_diacritics_are_folded_both_ways(self, game):
        make_entry(game=game, language="pl", title="Zdolności", body="Zdolności aktywowane kosztują zasoby.")
        make_entry(game=game, language="de", title="Identität", body="Deine Identität ist dein Held.")
        assert titles(search("zdolnosci", language="pl")) == ["Zdolności"]
        assert titles(search("identitat", language="de")) == ["Identität"]
        assert titles(search("IDENTITÄT")) == ["Identität"]

    def test_dutch_plural(self, game):
        make_entry(game=game, language="nl", title="Kristal", body="Een kristal telt als een punt.")
        assert titles(search("kristallen", language="nl")) == ["Kristal"]

    def test_without_a_language_every_stemmer_is_tried(self, game):
        make_entry(game=game, language="de", title="Karte", body="Eine Karte.")
        make_entry(game=game, language="en", title="Reactions", body="A reaction is a triggered ability.")
        assert titles(search("Karten")) == ["Karte"]
        assert titles(search("reaction")) == ["Reactions"]


class TestRanking:
    def test_an_exact_title_comes_before_body_mentions(self, game):
        for n in range(3):
            make_entry(game=game, title=f"Rule {n}", body="Attack attack attack: an attack is declared.")
        make_entry(game=game, title="Attack", body="Declare it.")
        assert titles(search("attack"))[0] == "Attack"

    def test_an_alias_counts_like_a_title(self, game):
        make_entry(
            game=game, language="de", title="Du, Dein", aliases=["Du", "Dein"], body="Bezieht sich auf die Identität."
        )
        make_entry(game=game, language="de", title="Spieler", body="Dein Zug beginnt. Dein Held.")
        assert titles(search("dein", language="de"))[0] == "Du, Dein"

    def test_title_words_outrank_body_words(self, game):
        make_entry(game=game, title="Reaction Window", body="Opens after a trigger.")
        make_entry(game=game, title="Triggers", body="A reaction window opens. Reaction window rules apply.")
        assert titles(search("reaction window"))[0] == "Reaction Window"

    def test_a_recent_correction_is_not_buried(self, game):
        old = make_entry(game=game, title="Mulligan rules", body="Draw a new hand.")
        Entry.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=900))
        call_command("rebuild_search_index", stdout=None)
        make_erratum(game=game, title="Mulligan rules", corrected_text="Draw a new hand of six.")
        found = search("mulligan rules")
        assert [hit.type for hit in found.hits] == ["erratum", "entry"]


class TestPaging:
    """What the page and the API page through: every result counted (service, 5.)."""

    def test_more_matches_than_are_ranked_give_the_best_and_say_so(self, game):
        made = make_many_entries(MAX_RESULTS + 10, "quokka", game=game)
        results = search("quokka", limit=5)
        assert results.total == MAX_RESULTS and results.truncated
        every = results.pageable()[0 : len(results.pageable())]
        assert [hit.id for hit in every[:5]] == [hit.id for hit in results.hits]
        # Equal relevance goes by id: the same best ones, in the same order, every time.
        assert {hit.id for hit in every} == {entry.pk for entry in made[:MAX_RESULTS]}
        again = search("quokka", limit=0).pageable()
        assert [hit.id for hit in again[MAX_RESULTS - 20 : MAX_RESULTS]] == [hit.id for hit in every[-20:]]
        assert again[0].id == every[0].id

    def test_fewer_matches_are_all_counted(self, game):
        make_many_entries(12, "quokka", game=game)
        results = search("quokka", limit=5)
        assert (results.total, results.truncated, len(results.hits)) == (12, False, 5)
        assert len(results.pageable()[10:20]) == 2
        assert search("quokka", language="de").total == 0


class TestTypes:
    def test_errata_and_questions_are_found_with_their_pages(self, game):
        make_erratum(game=game, title="Hidden cost", corrected_text="Hidden cost is not an activation cost.")
        make_question(game=game, question="Can I pay a hidden cost twice?", answer="No.")
        found = search("hidden cost")
        assert {hit.type for hit in found.hits} == {"erratum", "question"}
        urls = {hit.type: hit.url for hit in found.hits}
        assert urls["erratum"].endswith("/games/heroes/errata/#hidden-cost")
        assert "/games/heroes/faq/#" in urls["question"]
        assert titles(search("hidden cost", type="question")) == ["Can I pay a hidden cost twice?"]

    def test_filters(self, game):
        other = make_game(slug="other")
        make_entry(game=game, title="Shield", body="Blocks damage.")
        make_entry(game=other, title="Shield wall", body="Blocks damage.")
        make_entry(game=game, language="de", title="Schild", body="Blockiert Schaden.")
        assert titles(search("shield", game="heroes")) == ["Shield"]
        assert titles(search("shield", game="no-such-game")) == []
        assert titles(search("damage", language="de")) == []
        assert titles(search("blockiert", language="de")) == ["Schild"]


class TestTypos:
    def test_a_misspelt_title_word_is_found_and_suggested(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        found = search("recations")
        assert titles(found) == ["Reactions"]
        assert found.suggestion == "reactions"

    def test_nothing_close_gives_nothing_and_no_suggestion(self, game):
        make_entry(game=game, title="Reactions", body="A triggered ability.")
        found = search("xylophone")
        assert found.hits == [] and found.suggestion is None


class TestIndexStaysCurrent:
    def test_drafts_are_not_found_until_published(self, game):
        entry = make_entry(game=game, title="Secret rule", body="Hidden.", status=Status.DRAFT)
        assert titles(search("secret")) == []
        entry.status = Status.PUBLISHED
        entry.save()
        assert titles(search("secret")) == ["Secret rule"]

    def test_edits_and_deletes_are_followed(self, game):
        entry = make_entry(game=game, title="Exhaust", body="Turn the card sideways.")
        entry.body = "Rotate the card."
        entry.save()
        assert titles(search("sideways")) == []
        assert titles(search("rotate")) == ["Exhaust"]
        entry.delete()
        assert titles(search("rotate")) == []

    def test_an_import_is_searchable_at_once(self, game):
        from rules.importing import ImportOptions, import_document

        import_document(
            "Ambush\nAn ambush card enters play face down.\n",
            ImportOptions(game="heroes", language="en", kind="glossary"),
        )
        assert titles(search("ambush")) == ["Ambush"]

    def test_a_json_export_imported_is_searchable_at_once(self, game):
        from rules.content.models import Game
        from rules.importing import ImportOptions, import_document
        from rules.importing.canonical import export_game

        make_entry(game=game, title="Ambush", body="An ambush card enters play face down.")
        exported = export_game(game)
        Game.objects.all().delete()
        assert titles(search("ambush")) == []
        import_document(exported, ImportOptions(game="heroes", language=""))
        assert titles(search("ambush")) == ["Ambush"]

    def test_rebuild_recreates_the_index(self, game):
        make_entry(game=game, title="Exhaust", body="Turn the card sideways.")
        SearchDocument.objects.all().delete()
        assert titles(search("exhaust")) == []
        call_command("rebuild_search_index", stdout=None)
        assert titles(search("exhaust")) == ["Exhaust"]


class TestAbsurdQueries:
    @pytest.mark.parametrize(
        "query",
        [
            "", "   ", "?!.,;:", '" OR 1=1 --', "'; DROP TABLE rules_entry; --", "NEAR(a b)", "a AND OR NOT", "*",
            "title:x", "\x00", "{title_terms}: x", "x:*A & !",
        ],  # fmt: skip
    )
    def test_never_an_error(self, game, query):
        make_entry(game=game, title="Attack", body="Declare it.")
        search(query)
        suggest(query)

    def test_too_long_is_refused_plainly(self):
        with pytest.raises(QueryTooLong):
            search("a" * 10_000)


class TestSuggestions:
    def test_titles_and_aliases_as_you_type(self, game):
        make_entry(game=game, title="Reactions", body="…")
        make_entry(game=game, language="de", title="Du, Dein", aliases=["Du", "Dein"], body="…")
        make_entry(game=game, title="Secret", body="…", status=Status.DRAFT)
        assert [s.title for s in suggest("reac")] == ["Reactions"]
        assert [s.title for s in suggest("dei", language="de")] == ["Du, Dein"]
        assert suggest("secr") == []

    def test_the_unfinished_last_word_is_a_prefix(self, game):
        make_entry(game=game, language="de", title="Besitz und Kontrolle", body="…")
        assert [s.title for s in suggest("Besitz und K", language="de")] == ["Besitz und Kontrolle"]
