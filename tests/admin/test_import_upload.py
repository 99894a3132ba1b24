"""The admin's "Import a document": upload or paste, dry-run preview, import or cancel.

The assertions read the pages a moderator sees. The database is asked only where no page
shows the answer at that moment: that a preview or a cancel wrote nothing.
"""

import re
from html.parser import HTMLParser
from http import HTTPStatus

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from rules.content.models import Entry
from rules.moderation.permissions import MODERATORS_GROUP
from tests.builds import run_background_tasks
from tests.factories import make_entry, make_game
from tests.module_world import fixtures

IMPORT_URL = "/admin/rules/entry/import/"

GLOSSARY = """\
Angriff
Ein Angriff ist eine Aktion, bei der eine Einheit eine feindliche Einheit bekämpft.
Siehe auch: Verteidigung, Bewegung

Bewegung
Eine Einheit darf sich in ihrem Zug bis zu drei Felder weit bewegen.
Siehe auch: Angriff

Verteidigung
Die verteidigende Einheit würfelt einmal für jeden Schildwert.
Siehe auch: Angriff
"""
REVISED = GLOSSARY.replace("bis zu drei Felder weit", "bis zu vier Felder weit")
TITLES = ["Angriff", "Bewegung", "Verteidigung"]


class _Section(HTMLParser):
    """The text inside the element with a given id (what a reader sees of it)."""

    def __init__(self, element_id: str):
        super().__init__()
        self.element_id, self.depth, self.parts = element_id, 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in ("br", "input", "img", "hr", "meta", "link")
        elif dict(attrs).get("id") == self.element_id:
            self.depth = 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def section(response, element_id: str) -> str:
    parser = _Section(element_id)
    parser.feed(response.content.decode())
    return " ".join(" ".join(parser.parts).split())


def html(response) -> str:
    return response.content.decode()


def staff(django_user_model, name: str, *codenames: str):
    user = django_user_model.objects.create_user(name, password="x", is_staff=True)
    rules_permissions = Permission.objects.filter(content_type__app_label="rules")
    user.user_permissions.set(rules_permissions.filter(codename__in=codenames))
    return user


@pytest.fixture
def moderator(django_user_model):
    codenames = ["view_entry", "add_entry", "change_entry", "delete_entry"]
    user = staff(django_user_model, "moderator", *codenames)
    user.groups.add(Group.objects.get(name=MODERATORS_GROUP))  # edits every game (rules.moderation.permissions)
    return user


@pytest.fixture
def client_(client, moderator):
    client.force_login(moderator)
    return client


def build_game():
    return make_game(slug="burgen", name="Burgen und Drachen")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def upload(client, content: str | bytes, name: str = "glossar.txt", **fields):
    """Upload as the browser would, landing on the import's page (its preview, for a
    document this small: made in the request)."""
    data = {"language": "de", "kind": "auto", **fields}
    raw = content.encode() if isinstance(content, str) else content
    data["file"] = SimpleUploadedFile(name, raw, "text/plain")
    return client.post(IMPORT_URL, data, follow=True)


def confirm(client, preview, button: str = "confirm"):
    """Press "Import" (or "Cancel") on the preview page, as the browser would; an import
    runs in the background: the worker runs it, then the page is read again."""
    action = re.search(r'<form method="post" action="([^"]+)" class="import-decision"', html(preview)).group(1)
    response = client.post(action, {button: "1"}, follow=True)
    if button == "confirm" and run_background_tasks():
        response = client.get(action)
    return response


def import_glossary(client, game):
    preview = upload(client, GLOSSARY, game=game.pk)
    return confirm(client, preview)


# --- Upload → preview → confirm -------------------------------------------------------


def test_changelist_links_to_the_import(client_):
    response = client_.get(reverse("admin:rules_entry_changelist"))
    assert IMPORT_URL in html(response)
    assert "Import a document" in html(response)


