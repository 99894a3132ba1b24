"""Three versions of a numbered rules document, imported one after the other as releases.

The documents and their expected change lists (``documents/releases/*/``; English unless a
set has a ``language.txt``) were written
by someone who did not write the importer: rules inserted in the middle of a list (its
siblings shift), removed, reworded, reworded *and* renumbered, an old number given to a
new rule, a text replaced outright under its number. Each import's change list must be
exactly the expected one; and afterwards each entry reads as it was in each release,
keeps its id through renumberings, and an old number still finds its rule.
"""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from rules.content.models import Entry, EntryRedirect, Game
from rules.content.releases import Release, ReleaseChange, entry_as_of, former_number
from tests.module_world import fixtures

DOCUMENTS = Path(__file__).parent / "documents" / "releases"
SETS = sorted(path.name for path in DOCUMENTS.iterdir() if path.is_dir())


def language(name: str) -> str:
    """The set's language: its ``language.txt`` if it has one, else English."""
    marker = DOCUMENTS / name / "language.txt"
    return marker.read_text(encoding="utf-8").strip() if marker.exists() else "en"


def import_version(name: str, version: str, *extra) -> dict:
    out = io.StringIO()
    call_command(
        "import_rules", str(DOCUMENTS / name / f"{version}.txt"), "--game", name, "--game-name", name.title(),
        "--language", language(name), "--kind", "rulebook", "--source-title", "Comprehensive Rules",
        "--source-version", version, "--prune", "--format", "json", *extra, stdout=out,
    )  # fmt: skip
    return json.loads(out.getvalue())


def is_rule(number: str) -> bool:
    """A rule's number ("100.1", "601.2a"), not a section's ("1", "100")."""
    return "." in number


def as_expected(changes: list[dict]) -> list[dict]:
    """The report's change lines of rules in the expected file's shape and order."""
    keys = ("change", "number", "previous_number", "title")
    lines = [
        {key: line[key] for key in keys if key in line}
        for line in changes
        if line["type"] == "entry" and is_rule(line["number"])
    ]
    return sorted(lines, key=lambda line: (line["change"], line["number"], line.get("previous_number", "")))


def heading_changes(changes: list[dict]) -> set[tuple]:
    """The report's lines about sections: (change, number, title, title before)."""
    return {
        (line["change"], line["number"], line["title"], line.get("previous_title", ""))
        for line in changes
        if line["type"] == "entry" and not is_rule(line["number"])
    }


def document_headings(name: str, version: str) -> dict[str, str]:
    """Number → title of the sections of a version ("301. Flocks"), read from the file."""
    out = {}
    for line in (DOCUMENTS / name / f"{version}.txt").read_text(encoding="utf-8").splitlines():
        number, _, title = line.partition(" ")
        if number.endswith(".") and number[:-1].isdigit() and title.strip():
            out[number[:-1]] = title.strip()
    return out


def texts(game: str) -> dict[str, str]:
    """Number → body of the game's entries now."""
    return {e.number: e.body for e in Entry.objects.published().filter(game__slug=game) if e.body}


def document_texts(name: str, version: str) -> dict[str, str]:
    """Number → text of the numbered rules of a version, read straight from the file."""
    out = {}
    for line in (DOCUMENTS / name / f"{version}.txt").read_text(encoding="utf-8").splitlines():
        number, _, text = line.partition(" ")
        if number[:1].isdigit() and "." in number[:-1] and len(text.split()) > 6:
            out[number.rstrip(".")] = text.strip()
    return out


VERSIONS = ("v1", "v2", "v3")


def import_each_version(document_set: str) -> dict:
    """The set's versions imported one after the other: for each, its import's report
    and, right after it, the game's entries with a text (id, text) and their texts by
    number."""
    imported = {}
    for version in VERSIONS:
        report = import_version(document_set, version)
        entries = list(Entry.objects.filter(game__slug=document_set).exclude(body="").values_list("pk", "body"))
        imported[version] = {"report": report, "entries": entries, "texts": texts(document_set)}
    return imported


# The document set, module-scoped: pytest runs the tests grouped by it, and the three
# imports of each set are made once for the tests that read them (tests.module_world).
@pytest.fixture(scope="module", params=SETS)
def document_set(request):
    return request.param


_imported_of_the_module, imported = fixtures(import_each_version, "imported", by=("document_set",))


