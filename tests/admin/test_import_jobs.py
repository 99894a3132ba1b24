"""The admin's import runs in the background (rules/jobs/, rules/admin/importing.py): a
large upload answers at once, the page shows how far the worker got, new items are
drafts unless the moderator says otherwise, and a job is its moderator's alone."""

import datetime
import re
from http import HTTPStatus

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from rules.admin import importing as admin_importing
from rules.content.models import Entry
from rules.content.querysets import Status
from rules.importing import rows as rows_module
from rules.jobs.models import ImportJob
from tests.admin.test_import_upload import (
    GLOSSARY,
    IMPORT_URL,
    RULEBOOK,
    _game_of_the_module,
    client_,
    game,
    html,
    moderator,
    section,
    staff,
)
from tests.builds import run_background_tasks
from tests.factories import make_game

# The upload tests' fixtures, used here too (the game's rows written once for this module
# as for that one: tests.module_world).
__all__ = ["_game_of_the_module", "client_", "game", "moderator"]

pytestmark = pytest.mark.django_db


def glossary(count: int) -> str:
    return "\n".join(
        f"Begriff {n:03}\nDer Begriff Nummer {n} gilt für jede Runde.\nSiehe auch: Begriff {(n + 1) % count:03}\n"
        for n in range(count)
    )


@pytest.fixture
def large(monkeypatch):
    """Every document counts as large: previewed by the worker, not in the request."""
    monkeypatch.setattr(admin_importing, "PREVIEW_INLINE_BYTES", 10)


def post(client, text: str, **fields):
    data = {"language": "de", "kind": "glossary", "file": SimpleUploadedFile("glossar.txt", text.encode()), **fields}
    return client.post(IMPORT_URL, data, follow=True)


def decide(client, page, button="confirm"):
    action = re.search(r'<form method="post" action="([^"]+)" class="import-decision"', html(page)).group(1)
    return client.post(action, {button: "1"}, follow=True)


def test_a_large_upload_answers_at_once_and_the_worker_previews_it(client_, game, large):
    page = post(client_, glossary(40), game=game.pk)

    assert page.status_code == HTTPStatus.OK
    assert "Preparing the preview" in section(page, "import-progress")
    assert '<meta http-equiv="refresh" content="2">' in html(page)
    assert ImportJob.objects.get().state == ImportJob.State.PREVIEWING

    run_background_tasks()
    page = client_.get(page.redirect_chain[-1][0])
    assert "New (40)" in section(page, "import-new")
    assert "http-equiv" not in html(page)
    assert not Entry.objects.exists()


def test_new_items_are_drafts_unless_the_moderator_says_otherwise(client_, game):
    page = decide(client_, post(client_, GLOSSARY, game=game.pk))
    assert "Importing" in section(page, "import-progress")
    assert not Entry.objects.exists(), "the worker imports, not the request"

    run_background_tasks()
    page = client_.get(page.redirect_chain[-1][0])
    assert "new: 3" in section(page, "import-result")
    assert set(Entry.objects.values_list("status", flat=True)) == {Status.DRAFT}
    # Nothing of it reaches the public site or the API.
    reader = Client()
    assert b"Angriff" not in reader.get("/de/games/burgen/").content
    assert reader.get("/api/v1/entries/?game=burgen").json()["count"] == 0

    other = make_game(slug="andere", name="Andere")
    decide(client_, post(client_, GLOSSARY, game=other.pk, status=Status.PUBLISHED))
    run_background_tasks()
    assert set(Entry.objects.filter(game=other).values_list("status", flat=True)) == {Status.PUBLISHED}


def test_the_preview_puts_the_decision_and_the_warnings_first_and_shows_each_text(client_, game):
    page = post(client_, GLOSSARY + "\nNachwort ohne Eintrag.\n", game=game.pk)
    text = html(page)
    assert text.count('class="import-decision"') == 2
    assert text.index('id="import-decision-top"') < text.index('id="import-warnings"') < text.index('id="import-new"')
    assert text.index('id="import-new"') < text.index('id="import-decision-bottom"')
    assert "Eine Einheit darf sich in ihrem Zug bis zu drei Felder weit bewegen." in section(page, "import-new")
    assert "Draft" in section(page, "import-overview")