def test_the_form_has_the_admin_look(client_, game):
    response = client_.get(IMPORT_URL)
    assert response.status_code == HTTPStatus.OK
    page = html(response)
    assert "Import a document" in page
    assert 'class="breadcrumbs"' in page
    assert "csrfmiddlewaretoken" in page
    assert 'enctype="multipart/form-data"' in page
    assert "Burgen und Drachen" in page  # the game list
    assert "Detect automatically" in page  # kind: auto by default


def test_upload_shows_a_preview_and_writes_nothing(client_, game):
    response = upload(client_, GLOSSARY, game=game.pk)

    assert response.status_code == HTTPStatus.OK
    assert "nothing has been written yet" in html(response)
    new = section(response, "import-new")
    assert "New (3)" in new
    for title in TITLES:
        assert title in new
    assert "glossary" in section(response, "import-overview")
    assert "plain text" in section(response, "import-overview")
    assert "glossar" in section(response, "import-overview")  # source title: the file name
    assert "new: 3, changed: 0, unchanged: 0" in section(response, "import-summary")
    assert "Changed (0)" in section(response, "import-changed")
    assert 'name="confirm"' in html(response) and 'name="cancel"' in html(response)
    assert not Entry.objects.exists()


def test_confirm_imports_and_lands_on_the_game_s_entries(client_, game):
    other_game = make_game(name="Ein anderes Spiel")
    make_entry(game=other_game, title="Fremder Eintrag")

    response = import_glossary(client_, game)

    assert response.status_code == HTTPStatus.OK
    assert "Imported “glossar” into Burgen und Drachen: new: 3, changed: 0" in section(response, "import-result")
    changelist = reverse("admin:rules_entry_changelist")
    link = f"{changelist}?game__id__exact={game.pk}"
    assert f'href="{link}"' in html(response)
    page = html(client_.get(link))
    for title in TITLES:
        assert title in page
    assert "Fremder Eintrag" not in page  # filtered to the game
    assert set(Entry.objects.filter(game=game).values_list("title", flat=True)) == set(TITLES)


def test_a_confirmed_token_cannot_be_used_twice(client_, game):
    preview = upload(client_, GLOSSARY, game=game.pk)
    confirm(client_, preview)
    again = confirm(client_, preview)
    assert "This preview has expired or was used already" in html(again)
    assert Entry.objects.filter(game=game).count() == 3


def test_a_revised_document_shows_the_changed_words(client_, game):
    import_glossary(client_, game)

    response = upload(client_, REVISED, game=game.pk)

    changed = section(response, "import-changed")
    assert "Changed (1)" in changed
    assert "Bewegung" in changed
    assert "Angriff" not in changed
    assert "<del>drei</del><ins>vier</ins>" in html(response)
    unchanged = section(response, "import-unchanged")
    assert "Unchanged (2)" in unchanged
    assert "Angriff" in unchanged and "Verteidigung" in unchanged
    assert "<details>" in html(response)
    assert "New (0)" in section(response, "import-new")


def test_cancel_writes_nothing(client_, game):
    import_glossary(client_, game)
    preview = upload(client_, REVISED, game=game.pk)

    response = confirm(client_, preview, button="cancel")

    assert response.status_code == HTTPStatus.OK
    assert "Import cancelled: nothing was written." in html(response)
    assert "drei Felder" in Entry.objects.get(game=game, title="Bewegung").body
    # …and the discarded preview cannot be imported afterwards.
    assert "expired or was used already" in html(confirm(client_, preview))
    assert "drei Felder" in Entry.objects.get(game=game, title="Bewegung").body


def test_pasted_text_works(client_, game):
    data = {"game": game.pk, "language": "de", "kind": "glossary", "source_title": "Glossar (Web)"}
    response = client_.post(IMPORT_URL, {**data, "text": GLOSSARY}, follow=True)

    assert response.status_code == HTTPStatus.OK
    new = section(response, "import-new")
    for title in TITLES:
        assert title in new
    assert "Glossar (Web)" in section(response, "import-overview")
    confirmed = confirm(client_, response)
    assert "Imported “Glossar (Web)”" in html(confirmed)
    assert Entry.objects.filter(game=game).count() == 3


