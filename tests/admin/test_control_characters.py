"""A NUL or another control character typed or pasted into an admin field gives a form
error that keeps the moderator's text, never a server error and never a stored row.

PostgreSQL refuses NUL in text and jsonb: run this file there too (DATABASE_URL=postgres://…).
"""

from http import HTTPStatus

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from faq.models import Question
from rules.content.models import Entry, Erratum, Game, Source
from tests.admin.forms import form_data
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source

pytestmark = pytest.mark.django_db

NUL_ERROR = "Null characters are not allowed."  # Django's own message for a CharField
CONTROL_ERROR = "Remove the invisible control character"


def change(client, obj, admin_path: str, **changes):
    url = f"/admin/{admin_path}/{obj.pk}/change/"
    page = client.get(url)
    assert page.status_code == HTTPStatus.OK
    data = form_data(page)
    data.update(changes)
    return client.post(url, data)


def assert_refused(response, *messages):
    assert response.status_code == HTTPStatus.OK, response.status_code  # the form again, not a 500
    page = response.content.decode()
    assert "errornote" in page
    assert any(message in page for message in messages), page[:3000]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "Angriff\x00"),
        ("body", "Zieh eine\x00 Karte."),
        ("number", "1\x00"),
        ("page", "4\x00"),
        ("aliases", "Attacke\nAtt\x00acke"),
        ("see_also", "Bewegung\x00"),
        ("body", "Zieh eine\x07 Karte."),
        ("see_also", "Bewe\x1bgung"),
    ],
)
def test_entry_fields(moderator_client, field, value):
    entry = make_entry(title="Angriff", body="Ein Text.", language="de")
    response = change(moderator_client, entry, "rules/entry", **{field: value})
    assert_refused(response, NUL_ERROR, CONTROL_ERROR)
    entry.refresh_from_db()
    assert (entry.title, entry.body, entry.aliases, entry.see_also) == ("Angriff", "Ein Text.", [], [])


def test_a_new_entry_with_nul_is_not_created(moderator_client):
    game = make_game()
    page = moderator_client.get("/admin/rules/entry/add/")
    data = form_data(page)
    data.update(game=str(game.pk), language="en", title="New\x00 entry", slug="new-entry", body="Text", status="draft")
    response = moderator_client.post("/admin/rules/entry/add/", data)
    assert_refused(response, NUL_ERROR)
    assert not Entry.objects.filter(slug="new-entry").exists()


def test_erratum_corrected_text(moderator_client):
    erratum = make_erratum(corrected_text="Richtig.")
    response = change(moderator_client, erratum, "rules/erratum", corrected_text="Rich\x00tig.")
    assert_refused(response, NUL_ERROR)
    assert Erratum.objects.get(pk=erratum.pk).corrected_text == "Richtig."


def test_question_answer(moderator_client):
    question = make_question(answer="Ja.")
    response = change(moderator_client, question, "faq/question", answer="J\x00a.")
    assert_refused(response, NUL_ERROR)
    assert Question.objects.get(pk=question.pk).answer == "Ja."


def test_game_localized_names_json(moderator_client):
    game = make_game(name="Burgen")
    response = change(moderator_client, game, "rules/game", localized_names='{"pl": "Zamki\\u0000"}')
    assert_refused(response, CONTROL_ERROR)
    assert Game.objects.get(pk=game.pk).localized_names in ({}, None)


def test_source_attribution(moderator_client):
    source = make_source(attribution="© Verlag")
    response = change(moderator_client, source, "rules/source", attribution="© Ver\x00lag")
    assert_refused(response, NUL_ERROR)
    assert Source.objects.get(pk=source.pk).attribution == "© Verlag"


# --- the import form -------------------------------------------------------------------

IMPORT_URL = "/admin/rules/entry/import/"


def test_pasted_text_with_nul_is_a_form_error(moderator_client):
    game = make_game()
    response = moderator_client.post(
        IMPORT_URL, {"text": "Angriff\nEin\x00 Angriff.\n", "game": game.pk, "language": "de", "kind": "auto"}
    )
    assert response.status_code == HTTPStatus.OK
    assert NUL_ERROR in response.content.decode()
    assert not Entry.objects.exists()


def test_an_uploaded_file_with_nul_names_its_line(moderator_client):
    game = make_game()
    upload = SimpleUploadedFile("regeln.txt", b"Angriff\nEin Angriff.\nZweite\x00 Zeile\n", "text/plain")
    response = moderator_client.post(IMPORT_URL, {"file": upload, "game": game.pk, "language": "de", "kind": "auto"})
    assert response.status_code == HTTPStatus.OK
    page = response.content.decode()
    assert "NUL" in page and "Line 3" in page
    assert not Entry.objects.exists()


@pytest.mark.parametrize("field", ["source_title", "new_game_name", "page"])
def test_import_form_fields(moderator_client, field):
    data = {"text": "Angriff\nEin Angriff.\n", "language": "de", "kind": "auto", "new_game_slug": "burgen",
            "new_game_name": "Burgen", field: "Bur\x00gen"}
    response = moderator_client.post(IMPORT_URL, data)
    assert response.status_code == HTTPStatus.OK
    assert NUL_ERROR in response.content.decode()
    assert not Game.objects.exists()
