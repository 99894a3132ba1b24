"""The canonical JSON export and its import: same bytes after a round trip, exact reports."""

import io
import json
from datetime import date

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command

from faq.models import Question
from rules.content.models import CrossReference, Entry, Erratum, Game, Source
from rules.importing import ImportOptions, ImportRulesError, import_document
from rules.importing.canonical import (
    CHANGE_REASON,
    ENTRY_FIELDS,
    ERRATUM_FIELDS,
    GAME_FIELDS,
    NOT_EXPORTED,
    QUESTION_FIELDS,
    SOURCE_FIELDS,
    export_game,
    import_canonical,
)
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.module_world import fixtures

SLUG = "marvel-champions"


@written_together
def build_game() -> Game:
    """Varied content in three languages; the order numbers put a child before its parent."""
    game = make_game(
        slug=SLUG,
        name="Marvel Champions",
        localized_names={"pl": "Marvel Champions: Gra karciana", "de": "Marvel Champions: Das Kartenspiel"},
        publisher="Fantasy Flight Games",
        year=2019,
        bgg_id=285774,
    )
    rr = make_source(
        game=game, language="en", title="Rules Reference", version="1.5",
        url="https://example.com/rr.pdf", attribution="© FFG",
    )
    handbuch = make_source(
        game=game, language="de", title="Referenzhandbuch (Übersetzung)",
        kind=Source.Kind.COMMUNITY_TRANSLATION, official=False,
    )
    setup = make_entry(game=game, title="Setup", kind="section", number="1", order=20, source=rr, page="4")
    draw = make_entry(
        game=game, title="Draw Step", kind="section", number="1.1", parent=setup, order=5,
        body="Each player draws up to their hand size.", source=rr, page="5",
    )
    exhaust = make_entry(
        game=game, title="Exhaust", aliases=["Exhausted"], order=1,
        body="An [[Exhausted]] card is turned sideways. See [[Ready|readying]].",
        see_also=["Ready", "Nonexistent Rule"],
    )
    ready = make_entry(game=game, title="Ready", order=2, body="Turn it upright.")
    make_entry(game=game, title="Unfinished", status="draft", order=3, is_fragment=True, body="…and then")
    erschoepfen = make_entry(
        game=game, language="de", title="Erschöpfen", translation_key=exhaust.translation_key,
        see_also=["Spielbereit"], source=handbuch, order=1, body="Eine erschöpfte Karte wird gedreht.",
    )
    make_entry(
        game=game, language="de", title="Spielbereit", aliases=["Spielbereit machen"],
        translation_key=ready.translation_key, order=2,
    )
    make_entry(game=game, language="pl", title="Zdolności", body="Każda zdolność ma koszt.", order=1)
    make_erratum(
        game=game, title="Draw step hand size", affects=[draw, setup], kind="rule_change",
        original_text="Draw 5 cards.", corrected_text="Draw 6 cards.", published_on=date(2023, 5, 1),
        source=rr, page="12", order=1,
    )
    make_erratum(game=game, title="Wording of Ready", status="review", order=2)
    make_question(
        game=game, question="Can I exhaust a ready card twice?", answer="No.", topic="Cards",
        related_entries=[ready, exhaust], source=rr, order=1,
    )
    make_question(
        game=game, language="de", question="Darf ich eine erschöpfte Karte nutzen?", answer="Nein.",
        related_entries=[erschoepfen], order=1,
    )
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def wipe() -> None:
    Game.objects.all().delete()  # cascades to sources, entries, errata, questions
    assert not Source.objects.exists() and not Entry.objects.exists()
    assert not Erratum.objects.exists() and not Question.objects.exists()


def history_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in apps.get_models()
        if model.__name__.startswith("Historical")
    }


def options(**kwargs) -> ImportOptions:
    kwargs.setdefault("game", SLUG)
    kwargs.setdefault("language", "")
    return ImportOptions(**kwargs)


def export_now() -> str:
    return export_game(Game.objects.get(slug=SLUG))


def line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


def edited(text: str, change) -> str:
    payload = json.loads(text)
    change(payload)
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def item(payload: dict, section: str, slug: str, language: str = "en") -> dict:
    return next(row for row in payload[section] if row["slug"] == slug and row["language"] == language)


