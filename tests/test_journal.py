"""Every write path records what it changed in the journal, in its transaction, and runs
the derived-data pipeline exactly once per unit of work (rules/journal.py, rules/pipeline.py)."""

import io
import json
from contextlib import contextmanager

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from faq.models import Question
from rules.content.journal import Change, unit_of_work
from rules.content.models import CrossReference, Entry
from rules.content.querysets import Status
from rules.derived import pipeline
from rules.importing import ImportOptions, import_document
from rules.importing.canonical.export import export_game
from rules.importing.pipeline import SourceInfo
from tests.admin.forms import form_pairs
from tests.builds import run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


@contextmanager
def journal_and_runs():
    """The Change rows written inside the block (as (kind, object id, action) and in full),
    and how many times the pipeline ran."""
    runs: list = []
    first = (Change.objects.order_by("-id").values_list("id", flat=True).first() or 0) + 1

    def heard(sender, scope, **kwargs):
        runs.append(scope)

    pipeline.finished.connect(heard, dispatch_uid="test-journal")
    seen = {"rows": [], "runs": runs}
    try:
        yield seen
    finally:
        pipeline.finished.disconnect(dispatch_uid="test-journal")
        seen["rows"] = list(Change.objects.filter(id__gte=first).order_by("id"))


def actions(rows) -> list[tuple]:
    return [(row.kind, row.object_id, row.action) for row in rows]


def build_game():
    return make_game(slug="mond", name="Mond")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


@pytest.fixture
def entries(game):
    return [make_entry(game=game, title=title, body=f"{title}: siehe [[Zug]].") for title in ("Zug", "Karte", "Held")]


# --- the models, outside any other unit ---------------------------------------------------


def test_a_save_is_a_unit_of_its_own(game):
    with journal_and_runs() as seen:
        entry = Entry.objects.create(game=game, language="de", title="Zug", body="Text.", status=Status.PUBLISHED)
    assert actions(seen["rows"]) == [("entry", entry.pk, "created")]
    assert seen["rows"][0].game_id == game.pk and seen["rows"][0].language == "de"
    assert len(seen["runs"]) == 1
    assert entry.body_html == "<p>Text.</p>", "the derived fields are written back to the instance"


def test_a_rename_records_the_old_slug_and_keeps_its_address(entries):
    entry = entries[0]
    with journal_and_runs() as seen:
        entry.title = "Spielzug"
        entry.save()
    row = next(row for row in seen["rows"] if row.action == "renamed")
    assert (row.old_slug, row.new_slug) == ("zug", "spielzug")
    assert "updated" in {row.action for row in seen["rows"]}  # the title and its alias
    assert len(seen["runs"]) == 1
    # What the pipeline derived: the others' links now go to the new address.
    assert "/rules/spielzug/" in Entry.objects.get(pk=entries[1].pk).body_html


def test_publishing_and_unpublishing_are_recorded_as_such(entries):
    entry = entries[2]
    with journal_and_runs() as seen:
        entry.status = Status.DRAFT
        entry.save()
        entry.status = Status.PUBLISHED
        entry.save()
    assert actions(seen["rows"]) == [("entry", entry.pk, "unpublished"), ("entry", entry.pk, "published")]
    assert len(seen["runs"]) == 2


def test_a_deletion(entries):
    entry = entries[0]
    pk = entry.pk
    with journal_and_runs() as seen:
        entry.delete()
    assert actions(seen["rows"]) == [("entry", pk, "deleted")]
    assert len(seen["runs"]) == 1
    assert CrossReference.objects.get(entry=entries[1], label="Zug").target is None


def test_writes_in_one_unit_run_the_pipeline_once(game, entries):
    with journal_and_runs() as seen, unit_of_work():
        for entry in entries:
            entry.body += " Mehr."
            entry.save()
        make_erratum(game=game, title="Fix", affects=[entries[0]])
    assert len(seen["runs"]) == 1
    assert [row.kind for row in seen["rows"]].count("entry") == 3


def test_an_erratum_and_its_links(game, entries):
    with journal_and_runs() as seen:
        erratum = make_erratum(game=game, title="Fix", affects=[entries[0], entries[1]])
    assert actions(seen["rows"]) == [("erratum", erratum.pk, "created"), ("erratum", erratum.pk, "updated")]
    with journal_and_runs() as seen:
        erratum.affects.remove(entries[0])
    assert actions(seen["rows"]) == [("erratum", erratum.pk, "updated")]
    assert len(seen["runs"]) == 1
    assert Entry.objects.get(pk=entries[0].pk).relations["errata"] == []


def test_faq_save_and_delete(game, entries):
    with journal_and_runs() as seen:
        question = make_question(game=game, question="Wann?", answer="Jetzt.", related_entries=[entries[0]])
    assert [row.action for row in seen["rows"]] == ["created", "updated"]
    assert {row.kind for row in seen["rows"]} == {"question"}
    pk = question.pk
    with journal_and_runs() as seen:
        Question.objects.get(pk=pk).delete()
    assert actions(seen["rows"]) == [("question", pk, "deleted")]
    assert len(seen["runs"]) == 1


def test_a_game_rename_renders_its_links_again(game, entries):
    with journal_and_runs() as seen:
        game.slug = "mond-neu"
        game.save()
    assert actions(seen["rows"]) == [("game", game.pk, "renamed")]
    assert (seen["rows"][0].old_slug, seen["rows"][0].new_slug) == ("mond", "mond-neu")
    assert "/games/mond-neu/rules/zug/" in Entry.objects.get(pk=entries[1].pk).body_html


