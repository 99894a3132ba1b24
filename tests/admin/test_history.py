"""Every change leaves a version with who and why; the history reads as diffs; revert is one step.

Versions are made the ways the site makes them: an admin edit, an import, the
``import_rules`` command, a bulk status action and a plain ``save()`` in code. The
history page and the revert confirmation are read as a moderator sees them.
"""

import html
import io
import re
from http import HTTPStatus

import pytest
from django.core.management import call_command

from rules.content.models import Entry
from rules.content.querysets import Status
from rules.importing import ImportOptions, import_document
from rules.importing.pipeline import SourceInfo
from tests.admin.test_edit_conflicts import change_url, open_form
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source
from tests.module_world import fixtures

GLOSSARY = """\
Exhaust
To exhaust a card, turn it sideways.
See also: Ready

Ready
To ready a card, turn it upright.
"""


def history_url(obj) -> str:
    opts = obj._meta
    return f"/admin/{opts.app_label}/{opts.model_name}/{obj.pk}/history/"


def revert_url(obj, version) -> str:
    opts = obj._meta
    return f"/admin/{opts.app_label}/{opts.model_name}/{obj.pk}/history/{version.history_id}/revert/"


def history_rows(client, obj) -> list[str]:
    """The history table's rows as text (newest first), tags stripped, spaces collapsed."""
    response = client.get(history_url(obj))
    assert response.status_code == HTTPStatus.OK
    rows = re.findall(r'<tr class="history-version".*?</tr>', response.content.decode(), re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split()) for row in rows]


def edit(client, obj, **changes):
    form = open_form(client, obj)
    form.update(changes)
    response = client.post(change_url(obj), form)
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:3000]
    obj.refresh_from_db()


def build_entry():
    return make_entry(title="Exhaust", body="To exhaust a card, turn it sideways.", see_also=["Ready"])


# Written once for the module's tests that read it (tests.module_world).
_entry_of_the_module, entry = fixtures(build_entry, "entry")


class TestEveryChangeIsAVersionWithWhoAndWhy:
    def test_an_admin_edit(self, moderator_client, entry):
        edit(moderator_client, entry, body="To exhaust a card, turn it sideways. It cannot attack.")
        newest = history_rows(moderator_client, entry)[0]
        assert "mod" in newest
        assert "It cannot attack." in newest

    def test_an_import(self, moderator_client, db):
        options = ImportOptions(
            game="tc",
            game_name="Test Cards",
            language="en",
            kind="glossary",
            source=SourceInfo(title="Rules Reference"),
        )
        import_document(GLOSSARY, options)
        entry = Entry.objects.get(title="Exhaust")
        assert "import: Rules Reference" in history_rows(moderator_client, entry)[0]

    def test_the_import_rules_command(self, moderator_client, tmp_path):
        path = tmp_path / "reference.txt"
        path.write_text(GLOSSARY, encoding="utf-8")
        args = ["--game", "tc", "--game-name", "Test Cards", "--language", "en"]
        call_command("import_rules", str(path), *args, stdout=io.StringIO())
        entry = Entry.objects.get(title="Ready")
        assert "import: reference" in history_rows(moderator_client, entry)[0]

    def test_a_bulk_status_action(self, moderator_client, db):
        drafts = [make_entry(status=Status.DRAFT), make_entry(status=Status.DRAFT)]
        response = moderator_client.post(
            "/admin/rules/entry/", {"action": "publish", "_selected_action": [e.pk for e in drafts]}
        )
        assert response.status_code == HTTPStatus.FOUND
        for draft in drafts:
            newest = history_rows(moderator_client, draft)[0]
            assert "mod" in newest and "published" in newest
            assert "Draft → Published" in newest

    def test_a_save_in_code(self, moderator_client, entry):
        entry.refresh_from_db()
        entry.aliases = ["Exhausted"]
        entry.save()
        newest = history_rows(moderator_client, entry)[0]
        assert "no user (a script or the system)" in newest
        assert "Aliases added: Exhausted" in newest


