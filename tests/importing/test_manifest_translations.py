"""A manifest's translations (``translation_of``, ``[document.translations]``) and how
load_demo links them: read and checked by ``rules.importing.manifest``, linked after the
import through ``rules.moderation.translations.link``. Small manifests of their own,
written next to two little glossaries, stand in for rules/demo/."""

import io
import textwrap

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rules.content.journal import Change
from rules.content.models import Entry
from rules.importing import ImportRulesError
from rules.importing.manifest import read_manifest
from rules.management.commands import load_demo

ENGLISH = """\
Exhaust
To exhaust a card, turn it sideways.
Related: Ready

Ready
To ready a card, turn it upright.
Related: Exhaust
"""

GERMAN = """\
Erschöpfen
Um eine Karte zu erschöpfen, dreht man sie auf die Seite.
Siehe auch: Spielbereit machen

Spielbereit machen
Um eine Karte spielbereit zu machen, dreht man sie aufrecht.
Siehe auch: Erschöpfen
"""

HEAD = """\
[games.crown-war]
name = "Crown War"

[[document]]
file = "en.txt"
game = "crown-war"
language = "en"
kind = "glossary"
source = { title = "Rules Reference", kind = "rules_reference" }
"""

TRANSLATION = """\
[[document]]
file = "de.txt"
game = "crown-war"
language = "de"
kind = "glossary"
translation_of = "en.txt"
source = { title = "Referenz (Community-Übersetzung)", kind = "community_translation", official = false }
"""

TABLE = """\
  [document.translations]
  "Erschöpfen" = "Exhaust"
  "Spielbereit machen" = "Ready"
"""


@pytest.fixture
def demo_dir(tmp_path, monkeypatch):
    """A directory standing in for rules/demo/; ``write(manifest)`` puts the manifest in."""
    (tmp_path / "en.txt").write_text(ENGLISH, encoding="utf-8")
    (tmp_path / "de.txt").write_text(GERMAN, encoding="utf-8")
    monkeypatch.setattr(load_demo, "DEMO_DIR", tmp_path)

    def write(*parts: str):
        path = tmp_path / "manifest.toml"
        path.write_text("\n".join(textwrap.dedent(part) for part in parts), encoding="utf-8")
        return path

    return write


def run() -> str:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def entry(language: str, title: str) -> Entry:
    return Entry.objects.get(game__slug="crown-war", language=language, title=title)


# --- reading the manifest --------------------------------------------------------------


def test_translation_of_and_the_table_are_read(demo_dir):
    documents = read_manifest(demo_dir(HEAD, TRANSLATION, TABLE))
    assert [d.translation_of for d in documents] == [[], ["en.txt"]]
    assert documents[1].translations == {"Erschöpfen": "Exhaust", "Spielbereit machen": "Ready"}


def test_translation_of_takes_a_list_of_files(demo_dir):
    documents = read_manifest(demo_dir(HEAD, TRANSLATION.replace('"en.txt"', '["en.txt"]'), TABLE))
    assert documents[1].translation_of == ["en.txt"]


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        # the original must come first, so it is imported before the translation
        ((TRANSLATION, TABLE, HEAD), "document 1: missing or bad field 'translation_of': 'en.txt' is no earlier"),
        ((HEAD, TRANSLATION.replace('language = "de"', 'language = "en"'), TABLE), "another language"),
        ((HEAD, TRANSLATION), "without a [document.translations] table"),
        ((HEAD, TRANSLATION.replace('translation_of = "en.txt"\n', ""), TABLE), "'translations' without"),
        ((HEAD, TRANSLATION, TABLE.replace('"Ready"', '"Exhaust"')), "the original 'Exhaust' is named twice"),
        ((HEAD, TRANSLATION.replace('"en.txt"', "3"), TABLE), "a file name or a list of file names"),
    ],
    ids=["original-later", "same-language", "no-table", "table-alone", "original-twice", "not-a-file"],
)
def test_a_translation_the_manifest_cannot_hold_is_refused(demo_dir, manifest, message):
    with pytest.raises(ImportRulesError, match="manifest manifest.toml, document") as refused:
        read_manifest(demo_dir(*manifest))
    assert message in str(refused.value)


# --- linking -----------------------------------------------------------------------------


def test_each_entry_is_linked_to_its_original(demo_dir, db):
    demo_dir(HEAD, TRANSLATION, TABLE)
    out = run()
    assert "de.txt: 2 translations: 2 linked, 0 already linked" in out
    for german, english in (("Erschöpfen", "Exhaust"), ("Spielbereit machen", "Ready")):
        translation, original = entry("de", german), entry("en", english)
        assert translation.translation_key == original.translation_key
        assert translation.translation_of == original
        assert translation.translation_base == original.history.order_by("-history_id").first().history_id
        version = translation.history.order_by("-history_id").first()
        assert version.history_change_reason == f"linked as the de version of entry {original.pk}"
        assert version.history_user is None
    # The originals themselves are untouched: no link is made the other way.
    assert entry("en", "Exhaust").translation_of is None


def test_a_second_run_links_nothing_and_writes_nothing(demo_dir, db):
    demo_dir(HEAD, TRANSLATION, TABLE)
    run()
    rows = list(Entry.objects.order_by("pk").values())
    versions, changes = Entry.history.count(), Change.objects.count()
    out = run()
    assert "de.txt: 2 translations: 0 linked, 2 already linked" in out
    assert list(Entry.objects.order_by("pk").values()) == rows
    assert (Entry.history.count(), Change.objects.count()) == (versions, changes)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            TABLE.replace('"Erschöpfen" =', '"Erschoepfen" ='),
            "de.txt: [document.translations] names “Erschoepfen”, which is no entry of the document",
        ),
        (
            TABLE.replace('= "Ready"', '= "Readied"'),
            "de.txt: the original of “Spielbereit machen”, “Readied”, is no entry of en.txt",
        ),
        (
            TABLE.replace('  "Spielbereit machen" = "Ready"\n', ""),
            "de.txt: the entry “Spielbereit machen” has no original in [document.translations]",
        ),
    ],
    ids=["translated-title", "original-title", "entry-left-out"],
)
def test_a_title_that_is_not_there_is_refused_naming_it(demo_dir, db, table, message):
    demo_dir(HEAD, TRANSLATION, table)
    with pytest.raises(CommandError) as refused:
        run()
    assert message in str(refused.value)
    # The load is one transaction: refused, it leaves nothing behind.
    assert not Entry.objects.exists()


def test_a_link_the_moderation_rules_refuse_is_a_command_error(demo_dir, db):
    demo_dir(HEAD)
    run()
    # A moderator already has a German version of "Exhaust" (another entry).
    other = Entry.objects.create(game=entry("en", "Exhaust").game, language="de", title="Ermüden", status="published",
                                 translation_key=entry("en", "Exhaust").translation_key)  # fmt: skip
    demo_dir(HEAD, TRANSLATION, TABLE)
    with pytest.raises(CommandError, match="de.txt: cannot link “Erschöpfen” to “Exhaust”: .*Ermüden"):
        run()
    assert not Entry.objects.filter(language="de").exclude(pk=other.pk).exists()
