"""What an import does to the database: created, updated, unchanged, pruned, resolved."""

import pytest

from rules.content.journal import Change
from rules.content.models import CrossReference, Entry, Game
from rules.content.querysets import Status
from rules.derived.models import PublicItem
from rules.importing import ImportOptions, ImportRulesError, import_document
from rules.importing.pipeline import SourceInfo
from tests.factories import make_entry, make_game

FIRST_EDITION = """\
Angriff
Ein Charakter greift einen Gegner an und fügt ihm Schaden in Höhe seines Angriffswerts zu.
Siehe auch: Schaden, Verteidigung

Schaden
Schaden wird mit Schadensmarkern auf der Karte festgehalten.
Siehe auch: Angriff

Verteidigung
Ein Charakter, der verteidigt, wird erschöpft und nimmt den Schaden statt des Helden.
Siehe auch: Angriff und Schaden
"""

SECOND_EDITION = FIRST_EDITION.replace(
    "Schaden wird mit Schadensmarkern auf der Karte festgehalten.",
    "Schaden wird mit Schadensmarkern auf der Karte festgehalten. Überzähliger Schaden verfällt.",
).replace(
    "\nVerteidigung\nEin",
    "\nBlocken\nEin Charakter blockt, indem er verteidigt.\nSiehe auch: Verteidigung\n\nVerteidigung\nEin",
)


def options(**kwargs) -> ImportOptions:
    kwargs.setdefault("game", "helden")
    kwargs.setdefault("game_name", "Helden")
    kwargs.setdefault("language", "de")
    kwargs.setdefault("kind", "glossary")
    kwargs.setdefault("source", SourceInfo(title="Regelreferenz"))
    return ImportOptions(**kwargs)


def titles(report, action: str) -> list[str]:
    return sorted(getattr(report, action))


@pytest.mark.django_db
class TestEditions:
    def test_first_import_creates_every_entry_with_one_history_version(self):
        report = import_document(FIRST_EDITION, options())
        assert titles(report, "created") == ["Angriff", "Schaden", "Verteidigung"]
        entry = Entry.objects.get(title="Schaden")
        assert entry.status == Status.PUBLISHED
        assert entry.source.title == "Regelreferenz"
        assert [h.history_change_reason for h in entry.history.all()] == ["import: Regelreferenz"]

    def test_the_same_document_again_changes_nothing(self):
        import_document(FIRST_EDITION, options())
        before = list(Entry.objects.order_by("pk").values_list("pk", "body", "updated_at"))
        versions = Entry.history.count()
        report = import_document(FIRST_EDITION, options())
        assert report.created == [] and report.updated == []
        assert titles(report, "unchanged") == ["Angriff", "Schaden", "Verteidigung"]
        assert list(Entry.objects.order_by("pk").values_list("pk", "body", "updated_at")) == before
        assert Entry.history.count() == versions

    def test_a_revised_body_is_due_for_a_check_against_errata_again(self):
        import_document(FIRST_EDITION, options())
        old = "2020-01-01T00:00:00Z"
        Entry.objects.update(body_checked_at=old)
        import_document(SECOND_EDITION, options())
        checked = dict(Entry.objects.values_list("title", "body_checked_at"))
        assert checked["Schaden"].year > 2020  # its body changed
        assert checked["Angriff"].year == 2020  # unchanged: still as checked before

    def test_a_revised_edition_updates_what_changed_and_keeps_the_history(self):
        import_document(FIRST_EDITION, options())
        report = import_document(SECOND_EDITION, options())
        assert report.created == ["Blocken"]
        assert report.updated == ["Schaden"]
        assert "Angriff" in report.unchanged and "Verteidigung" in report.unchanged
        change = next(o for o in report.outcomes if o.action == "updated")
        before, after = change.changes["body"]
        assert "verfällt" not in before and "Überzähliger Schaden verfällt." in after
        schaden = Entry.objects.get(title="Schaden")
        assert schaden.history.count() == 2
        assert "verfällt" not in schaden.history.earliest().body

    def test_a_moderators_status_survives_a_re_import(self):
        import_document(FIRST_EDITION, options())
        Entry.objects.filter(title="Schaden").update(status=Status.REVIEW)
        import_document(SECOND_EDITION, options())
        assert Entry.objects.get(title="Schaden").status == Status.REVIEW

    def test_nothing_is_deleted_without_prune(self):
        import_document(SECOND_EDITION, options())
        report = import_document(FIRST_EDITION, options())
        assert report.deleted == []
        assert Entry.objects.filter(title="Blocken").exists()

    def test_prune_archives_only_what_this_source_no_longer_has(self):
        import_document(SECOND_EDITION, options())
        game = Game.objects.get(slug="helden")
        other = make_entry(game=game, language="de", title="Von Hand angelegt")
        report = import_document(FIRST_EDITION, options(prune=True))
        assert report.archived == ["Blocken"] and report.deleted == []
        assert Entry.objects.get(title="Blocken").status == Status.ARCHIVED  # kept, with its history
        assert Entry.objects.get(pk=other.pk).status == Status.PUBLISHED  # not from this source
        again = import_document(FIRST_EDITION, options(prune=True))
        assert again.archived == [] and again.updated == []  # removed once, not again

    def test_archived_rules_keep_a_version_each_and_leave_what_readers_see(self):
        import_document(SECOND_EDITION, options())
        Entry.objects.filter(title="Schaden").update(status=Status.DRAFT)  # not public before
        schaden = "Schaden\nSchaden wird mit Schadensmarkern auf der Karte festgehalten.\nSiehe auch: Angriff\n\n"
        assert schaden in FIRST_EDITION
        import_document(FIRST_EDITION.replace(schaden, ""), options(prune=True))  # no Blocken, no Schaden
        for title, was_public in (("Blocken", True), ("Schaden", False)):
            entry = Entry.objects.get(title=title)
            version = entry.history.latest()
            assert entry.status == version.status == Status.ARCHIVED
            assert version.history_type == "~" and version.history_change_reason.startswith("import:")
            change = Change.objects.filter(kind="entry", object_id=entry.pk).latest("pk")
            assert change.action == ("unpublished" if was_public else "updated"), title
            assert not PublicItem.objects.filter(kind="entry", object_id=entry.pk).exists()
        assert Entry.objects.get(title="Angriff").status == Status.PUBLISHED

    def test_prune_deletes_only_what_this_source_no_longer_has_when_asked_to(self):
        import_document(SECOND_EDITION, options())
        game = Game.objects.get(slug="helden")
        other = make_entry(game=game, language="de", title="Von Hand angelegt")
        report = import_document(FIRST_EDITION, options(prune=True, removal="delete"))
        assert report.deleted == ["Blocken"]
        assert not Entry.objects.filter(title="Blocken").exists()
        assert Entry.objects.filter(pk=other.pk).exists()  # not from this source
        assert Entry.history.filter(title="Blocken", history_type="-").exists()


