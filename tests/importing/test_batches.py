"""A large import commits in batches and a dry run writes nothing (rules/importing/rows.py,
"Transactions"): what is stored afterwards is exactly what one transaction stores."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.models import CrossReference, Entry
from rules.importing import ImportOptions, import_document
from rules.importing import rows as rows_module
from rules.importing.canonical.export import export_game
from rules.importing.pipeline import SourceInfo
from rules.search.models import SearchDocument
from tests.factories import make_entry, make_game

pytestmark = pytest.mark.django_db

WORDS = ["Zug", "Karte", "Angriff", "Schild", "Runde", "Würfel", "Aktion", "Held", "Schurke", "Plan", "Zone"]


def glossary(count: int, *, edition: int = 1) -> str:
    """A German glossary of ``count`` entries, each seeing the next two; the second
    edition rewords every third entry and drops the last two."""
    titles = [f"{WORDS[n % len(WORDS)]} {n:03}" for n in range(count)]
    if edition == 2:
        titles = titles[:-2]
    blocks = []
    for n, title in enumerate(titles):
        body = f"Regel für {title}: Lege eine Karte ab und ziehe {n % 4 + 1} Karten."
        if edition == 2 and n % 3 == 0:
            body += " Neu in der zweiten Ausgabe."
        see = ", ".join(titles[(n + k) % len(titles)] for k in (1, 2))
        blocks.append(f"{title}\n{body}\nSiehe auch: {see}\n")
    return "\n".join(blocks)


def options(game: str, **kwargs) -> ImportOptions:
    return ImportOptions(
        game=game, game_name=game.title(), language="de", kind="glossary",
        source=SourceInfo(title="Glossar"), **kwargs,
    )  # fmt: skip


def without_ids(value):
    """Relations name entries by id too; two games' ids differ, their slugs do not."""
    if isinstance(value, dict):
        return {key: without_ids(item) for key, item in value.items() if key != "id"}
    if isinstance(value, list):
        return [without_ids(item) for item in value]
    return value


def stored(game_slug: str) -> list[tuple]:
    """What readers and the API would see of a game's entries, in a comparable form."""
    entries = Entry.objects.filter(game__slug=game_slug).order_by("slug")
    state = []
    for entry in entries:
        targets = sorted(
            (ref.label, ref.target.slug if ref.target else None)
            for ref in CrossReference.objects.filter(entry=entry).select_related("target")
        )
        relations = without_ids(entry.relations)
        state.append(
            (entry.slug, entry.title, entry.body, entry.body_html, entry.see_also, entry.status,
             targets, json.dumps(relations, sort_keys=True), entry.history.count())
        )  # fmt: skip
    return state


def outcomes(report) -> list[tuple]:
    return [(o.type, o.title, o.action, o.slug, o.changes) for o in report.outcomes]


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(rows_module, "COMMIT_EVERY", 7)


def test_a_batched_import_stores_what_one_transaction_stores(monkeypatch):
    one = import_document(glossary(30), options("eins"))
    again = import_document(glossary(30, edition=2), options("eins", prune=True))
    monkeypatch.setattr(rows_module, "COMMIT_EVERY", 7)
    heard = []
    batched = import_document(glossary(30), options("zwei", progress=lambda *args: heard.append(args)))
    batched_again = import_document(glossary(30, edition=2), options("zwei", prune=True))

    assert outcomes(batched) == outcomes(one)
    assert outcomes(batched_again) == outcomes(again)
    assert [(a, b, c, d, e) for a, b, c, d, e, *_ in stored("zwei")] == [
        (a, b, c, d, e) for a, b, c, d, e, *_ in stored("eins")
    ]
    assert [row[5:] for row in stored("zwei")] == [row[5:] for row in stored("eins")]
    assert SearchDocument.objects.filter(game__slug="zwei").count() == 28
    writing = [args for args in heard if args[0] == "writing"]
    assert [done for _stage, done, _total in writing] == [0, 7, 14, 21, 28, 30]  # started, then each batch
    assert {total for _stage, _done, total in writing} == {30}


def test_a_child_before_its_parent_across_batches(small_batches):
    """In a JSON export a child may come before its parent: the parent is written first,
    in an earlier batch, so the child's one history version already has it."""
    game = make_game(slug="baum", name="Baum")
    for n in range(10, 20):
        parent = make_entry(game=game, language="de", title=f"Regel {n}", kind=Entry.Kind.SECTION, order=n)
        make_entry(game=game, language="de", title=f"Regel {n - 10}", kind=Entry.Kind.SECTION, parent=parent)
    export = json.loads(export_game(game))
    export["entries"].sort(key=lambda item: item["parent"] is None)  # every child first
    game.delete()

    report = import_document(json.dumps(export), ImportOptions(game="baum", language=""))

    assert sorted(report.created) == sorted(["Baum", *(f"Regel {n}" for n in range(20))])
    for n in range(10):
        child = Entry.objects.get(game__slug="baum", slug=f"regel-{n}")
        assert child.parent.slug == f"regel-{n + 10}"
        assert child.history.get().parent_id == child.parent_id


def test_a_failure_between_batches_keeps_the_batches_before_and_a_rerun_completes(monkeypatch):
    import_document(glossary(30), options("eins"))
    monkeypatch.setattr(rows_module, "COMMIT_EVERY", 7)

    def fail_after_two(stage, done=0, total=0):
        if stage == "writing" and done >= 14:
            raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError):
        import_document(glossary(30), options("zwei", progress=fail_after_two))
    assert Entry.objects.filter(game__slug="zwei").count() == 14

    rerun = import_document(glossary(30), options("zwei"))
    assert len(rerun.created) == 16 and len(rerun.unchanged) == 14
    assert stored("zwei") == stored("eins")


def test_a_dry_run_writes_nothing_and_reports_what_the_import_does():
    import_document(glossary(20), options("eins"))
    for number, (document, kwargs) in enumerate([(glossary(20, edition=2), {"prune": True}), (glossary(12), {})]):
        for game in ("eins", "neu"):
            with CaptureQueriesContext(connection) as queries:
                preview = import_document(document, options(game, dry_run=True, **kwargs))
            writes = [q["sql"] for q in queries if q["sql"].split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]
            assert writes == [], writes[:3]
            real = import_document(document, options(f"neu-{number}" if game == "neu" else game, **kwargs))
            if game == "eins":
                assert outcomes(preview) == outcomes(real)
            else:
                assert [o[1:3] for o in outcomes(preview)] == [o[1:3] for o in outcomes(real)]
                assert {o[2] for o in outcomes(preview)} == {"created"}
            assert [w.message for w in preview.warnings] == [w.message for w in real.warnings]
