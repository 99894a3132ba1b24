"""The moderator's way into an import: from the admin's front page, a game picker that
brings the game's languages and its sources, so a new version of a source is one
choice, not a title retyped exactly."""

import re

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from rules.content.models import Entry, Source
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.test_import_upload import IMPORT_URL, RULEBOOK, html, section, staff
from tests.builds import run_background_tasks
from tests.factories import make_entry, make_game, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


@written_together
def build_dutch_game():
    game = make_game(slug="blauwe-maan", name="Blauwe Maan")
    source = Source.objects.create(game=game, language="nl", title="Spelregels", kind="rulebook", version="1")
    for n in range(3):
        make_entry(game=game, language="nl", title=f"Regel {n}", source=source)
    return game


# Written once for the module's tests that read it (tests.module_world).
_dutch_game_of_the_module, dutch_game = fixtures(build_dutch_game, "dutch_game")


@pytest.fixture
def moderator_client(client, django_user_model):
    user = staff(django_user_model, "mod", "view_entry", "add_entry", "change_entry", "delete_entry")
    user.groups.add(Group.objects.get(name=MODERATORS_GROUP))
    client.force_login(user)
    return client


def selected(page: str, field: str) -> str:
    select = re.search(rf'<select name="{field}"[^>]*>(.*?)</select>', page, re.S).group(1)
    chosen = re.search(r'<option value="([^"]*)"[^>]*selected', select)
    return chosen.group(1) if chosen else ""


def test_the_front_page_starts_an_import_into_a_game(moderator_client, dutch_game):
    front = moderator_client.get("/admin/").content.decode()
    box = re.search(r'<div class="module" id="import-module">(.*?)</div>', front, re.S).group(1)
    assert 'action="/admin/rules/entry/import/"' in box and f'value="{dutch_game.slug}"' in box
    page = moderator_client.get(IMPORT_URL, {"game": dutch_game.slug}).content.decode()
    assert selected(page, "game") == str(dutch_game.pk)
    assert selected(page, "language") == "nl"  # the game's language, not the UI's
    source = Source.objects.get(game=dutch_game)
    assert f'<option value="{source.pk}" data-language="nl">Spelregels (Dutch, 1)</option>' in page


def test_the_form_starts_with_the_game_of_the_last_import(moderator_client, dutch_game):
    other = make_game(slug="other", name="Another Game")
    make_entry(game=other, language="de", title="Etwas")
    data = {"language": "nl", "kind": "rulebook", "game": dutch_game.pk, "source_title": "Aanvullingen",
            "file": SimpleUploadedFile("a.txt", RULEBOOK.encode())}  # fmt: skip
    moderator_client.post(IMPORT_URL, data, follow=True)
    page = moderator_client.get(IMPORT_URL).content.decode()
    assert selected(page, "game") == str(dutch_game.pk) and selected(page, "language") == "nl"


def test_the_game_picker_brings_the_game_s_languages_and_sources_as_json(moderator_client, dutch_game):
    data = moderator_client.get(f"/admin/rules/entry/import/game/{dutch_game.pk}/").json()
    source = Source.objects.get(game=dutch_game)
    assert data == {
        "language": "nl",
        "languages": [["nl", "Dutch"]],
        "sources": [{"id": source.pk, "label": "Spelregels (Dutch, 1)", "language": "nl"}],
    }
    assert moderator_client.get("/admin/rules/entry/import/game/999999/").status_code == 404


def test_choosing_a_source_imports_a_new_version_of_it_without_retyping_its_title(moderator_client, dutch_game):
    source = Source.objects.get(game=dutch_game)
    data = {"language": "en", "kind": "rulebook", "game": dutch_game.pk, "source": source.pk,
            "source_version": "2", "hold": "", "status": "published",
            "file": SimpleUploadedFile("nieuw.txt", RULEBOOK.encode())}  # fmt: skip
    preview = moderator_client.post(IMPORT_URL, data, follow=True)
    assert "Spelregels" in section(preview, "import-overview") and "Dutch" in section(preview, "import-overview")
    action = re.search(r'<form method="post" action="([^"]+)" class="import-decision"', html(preview)).group(1)
    moderator_client.post(action, {"confirm": "1"})
    run_background_tasks()
    assert Source.objects.filter(game=dutch_game).count() == 1  # no second source
    assert Entry.objects.filter(source=source, language="nl").count() > 3


def test_a_source_of_another_game_is_refused_on_the_form(moderator_client, dutch_game):
    other = make_game(slug="other", name="Another Game")
    foreign = Source.objects.create(game=other, language="de", title="Regeln", kind="rulebook")
    data = {"language": "nl", "kind": "rulebook", "game": dutch_game.pk, "source": foreign.pk,
            "file": SimpleUploadedFile("a.txt", RULEBOOK.encode())}  # fmt: skip
    response = moderator_client.post(IMPORT_URL, data, follow=True)
    assert "Choose a source of the chosen game" in html(response)