def test_each_release_lists_exactly_what_changed(document_set, imported):
    name = document_set
    expected = json.loads((DOCUMENTS / name / "expected.json").read_text(encoding="utf-8"))
    first = imported["v1"]["report"]
    assert first["release"] == "v1"
    assert {line["change"] for line in first["changes"]} == {"added"}
    previous = {"v2": "v1", "v3": "v2"}
    for version in ("v2", "v3"):
        report, now = imported[version]["report"], imported[version]["texts"]
        assert as_expected(report["changes"]) == sorted(
            expected[version], key=lambda line: (line["change"], line["number"], line.get("previous_number", ""))
        ), version
        assert now == {**now, **document_texts(name, version)}
        # A section renamed under its number is that section, re-titled; its rules'
        # titles made from it are listed above, re-titled too.
        then, now = document_headings(name, previous[version]), document_headings(name, version)
        assert heading_changes(report["changes"]) == (
            {("retitled", n, now[n], then[n]) for n in then.keys() & now.keys() if then[n] != now[n]}
            | {("added", n, now[n], "") for n in now.keys() - then.keys()}
            | {("removed", n, then[n], then[n]) for n in then.keys() - now.keys()}
        ), version
    # The stored releases say the same, in order.
    source_releases = Release.objects.filter(source__game__slug=name).order_by("sequence")
    assert [r.version for r in source_releases] == ["v1", "v2", "v3"]
    for release in source_releases[1:]:
        stored = sorted(
            (c.change, c.number, c.previous_number if c.previous_number not in ("", c.number) else "")
            for c in release.changes.filter(item_type="entry")
            if is_rule(c.number)
        )
        listed = sorted(
            (line["change"], line["number"], line.get("previous_number", "")) for line in expected[release.version]
        )
        assert stored == listed


@pytest.mark.django_db
@pytest.mark.parametrize("name", SETS)
def test_an_unchanged_reimport_lists_nothing_and_a_new_label_makes_an_empty_release(name):
    import_version(name, "v1")
    again = import_version(name, "v1")
    assert again["changes"] == []
    assert again["updates"] == []
    relabelled = import_version(name, "v1", "--source-version", "v1-reprint")
    assert relabelled["changes"] == []
    release = Release.objects.get(source__game__slug=name, version="v1-reprint")
    assert release.changes.count() == 0


def test_entries_read_as_each_release_had_them(document_set, imported):
    name = document_set
    ids_by_text: dict[str, int] = {}
    for version in VERSIONS:
        for pk, body in imported[version]["entries"]:
            # A rule keeps its identity: the same text is always the same entry.
            assert ids_by_text.setdefault(body, pk) == pk
    releases = {r.version: r for r in Release.objects.filter(source__game__slug=name)}
    for version, release in releases.items():
        wanted = document_texts(name, version)
        seen = {}
        for entry in Entry.objects.filter(game__slug=name).exclude(body=""):
            then = entry_as_of(entry, release)
            if then.exists:
                assert then.number not in seen, (version, then.number)  # one rule a number
                seen[then.number] = then.text
        # Exactly the version's numbers and texts …
        assert seen.items() <= wanted.items(), version
        # … but for the rules a later release removed (their entries are gone).
        removed_later = set(
            ReleaseChange.objects.filter(
                release__source=release.source, release__sequence__gt=release.sequence, change="removed"
            ).values_list("previous_text", flat=True)
        )
        assert {wanted[number] for number in set(wanted) - set(seen)} <= removed_later, version


def test_an_old_number_finds_where_its_rule_went(document_set, imported):
    name = document_set
    expected = json.loads((DOCUMENTS / name / "expected.json").read_text(encoding="utf-8"))
    game = Game.objects.get(slug=name)
    moves = {version: {c["previous_number"]: c["number"] for c in expected[version] if c.get("previous_number")}
             for version in ("v2", "v3")}  # fmt: skip
    assert moves["v2"] and moves["v3"]
    # The latest move of each old number, followed to the rule's number now.
    latest = {old: moves["v3"].get(new, new) for old, new in moves["v2"].items()}
    latest.update(moves["v3"])
    for old, now in latest.items():
        change = former_number(game.pk, language(name), old)
        assert change is not None, old
        entry = Entry.objects.get(pk=change.item_id)
        assert entry.number == now, (old, now)
        assert old in [former["number"] for former in entry.relations["previous_numbers"]]
    # Where an old number now belongs to another rule, that rule's page can say so.
    for old in latest:
        holder = Entry.objects.filter(game=game, number=old).first()
        if holder is not None:
            assert holder.relations["number_before"]["number_then"] == old
            assert Entry.objects.get(pk=holder.relations["number_before"]["id"]).number != old
    # A renumbered rule's old slug leads to it.
    for redirect in EntryRedirect.objects.filter(game=game):
        assert redirect.old_slug != redirect.entry.slug


