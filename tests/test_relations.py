"""What entries show of each other is stored when written, and never falls behind.

Every kind of write a moderator, an importer or the code makes goes through here, each
the way it really happens (the admin's forms and actions, the importer, the models'
own methods); afterwards every entry's stored relations must equal a fresh computation
from the database (``rules.derived.relations.compute``), and the page must show the change.
"""

from http import HTTPStatus

import pytest
from django.core.management import call_command

from faq.models import Question
from rules.content.models import Entry, Erratum, Game
from rules.content.querysets import Status
from rules.derived import relations
from rules.moderation.translations import link
from tests.admin.forms import submit_change_form
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


@written_together
def build_world():
    game = make_game(slug="space-fleet", name="Space Fleet")
    rules = make_entry(game=game, title="Combat", kind=Entry.Kind.SECTION, number="5")
    attack = make_entry(game=game, title="Attack", parent=rules, body="Roll for [[Defence]].", see_also=["Shields"])
    defence = make_entry(game=game, title="Defence", parent=rules, see_also=["Attack", "Missing"])
    shields = make_entry(game=game, title="Shields", aliases=["Shield"])
    angriff = make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key)
    erratum = make_erratum(game=game, title="Dice fix", corrected_text="Roll two dice.", affects=[attack])
    question = make_question(game=game, question="Can I attack twice?", related_entries=[attack, defence])
    other = make_game()
    make_entry(game=other, title="Elsewhere", see_also=["Attack"])
    return {
        "game": game, "rules": rules, "attack": attack, "defence": defence, "shields": shields,
        "angriff": angriff, "erratum": erratum, "question": question, "other": other,
    }  # fmt: skip


# Written once for the module's tests that read it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")


def assert_up_to_date() -> None:
    for game_id in Game.objects.values_list("pk", flat=True):
        computed = relations.compute(game_id)
        stored = dict(Entry.objects.filter(game_id=game_id).values_list("pk", "relations"))
        for pk, data in computed.items():
            assert stored[pk] == data, Entry.objects.get(pk=pk).title


def page(client, entry) -> str:
    response = client.get(entry.url_in(entry.language))
    assert response.status_code == HTTPStatus.OK
    return response.content.decode()


def admin_edit(client, obj, **changes):
    response = submit_change_form(client, obj, **changes)
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]


def test_the_world_starts_up_to_date(client, world):
    assert_up_to_date()
    html = page(client, world["attack"])
    assert "Dice fix" in html and "Can I attack twice?" in html and ">Shields</a>" in html
    assert "Angriff (Deutsch)" in html and ">5. Combat</a>" in html


def test_renaming_an_entry_through_the_admin(client, admin_client, world):
    admin_edit(admin_client, world["attack"], title="Assault")
    assert_up_to_date()
    client.logout()
    assert ">Assault</a>" in page(client, world["shields"])  # referenced by


def test_unpublishing_and_publishing_with_the_admin_actions(client, admin_client, world):
    attack = world["attack"]
    admin_client.post("/admin/rules/entry/", {"action": "return_to_draft", "_selected_action": [attack.pk]})
    assert_up_to_date()
    defence_page = page(client, world["defence"])
    assert 'href="' + attack.url_in("en") not in defence_page  # no link to a draft
    admin_client.post("/admin/rules/entry/", {"action": "publish", "_selected_action": [attack.pk]})
    assert_up_to_date()
    assert attack.url_in("en") in page(client, world["defence"])


def test_deleting_entries_with_the_admin_bulk_delete(client, admin_client, world):
    shields = world["shields"]
    response = admin_client.post(
        "/admin/rules/entry/", {"action": "delete_selected", "_selected_action": [shields.pk], "post": "yes"}
    )
    assert response.status_code == HTTPStatus.FOUND
    assert not Entry.objects.filter(pk=shields.pk).exists()
    assert_up_to_date()
    assert shields.url_in("en") not in page(client, world["attack"])


def test_deleting_an_entry_from_its_delete_page(client, admin_client, world):
    defence = world["defence"]
    response = admin_client.post(f"/admin/rules/entry/{defence.pk}/delete/", {"post": "yes"})
    assert response.status_code == HTTPStatus.FOUND
    assert_up_to_date()
    assert "Defence" not in page(client, world["rules"])


def test_an_erratum_edited_in_the_admin(client, admin_client, world):
    erratum, defence = world["erratum"], world["defence"]
    admin_edit(admin_client, erratum, title="Dice fix, reprinted", affects=[str(defence.pk)])
    assert_up_to_date()
    assert "Dice fix, reprinted" in page(client, defence)
    assert "Dice fix" not in page(client, world["attack"])


def test_an_erratum_and_a_question_deleted_in_bulk(client, world):
    Erratum.objects.filter(pk=world["erratum"].pk).delete()
    Question.objects.filter(pk=world["question"].pk).delete()
    assert_up_to_date()
    html = page(client, world["attack"])
    assert "Dice fix" not in html and "Can I attack twice?" not in html


def test_the_entries_an_item_is_about_changed(client, world):
    attack, shields = world["attack"], world["shields"]
    world["erratum"].affects.add(shields)
    world["question"].related_entries.remove(attack)
    assert_up_to_date()
    assert "Dice fix" in page(client, shields)
    assert "Can I attack twice?" not in page(client, attack)


def test_an_unpublished_question_leaves_the_page(client, world):
    question = world["question"]
    question.status = Status.REVIEW
    question.save()
    assert_up_to_date()
    assert "Can I attack twice?" not in page(client, world["attack"])


def test_linking_a_translation(client, world):
    attaque = make_entry(game=world["game"], language="fr", title="Attaque")
    link(world["attack"], attaque, None)
    assert_up_to_date()
    assert "Attaque" in page(client, world["attack"])


def test_an_import_into_the_game(client, tmp_path, world):
    document = tmp_path / "extra.txt"
    document.write_text("Boarding\nShips dock and fight.\nSee also: Attack, Shields.\n", encoding="utf-8")
    call_command(
        "import_rules", str(document), "--game", "space-fleet", "--language", "en", "--kind", "glossary",
        "--status", "published", stdout=open("/dev/null", "w"),  # noqa: SIM115 - discarded output
    )  # fmt: skip
    assert_up_to_date()
    boarding = Entry.objects.get(game=world["game"], title="Boarding")
    assert "Boarding" in page(client, world["attack"])  # referenced by
    assert world["shields"].url_in("en") in page(client, boarding)


def test_deleting_a_game_leaves_the_others_right(world):
    world["game"].delete()
    assert_up_to_date()
    assert Entry.objects.get(title="Elsewhere").relations["references"][0]["target"] is None


def test_a_raw_update_is_repaired_by_render_html(world):
    Entry.objects.filter(pk=world["shields"].pk).update(title="Deflectors")  # no save(): no refresh
    assert relations.compute(world["game"].pk)[world["attack"].pk] != world["attack"].__class__.objects.get(
        pk=world["attack"].pk
    ).relations
    call_command("render_html", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert_up_to_date()
