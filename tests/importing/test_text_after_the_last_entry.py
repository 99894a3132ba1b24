"""Text after a glossary's last entry is kept and reported with its line, never dropped.

A glossary entry closes with its "See also" line; a line after the last one belongs to no
entry. It is kept at the end of the last entry's body and named in the import report.
"""

import io
import json

import pytest
from django.core.management import call_command

from rules.content.models import Entry
from rules.importing import ImportOptions, import_document, parse_document

GLOSSARY = (
    "Exhaust\n"
    "To exhaust a card, turn it sideways.\n"
    "See also: Ready\n"
    "\n"
    "Ready\n"
    "To ready a card, turn it upright.\n"
    "See also: Exhaust\n"
)


def parse(text: str, language: str = "en", kind: str = "glossary"):
    return parse_document(text, ImportOptions(game="g", language=language, kind=kind))


@pytest.mark.parametrize("separator", ["\n", "\n\n", "\n\n\n"])
@pytest.mark.parametrize("last", ["Thanks for playing!", "Version 1.2", "Round", "© 2024 Example Games", "Z"])
def test_a_single_line_after_the_last_entry_is_kept_and_reported(separator, last):
    text = GLOSSARY.rstrip("\n") + separator + last + "\n"
    parsed = parse(text)
    line = text.splitlines().index(last) + 1
    assert [item.title for item in parsed.items] == ["Exhaust", "Ready"]
    assert last in parsed.items[-1].body
    [warning] = parsed.warnings
    assert warning.line == line
    assert "after the last entry" in warning.message and "Ready" in warning.message


def test_two_paragraphs_after_the_last_entry_are_each_reported():
    text = GLOSSARY + "\nThanks for playing.\n\nRules questions: write to us.\n"
    parsed = parse(text)
    assert [warning.line for warning in parsed.warnings] == [9, 11]
    assert "Thanks for playing." in parsed.items[-1].body and "write to us" in parsed.items[-1].body


def test_a_lone_letter_at_the_end_of_a_glossary_without_see_also_lines():
    text = "Exhaust\nTo exhaust a card, turn it sideways.\n\nReady\nTo ready a card, turn it upright.\n\nZ\n"
    parsed = parse(text)
    assert parsed.items[-1].body.endswith("Z")
    [warning] = parsed.warnings
    assert warning.line == 7 and "'Z'" in warning.message


def test_a_glossary_that_ends_with_its_last_entry_has_no_warning():
    assert parse(GLOSSARY).warnings == []
    assert parse("A\n" + GLOSSARY.replace("Ready\nTo", "B\n\nReady\nTo")).warnings == []  # dividers still go


def test_german_glossary():
    text = (
        "Erschöpfen\nUm eine Karte zu erschöpfen, drehe sie zur Seite.\nSiehe auch: Bereit\n\n"
        "Bereit\nUm eine Karte bereit zu machen, drehe sie aufrecht.\nSiehe auch: Erschöpfen\n\n"
        "Viel Spaß beim Spielen!\n"
    )
    parsed = parse(text, "de")
    [warning] = parsed.warnings
    assert warning.line == 9
    assert "Viel Spaß beim Spielen!" in parsed.items[-1].body


@pytest.mark.django_db
def test_the_import_stores_the_line_and_the_report_names_it(tmp_path):
    path = tmp_path / "glossary.txt"
    path.write_text(GLOSSARY + "\nThanks for playing!\n", encoding="utf-8")
    out = io.StringIO()
    call_command(
        "import_rules", str(path), "--game", "g", "--game-name", "G", "--language", "en", "--format", "json", stdout=out
    )
    report = json.loads(out.getvalue())
    assert [warning["line"] for warning in report["warnings"]] == [9]
    assert "Thanks for playing" in Entry.objects.get(title="Ready").body


@pytest.mark.django_db
def test_auto_detected_glossary_too():
    report = import_document(
        GLOSSARY + "\nThanks for playing!\n", ImportOptions(game="g", game_name="G", language="en")
    )
    assert report.detected_kind == "glossary"
    assert [warning.line for warning in report.warnings] == [9]