@pytest.mark.django_db
def test_an_earlier_release_cannot_be_imported_into():
    name = SETS[0]
    import_version(name, "v1")
    import_version(name, "v2")
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="earlier release"):
        import_version(name, "v3", "--source-version", "v1")
    assert ReleaseChange.objects.filter(release__version="v1").count() > 0
    assert not Release.objects.filter(version="v3").exists()


@pytest.mark.django_db
def test_an_upcoming_release_changes_nothing_until_its_day_and_then_applies_itself():
    from datetime import datetime, time, timedelta

    import time_machine
    from django.utils import timezone

    from tests.builds import run_background_tasks

    name = SETS[0]
    expected = json.loads((DOCUMENTS / name / "expected.json").read_text(encoding="utf-8"))
    import_version(name, "v1")
    before = texts(name)
    day = timezone.localdate() + timedelta(days=3)
    report = import_version(name, "v2", "--effective-date", day.isoformat())

    # Planned, listed, and nothing on the site changed.
    assert report["upcoming"] == day.isoformat()
    assert as_expected(report["changes"]) == sorted(
        expected["v2"], key=lambda line: (line["change"], line["number"], line.get("previous_number", ""))
    )
    assert texts(name) == before
    release = Release.objects.get(source__game__slug=name, version="v2")
    assert release.pending and release.upcoming
    assert release.changes.count() == len(expected["v2"])
    # Entries keep no trace of it yet: no old numbers, no history step.
    assert not any(e.relations.get("previous_numbers") for e in Entry.objects.filter(game__slug=name))

    # The worker's task waits for the day …
    assert run_background_tasks() == 0
    assert texts(name) == before
    with time_machine.travel(timezone.make_aware(datetime.combine(day - timedelta(days=1), time(23, 59)))):
        assert run_background_tasks() == 0
        assert texts(name) == before
    # … and runs once it has come.
    with time_machine.travel(timezone.make_aware(datetime.combine(day, time(0, 1)))):
        assert run_background_tasks() == 1
    release.refresh_from_db()
    assert not release.pending and release.pending_document is None
    assert texts(name) == {**texts(name), **document_texts(name, "v2")}
    stored = sorted((c.change, c.number) for c in release.changes.filter(item_type="entry"))
    assert stored == sorted((line["change"], line["number"]) for line in expected["v2"])
    assert all(c.item_id for c in release.changes.all())


@pytest.mark.django_db
def test_a_version_held_for_review_changes_nothing_is_not_public_and_the_worker_leaves_it(client):
    from django.test import Client

    from rules.importing import ImportOptions, import_document
    from rules.importing.due import apply_due, apply_release
    from rules.importing.pipeline import SourceInfo
    from tests.builds import run_background_tasks

    name = SETS[0]
    import_version(name, "v1")
    before = texts(name)
    options = ImportOptions(
        game=name, language="en", kind="rulebook", prune=True, hold=True, status="draft",
        source=SourceInfo(title="Comprehensive Rules", version="v2"),
    )  # fmt: skip
    report = import_document((DOCUMENTS / name / "v2.txt").read_bytes(), options)
    assert report.held and report.changes
    release = Release.objects.get(source__game__slug=name, version="v2")
    assert release.held and release.pending and not release.upcoming
    assert texts(name) == before
    reader = Client()
    assert reader.get(release.get_absolute_url()).status_code == 404
    assert [r["version"] for r in reader.get(f"/api/v1/sources/{release.source_id}/").json()["releases"]] == ["v1"]
    assert run_background_tasks() == 0 and apply_due() == []
    assert texts(name) == before

    applied = apply_release(release, status="published")
    assert {line.change for line in applied.changes} == {line.change for line in report.changes}
    release.refresh_from_db()
    assert not release.held and not release.pending and release.effective_on is not None
    assert texts(name) == {**texts(name), **document_texts(name, "v2")}
    removed = set(release.changes.filter(change="removed").values_list("item_id", flat=True))
    assert removed and set(Entry.objects.filter(pk__in=removed).values_list("status", flat=True)) == {"archived"}
    assert set(Entry.objects.filter(game__slug=name).exclude(pk__in=removed).values_list("status", flat=True)) == {
        "published"
    }
    assert reader.get(release.get_absolute_url()).status_code == 200


