"""Roles: Moderators edit every game's content; game moderators only their games'.

Neither role reaches users, groups or who moderates a game. Every check goes through the
admin pages as a moderator would use them (or as a hand-made POST would try them).
"""

from http import HTTPStatus

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from faq.models import Question
from rules.content.models import Entry, Game
from rules.content.querysets import Status
from tests.admin.forms import form_data
from tests.builds import run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def change_url(obj) -> str:
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])


def edit(client, obj, form_id: str, **changes):
    """Open the change form, change some fields, save as the browser would."""
    page = client.get(change_url(obj))
    assert page.status_code == HTTPStatus.OK
    data = form_data(page, form_id)
    data.update(changes)
    return client.post(change_url(obj), data)


def build_games():
    return make_game(name="Arkham Files"), make_game(name="Bluemoon Saga")


# Written once for the module's tests that read it (tests.module_world).
_games_of_the_module, games = fixtures(build_games, "games")


@pytest.fixture
def own_and_other(games, client, game_moderator_for):
    """A game moderator of the first game, logged in; an entry in each game."""
    own_game, other_game = games
    client.force_login(game_moderator_for(own_game))
    return make_entry(game=own_game, title="Own rule"), make_entry(game=other_game, title="Other rule")


# --- Moderators -----------------------------------------------------------------------


def test_moderators_edit_any_games_entry(moderator_client, games):
    for game in games:
        entry = make_entry(game=game, title="Ready")

        response = edit(moderator_client, entry, "entry_form", body="Fixed by a moderator.")

        assert response.status_code == HTTPStatus.FOUND
        entry.refresh_from_db()
        assert entry.body == "Fixed by a moderator."


def test_moderators_may_add_games(moderator_client):
    assert moderator_client.get(reverse("admin:rules_game_add")).status_code == HTTPStatus.OK


@pytest.mark.parametrize("url", ["/admin/auth/user/", "/admin/auth/group/", "/admin/auth/user/add/"])
def test_moderators_cannot_reach_users_or_groups(moderator_client, url):
    assert moderator_client.get(url).status_code == HTTPStatus.FORBIDDEN


def test_moderators_cannot_change_who_moderates_a_game(moderator_client, moderator, games):
    game = games[0]

    page = moderator_client.get(change_url(game))
    data = form_data(page, "game_form")
    assert "moderators" not in data  # shown read-only, not as a field
    data["moderators"] = [str(moderator.pk)]
    moderator_client.post(change_url(game), data)

    assert not game.moderators.exists()


def test_a_superuser_sets_a_games_moderators(client, django_user_model, games, game_moderator_for):
    game = games[0]
    helper = game_moderator_for()
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.org", "pw"))

    response = edit(client, game, "game_form", moderators=[str(helper.pk)])

    assert response.status_code == HTTPStatus.FOUND
    assert list(game.moderators.all()) == [helper]


# --- Game moderators: their own games -------------------------------------------------


def test_a_game_moderator_edits_their_games_entry(client, own_and_other):
    own, _other = own_and_other

    response = edit(client, own, "entry_form", body="Fixed by the game's moderator.")

    assert response.status_code == HTTPStatus.FOUND
    own.refresh_from_db()
    assert own.body == "Fixed by the game's moderator."


def test_a_game_moderator_edits_their_games_erratum_question_and_source(client, games, game_moderator_for):
    game = games[0]
    client.force_login(game_moderator_for(game))
    erratum, question, source = make_erratum(game=game), make_question(game=game), make_source(game=game)

    assert edit(client, erratum, "erratum_form", title="Better title").status_code == HTTPStatus.FOUND
    assert edit(client, question, "question_form", answer="Yes.").status_code == HTTPStatus.FOUND
    assert edit(client, source, "source_form", version="2.0").status_code == HTTPStatus.FOUND

    erratum.refresh_from_db(), question.refresh_from_db(), source.refresh_from_db()
    assert (erratum.title, question.answer, source.version) == ("Better title", "Yes.", "2.0")


def test_a_game_moderator_edits_their_game_but_not_its_moderators(client, games, game_moderator_for):
    game = games[0]
    me = game_moderator_for(game)
    client.force_login(me)

    page = client.get(change_url(game))
    data = form_data(page, "game_form")
    assert "moderators" not in data
    data.update(publisher="Fantasy Flight", moderators=[])
    response = client.post(change_url(game), data)

    assert response.status_code == HTTPStatus.FOUND
    game.refresh_from_db()
    assert game.publisher == "Fantasy Flight"
    assert list(game.moderators.all()) == [me]


# --- Game moderators: other games -----------------------------------------------------


def test_another_games_entry_is_not_in_the_list(client, own_and_other):
    response = client.get(reverse("admin:rules_entry_changelist"))

    page = response.content.decode()
    assert "Own rule" in page
    assert "Other rule" not in page
    assert "Bluemoon Saga" not in page  # not even in the game filter


def test_another_games_entry_cannot_be_opened_changed_or_deleted(client, own_and_other):
    _own, other = own_and_other

    assert client.get(change_url(other)).status_code == HTTPStatus.FORBIDDEN
    data = {"game": str(other.game_id), "language": "en", "title": "Hijacked", "body": "x", "status": "draft"}
    assert client.post(change_url(other), data).status_code == HTTPStatus.FORBIDDEN
    delete_url = reverse("admin:rules_entry_delete", args=[other.pk])
    assert client.post(delete_url, {"post": "yes"}).status_code == HTTPStatus.FORBIDDEN
    history_url = reverse("admin:rules_entry_history", args=[other.pk])
    assert client.get(history_url).status_code == HTTPStatus.FORBIDDEN

    other.refresh_from_db()
    assert other.title == "Other rule"


