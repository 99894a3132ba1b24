"""read_document: bytes in, text and format out, or an error a moderator can act on."""

import io
import json
import re
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.content.models import Entry
from rules.importing import ImportOptions, import_document, reading
from rules.importing.errors import ImportRulesError
from rules.importing.reading import Document, decode, read_document

POLISH = (
    "Zobacz też: Żeton, Gracz i Świątynia\n"
    "\n"
    "Gracz, który jako pierwszy zdobędzie dziesięć punktów zwycięstwa, wygrywa grę. "
    "Każdy żeton źródła można wydać tylko raz w ciągu rundy, a świątynia daje graczowi "
    "dodatkową akcję.\n"
    "Źródło mocy leży poza planszą.\n"
)
GERMAN = (
    "Überprüfe vor dem Angriff, ob die Fähigkeit größer ist.\n"
    "Schäden werden gezählt, danach heißt es „Bereit“ für alle Spieler.\n"
)


def error_of(data: bytes, language: str = "en", filename: str | None = None) -> ImportRulesError:
    with pytest.raises(ImportRulesError) as caught:
        read_document(data, language, filename)
    return caught.value


# --- encodings -----------------------------------------------------------------------


def test_the_legacy_polish_encodings_really_differ():
    # Otherwise the next test would prove nothing.
    assert POLISH.encode("cp1250") != POLISH.encode("iso-8859-2")
    assert POLISH.encode("cp1250").decode("cp1252", errors="replace") != POLISH


@pytest.mark.parametrize("encoding", ["cp1250", "iso-8859-2", "utf-8-sig", "utf-8", "utf-16"])
def test_polish_decodes_back_exactly(encoding):
    document = read_document(POLISH.encode(encoding), "pl", "zasady.txt")
    assert document == Document(POLISH, "text")
    assert "Świątynia" in document.text and "Źródło" in document.text


@pytest.mark.parametrize("encoding", ["cp1250", "iso-8859-2"])
def test_polish_with_windows_line_ends_decodes_back_exactly(encoding):
    data = POLISH.replace("\n", "\r\n").encode(encoding)
    assert read_document(data, "pl").text == POLISH


@pytest.mark.parametrize("encoding", ["cp1250", "iso-8859-2"])
def test_polish_decodes_even_when_the_language_was_set_wrong(encoding):
    assert read_document(POLISH.encode(encoding), "de").text == POLISH


def test_german_in_windows_1252_keeps_umlauts_and_sharp_s():
    text = read_document(GERMAN.encode("cp1252"), "de").text
    assert text == GERMAN
    for letter in "äöüßÜ„“":
        assert letter in text


def test_utf16_without_a_byte_order_mark():
    assert read_document(GERMAN.encode("utf-16-le"), "de").text == GERMAN


def test_large_utf8_file_is_taken_without_scoring_words(monkeypatch):
    def no_scoring(word, language):
        raise AssertionError("valid UTF-8 must not be word-scored")

    monkeypatch.setattr(reading, "zipf", no_scoring)
    data = (POLISH * 30_000).encode("utf-8")
    assert len(data) > 6_000_000
    assert read_document(data, "pl").text == POLISH * 30_000


def test_large_legacy_file_scores_only_a_sample(monkeypatch):
    calls = []
    real_zipf = reading.zipf

    def counting(word, language):
        calls.append(word)
        return real_zipf(word, language)

    monkeypatch.setattr(reading, "zipf", counting)
    line = "Wiersz {}: żeton numer {} leży w świątyni, źródło {} także.\n"
    text = "".join(line.format(n, n, n) for n in range(60_000))
    assert read_document(text.encode("cp1250"), "pl").text == text
    assert len(calls) < 20_000


def test_utf8_with_one_legacy_line_reads_it_and_reports_its_line():
    # More cases of mixed encodings: tests/importing/test_mixed_encodings.py
    data = "Grüße aus München\nÜber die Größe\n".encode() + b"Caf\xe9 und Fu\xdfball\n"
    document = read_document(data, "de")
    assert document.text == "Grüße aus München\nÜber die Größe\nCafé und Fußball\n"
    [repair] = document.repairs
    assert (repair.line, repair.replacement) == (3, "Café und Fußball")
    assert "Windows-1252" in repair.note


def test_bytes_no_encoding_reads_name_the_first_bad_line():
    data = b"Erste Zeile\r\nZweite Zeile\r\nDritte \x81\x8d\x90\x9d Zeile\r\n"
    error = error_of(data, "de")
    assert error.line == 3
    assert "not UTF-8" in error.message and "0x81" in error.message
    assert "Re-save the file as UTF-8" in error.message


def test_a_bad_utf16_file_names_its_line():
    data = "Zeile eins\nZeile zwei\n".encode("utf-16") + b"\x00\xdc"  # a lone low surrogate
    error = error_of(data, "de")
    assert error.line == 3
    assert "UTF-16" in error.message


# --- normalisation -------------------------------------------------------------------