# --- The format ---------------------------------------------------------------------------


def test_round_trip_into_an_empty_database_gives_the_same_bytes(game):
    a = export_game(game)
    wipe()
    report = import_canonical(a, options())
    b = export_now()
    assert a == b
    assert report.detected_kind == "canonical" and report.input_format == "json"
    assert {outcome.action for outcome in report.outcomes} == {"created"}
    assert len(report.outcomes) == 1 + 2 + 8 + 2 + 2  # game, sources, entries, errata, questions


def test_round_trip_of_the_demo_content(db):
    call_command("load_demo", stdout=io.StringIO())
    exports = {game.slug: export_game(game) for game in Game.objects.all()}
    assert len(exports) == 4
    wipe()
    for slug, text in exports.items():
        import_canonical(text, options(game=slug))
    assert {game.slug: export_game(game) for game in Game.objects.all()} == exports


def test_round_trip_of_one_language(game):
    a = export_game(game, "de")
    Game.objects.all().delete()
    import_canonical(a, options(language="de"))
    assert export_game(Game.objects.get(slug=SLUG), "de") == a


def test_export_is_deterministic_readable_json(game):
    text = export_game(game)
    assert text == export_game(game)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert "Erschöpfen" in text and "Zdolności" in text  # real letters, not \u escapes
    assert '\n  "format": "rulesite-export",\n  "version": 1,' in text
    payload = json.loads(text)
    assert list(payload) == ["format", "version", "language", "game", "sources", "entries", "errata", "questions"]
    assert list(payload["game"]) == list(GAME_FIELDS)
    assert list(payload["entries"][0]) == list(ENTRY_FIELDS)
    assert list(payload["errata"][0]) == list(ERRATUM_FIELDS)
    assert list(payload["questions"][0]) == list(QUESTION_FIELDS)
    assert list(payload["sources"][0]) == list(SOURCE_FIELDS)
    assert list(payload["game"]["localized_names"]) == ["de", "pl"]  # sorted
    keys = [(e["language"], e["order"], e["slug"]) for e in payload["entries"]]
    assert keys == sorted(keys)
    for needle in ('"id"', "created_at", "updated_at", "history"):
        assert needle not in text


def test_export_content(game):
    payload = json.loads(export_game(game))
    draw = item(payload, "entries", "draw-step")
    assert draw["parent"] == "setup" and draw["source"] == "Rules Reference" and draw["number"] == "1.1"
    exhaust = item(payload, "entries", "exhaust")
    assert exhaust["see_also"] == ["Ready", "Nonexistent Rule"]  # as written, in order
    assert exhaust["translation_key"] == item(payload, "entries", "erschopfen", "de")["translation_key"]
    assert item(payload, "entries", "unfinished")["status"] == "draft"
    erratum = item(payload, "errata", "draw-step-hand-size")
    assert erratum["affects"] == ["draw-step", "setup"]
    assert erratum["published_on"] == "2023-05-01"
    question = item(payload, "questions", "can-i-exhaust-a-ready-card-twice")
    assert question["related_entries"] == ["exhaust", "ready"]
    assert question["topic"] == "Cards"
    # The child is listed before its parent (lower order): the import must cope.
    slugs = [e["slug"] for e in payload["entries"]]
    assert slugs.index("draw-step") < slugs.index("setup")


def test_export_of_one_language(game):
    payload = json.loads(export_game(game, "de"))
    assert payload["language"] == "de"
    assert {row["language"] for key in ("sources", "entries", "errata", "questions") for row in payload[key]} == {"de"}
    assert [s["title"] for s in payload["sources"]] == ["Referenzhandbuch (Übersetzung)"]


def test_every_model_field_is_exported_or_deliberately_left_out():
    for model, exported in (
        (Game, GAME_FIELDS),
        (Source, SOURCE_FIELDS),
        (Entry, ENTRY_FIELDS),
        (Erratum, ERRATUM_FIELDS),
        (Question, QUESTION_FIELDS),
    ):
        fields = {f.name for f in model._meta.get_fields() if f.concrete}
        assert fields - NOT_EXPORTED == set(exported), model


