"""An import never takes over an entry, erratum or FAQ question of another source or kind.

A text document's items are matched to the stored rows by the slug their title makes;
a row under that slug that belongs to another source, or is an entry of another kind,
is left as it is, reported as a clash with the item's line, and the item gets a row of
its own ("<slug>-2"). A row without a source (written by hand) of the same kind is
taken over, with a warning. The documents are in German and Polish.
"""

import io
import json

import pytest
from django.core.management import call_command

from faq.models import Question
from rules.content.models import Entry, Erratum, Game, Source
from rules.importing import ImportOptions, import_document
from rules.importing.canonical import export_game, import_canonical
from rules.importing.pipeline import SourceInfo
from tests.factories import make_entry

GAME = "burgen"

# Per language: a glossary, a rulebook whose sections share two of its titles (with the
# lines of those section headings) and the slugs those titles make.
DOCUMENTS = {
    "de": {
        "glossary": """\
Angriff
Ein Angriff ist eine Aktion, bei der eine Einheit eine feindliche Einheit bekämpft.
Siehe auch: Verteidigung

Bewegung
Eine Einheit darf sich in ihrem Zug bis zu drei Felder weit bewegen.
Siehe auch: Angriff

Verteidigung
Die verteidigende Einheit würfelt einmal für jeden Schildwert.
Siehe auch: Angriff
""",
        "rulebook": """\
Regelheft Burgen und Drachen

1. Aufbau
Jeder Spieler nimmt sich ein Heer und stellt es auf seine Startfelder.

2. Angriff
Ein Angriff findet statt, wenn eine Einheit neben einer feindlichen Einheit steht.
2.1 Der Angreifer würfelt zuerst.
2.2 Der Verteidiger würfelt danach.

3. Verteidigung
Wer angegriffen wird, darf sich verteidigen, solange er Schilde hat.
""",
        "shared": {"Angriff": ("angriff", 6), "Verteidigung": ("verteidigung", 11)},
        "glossary_lines": {"Angriff": 1, "Verteidigung": 9},
        "sources": ("Glossar", "Regelheft"),
    },
    "pl": {
        "glossary": """\
Atak
Atak to akcja, w której jednostka walczy z wrogą jednostką na sąsiednim polu.
Zobacz też: Obrona

Obrona
Broniąca się jednostka rzuca jedną kością za każdą tarczę.
Zobacz też: Atak

Ruch
Jednostka może przesunąć się o trzy pola w swojej turze.
Zobacz też: Atak
""",
        "rulebook": """\
Instrukcja Zamki i Smoki

1. Przygotowanie
Każdy gracz bierze armię i ustawia ją na polach startowych.

2. Atak
Atak następuje, gdy jednostka stoi obok wrogiej jednostki.
2.1 Atakujący rzuca pierwszy.
2.2 Obrońca rzuca potem.

3. Ruch
W swojej turze gracz przesuwa każdą jednostkę najwyżej raz.
""",
        "shared": {"Atak": ("atak", 6), "Ruch": ("ruch", 11)},
        "glossary_lines": {"Atak": 1, "Ruch": 9},
        "sources": ("Słowniczek", "Instrukcja"),
    },
}
LANGUAGES = sorted(DOCUMENTS)


def options(language: str, kind: str, source: str | None, **kwargs) -> ImportOptions:
    return ImportOptions(
        game=GAME,
        game_name="Burgen und Drachen",
        language=language,
        kind=kind,
        source=SourceInfo(title=source) if source else None,
        **kwargs,
    )


def import_glossary(language: str, **kwargs):
    doc = DOCUMENTS[language]
    return import_document(doc["glossary"], options(language, "glossary", doc["sources"][0], **kwargs))


def import_rulebook(language: str, text: str | None = None, **kwargs):
    doc = DOCUMENTS[language]
    return import_document(text or doc["rulebook"], options(language, "rulebook", doc["sources"][1], **kwargs))


def stored(language: str) -> dict[str, tuple]:
    """slug → (title, kind, source title, body) of every entry in the language."""
    return {
        entry.slug: (entry.title, entry.kind, entry.source.title if entry.source else None, entry.body)
        for entry in Entry.objects.filter(game__slug=GAME, language=language).select_related("source")
    }


