"""A suggestion's word diffs are computed once and stored: the player's change (what they
saw → their proposal) when it is submitted; the diffs against the item's current text
when the review page first shows that text. The status page and the review page read
them. Each test changes a stored diff behind the pages' back: a page that still shows
the computed one would be computing it on every view."""

import html as html_lib
import re
from http import HTTPStatus

import pytest
from django.core.management import call_command
from django.urls import reverse

from rules.moderation import suggestions
from rules.moderation.models import Suggestion
from rules.shared.diffing import word_diff_html
from tests.factories import make_entry, make_game
from tests.module_world import fixtures

from .sending import send

BODY = "Turn the card sideways. It is exausted."
FIXED = "Turn the card sideways. It is exhausted."
URL = "/en/games/blue-moon/rules/exhaust/suggest/"
MARK = "<ins>FROM-THE-STORED-DIFF</ins>"


pytestmark = pytest.mark.django_db


def build_entry():
    return make_entry(game=make_game(slug="blue-moon", name="Blue Moon"), title="Exhaust", slug="exhaust", body=BODY)


# Written once for the module's tests that read it (tests.module_world).
_entry_of_the_module, entry = fixtures(build_entry, "entry")


def stored(suggestion: Suggestion, **diffs) -> None:
    """Change stored diffs in the database only (what a later view must read)."""
    Suggestion.objects.filter(pk=suggestion.pk).update(**diffs)


def review(client, suggestion) -> str:
    response = client.get(reverse("admin:suggestion_review", args=[suggestion.pk]))
    assert response.status_code == HTTPStatus.OK
    return response.content.decode()


def test_submit_stores_the_players_change_and_the_status_page_reads_it(client, entry):
    response = send(client, URL, proposal=FIXED)
    assert response.status_code == HTTPStatus.FOUND
    suggestion = Suggestion.objects.get()
    assert "<del>exausted.</del><ins>exhausted.</ins>" in suggestion.seen_to_proposal_diff
    assert "<del>exausted.</del><ins>exhausted.</ins>" in client.get(response["Location"]).content.decode()

    stored(suggestion, seen_to_proposal_diff=MARK)
    html = client.get(response["Location"]).content.decode()
    assert MARK in html and "<del>exausted.</del>" not in html


def test_a_comment_only_suggestion_stores_no_diff(client, entry):
    response = send(client, URL, proposal=BODY)  # sent back unchanged: no proposal
    suggestion = Suggestion.objects.get()
    assert (suggestion.proposal, suggestion.seen_to_proposal_diff) == ("", "")
    assert "Proposed change" not in client.get(response["Location"]).content.decode()


def test_the_stored_diff_is_escaped(entry):
    suggestion = suggestions.submit(entry, kind="typo", comment="x", proposal=BODY + " <script>alert(1)</script>")
    assert "<script>" not in suggestion.seen_to_proposal_diff
    assert "&lt;script&gt;" in suggestion.seen_to_proposal_diff


def test_the_review_page_reads_the_players_change(admin_client, entry):
    suggestion = suggestions.submit(entry, kind="typo", comment="Typo.", proposal=FIXED, address="203.0.113.1")
    assert "<ins>exhausted.</ins>" in review(admin_client, suggestion)
    stored(suggestion, seen_to_proposal_diff=MARK)
    body = review(admin_client, suggestion)
    assert MARK in body and "<ins>exhausted.</ins>" not in body
    # The text is what the player saw: nothing against it was computed or stored.
    assert Suggestion.objects.get().diffed_text_sha256 == ""


def test_the_review_page_diffs_each_current_text_once(admin_client, entry):
    suggestion = suggestions.submit(entry, kind="typo", comment="Typo.", proposal=FIXED, address="203.0.113.1")
    entry.body = BODY + " Exhausted cards cannot attack."
    entry.save()

    body = review(admin_client, suggestion)
    assert 'id="suggestion-three-way"' in body
    assert "<ins> Exhausted cards cannot attack.</ins>" in body  # what changed since
    row = Suggestion.objects.get()
    assert row.diffed_text_sha256 and "<ins> Exhausted cards cannot attack.</ins>" in row.seen_to_current_diff

    stored(suggestion, seen_to_current_diff=MARK)
    body = review(admin_client, suggestion)  # the same text: read, not computed again
    assert MARK in body and "<ins> Exhausted cards cannot attack.</ins>" not in body

    entry.body = BODY + " Exhausted cards cannot block."
    entry.save()
    body = review(admin_client, suggestion)  # another text: computed for it, once
    assert MARK not in body and "<ins> Exhausted cards cannot block.</ins>" in body
    assert Suggestion.objects.get().diffed_text_sha256 != row.diffed_text_sha256


def test_an_open_suggestion_against_a_text_equal_but_for_its_ends(admin_client, entry):
    """Not stale (the texts are the same but for surrounding blank space), yet not the
    same text: the proposal is shown against the text as it is, diffed once."""
    suggestion = suggestions.submit(entry, kind="typo", comment="Typo.", proposal=FIXED, address="203.0.113.1")
    Suggestion.objects.filter(pk=suggestion.pk).update(seen_text=BODY + "\n\n")
    suggestion.refresh_from_db()
    assert not suggestions.stale(suggestion)
    body = review(admin_client, suggestion)
    assert 'id="suggestion-three-way"' not in body
    diff = re.search(r'<div class="suggestion-diff"[^>]*>(.*?)</div>', body, re.S).group(1)
    assert diff == str(word_diff_html(BODY, FIXED, context=suggestions.DIFF_CONTEXT_WORDS))
    assert Suggestion.objects.get().current_to_proposal_diff == diff
    assert html_lib.unescape(diff).count("exhausted.") == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_stores_the_diffs_of_existing_suggestions(entry):
    with_proposal = suggestions.submit(entry, kind="typo", comment="Typo.", proposal=FIXED, address="203.0.113.1")
    comment_only = suggestions.submit(entry, kind="other", comment="Hm.", address="203.0.113.2")
    try:
        call_command("migrate", "rules", "0019", verbosity=0)  # before the diffs were stored
    finally:
        call_command("migrate", verbosity=0)
    with_proposal = Suggestion.objects.get(pk=with_proposal.pk)
    assert with_proposal.seen_to_proposal_diff == str(
        word_diff_html(with_proposal.seen_text, with_proposal.proposal, context=20)
    )
    assert Suggestion.objects.get(pk=comment_only.pk).seen_to_proposal_diff == ""