@pytest.mark.django_db
def test_publishing_a_release_publishes_every_draft_it_lists_and_counts_them():
    from rules.moderation.releases import publish_release

    name = SETS[0]
    import_version(name, "v1")
    import_version(name, "v2", "--status", "draft")
    release = Release.objects.get(source__game__slug=name, version="v2")
    drafts = set(Entry.objects.filter(game__slug=name, status="draft").values_list("pk", flat=True))
    assert drafts == set(release.changes.filter(change="added").values_list("item_id", flat=True))
    done = publish_release(release)
    listed = release.changes.exclude(change="removed").count()
    assert (done.changed, done.already, done.withheld) == (len(drafts), listed - len(drafts), 0)
    assert not Entry.objects.filter(game__slug=name, status="draft").exists()


BLUE_MOON = Path("rules/demo/blue-moon-nl-speciale-regels.txt")


def import_blue_moon(version: str, *extra, path: Path = BLUE_MOON) -> dict:
    out = io.StringIO()
    call_command(
        "import_rules", str(path), "--game", "blue-moon", "--game-name",
        "Blue Moon", "--language", "nl", "--kind", "rulebook", "--source-title", "Blue Moon: spelregels",
        "--source-version", version, "--format", "json", *extra, stdout=out,
    )  # fmt: skip
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_the_title_pattern_is_the_source_s_and_a_re_title_keeps_the_former_titles_as_aliases(client):
    from rules.content.models import CrossReference
    from tests.factories import make_entry

    first = import_blue_moon("1", "--numbered-title", "Regel {number}")
    assert {line["title"] for line in first["changes"] if line["number"]} == {f"Regel {n}" for n in range(1, 12)}
    # Imported again without a pattern (as the admin upload does): the source's own one.
    again = import_blue_moon("1")
    assert again["changes"] == [] and again["updates"] == []

    # A new pattern given on purpose re-titles every rule, and says so, rule by rule.
    retitled = import_blue_moon("2", "--numbered-title", "Speciale regel {number}")
    assert retitled["change_counts"] == {"reworded": 0, "retitled": 11, "renumbered": 0, "added": 0, "removed": 0}
    eight = next(line for line in retitled["changes"] if line["number"] == "8")
    assert (eight["title"], eight["previous_title"]) == ("Speciale regel 8", "Regel 8")
    # The former title still names the rule: an alias, so links and lookups find it.
    rule = Entry.objects.get(game__slug="blue-moon", number="8")
    assert rule.aliases == ["Regel 8"]
    asking = make_entry(game=rule.game, language="nl", title="Handkaarten", see_also=["Regel 8"])
    assert CrossReference.objects.get(entry=asking).target == rule
    found = client.get("/api/v1/search/", {"q": "Regel 8", "game": "blue-moon", "language": "nl"}).json()
    assert found["results"][0]["id"] == rule.pk

    # The next version, imported without a pattern, titles as the source now does and keeps the aliases.
    later = import_blue_moon("3")
    assert later["changes"] == [] and later["updates"] == []
    assert Entry.objects.get(pk=rule.pk).aliases == ["Regel 8"]


@pytest.mark.django_db
def test_a_title_a_moderator_gave_a_numbered_rule_survives_its_renumbering():
    name = SETS[0]
    import_version(name, "v1")
    expected = json.loads((DOCUMENTS / name / "expected.json").read_text(encoding="utf-8"))
    moved = next(line for line in expected["v2"] if line["change"] == "renumbered")
    entry = Entry.objects.get(game__slug=name, number=moved["previous_number"])
    entry.title = "Counting cards"
    entry.save()
    report = import_version(name, "v2")
    line = next(line for line in report["changes"] if line.get("previous_number") == moved["previous_number"])
    assert (line["change"], line["title"], line["number"]) == ("renumbered", "Counting cards", moved["number"])
    assert Entry.objects.get(pk=entry.pk).title == "Counting cards"