def messages(report) -> list[tuple[int | None, str]]:
    return [(warning.line, warning.message) for warning in report.warnings]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_rulebook_after_a_glossary_leaves_the_glossary_entries_alone(language):
    doc = DOCUMENTS[language]
    glossary_source, rulebook_source = doc["sources"]
    import_glossary(language)
    before = stored(language)

    report = import_rulebook(language)

    after = stored(language)
    for title, (slug, line) in doc["shared"].items():
        assert after[slug] == before[slug]  # title, kind, source and text as they were
        section_title, kind, source, body = after[f"{slug}-2"]
        assert (section_title, kind, source) == (title, "section", rulebook_source)
        assert body and body not in before[slug][3]  # the section's own text
        expected = (
            f"“{title}” is imported separately as “{slug}-2”: “{slug}” is the glossary entry "
            f"“{title}” of another source, “{glossary_source}”."
        )
        assert (line, expected) in messages(report)
    assert len(report.warnings) == len(doc["shared"])
    assert report.updated == []
    # The numbered rules stand under their own section, not under the glossary entry.
    first = next(iter(doc["shared"]))
    child = Entry.objects.get(game__slug=GAME, language=language, title=f"{first} 2.1")
    assert child.parent.slug == f"{doc['shared'][first][0]}-2"


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_glossary_after_a_rulebook_leaves_the_sections_alone(language):
    doc = DOCUMENTS[language]
    rulebook_source = doc["sources"][1]
    import_rulebook(language)
    before = stored(language)

    report = import_glossary(language)

    after = stored(language)
    for title, (slug, _line) in doc["shared"].items():
        assert after[slug] == before[slug]
        assert after[f"{slug}-2"][:3] == (title, "glossary", doc["sources"][0])
        line = doc["glossary_lines"][title]
        expected = (
            f"“{title}” is imported separately as “{slug}-2”: “{slug}” is the rule section "
            f"“{title}” of another source, “{rulebook_source}”."
        )
        assert (line, expected) in messages(report)


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_importing_either_document_again_changes_nothing(language):
    import_glossary(language)
    first = import_rulebook(language)
    entries = stored(language)
    versions = Entry.history.count()

    again = import_rulebook(language)
    glossary_again = import_glossary(language)

    for report in (again, glossary_again):
        assert report.created == [] and report.updated == [] and report.deleted == []
    # The same clashes, said the same way: nothing new to review.
    assert messages(again) == messages(first)
    assert glossary_again.warnings == []
    assert stored(language) == entries
    assert Entry.history.count() == versions


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_prune_deletes_only_the_import_s_own_rows(language):
    doc = DOCUMENTS[language]
    import_glossary(language)
    import_rulebook(language)
    title, (slug, _line) = list(doc["shared"].items())[-1]  # the last section
    shorter = doc["rulebook"].split(f"\n3. {title}\n")[0]

    report = import_rulebook(language, shorter, prune=True, removal="delete")

    assert report.deleted == [title]
    after = stored(language)
    assert f"{slug}-2" not in after
    assert after[slug][:3] == (title, "glossary", doc["sources"][0])  # the glossary's entry stays


@pytest.mark.django_db
def test_a_hand_written_entry_of_the_same_kind_is_taken_over_with_a_warning():
    game = Game.objects.create(slug=GAME, name="Burgen und Drachen")
    wanted = make_entry(game=game, language="de", title="Bewegung", body="", status="draft")

    report = import_glossary("de")

    wanted.refresh_from_db()
    assert wanted.source.title == "Glossar"
    assert "drei Felder" in wanted.body
    assert wanted.status == "draft"  # a moderator's status is kept, as for any update
    assert (
        5,
        "“Bewegung” takes over the glossary entry “Bewegung” (“bewegung”), which has no source: "
        "written by hand, or imported without one.",
    ) in messages(report)
    assert Entry.objects.filter(game=game, language="de", title="Bewegung").count() == 1
    # Now the glossary's own: the next import says nothing about it.
    assert import_glossary("de").warnings == []


@pytest.mark.django_db
def test_a_hand_written_entry_of_another_kind_is_a_clash():
    game = Game.objects.create(slug=GAME, name="Burgen und Drachen")
    section = make_entry(game=game, language="pl", title="Ruch", kind="section", body="Zasady ruchu.")

    report = import_glossary("pl")

    section.refresh_from_db()
    assert (section.kind, section.source, section.body) == ("section", None, "Zasady ruchu.")
    assert Entry.objects.get(game=game, language="pl", slug="ruch-2").kind == "glossary"
    assert (
        9,
        "“Ruch” is imported separately as “ruch-2”: “ruch” is the rule section “Ruch” (no source), "
        "another kind of entry.",
    ) in messages(report)


@pytest.mark.django_db
def test_an_import_without_a_source_takes_nothing_from_a_source():
    import_glossary("de")
    doc = DOCUMENTS["de"]
    before = stored("de")

    report = import_document(doc["glossary"], options("de", "glossary", None))

    after = stored("de")
    assert {slug: after[slug] for slug in before} == before
    assert after["angriff-2"][2] is None
    assert any("“angriff” is the glossary entry “Angriff” of another source, “Glossar”" in message
               for _line, message in messages(report))


FAQ = """\
Veelgestelde vragen

Mag ik twee keer per beurt aanvallen?
Nee, elke eenheid valt één keer per beurt aan.

Errata

Mulligan
Een speler mag zijn hand één keer per spel opnieuw trekken.
"""
COMMUNITY_FAQ = FAQ.replace("Nee, elke eenheid", "Nee: iedere eenheid").replace(
    "één keer per spel", "twee keer per spel"
)