@pytest.mark.django_db
class TestCrossReferences:
    def test_labels_resolve_within_the_document(self):
        import_document(FIRST_EDITION, options())
        angriff = Entry.objects.get(title="Angriff")
        targets = {ref.label: ref.target.title for ref in angriff.cross_references.select_related("target")}
        assert targets == {"Schaden": "Schaden", "Verteidigung": "Verteidigung"}

    def test_an_entry_imported_today_resolves_yesterdays_wanted_reference(self):
        import_document("Blocken\nEin Charakter blockt.\nSiehe auch: Parieren\n", options())
        wanted = CrossReference.objects.get(label="Parieren")
        assert wanted.target is None
        import_document("Parieren\nEin Charakter pariert.\n", options(source=SourceInfo(title="Nachtrag")))
        wanted.refresh_from_db()
        assert wanted.target.title == "Parieren"

    def test_references_do_not_cross_languages(self):
        import_document("Parry\nA character parries.\n", options(language="en"))
        import_document("Blocken\nEin Charakter blockt.\nSiehe auch: Parry\n", options())
        assert CrossReference.objects.get(label="Parry").target is None


@pytest.mark.django_db
class TestAllOrNothing:
    def test_a_failure_at_the_last_step_leaves_the_database_as_it_was(self, monkeypatch):
        import rules.derived.references as references

        game = make_game(slug="helden", name="Helden")
        make_entry(game=game, language="de", title="Angriff", body="Alt.")
        counts = (Game.objects.count(), Entry.objects.count(), Entry.history.count(), CrossReference.objects.count())

        def fail(*args, **kwargs):
            raise RuntimeError("the database went away")

        # Resolution runs when the import's writes are all done (rules.derived.pipeline).
        monkeypatch.setattr(references, "resolve", fail)
        with pytest.raises(RuntimeError):
            import_document(SECOND_EDITION, options())
        assert (
            Game.objects.count(),
            Entry.objects.count(),
            Entry.history.count(),
            CrossReference.objects.count(),
        ) == counts
        assert Entry.objects.get(title="Angriff").body == "Alt."

    def test_a_dry_run_reports_exactly_and_writes_nothing(self):
        import_document(FIRST_EDITION, options())
        versions = Entry.history.count()
        report = import_document(SECOND_EDITION, options(dry_run=True))
        assert report.created == ["Blocken"] and report.updated == ["Schaden"]
        assert not Entry.objects.filter(title="Blocken").exists()
        assert Entry.history.count() == versions

    def test_an_unknown_game_without_a_name_is_a_clear_error(self):
        with pytest.raises(ImportRulesError, match="unknown game 'nope'.*--game-name"):
            import_document(FIRST_EDITION, options(game="nope", game_name=None))
        assert not Game.objects.exists()


@pytest.mark.django_db
def test_overlong_titles_are_shortened_with_a_warning_not_a_database_error():
    long_question = "Darf ich " + " ".join(["eine sehr lange Frage stellen"] * 30) + "?"
    report = import_document(f"{long_question}\nJa.\n", options(kind="faq"))
    from faq.models import Question

    question = Question.objects.get()
    assert len(question.question) <= 500
    assert question.question.endswith("…")
    assert long_question in question.answer  # nothing is lost: the full text is kept
    assert any("shortened" in warning.message for warning in report.warnings)


