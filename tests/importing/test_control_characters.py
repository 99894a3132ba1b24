"""NUL and other control characters in imported text: refused with the field and the item
named (the canonical JSON), refused with the line (a text file), never a database error.

Run on SQLite and on PostgreSQL (whose text type refuses NUL): DATABASE_URL=postgres://…
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from faq.models import Question
from rules.content.models import Entry, Erratum, Game
from rules.importing import ImportOptions, ImportRulesError, import_document

GAME = {"slug": "kartenspiel", "name": "Kartenspiel"}


def export(**sections) -> dict:
    base = {"format": "rulesite-export", "version": 1, "game": dict(GAME)}
    return {**base, **sections}


def entry(slug: str, **fields) -> dict:
    return {"language": "de", "slug": slug, "title": slug.capitalize(), "body": "Ein Text.", **fields}


def refused(payload: dict) -> ImportRulesError:
    data = json.dumps(payload, indent=2, ensure_ascii=False).encode()
    with pytest.raises(ImportRulesError) as caught:
        import_document(data, ImportOptions(game="", language=""), "export.json")
    return caught.value


def assert_nothing_written():
    assert not Game.objects.exists()
    assert not Entry.objects.exists()
    assert not Erratum.objects.exists()
    assert not Question.objects.exists()


@pytest.mark.django_db
class TestCanonicalJson:
    def test_nul_in_an_entry_body_names_the_item_the_field_and_the_line(self):
        payload = export(entries=[entry("angriff"), entry("bewegung", body="Zieh\x00 eine Karte.")])
        error = refused(payload)
        assert 'entries[1] (slug "bewegung")' in error.message
        assert "body contains a NUL character (U+0000) at character 5" in error.message
        lines = json.dumps(payload, indent=2, ensure_ascii=False).splitlines()
        assert '"body": "Zieh\\u0000 eine Karte."' in lines[error.line - 1]
        assert_nothing_written()

    @pytest.mark.parametrize(
        ("section", "item", "field"),
        [
            ("entries", entry("angriff", title="Angriff\x00"), "title"),
            ("entries", entry("angriff", aliases=["Attacke", "Atta\x00cke"]), "aliases"),
            ("entries", entry("angriff", see_also=["Bewegung\x00"]), "see_also"),
            ("entries", entry("angriff", page="4\x00"), "page"),
            (
                "errata",
                {"language": "de", "slug": "e1", "title": "Erratum", "corrected_text": "Neu\x00er Text."},
                "corrected_text",
            ),
            (
                "questions",
                {"language": "de", "slug": "f1", "question": "Darf ich?", "answer": "Ja\x00."},
                "answer",
            ),
            ("sources", {"language": "de", "title": "Regeln\x00", "kind": "rules_reference"}, "title"),
        ],
    )
    def test_nul_in_any_text_field_of_any_item(self, section, item, field):
        error = refused(export(**{section: [item]}))
        assert f"{section}[0]" in error.message
        assert f"{field} contains a NUL character (U+0000)" in error.message
        assert error.line is not None
        assert_nothing_written()

    def test_nul_in_the_game(self):
        payload = export()
        payload["game"]["localized_names"] = {"pl": "Gra\x00 karciana"}
        error = refused(payload)
        assert "game: localized_names contains a NUL character" in error.message
        assert_nothing_written()

    @pytest.mark.parametrize(
        ("char", "what"),
        [
            ("\x07", "a control character (U+0007)"),
            ("\x1b", "a control character (U+001B)"),
            ("\x0c", "a control character (U+000C)"),
        ],
    )
    def test_other_control_characters(self, char, what):
        error = refused(export(entries=[entry("angriff", body=f"Text{char}mehr")]))
        assert f"body contains {what} at character 5" in error.message
        assert_nothing_written()

    def test_a_lone_surrogate(self):
        data = json.dumps(export(entries=[entry("angriff")])).replace("Ein Text.", "Ein \\ud800Text.").encode()
        with pytest.raises(ImportRulesError) as caught:
            import_document(data, ImportOptions(game="", language=""), "export.json")
        assert "body contains a lone surrogate (U+D800)" in caught.value.message
        assert_nothing_written()

    def test_tabs_and_line_ends_are_text(self):
        body = "Erste Zeile\n\tEingerückt\r\nDritte"
        import_document(
            json.dumps(export(entries=[entry("angriff", body=body)])).encode(),
            ImportOptions(game="", language=""),
            "export.json",
        )
        assert Entry.objects.get(slug="angriff").body == body

    def test_the_command_reports_it_as_an_error(self, tmp_path):
        path = tmp_path / "export.json"
        path.write_text(json.dumps(export(entries=[entry("angriff", body="A\x00B")]), indent=1))
        with pytest.raises(CommandError) as caught:
            call_command("import_rules", str(path), "--game", GAME["slug"], "--language", "de", stdout=io.StringIO())
        assert 'entries[0] (slug "angriff")' in str(caught.value)
        assert "NUL character" in str(caught.value)
        assert_nothing_written()


@pytest.mark.django_db
class TestPlainText:
    def test_a_nul_byte_in_a_text_file_names_its_line(self):
        data = b"Angriff\nEin Angriff ist eine Aktion.\nZweite \x00Zeile\n"
        with pytest.raises(ImportRulesError) as caught:
            import_document(data, ImportOptions(game="g", game_name="G", language="de"))
        assert caught.value.line == 3
        assert "NUL" in caught.value.message
        assert_nothing_written()

    def test_a_nul_in_pasted_text_names_its_line(self):
        with pytest.raises(ImportRulesError) as caught:
            import_document("Angriff\n\nText mit \x00 darin.\n", ImportOptions(game="g", game_name="G", language="de"))
        assert caught.value.line == 3
        assert_nothing_written()

    def test_other_control_characters_in_text_are_dropped(self):
        # Two stray controls in a page of text (many would mean a binary file).
        body = "Ein Angriff ist eine Aktion, bei der eine Einheit eine feindliche Einheit bekämpft. " * 3
        import_document(
            f"Angriff\nEin An\x07griff ist eine \x1bAktion.\n{body}\n",
            ImportOptions(game="g", game_name="G", language="de", kind="glossary"),
        )
        assert Entry.objects.get().body.startswith("Ein Angriff ist eine Aktion.")


def test_normalised_text_holds_no_lone_surrogate():
    # A PDF's text layer can hold one; no database driver could send it.
    from rules.importing.reading import normalise

    assert normalise("Kar\ud83dte\x07n") == "Karten"