def test_line_ends_form_feeds_and_nfc():
    data = "Erste\r\nZweite\rDritte\fVierte\n\fFünfte\n\f\nSechste e\u0301".encode()
    text = read_document(data, "de").text
    assert text == "Erste\nZweite\nDritte\n\f\nVierte\n\f\nFünfte\n\f\nSechste é"


def test_private_use_characters_are_kept_for_ligature_repair():
    text = read_document("Die \ue01dnale Wirkung\n".encode(), "de").text
    assert "\ue01d" in text


def test_decode_still_returns_text():
    assert decode(POLISH.encode("cp1250"), "pl") == POLISH


# --- formats -------------------------------------------------------------------------


def test_markdown_by_file_name_and_by_headings():
    assert read_document(b"Titel\nText\n", "de", "regeln.md").format == "markdown"
    assert read_document(b"Titel\nText\n", "de", "REGELN.Markdown").format == "markdown"
    assert read_document(b"# Angriff\nText\n\n## Verteidigung\nText\n", "de").format == "markdown"
    assert read_document(b"# Angriff\nText ohne weitere Ueberschriften\n", "de").format == "text"
    assert read_document(b"#1 Angriff\n#2 Verteidigung\n", "de").format == "text"


def test_rulesite_json_is_recognised():
    data = json.dumps({"format": "rulesite-export", "version": 1, "items": []}, indent=2).encode()
    document = read_document(b"\xef\xbb\xbf  " + data, "en", "export.json")
    assert document.format == "json"
    assert json.loads(document.text)["format"] == "rulesite-export"


def test_invalid_json_names_the_line():
    data = b'{\n  "format": "rulesite-export",\n  "items": [\n    {"title": "A",}\n  ]\n}\n'
    error = error_of(data)
    assert error.line == 4
    assert "not valid JSON" in error.message


def test_json_that_is_not_ours_says_so():
    error = error_of(b'{"name": "Blue Moon", "cards": []}')
    assert "JSON but not a rulesite export" in error.message
    error = error_of(b'{"format": "something-else"}')
    assert "JSON but not a rulesite export" in error.message and "something-else" in error.message


def test_a_file_named_pdf_that_is_not_one():
    error = error_of(b"<html><body>Not found</body></html>", filename="rules.pdf")
    assert "not a PDF" in error.message


# --- not a document ------------------------------------------------------------------


@pytest.mark.parametrize(
    "data", [b"", b"   \n\t\r\n  ", b"\xef\xbb\xbf", b"\xef\xbb\xbf \n", "\n \n".encode("utf-16")]
)
def test_empty(data):
    assert error_of(data).message == "the document is empty"


def test_png():
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    assert "PNG image" in error_of(data).message


def test_zip_says_docx_or_odt():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    message = error_of(buffer.getvalue(), filename="regeln.docx").message
    assert "ZIP archive" in message and ".docx" in message and "save it as text or PDF" in message


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG image"),
        (b"GIF89a\x01\x00\x01\x00", "GIF image"),
        (b"\x1f\x8b\x08\x00\x00\x00", "gzip"),
        (b"{\\rtf1\\ansi Hallo}", "RTF document"),
    ],
)
def test_other_known_binary_formats(data, what):
    assert what in error_of(data).message


def test_unknown_binary_with_nul_bytes():
    assert "binary, not text" in error_of(b"\x7fELF\x02\x01\x01\x00\x00\x00abc").message


def test_unknown_binary_with_control_characters():
    assert "binary, not text" in error_of(bytes(range(1, 9)) * 50 + b"some text").message


# --- PDF -----------------------------------------------------------------------------

HEADER = "Marvel Champions Referenzhandbuch"
PAGES = [
    [
        (
            "Aktivieren",
            "Um eine Karte zu aktivieren, drehe sie um 90 Grad. Die Fähigkeit wird ausgeführt.",
        ),
        ("Angriff", "Ein Angriff fügt dem Gegner Schaden zu, wenn er nicht verteidigt wird."),
    ],
    [
        ("Bereit", "Eine bereite Karte ist nicht erschöpft und kann verwendet werden."),
        ("Zählen", "Zähle die Marker auf der Karte, größere Zahlen zuerst."),
    ],
]