def test_a_new_game_is_created_on_import_only(client_, db):
    preview = upload(client_, GLOSSARY, new_game_slug="neues-spiel", new_game_name="Neues Spiel")
    assert "Neues Spiel (neues-spiel, a new game)" in section(preview, "import-overview")
    assert "New (3)" in section(preview, "import-new")
    assert not Entry.objects.exists()

    response = confirm(client_, preview)
    assert "Imported “glossar” into Neues Spiel" in html(response)


def test_removing_lists_the_items_the_document_no_longer_has_as_archived_or_deleted(client_, game):
    import_glossary(client_, game)
    shorter = GLOSSARY.split("\nVerteidigung\n")[0]

    response = upload(client_, shorter, game=game.pk, prune="on")  # archived unless asked otherwise
    archived = section(response, "import-archived")
    assert "Archived (1)" in archived and "Verteidigung" in archived
    assert "archived: no longer public" in section(response, "import-overview")
    confirm(client_, response)
    kept = Entry.objects.get(game=game, title="Verteidigung")
    assert kept.status == "archived" and kept.history.first().history_change_reason.startswith("import:")

    import_glossary(client_, game)
    response = upload(client_, shorter, game=game.pk, prune="on", removal="delete")
    deleted = section(response, "import-deleted")
    assert "Deleted (1)" in deleted and "Verteidigung" in deleted
    confirm(client_, response)
    assert not Entry.objects.filter(game=game, title="Verteidigung").exists()


RULEBOOK = """\
Regelheft

1. Angriff
Ein Angriff findet statt, wenn eine Einheit neben einer feindlichen Einheit steht.

2. Bewegung
Jede Einheit bewegt sich einmal pro Zug.
"""


def test_the_preview_shows_an_entry_of_another_source_kept_apart(client_, game):
    import_glossary(client_, game)

    preview = upload(client_, RULEBOOK, name="regelheft.txt", game=game.pk, kind="rulebook")

    warnings = section(preview, "import-warnings")
    assert "Warnings (2)" in warnings
    assert (
        "3 “Angriff” is imported separately as “angriff-2”: “angriff” is the glossary entry “Angriff” "
        "of another source, “glossar”."
    ) in warnings
    assert "6 “Bewegung” is imported separately as “bewegung-2”" in warnings
    assert "new: 2, changed: 0" in section(preview, "import-summary")

    confirm(client_, preview)
    angriff = Entry.objects.get(game=game, slug="angriff")
    assert (angriff.source.title, angriff.kind) == ("glossar", "glossary")
    assert "feindliche Einheit bekämpft" in angriff.body
    assert Entry.objects.get(game=game, slug="angriff-2").source.title == "regelheft"


def test_the_preview_names_the_clash_in_the_moderator_s_language(client_, game):
    import_glossary(client_, game)

    preview = client_.post(
        IMPORT_URL,
        {"game": game.pk, "language": "de", "kind": "rulebook", "source_title": "Regelheft", "text": RULEBOOK},
        HTTP_ACCEPT_LANGUAGE="de",
        follow=True,
    )

    assert (
        "„Angriff“ wird gesondert als „angriff-2“ importiert: „angriff“ ist der Glossareintrag „Angriff“ "
        "einer anderen Quelle, „glossar“."
    ) in section(preview, "import-warnings")


# --- Errors are form errors, never a 500 ----------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\x01\x02\x03binary\x00", "binary"),
        (b"", "empty"),
    ],
)
def test_unreadable_uploads_are_form_errors(client_, game, content, message):
    response = upload(client_, content, name="kaputt.txt", game=game.pk)

    assert response.status_code == HTTPStatus.OK
    assert "Please correct the error below." in html(response)
    assert message in section(response, "import-form")
    assert not Entry.objects.exists()