def test_a_large_import_shows_its_batches(client_, game, large, monkeypatch):
    monkeypatch.setattr(rows_module, "COMMIT_EVERY", 10)
    post(client_, glossary(35), game=game.pk)
    run_background_tasks()
    job = ImportJob.objects.get()
    page = client_.get(f"{IMPORT_URL}{job.pk}/")
    decide(client_, page)
    run_background_tasks()

    job.refresh_from_db()
    assert job.state == ImportJob.State.DONE
    assert (job.stage, job.done, job.total) == ("linking", 35, 35)
    assert Entry.objects.filter(game=game).count() == 35
    assert not job.data, "the document's bytes are not kept once it is imported"


def test_the_page_says_when_no_worker_takes_the_job(client_, game, large):
    page = post(client_, glossary(5), game=game.pk)
    ImportJob.objects.update(queued_at=timezone.now() - datetime.timedelta(minutes=2))
    page = client_.get(page.redirect_chain[-1][0])
    assert "Is the background worker running?" in section(page, "import-progress")


def test_a_document_refused_in_the_background_says_why_with_its_line(client_, game, large):
    page = post(client_, "\x00 nicht lesbar\n", game=game.pk)
    run_background_tasks()
    page = client_.get(page.redirect_chain[-1][0])
    assert "Nothing was imported" in section(page, "import-failed")
    assert "Line 1" in section(page, "import-failed")


def test_the_background_preview_speaks_the_moderators_language(client_, game, large):
    """The worker has no language of its own: a job's warnings are in the language of the
    moderator who uploaded it."""
    page = post(client_, GLOSSARY, game=game.pk)
    run_background_tasks()
    decide(client_, client_.get(page.redirect_chain[-1][0]))
    run_background_tasks()
    page = client_.post(
        IMPORT_URL,
        {"game": game.pk, "language": "de", "kind": "rulebook", "source_title": "Regelheft", "text": RULEBOOK},
        HTTP_ACCEPT_LANGUAGE="de",
        follow=True,
    )
    run_background_tasks()
    page = client_.get(page.redirect_chain[-1][0], HTTP_ACCEPT_LANGUAGE="de")
    assert "„Angriff“ wird gesondert als „angriff-2“ importiert" in section(page, "import-warnings")


def test_a_job_is_its_moderators_alone(client_, game, django_user_model):
    page = post(client_, GLOSSARY, game=game.pk)
    url = page.redirect_chain[-1][0]
    other = staff(django_user_model, "other", "view_entry", "add_entry", "change_entry")
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("boss", password="x"))
    assert client.get(url).status_code == HTTPStatus.OK  # a superuser may look
    client.force_login(other)
    assert client.get(url).status_code in (HTTPStatus.NOT_FOUND, HTTPStatus.FORBIDDEN)
    assert client.post(url, {"confirm": "1"}).status_code in (HTTPStatus.NOT_FOUND, HTTPStatus.FORBIDDEN)
    assert not Entry.objects.exists()


def test_an_upload_with_a_version_makes_a_release_that_lists_what_changed(client_, game):
    from rules.content.releases import Release

    decide(client_, post(client_, RULEBOOK, kind="rulebook", source_title="Regelheft", source_version="1.0",
                         game=game.pk))  # fmt: skip
    run_background_tasks()
    reworded = RULEBOOK.replace("\n", " \n", 1)  # the same rules: nothing changed
    decide(client_, post(client_, reworded, kind="rulebook", source_title="Regelheft", source_version="1.1",
                         effective_date="2030-01-01", game=game.pk))  # fmt: skip
    run_background_tasks()
    releases = list(Release.objects.filter(source__title="Regelheft").order_by("sequence"))
    assert [r.version for r in releases] == ["1.0", "1.1"]
    assert releases[0].changes.count() == Entry.objects.filter(source__title="Regelheft").count()
    assert releases[1].changes.count() == 0
    assert releases[1].effective_on == datetime.date(2030, 1, 1) and releases[1].upcoming
