"""The bulk writers of rules/bulk.py store exactly what a save would (on SQLite and
PostgreSQL alike: the suite runs on both), in many rows per statement."""

import uuid
from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.models import CrossReference, Entry, Erratum
from rules.shared.bulk import create_objects, insert_rows, update_rows
from tests.factories import make_entry, make_game, make_source

pytestmark = pytest.mark.django_db

# Every kind of value an import writes: text with markup, quotes and line breaks, JSON
# lists, a UUID, foreign keys, a boolean, dates.
BODY = 'A "quoted" body\twith a tab,\nlines, a backslash \\ and ünïcödé — 100 %.'


def stored(model, pk) -> dict:
    return model.objects.values().get(pk=pk)


def test_new_entries_are_stored_as_a_save_would_store_them():
    game = make_game()
    source = make_source(game=game, language="de")
    parent = make_entry(game=game, language="de", title="Kampf", slug="kampf")
    values = {
        "game": game,
        "language": "de",
        "title": "Angriff, „Schaden“",
        "aliases": ["Attacke", 'mit "Zitat"'],
        "body": BODY,
        "see_also": ["Kampf", "Würfel"],
        "source": source,
        "parent": parent,
        "page": "12",
        "status": "published",
        "is_fragment": True,
        "number": "7.1",
        "order": 3,
        "translation_key": uuid.uuid4(),
    }
    saved = Entry(slug="saved", **values)
    saved.save()
    bulk = create_objects([Entry(slug=f"bulk-{n}", **values) for n in range(3)])

    assert [obj.pk for obj in bulk] == sorted(obj.pk for obj in bulk)  # in their order
    assert all(not obj._state.adding for obj in bulk)
    expected = stored(Entry, saved.pk)
    for obj in bulk:
        row = stored(Entry, obj.pk)
        for name in (
            "aliases",
            "body",
            "see_also",
            "source_id",
            "parent_id",
            "is_fragment",
            "translation_key",
        ):
            assert row[name] == expected[name], name
        assert row["created_at"] is not None and row["updated_at"] is not None


def test_many_rows_take_few_statements():
    game = make_game()
    objs = [Entry(game=game, language="en", slug=f"e-{n}", title=f"E {n}") for n in range(600)]
    with CaptureQueriesContext(connection) as queries:
        create_objects(objs)
    assert Entry.objects.filter(game=game).count() == 600
    assert len(queries) < 30  # not one per row (SQLite: 999 parameters a statement)


def test_an_erratum_with_a_date_and_no_source():
    game = make_game()
    [erratum] = create_objects(
        [
            Erratum(
                game=game,
                language="en",
                slug="e",
                title="E",
                corrected_text=BODY,
                published_on=date(2024, 2, 29),
            )
        ]
    )
    assert Erratum.objects.get(pk=erratum.pk).published_on == date(2024, 2, 29)
    assert Erratum.objects.get(pk=erratum.pk).source is None


def test_plain_rows_and_updates_keep_every_character():
    entry = make_entry()
    insert_rows(
        CrossReference,
        ["entry_id", "label", "normalized_label", "order", "in_body", "target_id"],
        [(entry.pk, BODY, "x", 0, False, None), (entry.pk, "Zwei", "zwei", 1, True, None)],
    )
    assert list(entry.cross_references.order_by("order").values_list("label", "in_body")) == [
        (BODY, False),
        ("Zwei", True),
    ]
    other = make_entry(game=entry.game)
    relations = {
        "references": [{"id": 1, "title": BODY, "slug": "a", "number": ""}],
        "parent": None,
    }
    assert (
        update_rows(
            Entry,
            ["relations", "relations_fingerprint"],
            [(entry.pk, relations, "f1"), (other.pk, {}, "f2")],
        )
        == 2
    )
    assert stored(Entry, entry.pk)["relations"] == relations
    assert (
        stored(Entry, other.pk)["relations"],
        stored(Entry, other.pk)["relations_fingerprint"],
    ) == ({}, "f2")
