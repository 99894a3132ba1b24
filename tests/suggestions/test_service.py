"""The suggestions service (rules.moderation.suggestions): submit, merge, decide, block."""

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.exceptions import ValidationError

from rules.content.history import latest_version
from rules.content.querysets import Status
from rules.moderation import suggestions
from rules.moderation.models import COMMENT_MAX_LENGTH, PROPOSAL_MAX_LENGTH, BlockedAddress, Suggestion
from tests.factories import make_entry, make_erratum, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

ADDRESS = "203.0.113.7"


def build_moderator():
    return User.objects.create_user("mod", "mod@example.org", "a-long-password", is_staff=True)


# Written once for the module's tests that read it (tests.module_world).
_moderator_of_the_module, moderator = fixtures(build_moderator, "moderator")


def build_entry():
    return make_entry(title="Exhaust", body="Turn the card sideways. It is exausted.")


# Written once for the module's tests that read it (tests.module_world).
_entry_of_the_module, entry = fixtures(build_entry, "entry")


def send(target, **kwargs):
    kwargs.setdefault("kind", Suggestion.Kind.TYPO)
    kwargs.setdefault("comment", "A typo in the second sentence.")
    kwargs.setdefault("proposal", "Turn the card sideways. It is exhausted.")
    kwargs.setdefault("address", ADDRESS)
    return suggestions.submit(target, **kwargs)


def test_submit_records_what_the_player_saw(entry):
    suggestion = send(entry, email="player@example.org", ui_language="de")
    assert suggestion.pk and suggestion.is_open
    assert (suggestion.target_type, suggestion.target_id, suggestion.game_id, suggestion.language) == (
        "entry", entry.pk, entry.game_id, "en",
    )  # fmt: skip
    assert suggestion.seen_text == entry.body
    assert suggestion.seen_version == latest_version(entry).history_id
    assert len(suggestion.token) >= 43 and suggestion.address_hash and ADDRESS not in suggestion.address_hash
    assert suggestion.get_absolute_url() == f"/de/suggestions/{suggestion.token}/"


