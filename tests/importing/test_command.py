"""``manage.py import_rules`` as a moderator or a script uses it."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from rules.content.models import Entry, Game

GLOSSARY = """\
Exhaust
To exhaust a card, turn it sideways. An exhausted card cannot be exhausted again
until it is readied.
Related: Ready

Ready
To ready a card, turn it upright.
See also: Exhaust, Round, and Phase
"""


@pytest.fixture
def document(tmp_path):
    path = tmp_path / "rules-reference.txt"
    path.write_text(GLOSSARY, encoding="utf-8")
    return path


def run(*args) -> str:
    out = io.StringIO()
    call_command("import_rules", *map(str, args), stdout=out)
    return out.getvalue()


@pytest.mark.django_db
class TestImportRules:
    def test_dry_run_json_is_one_object_with_the_documented_fields(self, document):
        out = run(
            document,
            "--game",
            "tc",
            "--game-name",
            "Test Cards",
            "--language",
            "en",
            "--kind",
            "auto",
            "--dry-run",
            "--format",
            "json",
        )
        report = json.loads(out)
        assert report["detected_kind"] == "glossary"
        assert [item["title"] for item in report["items"]] == ["Exhaust", "Ready"]
        exhaust = report["items"][0]
        assert exhaust["type"] == "entry"
        assert exhaust["cross_references"] == ["Ready"]
        assert report["items"][1]["cross_references"] == ["Exhaust", "Round", "Phase"]
        assert "until it is readied." in exhaust["body"]
        assert set(exhaust) >= {"type", "title", "number", "parent", "aliases", "body", "cross_references"}
        assert report["created"] == ["Exhaust", "Ready"]
        assert report["updated"] == [] and report["unchanged"] == []
        assert isinstance(report["repairs"], list) and isinstance(report["warnings"], list)
        assert not Game.objects.exists()  # a dry run writes nothing, not even the game

    def test_text_report_names_the_document_and_what_was_detected(self, document):
        out = run(document, "--game", "tc", "--game-name", "Test Cards", "--language", "en")
        assert "rules-reference.txt: detected glossary (text); 2 items (glossary): 2 created" in out
        assert Entry.objects.get(title="Exhaust").source.title == "rules-reference"

    def test_a_source_title_as_long_as_allowed_imports_with_a_shortened_history_reason(self, document):
        title = "Official Rules Reference, " + "revised edition with every clarification " * 7
        title = title[:300]  # Source.title's limit; the history's reason field holds 100
        run(document, "--game", "tc", "--game-name", "Test Cards", "--language", "en", "--source-title", title)
        entry = Entry.objects.get(title="Exhaust")
        assert entry.source.title == title
        reason = entry.history.get().history_change_reason
        assert reason.startswith("import: Official Rules Reference, revised") and len(reason) <= 100

    def test_warnings_name_their_line(self, tmp_path):
        path = tmp_path / "page.txt"
        path.write_text("continues from the previous page.\nRelated: Ready\n\n" + GLOSSARY, encoding="utf-8")
        report = json.loads(
            run(path, "--game", "tc", "--game-name", "T", "--language", "en", "--dry-run", "--format", "json")
        )
        assert any(w["line"] == 1 and "fragment" in w["message"] for w in report["warnings"])

    def test_an_unknown_game_needs_a_name(self, document):
        with pytest.raises(CommandError, match="unknown game 'nope'"):
            run(document, "--game", "nope", "--language", "en")

    def test_a_text_document_needs_its_language(self, document):
        with pytest.raises(CommandError, match="say which language"):
            run(document, "--game", "tc", "--game-name", "Test Cards")

    def test_a_missing_file_is_a_clear_error(self, tmp_path):
        with pytest.raises(CommandError, match="cannot read .*missing.txt"):
            run(tmp_path / "missing.txt", "--game", "tc", "--language", "en")

    def test_an_unreadable_file_names_the_problem_and_writes_nothing(self, tmp_path):
        path = tmp_path / "scan.txt"
        path.write_bytes(b"")
        with pytest.raises(CommandError, match="scan.txt: .*empty"):
            run(path, "--game", "tc", "--game-name", "Test Cards", "--language", "en")
        assert not Game.objects.exists()

    def test_prune_reports_what_it_archived_or_deleted(self, document, tmp_path):
        run(document, "--game", "tc", "--game-name", "Test Cards", "--language", "en")
        shorter = tmp_path / "rules-reference.txt"
        shorter.write_text(GLOSSARY.split("\n\n")[0] + "\n", encoding="utf-8")
        report = json.loads(run(shorter, "--game", "tc", "--language", "en", "--prune", "--format", "json"))
        assert report["archived"] == ["Ready"] and report["deleted"] == []  # archived unless asked otherwise
        assert list(Entry.objects.published().values_list("title", flat=True)) == ["Exhaust"]
        run(document, "--game", "tc", "--language", "en")  # back again
        report = json.loads(
            run(shorter, "--game", "tc", "--language", "en", "--prune", "--removed", "delete", "--format", "json")
        )
        assert report["deleted"] == ["Ready"]
        assert list(Entry.objects.values_list("title", flat=True)) == ["Exhaust"]
