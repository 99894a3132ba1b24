"""A moderator edits an entry: see-also as ordered lines, renames, statuses in bulk.

Every test goes through the admin pages a moderator uses: open the change form, change
what a moderator would change, submit it as the browser would.
"""

from http import HTTPStatus

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.models import Entry
from rules.content.querysets import Status
from tests.admin.forms import submit_change_form
from tests.factories import make_entry, make_game, written_together

pytestmark = pytest.mark.django_db


def change_url(entry) -> str:
    return f"/admin/rules/entry/{entry.pk}/change/"


def edit(client, entry, **changes):
    """Open the entry's change form, change some fields, save; return the response."""
    return submit_change_form(client, entry, **changes)


def test_see_also_is_edited_as_ordered_lines_and_resolves(moderator_client):
    game = make_game()
    make_entry(game=game, title="Exhaust")
    make_entry(game=game, title="Ready")
    entry = make_entry(game=game, title="Reaction")

    response = edit(moderator_client, entry, see_also="Ready\n\n  Exhaust \nready\nTiming window\n")

    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]
    entry.refresh_from_db()
    # in the moderator's order, blank lines and a repeated label dropped
    assert entry.see_also == ["Ready", "Exhaust", "Timing window"]
    page = moderator_client.get(change_url(entry)).content.decode()
    assert "Ready\nExhaust\nTiming window</textarea>" in page
    assert "nothing yet: wanted" in page  # "Timing window" has no entry yet
    public = moderator_client.get(entry.get_absolute_url()).content.decode()
    assert public.index(">Ready<") < public.index(">Exhaust<")


def test_aliases_are_one_per_line(moderator_client):
    entry = make_entry(title="Du", language="de")

    edit(moderator_client, entry, aliases="Dein\nDeine\n")

    entry.refresh_from_db()
    assert entry.aliases == ["Dein", "Deine"]


def test_an_overlong_label_is_refused_and_the_text_kept(moderator_client):
    entry = make_entry(title="Reaction")
    long_label = "x" * 301

    response = edit(moderator_client, entry, see_also=f"Ready\n{long_label}", body="My careful new text.")

    assert response.status_code == HTTPStatus.OK
    page = response.content.decode()
    assert "longer than 300 characters" in page
    assert "My careful new text." in page  # nothing the moderator typed is lost
    entry.refresh_from_db()
    assert entry.see_also == []


def test_renaming_keeps_the_old_address_and_every_reference(moderator_client, client):
    game = make_game()
    entry = make_entry(game=game, title="Reaktion Fenster", language="de", body="Alt.")
    referrer = make_entry(game=game, title="Auslöser", language="de", see_also=["Reaktion Fenster"])
    old_url = entry.get_absolute_url()

    response = edit(moderator_client, entry, title="Reaktionsfenster")

    assert response.status_code == HTTPStatus.FOUND
    entry.refresh_from_db()
    assert entry.slug == "reaktionsfenster"
    assert entry.aliases == ["Reaktion Fenster"]
    # the old address is a permanent redirect to the new one
    moved = client.get(old_url)
    assert moved.status_code == HTTPStatus.MOVED_PERMANENTLY
    assert moved["Location"] == entry.get_absolute_url()
    assert client.get(moved["Location"]).status_code == HTTPStatus.OK
    # the reference written with the old title still leads to the entry
    referring_page = client.get(referrer.get_absolute_url()).content.decode()
    assert f'href="{entry.get_absolute_url()}"' in referring_page


def test_a_chosen_slug_is_kept_and_the_old_one_redirects(moderator_client, client):
    entry = make_entry(title="Reaction")
    old_url = entry.get_absolute_url()

    edit(moderator_client, entry, slug="reaction-rule")

    entry.refresh_from_db()
    assert entry.slug == "reaction-rule"
    assert client.get(old_url)["Location"] == entry.get_absolute_url()


def test_a_new_entry_may_take_an_old_address(moderator_client, client):
    game = make_game()
    first = make_entry(game=game, title="Reaction")
    edit(moderator_client, first, title="Reaction Window")
    newcomer = make_entry(game=game, title="Reaction")  # takes the freed slug "reaction"

    assert newcomer.slug == "reaction"
    page = client.get(newcomer.get_absolute_url())
    assert page.status_code == HTTPStatus.OK
    assert "<h1" in page.content.decode() and "Reaction</h1>" in page.content.decode()


def test_a_renamed_draft_does_not_redirect_readers(moderator_client, client):
    entry = make_entry(title="Reaction", status=Status.DRAFT)
    old_url = entry.url_in("en")

    edit(moderator_client, entry, title="Reaction Window")

    assert client.get(old_url).status_code == HTTPStatus.NOT_FOUND


