"""Mixed encodings and mojibake: every line is read right and reported, or the line is
refused; mojibake is never stored, and clean text is never "repaired"."""

import io
import json

import pytest
from django.core.management import call_command

from rules.content.models import Entry
from rules.importing import ImportOptions, import_document
from rules.importing.errors import ImportRulesError
from rules.importing.reading import read_document

# What a single wrong encoding makes of these languages' letters; none may be stored.
MOJIBAKE_MARKS = ("Ĺ", "Ă", "Ä", "Ã", "Å", "Â", "\ufffd")

POLISH_TITLE = "Zażółć gęślą jaźń"
POLISH_BODY = (
    "Świątynia daje graczowi dodatkową akcję, a każdy żeton źródła można wydać tylko raz.\n"
    "Gracz, który jako pierwszy zdobędzie dziesięć punktów zwycięstwa, wygrywa grę.\n"
)


def lines_of(*parts: tuple[str, str]) -> bytes:
    """A file made of lines, each in its own encoding: ("text", "encoding")."""
    return b"".join((text + "\n").encode(encoding) for text, encoding in parts)


def assert_no_mojibake(text: str) -> None:
    for mark in MOJIBAKE_MARKS:
        assert mark not in text, f"{mark!r} in {text!r}"


# --- mixed files --------------------------------------------------------------------------


def test_polish_windows_1250_file_with_a_utf8_title_line():
    # The file: the title line in UTF-8, the rest in Windows-1250.
    data = lines_of((POLISH_TITLE, "utf-8"), *[(line, "cp1250") for line in POLISH_BODY.splitlines()])
    document = read_document(data, "pl")
    assert document.text == POLISH_TITLE + "\n" + POLISH_BODY
    [repair] = document.repairs
    assert repair.line == 1
    assert repair.replacement == POLISH_TITLE
    assert repair.original == "ZaĹĽĂłĹ‚Ä‡ gÄ™Ĺ›lÄ… jaĹşĹ„"  # what a whole-file read made of it
    assert "UTF-8" in repair.note and "Windows-1250" in repair.note


def test_polish_utf8_file_with_windows_1250_lines_reports_each_of_them():
    data = lines_of(
        ("Żeton", "utf-8"),
        ("Każdy żeton źródła można wydać tylko raz w ciągu rundy.", "utf-8"),
        ("Świątynia daje graczowi dodatkową akcję.", "cp1250"),
        ("Zobacz też: Świątynia", "utf-8"),
        ("", "utf-8"),
        ("Świątynia", "utf-8"),
        ("Gracz kładzie żeton na świątyni, gdy zdobędzie źródło.", "cp1250"),
    )
    document = read_document(data, "pl")
    assert "Świątynia daje graczowi dodatkową akcję." in document.text
    assert "Gracz kładzie żeton na świątyni, gdy zdobędzie źródło." in document.text
    assert_no_mojibake(document.text)
    assert [repair.line for repair in document.repairs] == [3, 7]
    assert all("Windows-1250" in repair.note for repair in document.repairs)
    assert document.repairs[1].replacement == "Gracz kładzie żeton na świątyni, gdy zdobędzie źródło."


@pytest.mark.parametrize(
    ("language", "utf8_lines", "legacy_line", "legacy_encoding"),
    [
        ("pl", ["Café naïve", "Le joueur pioche une carte."], "Crème brûlée à la française", "latin-1"),
        ("fr", ["Café naïve", "Le joueur pioche une carte."], "Règle spéciale : déjà vu, où ça ?", "latin-1"),
        ("de", ["Grüße aus München", "Über die Größe der Hand"], "Schäden zählen: „Bereit“ heißt es", "cp1252"),
        ("es", ["¿Qué carta robas?", "El jugador elige una acción."], "Señal: ¡mañana sí, año único!", "cp1252"),
    ],
)
def test_utf8_file_with_one_western_legacy_line(language, utf8_lines, legacy_line, legacy_encoding):
    data = lines_of(*[(line, "utf-8") for line in utf8_lines], (legacy_line, legacy_encoding))
    document = read_document(data, language)
    assert document.text.splitlines() == [*utf8_lines, legacy_line]
    [repair] = document.repairs
    assert (repair.line, repair.replacement) == (3, legacy_line)
    assert "Windows-1252" in repair.note


def test_one_line_mixing_both_encodings_keeps_each_part():
    line = "Świątynia".encode() + b" i " + "żeton źródła".encode("cp1250") + b"\n"
    data = line + lines_of(("Gracz zdobędzie źródło i świątynię.", "utf-8"), ("Każdy żeton leży.", "utf-8"))
    document = read_document(data, "pl")
    assert document.text.splitlines()[0] == "Świątynia i żeton źródła"
    assert [repair.line for repair in document.repairs] == [1]


def test_a_windows_1250_file_whose_heading_happens_to_be_valid_utf8_is_not_mixed():
    # "STÓŁ" in Windows-1250 is the bytes D3 A3, valid UTF-8 for "ӣ".
    text = "STÓŁ\nKażdy gracz kładzie kartę na stół, a żeton na świątyni.\n"
    document = read_document(text.encode("cp1250"), "pl")
    assert document.text == text
    assert document.repairs == []


