"""An entry's text with its errata applied and a translation's status are stored when
written, with the relations (rules.derived.corrections, rules.derived.translation_status), and never
fall behind: after each kind of write, the way it really happens, what is stored equals a
fresh computation, and the page shows the change."""

from http import HTTPStatus

import pytest
from django.core.management import call_command

from rules.content.models import Entry, Erratum
from rules.content.querysets import Status
from rules.derived import corrections, translation_status
from rules.moderation.translations import base_version
from tests.admin.forms import submit_change_form
from tests.factories import make_entry, make_erratum, make_game, written_together
from tests.module_world import fixtures
from tests.stored import assert_stored_as_computed

pytestmark = pytest.mark.django_db


@written_together
def build_world():
    game = make_game(slug="river-run", name="River Run")
    rowing = make_entry(game=game, title="Rowing", body="Row 2 spaces. Then rest.\n\nA [[Boat]] may row once.")
    boat = make_entry(game=game, title="Boat", body="A boat holds 3 rowers.")
    fix = make_erratum(game=game, title="Rowing fix", original_text="Row 2 spaces.", corrected_text="Row 3 spaces.",
                       affects=[rowing])  # fmt: skip
    rudern = make_entry(game=game, language="de", title="Rudern", body="Rudere 2 Felder.",
                        translation_key=rowing.translation_key, translation_of=rowing,
                        translation_base=base_version(rowing))  # fmt: skip
    return {"game": game, "rowing": rowing, "boat": boat, "fix": fix, "rudern": rudern}


# Written once for the module's tests that read it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")


def assert_up_to_date() -> None:
    assert_stored_as_computed(corrections, "corrections")
    assert_stored_as_computed(translation_status, "translation_status")


def page(client, entry) -> str:
    response = client.get(f"{entry.url_in('en')}?content={entry.language}")
    assert response.status_code == HTTPStatus.OK
    return response.content.decode()


def admin_edit(client, obj, **changes):
    response = submit_change_form(client, obj, **changes)
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]


def test_the_world_starts_up_to_date(client, world):
    assert_up_to_date()
    assert "Row 3 spaces." in page(client, world["rowing"])
    assert "Translation up to date" in page(client, world["rudern"])


def test_the_original_edited_in_the_admin(client, admin_client, world):
    admin_edit(admin_client, world["rowing"], body="Row 2 spaces, or 1 against the current. Then rest.")
    assert_up_to_date()
    html = page(client, world["rowing"])
    assert "was not found in this text" in html  # "Row 2 spaces." is gone
    html = page(client, world["rudern"])
    assert "The original changed since this translation" in html
    assert "<ins>spaces, or 1 against the current.</ins>" in html


def test_an_erratum_edited_in_the_admin(client, admin_client, world):
    admin_edit(admin_client, world["fix"], original_text="A [[Boat]] may row once.",
               corrected_text="A [[Boat]] may row twice.")  # fmt: skip
    assert_up_to_date()
    html = page(client, world["rowing"])
    assert '<a class="xref" href="/en/games/river-run/rules/boat/"><ins class="erratum-change"' in html


def test_errata_archived_and_published_with_the_admin_actions(client, admin_client, world):
    fix = world["fix"]
    admin_client.post("/admin/rules/erratum/", {"action": "archive", "_selected_action": [fix.pk]})
    assert_up_to_date()
    assert "body-corrected" not in page(client, world["rowing"])
    admin_client.post("/admin/rules/erratum/", {"action": "publish", "_selected_action": [fix.pk]})
    assert_up_to_date()
    assert "body-corrected" in page(client, world["rowing"])


def test_the_original_unpublished_and_deleted(client, admin_client, world):
    rowing = world["rowing"]
    admin_client.post("/admin/rules/entry/", {"action": "return_to_draft", "_selected_action": [rowing.pk]})
    assert_up_to_date()
    assert "translation-status" not in page(client, world["rudern"])
    admin_client.post("/admin/rules/entry/", {"action": "publish", "_selected_action": [rowing.pk]})
    assert_up_to_date()
    response = admin_client.post(f"/admin/rules/entry/{rowing.pk}/delete/", {"post": "yes"})
    assert response.status_code == HTTPStatus.FOUND
    assert_up_to_date()
    rudern = Entry.objects.get(pk=world["rudern"].pk)
    assert rudern.translation_of is None and rudern.translation_status == {}


def test_the_translation_marked_up_to_date_with_the_admin_action(client, admin_client, world):
    rowing = world["rowing"]
    rowing.body = "Row 4 spaces."
    rowing.save()
    admin_client.post(
        "/admin/rules/entry/", {"action": "mark_up_to_date", "_selected_action": [world["rudern"].pk]}
    )
    assert_up_to_date()
    assert "Translation up to date" in page(client, world["rudern"])


def test_reverting_the_original_to_the_version_it_was_translated_from(client, admin_client, world):
    from tests.admin.test_history import _confirm_data, revert_url

    rowing = world["rowing"]
    made_from = rowing.history.get(history_id=world["rudern"].translation_base)
    rowing.body = "Row 5 spaces."
    rowing.save()
    assert "The original changed since this translation" in page(client, world["rudern"])
    confirm = admin_client.get(revert_url(rowing, made_from))
    response = admin_client.post(revert_url(rowing, made_from), _confirm_data(confirm))
    assert response.status_code == HTTPStatus.FOUND
    assert Entry.objects.get(pk=rowing.pk).body == "Row 2 spaces. Then rest.\n\nA [[Boat]] may row once."
    assert_up_to_date()
    assert "Translation up to date" in page(client, world["rudern"])  # the same text again


def test_an_import_that_changes_the_corrected_text(client, tmp_path, world):
    document = tmp_path / "rules.txt"
    document.write_text("Rowing\nRow 2 spaces, twice a turn.\n\nBoat\nA boat holds 3 rowers.\n", encoding="utf-8")
    call_command(
        "import_rules", str(document), "--game", "river-run", "--language", "en", "--kind", "glossary",
        "--status", "published", stdout=open("/dev/null", "w"),  # noqa: SIM115 - discarded output
    )  # fmt: skip
    assert_up_to_date()
    rowing = Entry.objects.get(pk=world["rowing"].pk)
    assert "twice a turn" in rowing.body
    assert rowing.corrected.applied == [] and [e.title for e in rowing.corrected.not_found] == ["Rowing fix"]
    assert not Entry.objects.get(pk=world["rudern"].pk).translation_state.up_to_date


def test_a_link_target_renamed(client, world):
    boat = world["boat"]
    fix = world["fix"]
    fix.original_text, fix.corrected_text = "A [[Boat]] may row once.", "A [[Boat]] may row twice."
    fix.save()
    boat.title = "Canoe"  # the old title stays an alias: the link still resolves, to the new address
    boat.save()
    assert_up_to_date()
    assert 'href="/en/games/river-run/rules/canoe/"' in page(client, world["rowing"])


def test_a_raw_update_is_repaired_by_render_html(world):
    Entry.objects.filter(pk=world["rowing"].pk).update(body="Row 2 spaces. Row 2 spaces.")  # no save(): no refresh
    Erratum.objects.filter(pk=world["fix"].pk).update(status=Status.PUBLISHED)
    call_command("render_html", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert_up_to_date()
    assert Entry.objects.get(pk=world["rowing"].pk).corrections["errata"][0]["places"] == 2