@pytest.mark.django_db
def test_a_source_named_on_the_command_line_keeps_its_details():
    from rules.content.models import Source

    import_document(
        FIRST_EDITION, options(source=SourceInfo(title="Regelreferenz", version="1.5", attribution="Verlag"))
    )
    import_document(SECOND_EDITION, options(source=SourceInfo(title="Regelreferenz")))
    source = Source.objects.get(title="Regelreferenz")
    assert (source.version, source.attribution) == ("1.5", "Verlag")


@pytest.mark.django_db
def test_faq_see_also_links_questions_and_errata_to_their_entries():
    from faq.models import Question
    from rules.content.models import Erratum

    import_document(FIRST_EDITION, options())
    faq = (
        "Darf ein Charakter zweimal angreifen?\n"
        "Nein, jeder Charakter greift einmal pro Runde an.\n"
        "Siehe auch: Angriff\n\n"
        "Errata\n\n"
        "Schadensmarker\n"
        "Schaden wird mit Markern festgehalten, nicht mit Würfeln.\n"
        "Siehe auch: Schaden, Würfel\n"
    )
    report = import_document(faq, options(kind="faq", source=SourceInfo(title="FAQ")))
    question = Question.objects.get()
    assert list(question.related_entries.values_list("title", flat=True)) == ["Angriff"]
    erratum = Erratum.objects.get()
    assert erratum.title == "Schadensmarker"
    assert list(erratum.affects.values_list("title", flat=True)) == ["Schaden"]
    assert any("'Würfel'" in warning.message for warning in report.warnings)


@pytest.mark.django_db
def test_every_version_an_import_writes_says_who_and_why():
    from django.contrib.auth.models import User

    from rules.content.models import Erratum, Source

    importer = User.objects.create_user("importer")
    import_document(FIRST_EDITION, options(user=importer))
    faq = "Errata\n\nSchadensmarker\nSchaden wird mit Markern festgehalten.\nSiehe auch: Schaden\n"
    import_document(faq, options(kind="faq", source=SourceInfo(title="FAQ"), user=importer))

    game, source = Game.objects.get(slug="helden"), Source.objects.get(title="Regelreferenz")
    for obj, reason in [(game, "import: Regelreferenz"), (source, "import: Regelreferenz")]:
        assert [(v.history_user, v.history_change_reason) for v in obj.history.all()] == [(importer, reason)]
    erratum = Erratum.objects.get()
    # one "created" version, holding the entry it affects (not a second, anonymous one)
    versions = list(erratum.history.all())
    assert [(v.history_type, v.history_user, v.history_change_reason) for v in versions] == [
        ("+", importer, "import: FAQ")
    ]
    assert [row.entry.title for row in versions[0].affects.all()] == ["Schaden"]

    # a later import that links another entry records that change, by the import
    import_document(faq.replace("Siehe auch: Schaden", "Siehe auch: Schaden, Angriff"),
                    options(kind="faq", source=SourceInfo(title="FAQ"), user=importer))
    latest = erratum.history.latest()
    assert (latest.history_type, latest.history_user, latest.history_change_reason) == ("~", importer, "import: FAQ")
    assert sorted(row.entry.title for row in latest.affects.all()) == ["Angriff", "Schaden"]


@pytest.mark.django_db
def test_an_erratum_whose_text_changes_keeps_its_entries_in_the_new_version():
    from rules.content.models import Erratum

    import_document(FIRST_EDITION, options())
    faq = "Errata\n\nSchadensmarker\nSchaden wird mit Markern festgehalten.\nSiehe auch: Schaden\n"
    import_document(faq, options(kind="faq", source=SourceInfo(title="FAQ")))
    revised = faq.replace("mit Markern festgehalten.", "mit roten Markern festgehalten.")
    report = import_document(revised, options(kind="faq", source=SourceInfo(title="FAQ")))

    [updated] = [outcome for outcome in report.outcomes if outcome.action == "updated"]
    assert list(updated.changes) == ["corrected_text"]
    latest = Erratum.objects.get().history.latest()
    assert latest.corrected_text.startswith("Schaden wird mit roten Markern")
    # the version a history page and a revert read still names the entry it affects
    assert [row.entry.title for row in latest.affects.all()] == ["Schaden"]


@pytest.mark.django_db
def test_an_erratum_whose_entries_alone_change_is_reported_as_updated():
    import_document(FIRST_EDITION, options())
    faq = "Errata\n\nSchadensmarker\nSchaden wird mit Markern festgehalten.\nSiehe auch: Schaden\n"
    import_document(faq, options(kind="faq", source=SourceInfo(title="FAQ")))
    report = import_document(
        faq.replace("Siehe auch: Schaden", "Siehe auch: Schaden, Angriff"),
        options(kind="faq", source=SourceInfo(title="FAQ"), dry_run=True),
    )
    [updated] = [outcome for outcome in report.outcomes if outcome.action == "updated"]
    assert updated.title == "Schadensmarker"
    assert updated.changes == {"affects": ("schaden", "angriff, schaden")}