def test_no_file_and_no_text(client_, game):
    response = client_.post(IMPORT_URL, {"game": game.pk, "language": "de", "kind": "auto"})
    assert response.status_code == HTTPStatus.OK
    assert "Upload a file or paste the text." in section(response, "import-form")


def test_file_and_text_both(client_, game):
    response = upload(client_, GLOSSARY, game=game.pk, text=GLOSSARY)
    assert response.status_code == HTTPStatus.OK
    assert "Upload a file or paste the text, not both." in section(response, "import-form")


def test_unknown_game_without_a_name(client_, db):
    data = {"new_game_slug": "unbekannt", "language": "de", "kind": "auto", "source_title": "X"}
    response = client_.post(IMPORT_URL, {**data, "text": GLOSSARY})
    assert response.status_code == HTTPStatus.OK
    assert "Give the new game&#x27;s name." in html(response)


def test_an_importer_error_names_its_line(client_, game):
    damaged = GLOSSARY.encode() + b"Ein \x00 Fehler\n"
    line = damaged.count(b"\n")
    response = upload(client_, damaged, game=game.pk)
    assert response.status_code == HTTPStatus.OK
    expected = f"Line {line}: the document is binary, not text (it contains NUL bytes)"
    assert expected in section(response, "import-form")
    assert not Entry.objects.filter(game=game).exists()


def test_the_history_names_the_moderator_who_imported(client_, game, moderator):
    import_glossary(client_, game)
    entry = Entry.objects.get(game=game, title="Angriff")
    version = entry.history.get()
    assert version.history_user == moderator
    assert version.history_change_reason == "import: glossar"


# --- Who may use it ------------------------------------------------------------------


def test_staff_without_the_permissions_get_403(client, django_user_model, game):
    client.force_login(staff(django_user_model, "viewer", "view_entry"))

    assert client.get(IMPORT_URL).status_code == HTTPStatus.FORBIDDEN
    assert upload(client, GLOSSARY, game=game.pk).status_code == HTTPStatus.FORBIDDEN
    confirm_response = client.post(f"{IMPORT_URL}1/", {"confirm": "1"})
    assert confirm_response.status_code == HTTPStatus.FORBIDDEN
    assert "Import a document" not in html(client.get(reverse("admin:rules_entry_changelist")))
    assert not Entry.objects.exists()


def test_without_delete_permission_removed_items_are_archived_never_deleted(client, django_user_model, game):
    importer = staff(django_user_model, "importer", "view_entry", "add_entry", "change_entry")
    game.moderators.add(importer)  # a game moderator of this game only
    client.force_login(importer)
    import_glossary(client, game)
    shorter = GLOSSARY.split("\nVerteidigung\n")[0]

    form = client.get(IMPORT_URL)
    assert "Deleting needs the permission to delete entries." in html(form)
    assert 'value="delete"' not in html(form)
    refused = upload(client, shorter, game=game.pk, prune="on", removal="delete")  # a forged choice
    assert "Select a valid choice" in html(refused) and not refused.redirect_chain
    preview = upload(client, shorter, game=game.pk, prune="on")
    assert "archived: no longer public" in section(preview, "import-overview")
    confirm(client, preview)
    assert Entry.objects.get(game=game, title="Verteidigung").status == "archived"


def test_non_staff_are_sent_to_the_admin_login(client, django_user_model, db):
    client.force_login(django_user_model.objects.create_user("player", password="x"))
    response = client.get(IMPORT_URL)
    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"].startswith(reverse("admin:login"))


def test_the_form_speaks_german(client_, game):
    response = client_.get(IMPORT_URL, HTTP_ACCEPT_LANGUAGE="de")
    assert "Dokument importieren" in html(response)
