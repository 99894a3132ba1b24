"""Two moderators editing one item: the later save is refused, with the other's change shown.

The moderators are two logged-in clients that fill in the change form as a browser
would (every field as rendered, hidden ones included) and post it back.
"""

from http import HTTPStatus

import pytest
from django.test import Client

from rules.content.models import Source
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.admin.forms import form_data
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source
from tests.module_world import fixtures


def change_url(obj) -> str:
    opts = obj._meta
    return f"/admin/{opts.app_label}/{opts.model_name}/{obj.pk}/change/"


def open_form(client, obj) -> dict:
    response = client.get(change_url(obj))
    assert response.status_code == HTTPStatus.OK
    return form_data(response, f"{obj._meta.model_name}_form")


def build_two_moderators():
    alice, bob = make_staff("alice", MODERATORS_GROUP), make_staff("bob", MODERATORS_GROUP)
    alice.first_name, alice.last_name = "Alice", "Adams"
    alice.save()
    a, b = Client(), Client()
    a.force_login(alice)
    b.force_login(bob)
    return a, b


# Written once for the module's tests that read it (tests.module_world).
_two_moderators_of_the_module, two_moderators = fixtures(build_two_moderators, "two_moderators")


def build_entry():
    return make_entry(title="Exhaust", body="To exhaust a card, turn it sideways.")


# Written once for the module's tests that read it (tests.module_world).
_entry_of_the_module, entry = fixtures(build_entry, "entry")


class TestConcurrentEntryEdits:
    def test_the_second_save_is_refused_with_the_first_change_shown(self, two_moderators, entry):
        alice, bob = two_moderators
        form_a, form_b = open_form(alice, entry), open_form(bob, entry)

        form_a["body"] = "To exhaust a card, turn it sideways. An exhausted card cannot attack."
        assert alice.post(change_url(entry), form_a).status_code == HTTPStatus.FOUND

        form_b["body"] = "To exhaust a card, rotate it 90 degrees."
        response = bob.post(change_url(entry), form_b)

        assert response.status_code == HTTPStatus.OK  # the form again, not a redirect
        page = response.content.decode()
        assert "Alice Adams changed this entry on" in page
        assert "Changed by Alice Adams" in page
        # A's change as a word diff, B's own text still in the textarea.
        assert "<ins>An exhausted card cannot attack.</ins>" in page.replace("<ins> ", "<ins>")
        assert "To exhaust a card, rotate it 90 degrees.</textarea>" in page
        entry.refresh_from_db()
        assert entry.body == "To exhaust a card, turn it sideways. An exhausted card cannot attack."

        # Saving again is a deliberate overwrite: the re-rendered form has the new token.
        again = form_data(response, "entry_form")
        assert again["body"] == "To exhaust a card, rotate it 90 degrees."
        assert again["_edit_version"] != form_b["_edit_version"]
        assert bob.post(change_url(entry), again).status_code == HTTPStatus.FOUND
        entry.refresh_from_db()
        assert entry.body == "To exhaust a card, rotate it 90 degrees."
        assert [v.history_user.username for v in entry.history.all()[:2]] == ["bob", "alice"]

    def test_without_a_conflict_the_save_goes_through(self, two_moderators, entry):
        alice, _bob = two_moderators
        form = open_form(alice, entry)
        form["body"] = "Turn the card sideways."
        response = alice.post(change_url(entry), form)
        assert response.status_code == HTTPStatus.FOUND
        entry.refresh_from_db()
        assert entry.body == "Turn the card sideways."

    def test_another_moderator_only_opening_the_form_is_no_conflict(self, two_moderators, entry):
        alice, bob = two_moderators
        form_b = open_form(bob, entry)
        open_form(alice, entry)  # only looking changes nothing
        form_b["title"] = "Exhausting"
        assert bob.post(change_url(entry), form_b).status_code == HTTPStatus.FOUND
        entry.refresh_from_db()
        assert entry.title == "Exhausting"

    def test_a_save_that_changes_nothing_works(self, two_moderators, entry):
        alice, _bob = two_moderators
        response = alice.post(change_url(entry), open_form(alice, entry))
        assert response.status_code == HTTPStatus.FOUND
        entry.refresh_from_db()
        assert entry.body == "To exhaust a card, turn it sideways."

    def test_a_save_by_code_in_between_is_a_conflict_too(self, two_moderators, entry):
        alice, _bob = two_moderators
        form = open_form(alice, entry)
        entry.refresh_from_db()
        entry.aliases = ["Exhausted"]
        entry.save()
        form["body"] = "Mine."
        response = alice.post(change_url(entry), form)
        assert response.status_code == HTTPStatus.OK
        page = response.content.decode()
        assert "no user (a script or the system) changed this entry" in page
        assert "Exhausted" in page
        entry.refresh_from_db()
        assert entry.body == "To exhaust a card, turn it sideways."