def test_references_to_another_language_round_trip(game):
    en_ready = Entry.objects.get(game=game, language="en", slug="ready")
    rr = Source.objects.get(game=game, language="en")
    erratum = make_erratum(game=game, language="de", title="Bereit-Korrektur", source=rr)
    # A link across languages, as stored before the models refused them
    # (rules.content.entry_links): an export holds it and a restore brings it back as it was.
    Erratum.affects.through.objects.create(erratum=erratum, entry=en_ready)
    a = export_game(game)
    row = item(json.loads(a), "errata", "bereit-korrektur", "de")
    assert row["affects"] == [{"language": "en", "slug": "ready"}]
    assert row["source"] == {"language": "en", "title": "Rules Reference"}
    wipe()
    import_canonical(a, options())
    assert export_now() == a


# --- Import ---------------------------------------------------------------------------------


def test_cross_references_resolve_after_import(game, monkeypatch):
    a = export_game(game)
    wipe()
    import rules.derived.references

    calls = []
    original = rules.derived.references.resolve
    monkeypatch.setattr(
        rules.derived.references, "resolve", lambda *args, **kwargs: calls.append(args) or original(*args, **kwargs)
    )
    import_canonical(a, options())
    game = Game.objects.get(slug=SLUG)
    assert sorted(language for _game, language in calls) == ["de", "en", "pl"]  # once each

    def ref(slug, label, in_body=False, language="en"):
        return CrossReference.objects.get(
            entry__game=game, entry__language=language, entry__slug=slug, label=label, in_body=in_body
        )

    assert ref("exhaust", "Ready").target.slug == "ready"
    assert ref("exhaust", "Nonexistent Rule").target is None
    assert ref("exhaust", "Exhausted", in_body=True).target.slug == "exhaust"  # by alias
    assert ref("exhaust", "Ready", in_body=True).target.slug == "ready"
    assert ref("erschopfen", "Spielbereit", language="de").target.slug == "spielbereit"
    draw = Entry.objects.get(game=game, language="en", slug="draw-step")
    assert draw.parent.slug == "setup"
    erratum = Erratum.objects.get(game=game, slug="draw-step-hand-size")
    assert sorted(erratum.affects.values_list("slug", flat=True)) == ["draw-step", "setup"]


def test_import_twice_changes_nothing(game):
    a = export_game(game)
    wipe()
    import_canonical(a, options())
    before = history_counts()
    stamps = sorted(Entry.objects.values_list("slug", "updated_at"))
    report = import_canonical(a, options())
    assert {outcome.action for outcome in report.outcomes} == {"unchanged"}
    assert history_counts() == before
    assert sorted(Entry.objects.values_list("slug", "updated_at")) == stamps
    assert export_now() == a


def test_reimport_over_the_original_rows_changes_nothing(game):
    a = export_game(game)
    before = history_counts()
    report = import_canonical(a, options())
    assert report.updated == [] and report.created == []
    assert history_counts() == before


def test_each_created_row_has_one_history_version_with_its_relations(game):
    a = export_game(game)
    wipe()
    import_canonical(a, options())
    erratum = Erratum.objects.get(slug="draw-step-hand-size")
    versions = list(erratum.history.all())
    assert [v.history_type for v in versions] == ["+"]
    assert versions[0].history_change_reason == CHANGE_REASON
    affects_history = Erratum.history.model.affects.model
    assert affects_history.objects.filter(history=versions[0]).count() == 2
    draw = Entry.objects.get(language="en", slug="draw-step")
    assert [v.history_type for v in draw.history.all()] == ["+"]


