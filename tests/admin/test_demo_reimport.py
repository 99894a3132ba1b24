"""The demo's own numbered document re-imported through the admin as a moderator would:
Blue Moon's "Speciale Regels" with one rule inserted, as a new version, with nothing
said about how its rules are titled.

The demo titles them "Regel N" (rules/demo/manifest.toml); the upload must keep that
(the source remembers its pattern), count exactly one rule added and the eight after it
renumbered, re-title nothing, and say so the same way on the preview, the result, the
review page, the public page and the API."""

import io
import re

import pytest
from django.core.management import call_command

from rules.content.models import Entry, EntryRedirect, Source
from rules.content.releases import Release
from tests.admin.test_import_jobs import decide
from tests.admin.test_import_upload import IMPORT_URL, client_, html, moderator, section
from tests.builds import run_background_tasks

__all__ = ["client_", "moderator"]

pytestmark = pytest.mark.django_db

DEMO = "rules/demo/blue-moon-nl-speciale-regels.txt"
INSERTED = (
    "Als een speler een kaart speelt die hij niet mag spelen, neemt hij deze terug in zijn hand "
    "en speelt hij in plaats daarvan een andere kaart."
)
COUNTS = "reworded: 0, re-titled: 0, renumbered: 8, added: 1, removed: 0"


def with_a_rule_inserted_after(number: int) -> str:
    """The demo document with a new rule after rule ``number``; the rules after it move up one."""
    lines = []
    for line in open(DEMO, encoding="utf-8").read().splitlines():
        found = re.match(r"^(\d+)\. (.*)$", line)
        if found and int(found.group(1)) > number:
            line = f"{int(found.group(1)) + 1}. {found.group(2)}"
        lines.append(line)
        if found and int(found.group(1)) == number:
            lines.append(f"{number + 1}. {INSERTED}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def demo(db):
    call_command("load_demo", stdout=io.StringIO())
    return Source.objects.get(game__slug="blue-moon")


def upload_version(client, source, text: str, version: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = {
        "game": source.game.pk, "language": "nl", "kind": "rulebook", "source_title": source.title,
        "source_version": version, "hold": "", "status": "published",
        "file": SimpleUploadedFile("speciale-regels.txt", text.encode()),
    }  # fmt: skip
    return client.post(IMPORT_URL, data, follow=True)


def test_the_demo_rulebook_reimported_with_one_rule_inserted_renames_nothing(client_, demo):
    before = {entry.pk: entry.title for entry in Entry.objects.filter(source=demo)}
    assert set(before.values()) >= {f"Regel {n}" for n in range(1, 12)}

    preview = upload_version(client_, demo, with_a_rule_inserted_after(3), "2")
    assert COUNTS in section(preview, "import-version-counts")
    decide(client_, preview)
    run_background_tasks()
    result = client_.get(preview.redirect_chain[-1][0])
    assert COUNTS in section(result, "import-version-counts")

    # Every rule kept its title's form; the eight after the new one follow their numbers.
    numbered = {entry.number: entry for entry in Entry.objects.filter(source=demo).exclude(number="")}
    assert {number: entry.title for number, entry in numbered.items()} == {
        str(n): f"Regel {n}" for n in range(1, 13)
    }
    assert numbered["4"].body == INSERTED and numbered["4"].pk not in before
    assert all(numbered[str(n + 1)].pk == pk for n in range(4, 12) for pk in [
        next(pk for pk, title in before.items() if title == f"Regel {n}")
    ])  # fmt: skip
    # A renumbered rule's old address leads to where it is now, or is the new rule's.
    assert EntryRedirect.objects.filter(entry=numbered["12"], old_slug="regel-11").exists()

    release = Release.objects.get(source=demo, version="2")
    review = client_.get(f"/admin/rules/release/{release.pk}/review/")
    assert COUNTS in section(review, "release-counts")
    assert "Re-titled" not in html(review)
    page = client_.get(release.get_absolute_url().replace("/nl/", "/en/", 1)).content.decode()
    assert "Rules renumbered <span class=\"count\">(8)</span>" in page and "Rules re-titled" not in page
    api = client_.get(f"/api/v1/releases/{release.pk}/").json()
    assert api["counts"] == {"reworded": 0, "retitled": 0, "renumbered": 8, "added": 1, "removed": 0}