class TestTheHistoryPage:
    def test_a_body_change_is_a_word_diff(self, moderator_client, entry):
        edit(moderator_client, entry, body="To exhaust a card, rotate it sideways.")
        page = moderator_client.get(history_url(entry)).content.decode()
        assert "<del>turn</del><ins>rotate</ins>" in page

    def test_aliases_and_see_also_changes_are_items_added_removed_and_reordered(self, moderator_client, entry):
        entry.refresh_from_db()
        entry.aliases = ["Exhausted", "Tap"]
        entry.see_also = ["Ready", "Attack"]
        entry.save()
        entry.see_also = ["Attack", "Ready"]
        entry.aliases = ["Tap"]
        entry.save()
        newest, before, _first = history_rows(moderator_client, entry)
        assert "See also reordered" in newest and "Aliases removed: Exhausted" in newest
        assert "Aliases added: Exhausted, Tap" in before and "See also added: Attack" in before

    def test_text_in_a_change_is_escaped(self, moderator_client, entry):
        edit(moderator_client, entry, body="Use <script>alert(1)</script> never.")
        page = moderator_client.get(history_url(entry)).content.decode()
        assert "<script>alert(1)" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page

    def test_an_erratum_admin_edit_of_affects_is_one_version_naming_the_entries(self, moderator_client, db):
        game = make_game()
        attack, defend = make_entry(game=game, title="Attack"), make_entry(game=game, title="Defend")
        erratum = make_erratum(game=game, title="Page 4", affects=[attack])
        versions = erratum.history.count()
        edit(moderator_client, erratum, affects=[str(defend.pk)])
        assert erratum.history.count() == versions + 1
        newest = history_rows(moderator_client, erratum)[0]
        assert "Affects added: Defend removed: Attack" in newest


class TestRevert:
    def test_revert_restores_body_title_and_see_also_in_one_new_version(self, moderator_client, moderator, entry):
        old_url = entry.canonical_url()
        first = entry.history.earliest()
        edit(moderator_client, entry, title="Tap", body="Turn it.")
        assert entry.slug == "tap"
        entry.see_also = ["Attack"]
        entry.save()

        confirm = moderator_client.get(revert_url(entry, first))
        assert confirm.status_code == HTTPStatus.OK
        page = confirm.content.decode()
        assert "<del>Tap</del><ins>Exhaust</ins>" in page  # current → that version
        assert "See also" in page and "added: Ready" in page and "removed: Attack" in page
        assert "the current title stays as an alias" in page

        versions = entry.history.count()
        response = moderator_client.post(revert_url(entry, first), _confirm_data(confirm))
        assert response.status_code == HTTPStatus.FOUND
        assert response["Location"] == change_url(entry)
        assert "Reverted" in moderator_client.get(response["Location"]).content.decode()

        entry.refresh_from_db()
        assert (entry.title, entry.slug, entry.body, entry.see_also) == (
            "Exhaust", "exhaust", "To exhaust a card, turn it sideways.", ["Ready"]
        )
        assert entry.aliases == ["Tap"]  # the newer title stays findable (Entry.save's rename rule)
        assert entry.history.count() == versions + 1
        newest = entry.history.first()
        assert newest.history_user == moderator
        assert newest.history_change_reason.startswith("Reverted to the version of")

        public = moderator_client.get(old_url)
        assert public.status_code == HTTPStatus.OK
        assert "To exhaust a card, turn it sideways." in public.content.decode()
        # The newer slug keeps answering, as a permanent redirect to the restored one.
        newer = moderator_client.get(old_url.replace("/exhaust/", "/tap/"))
        assert newer.status_code == HTTPStatus.MOVED_PERMANENTLY
        assert newer["Location"].endswith("/exhaust/")

    def test_revert_restores_an_erratums_affects(self, moderator_client, db):
        game = make_game()
        attack, defend = make_entry(game=game, title="Attack"), make_entry(game=game, title="Defend")
        erratum = make_erratum(game=game, title="Page 4", affects=[attack])
        original = erratum.history.first()
        edit(moderator_client, erratum, affects=[str(defend.pk)], corrected_text="Changed.")
        confirm = moderator_client.get(revert_url(erratum, original))
        assert "added: Attack" in confirm.content.decode() and "removed: Defend" in confirm.content.decode()
        reverted = moderator_client.post(revert_url(erratum, original), _confirm_data(confirm))
        assert reverted.status_code == HTTPStatus.FOUND
        erratum.refresh_from_db()
        assert list(erratum.affects.all()) == [attack]
        assert erratum.corrected_text == "The corrected rule."
        assert history_rows(moderator_client, erratum)[0].count("Reverted to the version of") == 1

    def test_reverting_to_the_current_version_changes_nothing(self, moderator_client, entry):
        current = entry.history.first()
        versions = entry.history.count()
        confirm = moderator_client.get(revert_url(entry, current))
        assert "reverting changes nothing" in confirm.content.decode()
        moderator_client.post(revert_url(entry, current), _confirm_data(confirm))
        assert entry.history.count() == versions

    def test_a_change_after_the_confirmation_page_was_shown_is_not_reverted_blindly(self, moderator_client, entry):
        first = entry.history.earliest()
        edit(moderator_client, entry, body="Second.")
        confirm = moderator_client.get(revert_url(entry, first))
        edit(moderator_client, entry, body="Third.")
        response = moderator_client.post(revert_url(entry, first), _confirm_data(confirm))
        assert response.status_code == HTTPStatus.OK
        assert "changed since you opened this page" in response.content.decode()
        entry.refresh_from_db()
        assert entry.body == "Third."

    def test_a_game_moderator_cannot_revert_another_games_entry(self, client, game_moderator_for, entry):
        client.force_login(game_moderator_for(make_game()))
        first = entry.history.earliest()
        entry.body = "Changed in code."
        entry.save()
        assert client.get(revert_url(entry, first)).status_code in (HTTPStatus.FORBIDDEN, HTTPStatus.NOT_FOUND)
        response = client.post(revert_url(entry, first), {"_version": entry.history.first().history_id})
        assert response.status_code in (HTTPStatus.FORBIDDEN, HTTPStatus.NOT_FOUND)
        entry.refresh_from_db()
        assert entry.body == "Changed in code."

    def test_a_game_moderator_reverts_their_own_games_entry(self, client, game_moderator_for, entry):
        client.force_login(game_moderator_for(entry.game))
        first = entry.history.earliest()
        entry.body = "Changed in code."
        entry.save()
        confirm = client.get(revert_url(entry, first))
        assert client.post(revert_url(entry, first), _confirm_data(confirm)).status_code == HTTPStatus.FOUND
        entry.refresh_from_db()
        assert entry.body == "To exhaust a card, turn it sideways."

    def test_bad_version_ids_are_404(self, moderator_client, entry):
        other = make_entry()
        base = f"/admin/rules/entry/{entry.pk}/history"
        assert moderator_client.get(f"{base}/nonsense/revert/").status_code == HTTPStatus.NOT_FOUND
        assert moderator_client.get(f"{base}/999999/revert/").status_code == HTTPStatus.NOT_FOUND
        # Another entry's version is not a version of this one.
        other_version = other.history.first().history_id
        assert moderator_client.get(f"{base}/{other_version}/revert/").status_code == HTTPStatus.NOT_FOUND
        first = entry.history.first().history_id
        missing_entry = f"/admin/rules/entry/999999/history/{first}/revert/"
        assert moderator_client.get(missing_entry).status_code == HTTPStatus.NOT_FOUND
        nonsense = moderator_client.post(f"{base}/nonsense/revert/", {"_version": first})
        assert nonsense.status_code == HTTPStatus.NOT_FOUND

    def test_the_history_page_links_older_versions_to_revert(self, moderator_client, entry):
        edit(moderator_client, entry, body="Second.")
        page = moderator_client.get(history_url(entry)).content.decode()
        assert revert_url(entry, entry.history.earliest()) in page
        assert revert_url(entry, entry.history.first()) not in page  # the current version

    def test_simple_historys_form_revert_leads_to_the_confirmation(self, moderator_client, entry):
        first = entry.history.earliest()
        url = f"/admin/rules/entry/{entry.pk}/history/{first.history_id}/"
        response = moderator_client.post(url, {"body": "Sneaky."})
        assert response.status_code == HTTPStatus.FOUND
        assert response["Location"] == revert_url(entry, first)
        entry.refresh_from_db()
        assert entry.body == "To exhaust a card, turn it sideways."