def _other_models():
    def game():
        return make_game(name="Blue Moon"), "name"

    def source():
        return make_source(title="Rulebook"), "title"

    def erratum():
        return make_erratum(title="Page 4", corrected_text="Draw two cards."), "corrected_text"

    def question():
        return make_question(question="Can I pass?", answer="Yes."), "answer"

    return [game, source, erratum, question]


@pytest.mark.parametrize("make", _other_models(), ids=["game", "source", "erratum", "question"])
def test_every_moderated_model_refuses_a_save_over_a_newer_version(two_moderators, make):
    alice, bob = two_moderators
    obj, field = make()
    form_a, form_b = open_form(alice, obj), open_form(bob, obj)
    form_a[field] = "Alice's version"
    assert alice.post(change_url(obj), form_a).status_code == HTTPStatus.FOUND
    form_b[field] = "Bob's version"
    response = bob.post(change_url(obj), form_b)
    assert response.status_code == HTTPStatus.OK
    assert "Alice Adams changed this" in response.content.decode()
    obj.refresh_from_db()
    assert getattr(obj, field) == "Alice's version"
    bobs = bob.post(change_url(obj), form_data(response, f"{obj._meta.model_name}_form"))
    assert bobs.status_code == HTTPStatus.FOUND
    obj.refresh_from_db()
    assert getattr(obj, field) == "Bob's version"


def test_the_add_form_has_no_version_and_adds(moderator_client):
    game = make_game()
    response = moderator_client.get("/admin/rules/source/add/")
    assert 'name="_edit_version"' not in response.content.decode()
    data = form_data(response, "source_form")
    data.update(game=game.pk, language="en", title="Errata sheet", kind=Source.Kind.ERRATA)
    assert moderator_client.post("/admin/rules/source/add/", data).status_code == HTTPStatus.FOUND
    assert Source.objects.filter(title="Errata sheet").exists()



def test_an_entry_deleted_while_being_edited_keeps_the_editors_text(client, moderator_client):
    from django.contrib.auth.models import User

    from tests.factories import make_entry

    entry = make_entry(title="Reaction", body="Old text.")
    url = f"/admin/rules/entry/{entry.pk}/change/"
    data = form_data(moderator_client.get(url), "entry_form")
    other = User.objects.create_superuser("deleter", "d@example.org", "a-long-password")
    client.force_login(other)
    client.post(f"/admin/rules/entry/{entry.pk}/delete/", {"post": "yes"})

    data["body"] = "My long careful rewrite of the reaction rules."
    response = moderator_client.post(url, data)

    assert response.status_code == 409
    page = response.content.decode()
    assert "deleter deleted “Reaction”" in page
    assert "My long careful rewrite of the reaction rules." in page
    history = moderator_client.get(f"/admin/rules/entry/{entry.pk}/history/")  # linked from the page
    assert history.status_code == 200 and "Change history: Reaction" in history.content.decode()