def changelist_action(client, action: str, entries):
    return client.post(
        "/admin/rules/entry/",
        {"action": action, "_selected_action": [str(e.pk) for e in entries]},
        follow=True,
    )


def test_publishing_many_entries_records_each_and_shows_them(moderator_client, moderator, client):
    game = make_game()
    drafts = [make_entry(game=game, title=f"Draft {n}", status=Status.DRAFT) for n in range(3)]
    already = make_entry(game=game, title="Live")

    response = changelist_action(moderator_client, "publish", [*drafts, already])

    page = response.content.decode()
    assert "3 items changed." in page
    assert "1 item already had that status." in page
    for draft in drafts:
        assert client.get(draft.get_absolute_url()).status_code == HTTPStatus.OK
        latest = draft.history.latest()
        assert (latest.status, latest.history_user, latest.history_change_reason) == (
            Status.PUBLISHED,
            moderator,
            "published",
        )
    assert already.history.count() == 1  # unchanged: no new version


@pytest.mark.parametrize(
    ("action", "status"),
    [("send_to_review", Status.REVIEW), ("return_to_draft", Status.DRAFT), ("archive", Status.ARCHIVED)],
)
def test_other_status_actions_take_items_off_the_site(moderator_client, client, action, status):
    entries = [make_entry(title=f"Entry {n}") for n in range(2)]

    changelist_action(moderator_client, action, entries)

    for entry in entries:
        entry.refresh_from_db()
        assert entry.status == status
        assert client.get(entry.url_in("en")).status_code == HTTPStatus.NOT_FOUND


def test_status_actions_work_on_errata_and_questions(moderator_client, client):
    from tests.factories import make_erratum, make_question

    erratum = make_erratum(status=Status.REVIEW, title="Build zone fix")
    question = make_question(status=Status.REVIEW, question="Can I react twice?")

    moderator_client.post("/admin/rules/erratum/", {"action": "publish", "_selected_action": [erratum.pk]})
    moderator_client.post("/admin/faq/question/", {"action": "publish", "_selected_action": [question.pk]})

    assert "Build zone fix" in client.get(f"/en/games/{erratum.game.slug}/errata/").content.decode()
    assert "Can I react twice?" in client.get(f"/en/games/{question.game.slug}/faq/").content.decode()


def test_a_changed_body_is_marked_as_checked(moderator_client):
    entry = make_entry(title="Reaction", body="Old text.")
    Entry.objects.filter(pk=entry.pk).update(body_checked_at=entry.created_at.replace(year=2020))

    edit(moderator_client, entry, title="Reaction", body="New text.")

    entry.refresh_from_db()
    assert entry.body_checked_at.year > 2020


def test_a_body_saved_from_the_browser_keeps_plain_line_ends_and_a_short_history(moderator_client):
    long_text = "\n".join(f"Line {n} of the rules text stays exactly as it was." for n in range(40))
    entry = make_entry(title="Reaction", body=long_text)
    # a browser sends a textarea's lines ended with CR LF
    edited = long_text.replace("Line 20 of", "Line twenty of").replace("\n", "\r\n")

    edit(moderator_client, entry, body=edited)

    entry.refresh_from_db()
    assert "\r" not in entry.body
    assert entry.body == long_text.replace("Line 20 of", "Line twenty of")
    history = moderator_client.get(f"/admin/rules/entry/{entry.pk}/history/").content.decode()
    assert "<del>20</del><ins>twenty</ins>" in history
    assert "Line 2 of" not in history and "Line 38 of" not in history  # far from the change: "…"
    assert " … " in history


def test_the_change_form_s_queries_do_not_grow_with_its_cross_references(moderator_client):
    """Each cross-reference row of the form names the entry it belongs to: read with the
    rows, not once a row (an entry of 157 took 1.4-1.7 s to open)."""
    game = make_game()

    @written_together
    def entry_seeing(count: int) -> Entry:
        targets = [make_entry(game=game, title=f"Target {count}-{n}").title for n in range(count)]
        return make_entry(game=game, title=f"Seeing {count}", see_also=[*targets, f"Wanted {count}"])

    def queries(entry) -> int:
        with CaptureQueriesContext(connection) as captured:
            response = moderator_client.get(change_url(entry))
        assert response.status_code == HTTPStatus.OK
        page = response.content.decode()
        assert page.count('<td class="field-resolves_to">') == len(entry.see_also)
        assert page.count(f"{entry.title} → ") == len(entry.see_also)  # each row names its entry
        return len(captured)

    few, many = entry_seeing(2), entry_seeing(12)
    assert queries(many) == queries(few)