def make_pdf(pages=PAGES) -> bytes:
    from fpdf import FPDF

    class RulesPdf(FPDF):
        def header(self):
            self.set_font("Helvetica", size=8)
            self.cell(0, 6, HEADER, new_x="LMARGIN", new_y="NEXT")
            self.ln(4)

        def footer(self):
            self.set_y(-15)
            self.set_font("Helvetica", size=8)
            self.cell(0, 6, str(self.page_no()), align="C")

    pdf = RulesPdf()
    for entries in pages:
        pdf.add_page()
        for title, body in entries:
            pdf.set_font("Helvetica", "B", 12)
            pdf.multi_cell(0, 7, title, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", size=11)
            pdf.multi_cell(0, 6, body, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(4)
    return bytes(pdf.output())


def test_pdf_pages_are_joined_by_a_form_feed_line():
    document = read_document(make_pdf(), "de", "glossar.pdf")
    assert document.format == "pdf"
    lines = document.text.split("\n")
    assert lines.count("\f") == 1
    first, second = document.text.split("\n\f\n")
    for page, entries, number in [(first, PAGES[0], "1"), (second, PAGES[1], "2")]:
        page_lines = page.split("\n")
        assert page_lines[0] == HEADER
        assert page_lines[-1] == number
        for title, body in entries:
            assert title in page_lines
            assert body in page_lines


def test_pdf_is_detected_by_content_not_name():
    assert read_document(make_pdf(), "de").format == "pdf"
    assert read_document(b"\r\n" + make_pdf(), "de", "upload.bin").format == "pdf"


def test_pdf_imported_end_to_end(db):
    options = ImportOptions(game="g", game_name="G", language="de", kind="glossary")
    report = import_document(make_pdf(), options, filename="x.pdf")
    assert report.input_format == "pdf"
    entries = Entry.objects.filter(game__slug="g", language="de")
    titles = set(entries.values_list("title", flat=True))
    assert titles == {"Aktivieren", "Angriff", "Bereit", "Zählen"}
    aktivieren = entries.get(title="Aktivieren")
    assert "drehe sie um 90 Grad" in aktivieren.body
    assert HEADER not in aktivieren.body
    assert "\f" not in "".join(entries.values_list("body", flat=True))


def test_pdf_encrypted_with_aes_and_only_an_owner_password_reads():
    # Publishers often lock printing/editing with an owner password; readers need none.
    from fpdf import FPDF
    from fpdf.enums import EncryptionMethod

    pdf = FPDF()
    pdf.set_encryption(owner_password="publisher", encryption_method=EncryptionMethod.AES_128)
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Angriff", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, "Ein Angriff fügt dem Gegner Schaden zu.", new_x="LMARGIN", new_y="NEXT")
    document = read_document(bytes(pdf.output()), "de", "locked.pdf")
    assert "Ein Angriff fügt dem Gegner Schaden zu." in document.text


def test_pdf_without_text_layer():
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 50, style="F")
    pdf.add_page()
    pdf.rect(30, 30, 50, 50, style="F")
    message = error_of(bytes(pdf.output()), "de").message
    assert "no text layer" in message and "2 pages" in message and "OCR" in message


def test_truncated_pdf():
    data = make_pdf()
    message = error_of(data[: len(data) // 2], "de", "x.pdf").message
    assert message.startswith("the PDF cannot be read")
    assert "truncated" in message


def _second_page_contents(data: bytes) -> int:
    return int(re.findall(rb"/Contents (\d+) 0 R", data)[1])


def test_pdf_page_whose_text_is_missing_names_the_page():
    data = make_pdf()
    number = _second_page_contents(data)
    damaged = data.replace(b"/Contents %d 0 R" % number, b"/Contents 999 0 R")
    message = error_of(damaged, "de").message
    assert message.startswith("the PDF cannot be read: page 2 of 2 is damaged")


def test_pdf_page_whose_text_cannot_be_decompressed_names_the_page():
    data = make_pdf()
    contents = data.index(b"%d 0 obj" % _second_page_contents(data))
    start = data.index(b"stream\n", contents) + len(b"stream\n")
    end = data.index(b"\nendstream", start)
    damaged = data[:start] + b"\xff" * (end - start) + data[end:]
    message = error_of(damaged, "de").message
    assert message.startswith("the PDF cannot be read: page 2 of 2 is damaged")


def test_pdf_with_only_an_owner_password_is_read():
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf())))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    document = read_document(buffer.getvalue(), "de")
    assert "Aktivieren" in document.text and "\n\f\n" in document.text


def test_password_protected_pdf():
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf())))
    writer.encrypt(user_password="geheim", owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    assert "password-protected" in error_of(buffer.getvalue(), "de").message


def test_garbage_after_the_pdf_magic():
    message = error_of(b"%PDF-1.7\n" + bytes(range(256)) * 4).message
    assert message.startswith("the PDF cannot be read")


# --- any bytes -----------------------------------------------------------------------


def _read_or_refuse(data: bytes, language: str = "en") -> None:
    try:
        document = read_document(data, language)
    except ImportRulesError as error:
        assert error.message
        return
    assert document.format in reading.FORMATS
    assert "\r" not in document.text and document.text.strip()


@settings(max_examples=300, deadline=None)
@given(st.binary())
def test_any_bytes_give_a_document_or_an_import_error(data):
    _read_or_refuse(data)


PREFIXES = [b"", b"%PDF-1.4\n", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"{", b"# ", b"\x89PNG"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PREFIXES), st.binary(), st.sampled_from(["en", "de", "pl", "nl", "xx"]))
def test_any_bytes_after_a_telling_start_give_a_document_or_an_import_error(prefix, data, language):
    _read_or_refuse(prefix + data, language)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="cp1250"), min_size=1))
def test_any_windows_1250_text_reads_or_is_refused(text):
    _read_or_refuse(text.encode("cp1250"), "pl")