def test_a_line_no_encoding_reads_is_refused_with_its_line():
    data = lines_of(("Grüße aus München", "utf-8"), ("Über die Größe", "utf-8")) + b"Dritte \x81\x8d\x90 Zeile\n"
    with pytest.raises(ImportRulesError) as caught:
        read_document(data, "de")
    assert caught.value.line == 3
    assert "0x81" in caught.value.message


# --- mojibake already in valid UTF-8 ---------------------------------------------------


@pytest.mark.parametrize(
    ("language", "right", "wrong_encoding"),
    [
        ("pl", POLISH_TITLE, "cp1250"),
        ("de", "Grüße aus München, größer", "cp1252"),
        ("fr", "Café naïve, déjà vu", "latin-1"),
        ("es", "Señal de acción: año", "cp1252"),
        ("pl", "Café naïve", "cp1250"),
    ],
)
def test_utf8_text_once_read_in_a_legacy_encoding_is_undone_and_reported(language, right, wrong_encoding):
    mojibake = right.encode().decode(wrong_encoding)
    assert mojibake != right
    data = f"Title line\n{mojibake}\nLast line\n".encode()
    document = read_document(data, language)
    assert document.text == f"Title line\n{right}\nLast line\n"
    [repair] = document.repairs
    assert (repair.line, repair.original, repair.replacement) == (2, mojibake, right)
    assert "mojibake" in repair.note


# --- clean files are left alone ----------------------------------------------------------

CLEAN = {
    "en": "Exhaust — “turn it sideways”; costs 2× €5, ½ a round, 90° turn… naïve café résumé.\n",
    "de": "Überprüfe „Bereit“ – größer, Fußball, Äußerung: 5 € pro Spieler » Öl « ½ ÄÖÜ.\n",
    "pl": "Zażółć gęślą jaźń. „Świątynia” – ŻÓŁW, STÓŁ, ĆMA, ŹRÓDŁO, Łódź… 5 zł ± 2°.\n",
    "nl": "Één café, ‘geïnteresseerd’ – coördinatie; België, reünie, ruïne, € 3,50.\n",
    "fr": "Où ça ? « Déjà vu » — œuvre, Ægis, garçon, naïf, Noël ; À bientôt, ÇA VA !\n",
    "es": "¿Qué? ¡Sí! Señal, acción, pingüino, año — «comillas» y Ñandú, º 1ª.\n",
}


@pytest.mark.parametrize("language", sorted(CLEAN))
def test_clean_utf8_text_imports_unchanged(language):
    text = CLEAN[language] * 3
    for data in (text.encode(), b"\xef\xbb\xbf" + text.encode(), text.encode("utf-16")):
        document = read_document(data, language)
        assert document.text == text
        assert document.repairs == []


@pytest.mark.parametrize(
    ("language", "encoding"),
    [("en", "cp1252"), ("de", "cp1252"), ("pl", "cp1250"), ("nl", "cp1252"), ("fr", "cp1252"), ("es", "cp1252")],
)
def test_clean_legacy_text_imports_unchanged(language, encoding):
    text = CLEAN[language] * 3
    document = read_document(text.encode(encoding), language)
    assert document.text == text
    assert document.repairs == []


# --- end to end: stored right, reported ---------------------------------------------------


@pytest.mark.django_db
def test_import_stores_the_mixed_file_right_and_reports_each_line(tmp_path):
    data = lines_of(
        (POLISH_TITLE, "utf-8"),
        ("Świątynia daje graczowi dodatkową akcję.", "cp1250"),
        ("Zobacz też: Źródło", "cp1250"),
        ("", "cp1250"),
        ("Źródło", "cp1250"),
        ("Każdy żeton źródła można wydać tylko raz.", "cp1250"),
    )
    path = tmp_path / "slowniczek.txt"
    path.write_bytes(data)
    out = io.StringIO()
    call_command(
        "import_rules", str(path), "--game", "gra", "--game-name", "Gra", "--language", "pl",
        "--kind", "glossary", "--format", "json", stdout=out,
    )
    report = json.loads(out.getvalue())
    assert [(r["line"], r["replacement"]) for r in report["repairs"]][:1] == [(1, POLISH_TITLE)]
    titles = set(Entry.objects.values_list("title", flat=True))
    assert titles == {POLISH_TITLE, "Źródło"}
    for entry in Entry.objects.all():
        assert_no_mojibake(entry.title + entry.body)


@pytest.mark.django_db
def test_pasted_mojibake_is_stored_repaired():
    report = import_document(
        "Café naïve\nThe first player draws a card.\n\nNaÃ¯ve\nCafÃ© rules: every player gets one.\n",
        ImportOptions(game="g", game_name="G", language="en", kind="glossary"),
    )
    assert [repair.line for repair in report.repairs if "mojibake" in repair.note] == [4, 5]
    assert set(Entry.objects.values_list("title", flat=True)) == {"Café naïve", "Naïve"}
    assert "Café rules" in Entry.objects.get(title="Naïve").body