def _confirm_data(response) -> dict:
    """What the confirmation page's form posts: its hidden version field."""
    match = re.search(r'name="_version" value="([^"]*)"', response.content.decode())
    assert match, "the confirmation page has no version field"
    return {"_version": match.group(1)}


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: make_game(name="Blue Moon"), "name"),
        (lambda: make_source(title="Rulebook"), "title"),
        (lambda: make_erratum(title="Page 4", corrected_text="Draw two cards."), "corrected_text"),
        (lambda: make_question(question="Can I pass?", answer="Yes, always."), "answer"),
    ],
    ids=["game", "source", "erratum", "question"],
)
def test_every_moderated_model_shows_its_history_and_reverts(moderator_client, make, field):
    obj = make()
    first = obj.history.earliest()
    before = getattr(obj, field)
    edit(moderator_client, obj, **{field: before + " Edited"})
    assert "Edited" in history_rows(moderator_client, obj)[0]
    confirm = moderator_client.get(revert_url(obj, first))
    assert moderator_client.post(revert_url(obj, first), _confirm_data(confirm)).status_code == HTTPStatus.FOUND
    obj.refresh_from_db()
    assert getattr(obj, field) == before


def test_a_deleted_entry_is_named_as_deleted_and_left_out_of_a_revert(moderator_client, db):
    game = make_game()
    attack, gone = make_entry(game=game, title="Attack"), make_entry(game=game, title="Gone")
    question = make_question(game=game, related_entries=[attack, gone])
    with_both = question.history.first()
    question.related_entries.set([attack])
    gone.delete()
    question.related_entries.set([])
    rows = history_rows(moderator_client, question)
    assert any("removed: Attack" in row for row in rows)
    assert any("(deleted)" in row for row in rows)
    confirm = moderator_client.get(revert_url(question, with_both))
    reverted = moderator_client.post(revert_url(question, with_both), _confirm_data(confirm))
    assert reverted.status_code == HTTPStatus.FOUND
    assert list(question.related_entries.all()) == [attack]