def test_a_missing_entry_is_still_a_clear_answer_not_an_error(client, own_and_other):
    response = client.get(reverse("admin:rules_entry_change", args=[987654]))
    assert response.status_code == HTTPStatus.FOUND  # Django's "does not exist" message


def test_an_entry_cannot_be_moved_into_another_game(client, own_and_other, games):
    own, _other = own_and_other
    other_game = games[1]

    page = client.get(change_url(own))
    assert "Bluemoon Saga" not in page.content.decode()  # not offered
    data = form_data(page, "entry_form")
    data["game"] = str(other_game.pk)  # a hand-made POST
    response = client.post(change_url(own), data)

    assert response.status_code == HTTPStatus.OK  # the form again, with the error
    assert "Select a valid choice" in response.content.decode()
    own.refresh_from_db()
    assert own.game_id == games[0].pk


def test_a_new_entry_cannot_be_put_into_another_game(client, own_and_other, games):
    data = {"game": str(games[1].pk), "language": "en", "title": "Sneaky", "status": "draft"}
    page = client.get(reverse("admin:rules_entry_add"))
    data = {**form_data(page, "entry_form"), **data}

    response = client.post(reverse("admin:rules_entry_add"), data)

    assert response.status_code == HTTPStatus.OK
    assert "Select a valid choice" in response.content.decode()
    assert not Entry.objects.filter(title="Sneaky").exists()


def test_another_games_entries_cannot_be_linked(client, games, game_moderator_for):
    own_game, other_game = games
    client.force_login(game_moderator_for(own_game))
    question = make_question(game=own_game)
    foreign = make_entry(game=other_game, title="Foreign rule")

    page = client.get(change_url(question))
    assert "Foreign rule" not in page.content.decode()
    data = form_data(page, "question_form")
    data["related_entries"] = [str(foreign.pk)]
    response = client.post(change_url(question), data)

    assert response.status_code == HTTPStatus.OK
    assert "Select a valid choice" in response.content.decode()
    assert not Question.objects.get(pk=question.pk).related_entries.exists()


def test_bulk_publish_does_not_reach_another_games_entry(client, own_and_other):
    own, other = own_and_other
    Entry.objects.filter(pk__in=[own.pk, other.pk]).update(status=Status.DRAFT)

    client.post(
        reverse("admin:rules_entry_changelist"),
        {"action": "publish", "_selected_action": [str(own.pk), str(other.pk)]},
    )

    assert Entry.objects.get(pk=own.pk).status == Status.PUBLISHED
    assert Entry.objects.get(pk=other.pk).status == Status.DRAFT


def test_a_game_moderator_cannot_add_games(client, own_and_other):
    assert client.get(reverse("admin:rules_game_add")).status_code == HTTPStatus.FORBIDDEN
    client.post(reverse("admin:rules_game_add"), {"slug": "mine", "name": "Mine"})
    assert not Game.objects.filter(slug="mine").exists()


def test_a_game_moderator_sees_only_their_games(client, own_and_other):
    page = client.get(reverse("admin:rules_game_changelist")).content.decode()
    assert "Arkham Files" in page
    assert "Bluemoon Saga" not in page


def test_a_game_moderator_cannot_reach_users(client, own_and_other):
    assert client.get("/admin/auth/user/").status_code == HTTPStatus.FORBIDDEN


# --- The import flow ------------------------------------------------------------------

IMPORT_URL = "/admin/rules/entry/import/"
GLOSSARY = "Ready\nA ready card can be used.\n\nExhaust\nTurn the card sideways.\n"


def test_the_import_offers_only_their_games_and_no_new_game(client, own_and_other):
    page = client.get(IMPORT_URL).content.decode()

    assert "Arkham Files" in page
    assert "Bluemoon Saga" not in page
    assert "(a new game)" not in page


def test_the_import_refuses_another_game_and_a_new_game(client, own_and_other, games):
    def upload(**fields):
        document = SimpleUploadedFile("glossary.txt", GLOSSARY.encode(), "text/plain")
        return client.post(IMPORT_URL, {"language": "en", "kind": "auto", "file": document, **fields})

    other = upload(game=games[1].pk)
    new = upload(new_game_slug="fresh", new_game_name="Fresh")

    assert "Select a valid choice" in other.content.decode()
    assert "Choose one of the games you moderate" in new.content.decode()
    assert not Game.objects.filter(slug="fresh").exists()
    assert not Entry.objects.filter(title="Exhaust").exists()


def test_the_import_into_their_game_works(client, own_and_other, games):
    document = SimpleUploadedFile("glossary.txt", GLOSSARY.encode(), "text/plain")
    preview = client.post(IMPORT_URL, {"language": "en", "kind": "auto", "file": document, "game": games[0].pk})
    job_page = preview["Location"]

    client.post(job_page, {"confirm": "1"})
    run_background_tasks()

    assert Entry.objects.filter(game=games[0], title="Exhaust").exists()