def test_editing_one_body_updates_exactly_that_entry(game):
    a = export_game(game)
    exhaust = Entry.objects.get(game=game, language="en", slug="exhaust")
    old_body = exhaust.body
    versions = exhaust.history.count()
    before = history_counts()
    text = edited(a, lambda p: item(p, "entries", "exhaust").update(body="A tapped card. See [[Setup]]."))

    report = import_canonical(text, options())

    changed = [o for o in report.outcomes if o.action != "unchanged"]
    assert len(changed) == 1
    assert (changed[0].type, changed[0].slug, changed[0].action) == ("entry", "exhaust", "updated")
    assert changed[0].changes == {"body": (old_body, "A tapped card. See [[Setup]].")}
    exhaust.refresh_from_db()
    assert exhaust.body == "A tapped card. See [[Setup]]."
    assert exhaust.history.count() == versions + 1
    assert exhaust.history.first().history_change_reason == CHANGE_REASON
    after = history_counts()
    assert after["HistoricalEntry"] == before["HistoricalEntry"] + 1
    assert {k: v for k, v in after.items() if k != "HistoricalEntry"} == {
        k: v for k, v in before.items() if k != "HistoricalEntry"
    }
    assert CrossReference.objects.get(entry=exhaust, label="Setup", in_body=True).target.slug == "setup"
    assert export_now() == text


def test_changing_affects_is_one_history_version(game):
    a = export_game(game)
    erratum = Erratum.objects.get(game=game, slug="draw-step-hand-size")
    versions = erratum.history.count()

    def change(payload):
        row = item(payload, "errata", "draw-step-hand-size")
        row["affects"] = ["draw-step", "exhaust"]
        row["corrected_text"] = "Draw 7 cards."

    report = import_canonical(edited(a, change), options())
    [updated] = [o for o in report.outcomes if o.action == "updated"]
    assert updated.changes == {
        "corrected_text": ("Draw 6 cards.", "Draw 7 cards."),
        "affects": ("draw-step, setup", "draw-step, exhaust"),
    }
    assert erratum.history.count() == versions + 1
    latest = erratum.history.first()
    affects_history = Erratum.history.model.affects.model
    assert sorted(
        affects_history.objects.filter(history=latest).values_list("entry__slug", flat=True)
    ) == ["draw-step", "exhaust"]


def test_parent_change_is_reported_by_slug(game):
    a = export_game(game)
    text = edited(a, lambda p: item(p, "entries", "draw-step").update(parent="exhaust"))
    report = import_canonical(text, options())
    [updated] = [o for o in report.outcomes if o.action == "updated"]
    assert updated.changes == {"parent": ("setup", "exhaust")}


def test_a_new_entry_can_become_the_parent_of_an_existing_one(game):
    a = export_game(game)

    def change(payload):
        phases = dict(item(payload, "entries", "setup"), slug="phases", title="Phases", number="2", order=30)
        phases["translation_key"] = "00000000-0000-4000-8000-000000000001"
        payload["entries"].append(phases)
        item(payload, "entries", "draw-step")["parent"] = "phases"

    report = import_canonical(edited(a, change), options())
    assert [(o.slug, o.action) for o in report.outcomes if o.action != "unchanged"] == [
        ("draw-step", "updated"),
        ("phases", "created"),
    ]
    draw = Entry.objects.get(game=game, language="en", slug="draw-step")
    assert draw.parent.slug == "phases"
    assert draw.history.first().parent_id == draw.parent_id


def test_a_new_child_before_its_new_parent_gets_its_parent_in_its_first_version(game):
    a = export_game(game)
    wipe()
    import_canonical(a, options())
    draw = Entry.objects.get(language="en", slug="draw-step")
    [version] = draw.history.all()
    assert version.parent_id == Entry.objects.get(language="en", slug="setup").pk


def test_the_importing_user_is_recorded(game, django_user_model):
    moderator = django_user_model.objects.create_user("moderator")
    a = export_game(game)
    text = edited(a, lambda p: item(p, "entries", "ready").update(body="Turn it upright again."))
    text = edited(text, lambda p: item(p, "questions", "can-i-exhaust-a-ready-card-twice").update(answer="Never."))
    import_canonical(text, options(user=moderator))
    ready = Entry.objects.get(game=game, language="en", slug="ready")
    assert ready.history.first().history_user == moderator
    question = Question.objects.get(game=game, slug="can-i-exhaust-a-ready-card-twice")
    assert question.history.first().history_user == moderator