# --- the admin: each POST one unit --------------------------------------------------------


def admin_save(client, obj, **changes):
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    page = client.get(url)
    data = dict(form_pairs(page, f"{opts.model_name}_form"))
    data.update(changes)
    data["_save"] = "Save"
    return client.post(url, data)


def test_admin_save(admin_client, entries):
    with journal_and_runs() as seen:
        response = admin_save(admin_client, entries[1], body="Neuer Text mit [[Held]].")
    assert response.status_code == 302
    assert actions(seen["rows"]) == [("entry", entries[1].pk, "updated")]
    assert len(seen["runs"]) == 1


def test_admin_delete(admin_client, entries):
    entry = entries[2]
    url = reverse("admin:rules_entry_delete", args=[entry.pk])
    with journal_and_runs() as seen:
        admin_client.post(url, {"post": "yes"})
    assert actions(seen["rows"]) == [("entry", entry.pk, "deleted")]
    assert len(seen["runs"]) == 1


def test_admin_bulk_publish_and_unpublish(admin_client, game, entries):
    drafts = [make_entry(game=game, title=f"Entwurf {n}", status=Status.DRAFT) for n in range(3)]
    url = reverse("admin:rules_entry_changelist")
    with journal_and_runs() as seen:
        admin_client.post(url, {"action": "publish", "_selected_action": [d.pk for d in drafts]})
    assert sorted(actions(seen["rows"])) == sorted(("entry", d.pk, "published") for d in drafts)
    assert len(seen["runs"]) == 1
    with journal_and_runs() as seen:
        admin_client.post(url, {"action": "return_to_draft", "_selected_action": [entries[0].pk, entries[1].pk]})
    assert {row.action for row in seen["rows"]} == {"unpublished"}
    assert len(seen["rows"]) == 2 and len(seen["runs"]) == 1


def test_admin_revert(admin_client, entries):
    entry = entries[1]
    first = entry.history.order_by("history_id").first()
    entry.body = "Zwischenstand."
    entry.save()
    url = f"/admin/rules/entry/{entry.pk}/history/{first.history_id}/revert/"
    confirm = admin_client.get(url)
    with journal_and_runs() as seen:
        admin_client.post(url, dict(form_pairs(confirm)))
    assert actions(seen["rows"]) == [("entry", entry.pk, "updated")]
    assert len(seen["runs"]) == 1


def test_admin_translation_link(admin_client, game, entries):
    german = make_entry(game=game, language="de", title="Spielzug")
    url = reverse("admin:rules_entry_translation_link", args=[entries[0].pk])
    with journal_and_runs() as seen:
        admin_client.post(url, {"other": german.pk})
    assert actions(seen["rows"]) == [("entry", german.pk, "updated")]  # its translation key and original
    assert len(seen["runs"]) == 1
    assert Entry.objects.get(pk=entries[0].pk).relations["translations"][0]["slug"] == "spielzug"


# --- the importers: one unit per document --------------------------------------------------

GLOSSARY = "Zug\nEin Zug besteht aus drei Schritten.\nSiehe auch: Karte\n\nKarte\nEine Karte.\nSiehe auch: Zug\n"


def test_text_import(game):
    options = ImportOptions(game="mond", language="de", kind="glossary", source=SourceInfo(title="Glossar"))
    with journal_and_runs() as seen:
        import_document(GLOSSARY.encode(), options)
    created = [row for row in seen["rows"] if row.kind == "entry"]
    assert [row.action for row in created] == ["created", "created"]
    assert {row.kind for row in seen["rows"]} <= {"entry", "source"}
    assert len(seen["runs"]) == 1
    zug = Entry.objects.get(game=game, slug="zug")
    assert zug.relations["references"][0]["target"]["slug"] == "karte"

    with journal_and_runs() as seen:
        import_document(GLOSSARY.encode(), options)  # the same again: nothing changed
    assert seen["rows"] == [] and seen["runs"] == []


def test_canonical_import(game, entries):
    export = export_game(game)
    payload = json.loads(export)
    payload["entries"][0]["body"] = "Geändert."
    with journal_and_runs() as seen:
        import_document(json.dumps(payload).encode(), ImportOptions(game="mond", language=""))
    assert [row.action for row in seen["rows"]] == ["updated"]
    assert len(seen["runs"]) == 1


def test_admin_import(admin_client, game):
    upload = SimpleUploadedFile("g.txt", GLOSSARY.encode())
    data = {"language": "de", "kind": "glossary", "game": game.pk, "file": upload}
    page = admin_client.post("/admin/rules/entry/import/", data, follow=True)
    job_url = page.redirect_chain[-1][0]
    admin_client.post(job_url, {"confirm": "1"})
    with journal_and_runs() as seen:
        run_background_tasks()
    assert [row.action for row in seen["rows"] if row.kind == "entry"] == ["created", "created"]
    assert len(seen["runs"]) == 1


def test_the_journal_rolls_back_with_its_write(game):
    before = Change.objects.count()
    with pytest.raises(RuntimeError), unit_of_work():
        make_entry(game=game, title="Nie")
        raise RuntimeError
    assert Change.objects.count() == before
    assert not Entry.objects.filter(title="Nie").exists()


def test_prune_changes_keeps_recent_rows(game, entries):
    Change.objects.filter(pk=Change.objects.order_by("id").first().pk).update(at="2000-01-01T00:00:00Z")
    out = io.StringIO()
    from django.core.management import call_command

    call_command("prune_changes", stdout=out)
    assert "1 change" in out.getvalue()
    assert Change.objects.count() == len(entries)
