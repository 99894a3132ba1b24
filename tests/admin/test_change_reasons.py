"""A reason for this change: an optional line on the change forms, stored as the
version's change reason and shown on the history page and in the activity log."""

import re
from http import HTTPStatus

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from rules.content.models import Entry
from tests.admin.conftest import make_staff
from tests.admin.forms import submit_change_form
from tests.admin.test_activity import activity
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

REASON = "Official FAQ 1.3, p. 4"


def change_url(obj) -> str:
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])


def history_reasons(client, obj) -> list[str]:
    """The "Change reason" cell of each version on the history page, newest first."""
    opts = obj._meta
    page = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_history", args=[obj.pk])).content.decode()
    cells = re.findall(r'<td class="history-why">(.*?)</td>', page, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in cells]


def errors_of(response, field: str = "change_reason") -> list[str]:
    return response.context["adminform"].form.errors.get(field, [])


def build_game():
    return make_game(name="Arkham Horror")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


ITEMS = {
    "entry": (lambda game: make_entry(game=game, title="Reaction"), {"body": "Changed text."}),
    "erratum": (lambda game: make_erratum(game=game, title="Fix"), {"corrected_text": "Changed text."}),
    "question": (lambda game: make_question(game=game, question="When?"), {"answer": "Changed text."}),
    "source": (lambda game: make_source(game=game, title="Rules Reference"), {"version": "1.3"}),
    "game": (lambda game: game, {"publisher": "Fantasy Flight"}),
}


@pytest.mark.parametrize("kind", ITEMS)
def test_a_reason_is_stored_with_the_version_and_shown_in_the_history(moderator_client, moderator, game, kind):
    make, changes = ITEMS[kind]
    item = make(game)

    response = submit_change_form(moderator_client, item, change_reason=REASON, **changes)

    assert response.status_code == HTTPStatus.FOUND
    latest = item.history.latest()
    assert (latest.history_change_reason, latest.history_user) == (REASON, moderator)
    assert history_reasons(moderator_client, item)[0] == REASON


def test_the_activity_log_shows_the_reason(moderator_client, game):
    entry = make_entry(game=game, title="Reaction")

    submit_change_form(moderator_client, entry, body="A better text.", change_reason=REASON)

    rows = activity(moderator_client)
    assert (rows[0]["what"], rows[0]["who"], rows[0]["reason"], rows[0]["fields"]) == (
        "Entry: Reaction", "mod", REASON, "Body"
    )  # fmt: skip


def test_no_reason_is_fine_and_a_reason_is_not_kept_for_the_next_save(moderator_client, game):
    entry = make_entry(game=game, title="Reaction")

    submit_change_form(moderator_client, entry, body="First.", change_reason=REASON)
    page = moderator_client.get(change_url(entry)).content.decode()
    assert re.search(r'<input type="text" name="change_reason"[^>]*>', page).group(0).count("value=") == 0
    response = submit_change_form(moderator_client, entry, body="Second.")

    assert response.status_code == HTTPStatus.FOUND
    assert [v.history_change_reason for v in entry.history.order_by("-history_id")[:2]] == [None, REASON]
    assert history_reasons(moderator_client, entry)[:2] == ["", REASON]


def test_a_reason_for_a_change_of_affected_entries_is_on_the_one_version(moderator_client, game):
    ready = make_entry(game=game, title="Ready")
    erratum = make_erratum(game=game, title="Fix")
    versions = erratum.history.count()

    submit_change_form(moderator_client, erratum, affects=[str(ready.pk)], change_reason="Affects Ready too")

    assert erratum.history.count() == versions + 1
    latest = erratum.history.latest()
    assert latest.history_change_reason == "Affects Ready too"
    assert [row.entry_id for row in latest.affects.all()] == [ready.pk]


def test_white_space_in_a_reason_becomes_one_space(moderator_client, game):
    entry = make_entry(game=game, title="Reaction")

    submit_change_form(moderator_client, entry, body="New.", change_reason="  FAQ 1.3\r\n\tp. 4  ")

    assert entry.history.latest().history_change_reason == "FAQ 1.3 p. 4"


@pytest.mark.parametrize(
    ("reason", "error"),
    [
        ("x" * 101, "Ensure this value has at most 100 characters (it has 101)."),
        ("FAQ\x001.3", "Remove the invisible control character U+0000 at character 4: it cannot be stored."),
        ("FAQ\x071.3", "Remove the invisible control character U+0007 at character 4: it cannot be stored."),
    ],
)
def test_a_reason_that_cannot_be_stored_is_a_form_error_and_nothing_is_lost(moderator_client, game, reason, error):
    entry = make_entry(game=game, title="Reaction", body="Old.")
    versions = entry.history.count()

    response = submit_change_form(moderator_client, entry, body="Typed and kept.", change_reason=reason)

    assert response.status_code == HTTPStatus.OK
    assert errors_of(response) == [error]
    assert "Typed and kept." in response.content.decode()
    entry.refresh_from_db()
    assert (entry.body, entry.history.count()) == ("Old.", versions)


def test_the_field_has_a_length_limit_in_the_browser_too(moderator_client, game):
    page = moderator_client.get(change_url(make_entry(game=game))).content.decode()
    field = re.search(r'<input type="text" name="change_reason"[^>]*>', page).group(0)
    assert 'maxlength="100"' in field
    assert "Reason for this change" in page


def test_a_new_item_has_no_reason_field(moderator_client):
    for url in ("admin:rules_entry_add", "admin:rules_erratum_add", "admin:faq_question_add"):
        assert 'name="change_reason"' not in moderator_client.get(reverse(url)).content.decode()


def test_a_user_who_may_only_view_gets_no_reason_field(client, game):
    viewer = make_staff("viewer")
    viewer.user_permissions.add(Permission.objects.get(codename="view_entry"))
    game.moderators.add(viewer)
    entry = make_entry(game=game, title="Reaction")
    client.force_login(viewer)

    page = client.get(change_url(entry))

    assert page.status_code == HTTPStatus.OK
    assert "Reaction" in page.content.decode()
    assert "change_reason" not in page.content.decode() and "Reason for this change" not in page.content.decode()


def test_the_field_speaks_german(moderator_client, game):
    moderator_client.cookies["django_language"] = "de"
    page = moderator_client.get(change_url(make_entry(game=game))).content.decode()
    assert "Grund für diese Änderung" in page
    assert Entry.objects.count() == 1