@pytest.mark.django_db
def test_an_faq_keeps_its_questions_and_errata_from_another_faq():
    import_document(FAQ, options("nl", "faq", "FAQ 1.0"))

    report = import_document(COMMUNITY_FAQ, options("nl", "faq", "FAQ van de spelers"))

    question = Question.objects.get(slug="mag-ik-twee-keer-per-beurt-aanvallen")
    assert (question.source.title, question.answer) == ("FAQ 1.0", "Nee, elke eenheid valt één keer per beurt aan.")
    other = Question.objects.get(slug="mag-ik-twee-keer-per-beurt-aanvallen-2")
    assert other.source.title == "FAQ van de spelers"
    assert other.answer == "Nee: iedere eenheid valt één keer per beurt aan."
    erratum, other = Erratum.objects.get(slug="mulligan"), Erratum.objects.get(slug="mulligan-2")
    assert (erratum.source.title, other.source.title) == ("FAQ 1.0", "FAQ van de spelers")
    assert "één keer per spel" in erratum.corrected_text and "twee keer per spel" in other.corrected_text
    assert messages(report) == [
        (
            3,
            "“Mag ik twee keer per beurt aanvallen?” is imported separately as "
            "“mag-ik-twee-keer-per-beurt-aanvallen-2”: “mag-ik-twee-keer-per-beurt-aanvallen” is the FAQ "
            "question “Mag ik twee keer per beurt aanvallen?” of another source, “FAQ 1.0”.",
        ),
        (
            8,
            "“Mulligan” is imported separately as “mulligan-2”: “mulligan” is the erratum “Mulligan” of "
            "another source, “FAQ 1.0”.",
        ),
    ]


@pytest.mark.django_db
def test_a_long_question_s_own_slug_still_fits_its_column():
    question = "Darf ich " + " ".join(["eine sehr lange Frage über das ganze Spielbrett stellen"] * 6) + "?"
    import_document(f"{question}\nJa.\n", options("de", "faq", "FAQ"))

    import_document(f"{question}\nNein.\n", options("de", "faq", "Anderes FAQ"))

    limit = Question._meta.get_field("slug").max_length  # PostgreSQL refuses a longer one
    first, second = Question.objects.order_by("pk")
    assert (first.answer, second.answer) == ("Ja.", "Nein.")
    assert len(first.slug) == limit
    assert len(second.slug) == limit and second.slug.endswith("-2")


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_command_prints_the_clash_in_text_and_json(language, tmp_path):
    doc = DOCUMENTS[language]
    import_glossary(language)
    path = tmp_path / "rulebook.txt"
    path.write_text(doc["rulebook"], encoding="utf-8")
    title, (slug, line) = next(iter(doc["shared"].items()))
    expected = f"“{slug}” is the glossary entry “{title}” of another source, “{doc['sources'][0]}”."
    args = [str(path), "--game", GAME, "--language", language, "--kind", "rulebook",
            "--source-title", doc["sources"][1], "--dry-run"]

    text = io.StringIO()
    call_command("import_rules", *args, stdout=text)
    json_out = io.StringIO()
    call_command("import_rules", *args, "--format", "json", stdout=json_out)

    assert f"warning, line {line}: “{title}” is imported separately as “{slug}-2”: {expected}" in text.getvalue()
    warnings = json.loads(json_out.getvalue())["warnings"]
    assert {"line": line, "message": f"“{title}” is imported separately as “{slug}-2”: {expected}"} in warnings


@pytest.mark.django_db
def test_the_json_export_restores_each_row_with_the_source_it_names():
    """A backup names each row by its slug, with its own source: it is restored as it
    says, whatever is stored under that slug now (rules.importing.canonical.writing),
    and the report shows the source changing back."""
    import_glossary("de")
    import_rulebook("de")
    game = Game.objects.get(slug=GAME)
    backup = export_game(game)
    angriff = Entry.objects.get(game=game, language="de", slug="angriff")
    angriff.source = Source.objects.get(game=game, title="Regelheft")
    angriff.body = "Von Hand umgeschrieben."
    angriff.save()

    report = import_canonical(backup, ImportOptions(game=GAME, language="de"))

    angriff.refresh_from_db()
    assert angriff.source.title == "Glossar" and "feindliche Einheit bekämpft" in angriff.body
    [change] = [o for o in report.outcomes if o.action != "unchanged"]
    assert (change.slug, change.changes["source"]) == ("angriff", ("Regelheft", "Glossar"))
    assert report.created == [] and report.warnings == []


@pytest.mark.django_db
def test_thousands_of_items_with_one_title_get_their_own_slugs_in_linear_time():
    """Each tried ``-2``, ``-3`` … from the start: 256 KB of "Rule" lines (about 50,000
    items) did not finish a preview in 30 s; 10,000 took about 26 s of CPU."""
    import time

    started = time.process_time()
    report = import_document(
        "Rule\n" * 10_000,
        ImportOptions(game="same", game_name="Same", language="en", kind="glossary", dry_run=True,
                      source=SourceInfo(title="Sheet")),
    )  # fmt: skip
    assert time.process_time() - started < 8
    slugs = [outcome.slug for outcome in report.outcomes if outcome.type == "entry"]
    assert len(slugs) > 9_000
    assert slugs == ["rule", *(f"rule-{n}" for n in range(2, len(slugs) + 1))]