def test_line_separators_survive_the_document_reader(game):
    Entry.objects.filter(game=game, slug="ready").update(body="One\u2028two\u2029three")
    a = export_game(game)
    assert "\u2028" not in a and "\\u2028" in a
    Game.objects.all().delete()
    import_document(a.encode("utf-8"), options(), filename="marvel.json")
    assert export_now() == a


def test_a_field_left_out_keeps_its_value(game):
    a = export_game(game)
    text = edited(a, lambda p: item(p, "entries", "unfinished").pop("status"))
    report = import_canonical(text, options())
    assert report.updated == []
    assert Entry.objects.get(game=game, language="en", slug="unfinished").status == "draft"


def test_dry_run_into_an_empty_database_writes_nothing(game):
    a = export_game(game)
    wipe()
    before = history_counts()
    report = import_canonical(a, options(dry_run=True))
    assert report.dry_run
    assert len(report.created) == 15
    assert not Game.objects.exists() and not Entry.objects.exists()
    assert history_counts() == before


def test_dry_run_of_an_edit_reports_it_and_writes_nothing(game):
    a = export_game(game)
    text = edited(a, lambda p: item(p, "entries", "ready").update(title="Readied"))
    before = history_counts()
    report = import_canonical(text, options(dry_run=True))
    assert report.updated == ["Readied"]
    assert Entry.objects.get(game=game, language="en", slug="ready").title == "Ready"
    assert history_counts() == before
    assert export_now() == a


def test_prune_deletes_what_the_export_does_not_have(game):
    a = export_game(game)

    def drop(payload):
        payload["entries"] = [e for e in payload["entries"] if e["slug"] not in ("unfinished", "zdolnosci")]
        payload["questions"] = [q for q in payload["questions"] if q["language"] != "de"]

    text = edited(a, drop)
    report = import_canonical(text, options())  # without prune: nothing is deleted
    assert report.deleted == []
    assert Entry.objects.filter(game=game, slug="unfinished").exists()

    report = import_canonical(text, options(prune=True))
    deleted = sorted((o.type, o.slug) for o in report.outcomes if o.action == "deleted")
    assert deleted == [
        ("entry", "unfinished"),
        ("entry", "zdolnosci"),
        ("question", "darf-ich-eine-erschopfte-karte-nutzen"),
    ]
    assert not Entry.objects.filter(game=game, slug__in=["unfinished", "zdolnosci"]).exists()
    assert export_now() == text


def test_prune_with_a_language_touches_only_that_language(game):
    a = export_game(game, "en")
    text = edited(a, lambda p: p.update(entries=[e for e in p["entries"] if e["slug"] != "unfinished"]))
    report = import_canonical(text, options(language="en", prune=True))
    assert [(o.type, o.slug) for o in report.outcomes if o.action == "deleted"] == [("entry", "unfinished")]
    assert Entry.objects.filter(game=game, language="de").count() == 2
    assert Entry.objects.filter(game=game, language="pl").count() == 1


def test_prune_refuses_to_orphan_a_child(game):
    a = export_game(game)
    text = edited(a, lambda p: p.update(entries=[e for e in p["entries"] if e["slug"] != "setup"]))
    with pytest.raises(ImportRulesError, match=r'entries\[\d+\] \(slug "draw-step"\): parent: no entry slug "setup"; '
                       r"it is not in the export, so pruning would delete it"):
        import_canonical(text, options(prune=True))
    assert export_now() == a


def test_one_language_of_a_full_export(game):
    a = export_game(game)
    wipe()
    report = import_canonical(a, options(language="de"))
    assert set(Entry.objects.values_list("language", flat=True)) == {"de"}
    assert [w.message for w in report.warnings] == ["skipped 10 items in other languages (en: 9, pl: 1)"]
    assert Game.objects.get(slug=SLUG).name == "Marvel Champions"


def test_a_parent_may_come_from_the_database(game):
    a = export_game(game, "en")
    text = edited(a, lambda p: p.update(entries=[e for e in p["entries"] if e["slug"] != "setup"]))
    report = import_canonical(text, options(language="en"))  # setup stays: no prune
    assert report.updated == [] and report.created == []


def test_game_must_match(game):
    a = export_game(game)
    with pytest.raises(ImportRulesError, match='the export is of game "marvel-champions", not "blue-moon"'):
        import_canonical(a, options(game="blue-moon"))