def test_submit_mails_the_status_link(entry, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        suggestion = send(entry, email="player@example.org")
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["player@example.org"]
    assert f"http://testserver/en/suggestions/{suggestion.token}/" in mail.outbox[0].body


def test_no_mail_without_an_address(entry, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        send(entry)
    assert mail.outbox == []


def test_the_same_proposal_twice_from_the_same_player_is_one_suggestion(entry):
    first = send(entry)
    again = send(entry, comment="Different words, same fix.")
    assert again.pk == first.pk
    assert Suggestion.objects.count() == 1
    # another kind, another proposal: suggestions of their own
    assert send(entry, kind=Suggestion.Kind.OTHER).pk != first.pk
    assert send(entry, proposal="Turn it.").pk != first.pk
    # once decided, the same proposal is a new suggestion
    suggestions.withdraw(first)
    assert send(entry).pk != first.pk


def test_a_repeat_is_answered_while_strangers_diffs_are_busy(entry, monkeypatch):
    """A repeat computes no diff: a double click is answered with the suggestion sent,
    even while every place for a diff is taken (a new proposal is told to retry)."""
    from rules.shared.capacity import Busy, Lane

    first = send(entry)
    full = Lane("strangers' diffs", size=1, queue=0, wait=0)
    monkeypatch.setattr(suggestions, "STRANGERS_DIFFS", full)
    with full.held():
        assert send(entry).pk == first.pk
        with pytest.raises(Busy):
            send(entry, proposal="Turn it.")
    assert Suggestion.objects.count() == 1


def test_the_same_proposal_from_someone_else_is_theirs(entry):
    """Returning the first would hand its private status page to a stranger."""
    first = send(entry)
    other = send(entry, address="198.51.100.9")
    assert other.pk != first.pk and other.token != first.token
    assert list(suggestions.same_as(other)) == [first]


def test_the_text_sent_back_unchanged_is_no_proposal(entry):
    suggestion = send(entry, proposal=entry.body.replace("\n", "\r\n") + "\r\n\r\n")
    assert suggestion.proposal == ""


def test_limits_and_choices_are_checked(entry):
    with pytest.raises(ValidationError) as error:
        send(entry, comment="x" * (COMMENT_MAX_LENGTH + 1), proposal="y" * (PROPOSAL_MAX_LENGTH + 1))
    assert {"comment", "proposal"} <= set(error.value.message_dict)
    with pytest.raises(ValidationError):
        send(entry, kind="nonsense")
    with pytest.raises(ValidationError):
        send(entry, email="not an address")
    assert not Suggestion.objects.exists()


def test_only_published_items(entry):
    draft = make_entry(game=entry.game, status=Status.DRAFT)
    with pytest.raises(suggestions.NotPublished):
        send(draft)
    assert not Suggestion.objects.exists()


def test_accept_edits_the_entry_through_the_write_path(client, entry, moderator, django_capture_on_commit_callbacks):
    suggestion = send(entry, email="player@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        suggestion = suggestions.accept(suggestion, moderator)
    assert suggestion.status == Suggestion.Status.ACCEPTED and suggestion.decided_by == moderator
    entry.refresh_from_db()
    assert entry.body == "Turn the card sideways. It is exhausted."
    version = latest_version(entry)
    assert version.history_change_reason == f"suggestion #{suggestion.pk} accepted"
    assert version.history_user == moderator
    # derived data: the stored HTML and the public page
    assert "exhausted" in entry.body_html
    page = client.get(entry.get_absolute_url())
    assert "It is exhausted." in page.content.decode() and "exausted" not in page.content.decode()
    # the player hears of it, with a link to the changed entry
    assert "accepted" in mail.outbox[-1].subject.lower()
    assert f"http://testserver{entry.canonical_url()}" in mail.outbox[-1].body


def test_accept_an_erratum_and_a_faq_answer(moderator):
    erratum = make_erratum(corrected_text="Draw to cards.")
    question = make_question(answer="Yes, allways.")
    for item, proposal, field in (
        (erratum, "Draw two cards.", "corrected_text"),
        (question, "Yes, always.", "answer"),
    ):
        suggestion = suggestions.accept(send(item, proposal=proposal), moderator)
        item.refresh_from_db()
        assert getattr(item, field) == proposal
        assert latest_version(item).history_change_reason == f"suggestion #{suggestion.pk} accepted"


def test_a_stale_suggestion_never_overwrites_newer_text(entry, moderator):
    suggestion = send(entry)
    entry.body = "Turn the card sideways. It is exhausted. A moderator added this sentence."
    entry.save()
    assert suggestions.stale(suggestion)
    with pytest.raises(suggestions.Stale):
        suggestions.accept(suggestion, moderator)
    entry.refresh_from_db()
    assert "A moderator added this sentence." in entry.body
    assert Suggestion.objects.get(pk=suggestion.pk).is_open
    # the moderator merges by hand and accepts with the merged text
    merged = "Turn the card sideways; it is exhausted. A moderator added this sentence."
    suggestions.accept(suggestion, moderator, text=merged)
    entry.refresh_from_db()
    assert entry.body == merged
    assert latest_version(entry).history_change_reason == f"suggestion #{suggestion.pk} accepted (edited)"


def test_a_title_change_does_not_make_a_suggestion_stale(entry, moderator):
    suggestion = send(entry)
    entry.title = "Exhausted"
    entry.save()
    assert not suggestions.stale(suggestion)
    suggestions.accept(suggestion, moderator)


def test_a_comment_only_suggestion_is_accepted_without_an_edit(entry, moderator):
    suggestion = send(entry, proposal="", kind=Suggestion.Kind.CROSS_REFERENCE, comment="Link [[Ready]].")
    versions = entry.history.count()
    suggestions.accept(suggestion, moderator)
    assert entry.history.count() == versions


def test_reject_withdraw_duplicate(entry, moderator, django_capture_on_commit_callbacks):
    with pytest.raises(suggestions.SuggestionError):
        suggestions.reject(send(entry), moderator, "  ")
    with django_capture_on_commit_callbacks(execute=True):
        rejected = suggestions.reject(send(entry, email="p@example.org"), moderator, "The printed card says so.")
    assert rejected.status == Suggestion.Status.REJECTED and rejected.reason == "The printed card says so."
    assert "The printed card says so." in mail.outbox[-1].body
    entry.refresh_from_db()
    assert "exausted" in entry.body  # nothing written

    original = send(entry, kind=Suggestion.Kind.WRONG_RULE)
    twin = send(entry, kind=Suggestion.Kind.WRONG_RULE, address="198.51.100.1")
    twin = suggestions.mark_duplicate(twin, moderator, original)
    assert twin.status == Suggestion.Status.DUPLICATE and twin.duplicate_of == original
    with pytest.raises(suggestions.SuggestionError):
        suggestions.mark_duplicate(original, moderator, original)

    withdrawn = suggestions.withdraw(original)
    assert withdrawn.status == Suggestion.Status.WITHDRAWN
    for decided in (rejected, twin, withdrawn):
        with pytest.raises(suggestions.NotOpen):
            suggestions.accept(decided, moderator)
        with pytest.raises(suggestions.NotOpen):
            suggestions.withdraw(decided)


def test_block(entry, moderator):
    suggestion = send(entry)
    assert not suggestions.is_blocked(ADDRESS)
    suggestions.block(suggestion.address_hash, moderator, note="spam")
    suggestions.block(suggestion.address_hash, moderator)  # twice: one block
    assert BlockedAddress.objects.count() == 1
    assert suggestions.is_blocked(ADDRESS) and not suggestions.is_blocked("203.0.113.8")
    with pytest.raises(suggestions.Blocked):
        send(entry, proposal="Something else.")
    suggestions.unblock(suggestion.address_hash)
    assert not suggestions.is_blocked(ADDRESS)


def test_an_ipv6_address_counts_as_its_network():
    assert suggestions.address_hash("2001:db8:1:2::1") == suggestions.address_hash("2001:db8:1:2:ffff::9")
    assert suggestions.address_hash("2001:db8:1:2::1") != suggestions.address_hash("2001:db8:1:3::1")
    assert suggestions.address_hash("::ffff:203.0.113.7") == suggestions.address_hash(ADDRESS)