@pytest.mark.django_db
def test_a_source_imported_before_it_had_versions_reads_as_first_imported(client):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    name = SETS[0]
    then = timezone.localdate() - timedelta(days=10)
    with time_machine.travel(then.isoformat() + " 12:00"):
        call_command(
            "import_rules", str(DOCUMENTS / name / "v1.txt"), "--game", name, "--game-name", name.title(),
            "--language", "en", "--kind", "rulebook", "--source-title", "Comprehensive Rules", stdout=io.StringIO(),
        )  # fmt: skip
    assert not Release.objects.exists()  # imported before it had versions
    import_version(name, "v2")
    first, second = Release.objects.filter(source__game__slug=name).order_by("sequence")
    assert first.initial and first.label == "as first imported" and second.version == "v2"
    assert first.effective_on == then  # the day of the first import
    # The v2 change list is read against the first import, exactly as from v1.
    expected = json.loads((DOCUMENTS / name / "expected.json").read_text(encoding="utf-8"))
    assert sorted((c.change, c.number) for c in second.changes.filter(item_type="entry")) == sorted(
        (line["change"], line["number"]) for line in expected["v2"]
    )
    # A reworded rule reads as first imported, by the release's label or by the day.
    line = next(line for line in expected["v2"] if line["change"] == "reworded")
    entry = Entry.objects.get(game__slug=name, number=line["number"])
    old = document_texts(name, "v1")[line["number"]]
    for as_of in ("first-import", (then + timedelta(days=3)).isoformat()):
        page = client.get(entry.get_absolute_url(), {"as_of": as_of})
        assert page.status_code == 200 and old in page.content.decode().replace("&#x27;", "'"), as_of


# serialized_rollback: the flush after it then leaves the content types as the browser
# and live-server tests that follow restore them (else a UNIQUE error in their setup).
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_migration_gives_every_source_a_first_release_and_splits_changed(client):
    out = io.StringIO()
    call_command(
        "import_rules", str(BLUE_MOON), "--game", "blue-moon", "--game-name", "Blue Moon", "--language", "nl",
        "--kind", "rulebook", "--source-title", "Blue Moon: spelregels", stdout=out,
    )  # fmt: skip
    name = SETS[0]
    for version in ("v1", "v2"):
        import_version(name, version)
    reworded = sorted(
        ReleaseChange.objects.filter(release__version="v2", change="reworded").values_list("pk", flat=True)
    )
    assert reworded and not Release.objects.filter(source__game__slug="blue-moon").exists()
    try:
        call_command("migrate", "rules", "0023", verbosity=0)  # before releases had kinds of change
    finally:
        call_command("migrate", verbosity=0)
    # "changed" became reworded again (their diffs change words); no source lost a release.
    assert sorted(ReleaseChange.objects.filter(change="reworded").values_list("pk", flat=True)) == reworded
    assert not Release.objects.filter(source__game__slug=name, initial=True).exists()
    # The source imported before it had versions reads as first imported.
    first = Release.objects.get(source__game__slug="blue-moon")
    assert first.initial and first.version == "first-import" and first.sequence == 0
    rules = Entry.objects.filter(source=first.source)
    assert first.changes.filter(change="added").count() == rules.count() > 10
    entry = rules.exclude(body="").first()
    assert client.get(entry.get_absolute_url(), {"as_of": "first-import"}).status_code == 200


@pytest.mark.django_db
def test_a_manifest_s_version_of_a_source_without_releases_is_a_release_of_its_own():
    """A manifest updates the source's details (its version too) before the version is
    written: the first release is still labelled with the version the source had."""
    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    name = SETS[0]
    call_command(
        "import_rules", str(DOCUMENTS / name / "v1.txt"), "--game", name, "--game-name", name.title(),
        "--language", "en", "--kind", "rulebook", "--source-title", "Comprehensive Rules", stdout=io.StringIO(),
    )  # fmt: skip
    options = ImportOptions(
        game=name, language="en", kind="rulebook", prune=True,
        source=SourceInfo(title="Comprehensive Rules", version="v2", update_existing=True),
    )  # fmt: skip
    import_document((DOCUMENTS / name / "v2.txt").read_bytes(), options)
    first, second = Release.objects.filter(source__game__slug=name).order_by("sequence")
    assert first.initial and first.label == "as first imported"
    expected = json.loads((DOCUMENTS / name / "expected.json").read_text(encoding="utf-8"))
    assert second.version == "v2" and second.changes.filter(item_type="entry").count() == len(expected["v2"])