def test_a_one_language_export_cannot_be_imported_as_another_language(game):
    a = export_game(game, "de")
    with pytest.raises(ImportRulesError, match='holds only "de" content; nothing in it is "en"'):
        import_canonical(a, options(language="en", prune=True))


def test_game_details_are_updated(game):
    a = export_game(game)
    text = edited(a, lambda p: p["game"].update(publisher="Asmodee", year=2020))
    report = import_canonical(text, options())
    [updated] = [o for o in report.outcomes if o.action == "updated"]
    assert (updated.type, updated.changes) == (
        "game", {"publisher": ("Fantasy Flight Games", "Asmodee"), "year": ("2019", "2020")}
    )


# --- Malformed exports ----------------------------------------------------------------------


def _set(section, which, **values):
    return lambda p: item(p, section, which).update(values)


def _drop(section, slug, name):
    return lambda p: item(p, section, slug).pop(name)


MALFORMED = {
    "wrong type": (
        _set("entries", "ready", order="first"),
        r'entries\[\d+\] \(slug "ready"\): order must be a whole number, not a string',
        '"order": "first"',
    ),
    "missing title": (
        _drop("entries", "ready", "title"),
        r'entries\[\d+\] \(slug "ready"\): missing required field title',
        ('"slug": "ready"', -2),  # the item's opening brace
    ),
    "unknown parent": (
        _set("entries", "draw-step", parent="no-such-section"),
        r'entries\[\d+\] \(slug "draw-step"\): parent: no entry slug "no-such-section"; '
        r"it is neither in the export nor in the database",
        '"parent": "no-such-section"',
    ),
    "unknown affected entry": (
        _set("errata", "draw-step-hand-size", affects=["setup", "nope"]),
        r'errata\[\d+\] \(slug "draw-step-hand-size"\): affects: no entry slug "nope"',
        ('"nope"', -2),
    ),
    "unknown related entry": (
        _set("questions", "can-i-exhaust-a-ready-card-twice", related_entries=["ghost"]),
        r'questions\[\d+\] \(slug "can-i-exhaust-a-ready-card-twice"\): related_entries: no entry slug "ghost"',
        ('"ghost"', -1),
    ),
    "unknown source": (
        _set("entries", "ready", source="Rulebook"),
        r'entries\[\d+\] \(slug "ready"\): source: no source title "Rulebook"',
        '"source": "Rulebook"',
    ),
    "unknown status": (
        _set("entries", "ready", status="done"),
        r"entries\[\d+\] \(slug \"ready\"\): unknown status 'done'; use one of draft, review, published, archived",
        '"status": "done"',
    ),
    "unknown kind": (
        _set("errata", "draw-step-hand-size", kind="typo"),
        r"errata\[\d+\] \(slug \"draw-step-hand-size\"\): unknown kind 'typo'",
        '"kind": "typo"',
    ),
    "unknown language": (
        _set("entries", "ready", language="xx"),
        r"entries\[\d+\] \(slug \"ready\"\): unknown language 'xx'",
        '"language": "xx"',
    ),
    "unknown field": (
        _set("entries", "ready", titel="Ready"),
        r"entries\[\d+\] \(slug \"ready\"\): unknown field 'titel'",
        '"titel": "Ready"',
    ),
    "bad slug": (
        _set("entries", "ready", slug="not a slug"),
        r'entries\[\d+\] \(slug "not a slug"\): slug "not a slug": Enter a valid “slug”',
        '"slug": "not a slug"',
    ),
    "bad translation key": (
        _set("entries", "ready", translation_key="123"),
        r"translation_key '123' is not a UUID",
        '"translation_key": "123"',
    ),
    "bad date": (
        _set("errata", "draw-step-hand-size", published_on="May 2023"),
        r"published_on 'May 2023' is not a date",
        '"published_on": "May 2023"',
    ),
    "aliases not a list": (
        _set("entries", "exhaust", aliases="Exhausted"),
        r"aliases must be an array of strings, not a string",
        '"aliases": "Exhausted"',
    ),
    "duplicate slug": (
        _set("entries", "ready", slug="exhaust"),
        r'entries\[\d+\] \(slug "exhaust"\): entries\[\d+\] has the same language and slug',
        None,
    ),
    "parent loop": (
        _set("entries", "setup", parent="draw-step"),
        r'parent: the parent chain loops: "(setup|draw-step)" → "(setup|draw-step)" → "(setup|draw-step)"',
        None,
    ),
    "wrong format": (
        lambda p: p.update(format="something-else"),
        r'not a rulesite export: "format" is "something-else"',
        '"format"',
    ),
    "newer version": (
        lambda p: p.update(version=2),
        r"unsupported export version 2; this site reads version 1",
        '"version"',
    ),
    "entries not a list": (
        lambda p: p.update(entries={}),
        r'"entries" must be an array, not an object',
        '"entries"',
    ),
    "game without a name": (
        lambda p: p["game"].pop("name"),
        r"game: missing required field name",
        '"game"',
    ),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_export_is_refused_naming_the_item_and_line(game, case):
    change, message, needle = MALFORMED[case]
    a = export_game(game)
    text = edited(a, change)
    before = history_counts()
    with pytest.raises(ImportRulesError, match=message) as raised:
        import_canonical(text, options())
    if needle is not None:
        needle, offset = needle if isinstance(needle, tuple) else (needle, 0)
        assert raised.value.line == line_of(text, needle) + offset, str(raised.value)
    else:
        assert raised.value.line is not None
    assert export_now() == a  # the database is unchanged
    assert history_counts() == before


def test_a_malformed_export_writes_nothing_into_an_empty_database(game):
    a = export_game(game)
    wipe()
    text = edited(a, _set("entries", "draw-step", parent="no-such-section"))
    with pytest.raises(ImportRulesError):
        import_canonical(text, options())
    assert not Game.objects.exists()


def test_invalid_json_names_the_line():
    with pytest.raises(ImportRulesError, match="not valid JSON") as raised:
        import_canonical('{\n  "format": "rulesite-export",\n  "version": 1,\n  oops\n}\n', options())
    assert raised.value.line == 4


def test_not_an_object():
    with pytest.raises(ImportRulesError, match="the export must be an object, not an array"):
        import_canonical("[]", options())


# --- Commands -------------------------------------------------------------------------------


def test_export_command_writes_the_file(game, tmp_path):
    path = tmp_path / "export.json"
    call_command("export_rules", "--game", SLUG, "--output", str(path), stderr=io.StringIO())
    assert path.read_bytes() == export_game(game).encode("utf-8")


def test_export_command_writes_to_stdout(game):
    out = io.StringIO()
    call_command("export_rules", "--game", SLUG, "--language", "pl", stdout=out)
    assert out.getvalue() == export_game(game, "pl")


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--game", "nope"], "unknown game 'nope'; the games are: marvel-champions"),
        (["--game", SLUG, "--language", "xx"], "unknown language 'xx'; use one of en, de"),
        (["--game", SLUG, "--language", "fr"], "game 'marvel-champions' has no content in 'fr'; it has de, en, pl"),
    ],
)
def test_export_command_errors(game, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("export_rules", *arguments, stdout=io.StringIO())


@pytest.mark.parametrize("language", [None, "de"])
def test_export_then_import_command_round_trip(game, tmp_path, language):
    path = tmp_path / "marvel.json"
    chosen = ["--language", language] if language else []
    call_command("export_rules", "--game", SLUG, *chosen, "--output", str(path), stderr=io.StringIO())
    a = path.read_bytes()
    wipe()
    out = io.StringIO()
    call_command("import_rules", str(path), "--game", SLUG, *chosen, stdout=out)
    assert "0 updated, 0 unchanged" in out.getvalue()
    path.unlink()
    call_command("export_rules", "--game", SLUG, *chosen, "--output", str(path), stderr=io.StringIO())
    assert path.read_bytes() == a


def test_import_document_hands_json_to_the_canonical_importer(game):
    a = export_game(game)
    report = import_document(a.encode("utf-8"), options(language="en"), filename="marvel.json")
    assert report.detected_kind == "canonical"
    assert report.created == [] and report.updated == []
