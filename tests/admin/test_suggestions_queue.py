"""The moderators' queue of players' suggestions (rules.admin.suggestions): the list, the
review page (word diff, the three-way view of a stale suggestion), the decisions through
the service, scoping by game, the dashboard's count, and no suggestion text unescaped.

Suggestions are made through the service (``suggestions.submit``), as the player's page
makes them; the admin is used as a moderator uses it.
"""

import html as html_lib
import re
from html.parser import HTMLParser
from http import HTTPStatus

import pytest
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rules.content.models import Entry
from rules.moderation import suggestion_queue, suggestions
from rules.moderation.models import Suggestion
from rules.moderation.permissions import GAME_MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures
from tests.xss import VECTORS, one_line

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:suggestions")
INDEX = reverse("admin:index")
OVERVIEW = reverse("admin:worklists")
ADDRESS = "203.0.113.7"


def review_url(suggestion) -> str:
    return reverse("admin:suggestion_review", args=[suggestion.pk])


def block_url(suggestion) -> str:
    return reverse("admin:suggestion_block", args=[suggestion.pk])


def page(response) -> str:
    return response.content.decode()


def text_of(response) -> str:
    """The page's text as a reader gets it: tags dropped, entities decoded, spaces collapsed."""
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page(response), flags=re.S)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def rows(response) -> list[str]:
    found = re.findall(r'<tr class="suggestion-row"[^>]*>(.*?)</tr>', page(response), re.S)
    return [" ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", row)).split()) for row in found]


@written_together
def build_world():
    """Two games, an entry in each, and a suggestion for each entry."""
    arcadia = make_game(name="Arcadia", slug="arcadia")
    blue = make_game(name="Blue Moon", slug="blue-moon")
    attack = make_entry(game=arcadia, title="Attack", body="Exhaust a unit to attack an adjacent enemy unit.")
    angriff = make_entry(game=blue, language="de", title="Angriff", body="Erschöpfe eine Einheit.")
    typo = suggestions.submit(
        attack,
        kind=Suggestion.Kind.TYPO,
        comment="“adjacent” should be “an adjacent or ranged”.",
        proposal="Exhaust a unit to attack an adjacent or ranged enemy unit.",
        address=ADDRESS,
    )
    other = suggestions.submit(
        angriff, kind=Suggestion.Kind.OTHER, comment="Fehlt ein Beispiel.", address="198.51.100.4"
    )
    return {"arcadia": arcadia, "blue": blue, "attack": attack, "angriff": angriff, "typo": typo, "other": other}


# Written once for the module (tests.module_world): every test asks for it.
_world_of_the_module, world = fixtures(build_world, "world")


# --- the queue --------------------------------------------------------------------------


def test_the_queue_lists_open_suggestions_newest_first_with_item_kind_comment_and_age(moderator_client, world):
    erratum = make_erratum(game=world["arcadia"], title="Ranged attacks", corrected_text="Range 2.")
    newest = suggestions.submit(erratum, kind=Suggestion.Kind.WRONG_RULE, comment="Range is 3 now.", address=ADDRESS)

    response = moderator_client.get(QUEUE)

    assert response.status_code == HTTPStatus.OK
    listed = rows(response)
    assert [row.split()[2] for row in listed] == [f"#{newest.pk}", f"#{world['other'].pk}", f"#{world['typo'].pk}"]
    assert "Ranged attacks (erratum)" in listed[0] and "Wrong or outdated rule" in listed[0]
    assert "Range is 3 now." in listed[0] and "Arcadia (en)" in listed[0] and " ago" in listed[0]
    assert "Attack (entry)" in listed[2] and "with a proposed text" in listed[2] and "Typo" in listed[2]
    assert "3 suggestions to review" in text_of(response)
    assert f'href="{review_url(newest)}?next=' in page(response)


def test_the_queue_filters_by_status_game_language_and_kind(moderator_client, world):
    suggestions.reject(world["other"], None, "No.")

    def numbers(query) -> list[str]:
        return [row.split()[2] for row in rows(moderator_client.get(QUEUE, query))]

    assert numbers({}) == [f"#{world['typo'].pk}"]  # open by default
    assert numbers({"status": "rejected"}) == [f"#{world['other'].pk}"]
    assert numbers({"status": "all"}) == [f"#{world['other'].pk}", f"#{world['typo'].pk}"]
    assert numbers({"status": "all", "game": world["blue"].pk}) == [f"#{world['other'].pk}"]
    assert numbers({"status": "all", "language": "de"}) == [f"#{world['other'].pk}"]
    assert numbers({"status": "all", "kind": "typo"}) == [f"#{world['typo'].pk}"]
    assert numbers({"status": "all", "kind": "translation"}) == []
    # Nonsense is ignored, never an error.
    assert moderator_client.get(QUEUE, {"status": "x", "game": "y", "kind": "z", "page": "q"}).status_code == 200
    rejected = moderator_client.get(QUEUE, {"status": "rejected"})
    assert "Rejected" in rows(rejected)[0]


def test_a_page_of_the_queue_runs_a_fixed_number_of_queries(moderator_client, world):
    moderator_client.get(QUEUE)  # warm the session and the permission caches
    with CaptureQueriesContext(connection) as few:
        moderator_client.get(QUEUE)
    for k in range(6):
        entry = make_entry(game=world["arcadia"], title=f"Rule {k}")
        suggestions.submit(entry, kind="typo", comment=f"Comment {k}", address=f"192.0.2.{k}")
        question = make_question(game=world["arcadia"], question=f"Question {k}?")
        suggestions.submit(question, kind="other", comment=f"About {k}", address=f"192.0.2.{k}")
    with CaptureQueriesContext(connection) as many:
        response = moderator_client.get(QUEUE)
    assert len(rows(response)) == 14
    assert len(many) <= len(few) + 1  # one more kind of item (FAQ answers): one more query


def test_the_dashboard_and_the_worklists_count_open_suggestions(moderator_client, client, world, game_moderator_for):
    index = moderator_client.get(INDEX)
    assert re.search(r'Players\' suggestions to review</a></th>\s*<td[^>]*id="count-suggestions">2</td>', page(index))
    overview = moderator_client.get(OVERVIEW)
    assert re.search(r'id="count-suggestions">2<', page(overview))

    suggestions.reject(world["typo"], None, "No.")
    assert re.search(r'id="count-suggestions">1<', page(moderator_client.get(INDEX)))

    # A game moderator counts only their games' suggestions.
    client.force_login(game_moderator_for(world["arcadia"]))
    assert re.search(r'id="count-suggestions">0<', page(client.get(INDEX)))
    suggestions.submit(world["attack"], kind="other", comment="Another one.", address=ADDRESS)
    assert re.search(r'id="count-suggestions">1<', page(client.get(INDEX)))


# --- scoping ----------------------------------------------------------------------------


def test_a_game_moderator_sees_and_decides_only_their_games_suggestions(client, world, game_moderator_for):
    client.force_login(game_moderator_for(world["arcadia"]))

    listed = rows(client.get(QUEUE))
    assert [row.split()[2] for row in listed] == [f"#{world['typo'].pk}"]
    assert client.get(QUEUE, {"game": world["blue"].pk}).status_code == 200  # ignored, not widened
    assert [row.split()[2] for row in rows(client.get(QUEUE, {"game": world["blue"].pk}))] == [
        f"#{world['typo'].pk}"
    ]
    assert "Blue Moon" not in page(client.get(QUEUE))  # not even in the filter

    other = world["other"]
    assert client.get(review_url(world["typo"])).status_code == HTTPStatus.OK
    assert client.get(review_url(other)).status_code == HTTPStatus.FORBIDDEN
    for action in ("accept", "reject", "duplicate", "edit"):
        response = client.post(review_url(other), {"action": action, "reason": "correct", "text": "x"})
        assert response.status_code == HTTPStatus.FORBIDDEN
    assert client.get(block_url(other)).status_code == HTTPStatus.FORBIDDEN
    assert client.post(block_url(other)).status_code == HTTPStatus.FORBIDDEN
    other.refresh_from_db()
    assert other.status == Suggestion.Status.OPEN
    assert not suggestions.is_blocked("198.51.100.4")
    assert client.get(reverse("admin:suggestion_review", args=[999_999])).status_code == HTTPStatus.NOT_FOUND


def test_an_item_moved_to_another_game_is_out_of_reach_too(client, world, game_moderator_for):
    client.force_login(game_moderator_for(world["arcadia"]))
    Entry.objects.filter(pk=world["attack"].pk).update(game=world["blue"])
    assert client.get(review_url(world["typo"])).status_code == HTTPStatus.FORBIDDEN
    assert client.post(review_url(world["typo"]), {"action": "accept"}).status_code == HTTPStatus.FORBIDDEN


def test_staff_without_a_role_and_anonymous_visitors_get_nothing(client, world):
    assert client.get(QUEUE).status_code == HTTPStatus.FOUND  # to the login page
    assert client.get(review_url(world["typo"])).status_code == HTTPStatus.FOUND
    client.force_login(make_staff("nobody"))
    assert client.get(QUEUE).status_code == HTTPStatus.FORBIDDEN
    assert client.get(review_url(world["typo"])).status_code == HTTPStatus.FORBIDDEN


def test_a_game_moderator_of_no_game_sees_an_empty_queue(client, world):
    client.force_login(make_staff("idle", GAME_MODERATORS_GROUP))
    assert rows(client.get(QUEUE)) == []
    assert client.get(review_url(world["typo"])).status_code == HTTPStatus.FORBIDDEN


# --- the review page --------------------------------------------------------------------


def test_the_review_page_shows_the_comment_kind_and_word_diff(moderator_client, world):
    response = moderator_client.get(review_url(world["typo"]))

    assert response.status_code == HTTPStatus.OK
    body = page(response)
    assert "“adjacent” should be “an adjacent or ranged”." in text_of(response)
    assert '<dd id="suggestion-kind">Typo</dd>' in body
    assert "<ins>or ranged </ins>" in body or "<ins>or ranged</ins>" in body
    assert 'id="suggestion-three-way"' not in body
    assert 'id="accept-form"' in body and 'id="edit-form"' in body and 'id="reject-form"' in body
    # "Edit then accept" starts from the proposal.
    textarea = re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', body, re.S).group(1)
    assert html_lib.unescape(textarea) == world["typo"].proposal
    assert f'href="{reverse("admin:rules_entry_change", args=[world["attack"].pk])}"' in body
    assert f'href="{world["attack"].canonical_url()}"' in body  # view on site


def test_accept_applies_the_proposal_credits_the_suggestion_and_returns_to_the_queue(
    moderator_client, moderator, world
):
    typo, attack = world["typo"], world["attack"]
    filtered = f"{QUEUE}?kind=typo"

    response = moderator_client.post(review_url(typo), {"action": "accept", "next": filtered}, follow=True)

    assert response.redirect_chain[-1][0] == filtered
    assert f"Suggestion #{typo.pk} is accepted: “Attack” has the new text." in messages_of(response)
    attack.refresh_from_db()
    assert attack.body == typo.proposal
    record = attack.history.latest()
    assert record.history_change_reason == f"suggestion #{typo.pk} accepted"
    assert record.history_user == moderator
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.ACCEPTED and typo.decided_by == moderator
    assert LogEntry.objects.filter(user=moderator, object_id=str(attack.pk)).exists()
    # The public page shows the new text; the history page names the suggestion.
    assert "an adjacent or ranged enemy unit" in text_of(moderator_client.get(attack.canonical_url()))
    history = moderator_client.get(reverse("admin:rules_entry_history", args=[attack.pk]))
    assert f"suggestion #{typo.pk} accepted" in text_of(history)
    # Decided: off the queue, and the review page offers no decision any more.
    assert [row.split()[2] for row in rows(moderator_client.get(QUEUE))] == [f"#{world['other'].pk}"]
    again = moderator_client.get(review_url(typo))
    assert 'id="suggestion-decide"' not in page(again) and "Accepted" in text_of(again)
    late = moderator_client.post(review_url(typo), {"action": "accept"}, follow=True)
    assert "This suggestion was already decided or withdrawn." in messages_of(late)


def test_edit_then_accept_applies_the_moderators_text(moderator_client, world):
    typo, attack = world["typo"], world["attack"]
    review = moderator_client.get(review_url(typo))
    based_on = re.search(r'name="based_on" value="([0-9a-f]+)"', page(review)).group(1)
    mine = "Exhaust a unit to attack an adjacent enemy unit, or one at range 2."

    data = {"action": "edit", "text": mine, "based_on": based_on}
    response = moderator_client.post(review_url(typo), data, follow=True)

    assert response.redirect_chain[-1][0] == QUEUE
    attack.refresh_from_db()
    assert attack.body == mine
    assert attack.history.latest().history_change_reason == f"suggestion #{typo.pk} accepted (edited)"
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.ACCEPTED


def test_edit_then_accept_refuses_an_empty_text_or_a_control_character(moderator_client, world):
    typo = world["typo"]
    based_on = suggestion_queue.digest(world["attack"].body)
    for text in ("   ", "Bad \x01 text"):
        response = moderator_client.post(review_url(typo), {"action": "edit", "text": text, "based_on": based_on})
        assert response.status_code == HTTPStatus.OK
        assert response.context["edit_form"].errors
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.OPEN


def test_a_comment_only_suggestion_is_accepted_without_writing(moderator_client, world):
    other, angriff = world["other"], world["angriff"]
    versions = angriff.history.count()
    review = moderator_client.get(review_url(other))
    assert 'id="suggestion-comment-only"' in page(review)

    response = moderator_client.post(review_url(other), {"action": "accept"}, follow=True)

    assert f"Suggestion #{other.pk} is accepted; the text was not changed." in messages_of(response)
    assert angriff.history.count() == versions
    other.refresh_from_db()
    assert other.status == Suggestion.Status.ACCEPTED


def test_suggestions_about_errata_and_faq_answers_are_reviewed_and_accepted(moderator_client, world):
    erratum = make_erratum(game=world["arcadia"], title="Range", corrected_text="Range is 2.")
    question = make_question(game=world["arcadia"], question="Can I attack twice?", answer="No.")
    about_erratum = suggestions.submit(erratum, kind="wrong_rule", comment="Now 3.", proposal="Range is 3.")
    about_answer = suggestions.submit(question, kind="other", comment="Yes, with Frenzy.", proposal="Only with Frenzy.")

    for suggestion, item, change in (
        (about_erratum, erratum, "admin:rules_erratum_change"),
        (about_answer, question, "admin:faq_question_change"),
    ):
        review = moderator_client.get(review_url(suggestion))
        assert review.status_code == HTTPStatus.OK
        assert f'href="{reverse(change, args=[item.pk])}"' in page(review)
        assert "<ins>3.</ins>" in page(review) or "<ins>Only with Frenzy.</ins>" in page(review)
        moderator_client.post(review_url(suggestion), {"action": "accept"})

    erratum.refresh_from_db()
    question.refresh_from_db()
    assert erratum.corrected_text == "Range is 3." and question.answer == "Only with Frenzy."
    assert question.history.latest().history_change_reason == f"suggestion #{about_answer.pk} accepted"


# --- a stale suggestion -----------------------------------------------------------------


@pytest.fixture
def stale(world):
    """The entry was edited by a moderator after the player made the suggestion."""
    attack = world["attack"]
    attack.body = "Exhaust a unit to attack an adjacent enemy unit. Ranged units attack from 2 spaces."
    attack.save()
    return world["typo"], attack


def test_a_stale_suggestion_shows_the_three_way_view_and_no_plain_accept(moderator_client, stale):
    typo, attack = stale

    response = moderator_client.get(review_url(typo))

    body = page(response)
    assert 'id="suggestion-three-way"' in body and 'id="suggestion-stale-notice"' in body
    assert 'id="accept-form"' not in body  # no blind overwrite: "Edit then accept" only
    assert "What the player saw" in body and "What it says now" in body and "What the player proposes" in body
    three = re.search(r'<div class="suggestion-three-way">(.*?)<h3 id="diff-since">', body, re.S).group(1)
    assert typo.seen_text in html_lib.unescape(three)
    assert attack.body in html_lib.unescape(three)
    assert typo.proposal in html_lib.unescape(three)
    assert "<ins> Ranged units attack from 2 spaces.</ins>" in body  # what changed since
    textarea = re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', body, re.S).group(1)
    assert html_lib.unescape(textarea) == typo.proposal
    # The queue marks it too.
    assert "text changed since" in rows(moderator_client.get(QUEUE))[-1]


def test_a_plain_accept_of_a_stale_suggestion_is_refused_and_the_newer_text_survives(moderator_client, stale):
    typo, attack = stale
    newer = attack.body

    response = moderator_client.post(review_url(typo), {"action": "accept"}, follow=True)

    assert any("The text changed since this suggestion was made." in m for m in messages_of(response))
    assert response.redirect_chain[-1][0] == review_url(typo)
    attack.refresh_from_db()
    assert attack.body == newer
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.OPEN


def test_a_stale_suggestion_is_accepted_with_the_moderators_merged_text(moderator_client, stale):
    typo, attack = stale
    merged = "Exhaust a unit to attack an adjacent or ranged enemy unit. Ranged units attack from 2 spaces."
    based_on = re.search(r'name="based_on" value="([0-9a-f]+)"', page(moderator_client.get(review_url(typo)))).group(1)

    moderator_client.post(review_url(typo), {"action": "edit", "text": merged, "based_on": based_on})

    attack.refresh_from_db()
    assert attack.body == merged
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.ACCEPTED


def test_a_text_edited_while_the_moderator_reviewed_is_never_overwritten(moderator_client, world):
    """The moderator opens the review page; a colleague then edits the entry; "Edit then
    accept" with a text merged against the old one is refused, the colleague's text is
    kept, and the moderator's text is handed back with the new text to compare."""
    typo, attack = world["typo"], world["attack"]
    based_on = re.search(r'name="based_on" value="([0-9a-f]+)"', page(moderator_client.get(review_url(typo)))).group(1)
    attack.body = "A colleague's newer text."
    attack.save()
    mine = "Exhaust a unit to attack an adjacent or ranged enemy unit."

    response = moderator_client.post(review_url(typo), {"action": "edit", "text": mine, "based_on": based_on})

    assert response.status_code == HTTPStatus.OK
    body = page(response)
    assert "Someone changed the text while you were reviewing this suggestion." in html_lib.unescape(body)
    assert 'id="suggestion-three-way"' in body  # now stale: the three texts
    assert "A colleague&#x27;s newer text." in body
    textarea = re.search(r'<textarea name="text"[^>]*>(.*?)</textarea>', body, re.S).group(1)
    assert html_lib.unescape(textarea) == mine  # the moderator's text is kept
    attack.refresh_from_db()
    assert attack.body == "A colleague's newer text."
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.OPEN

    # Sent again from this page (merged against the text as it is now), it applies.
    fresh = re.search(r'name="based_on" value="([0-9a-f]+)"', body).group(1)
    moderator_client.post(review_url(typo), {"action": "edit", "text": mine, "based_on": fresh})
    attack.refresh_from_db()
    assert attack.body == mine


def test_a_plain_accept_after_a_colleagues_edit_is_refused_too(moderator_client, world):
    typo, attack = world["typo"], world["attack"]
    moderator_client.get(review_url(typo))
    attack.body = "A colleague's newer text."
    attack.save()
    moderator_client.post(review_url(typo), {"action": "accept"})
    attack.refresh_from_db()
    assert attack.body == "A colleague's newer text."


# --- reject, duplicate, block -----------------------------------------------------------


def test_reject_with_a_canned_reason_and_free_text(moderator_client, moderator, world):
    typo = world["typo"]
    response = moderator_client.post(
        review_url(typo),
        {"action": "reject", "reason": "source", "message": "Which page of the rulebook says so?"},
        follow=True,
    )
    assert f"Suggestion #{typo.pk} is rejected; the player can read why." in messages_of(response)
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.REJECTED and typo.decided_by == moderator
    assert typo.reason == "Needs a source. Which page of the rulebook says so?"
    world["attack"].refresh_from_db()
    assert world["attack"].body == "Exhaust a unit to attack an adjacent enemy unit."


def test_the_canned_reason_is_stored_in_the_players_language(moderator_client, world):
    """The player reads the reason; the moderator's admin may speak another language."""
    angriff = world["angriff"]
    german = suggestions.submit(angriff, kind="typo", comment="Tippfehler.", ui_language="de", address="192.0.2.50")
    moderator_client.post(review_url(german), {"action": "reject", "reason": "correct"})
    german.refresh_from_db()
    assert german.status == Suggestion.Status.REJECTED
    assert german.reason == suggestion_queue.rejection_reason(german, "correct", "")
    assert german.reason  # a canned reason alone is enough


def test_reject_needs_a_reason_and_other_needs_words(moderator_client, world):
    typo = world["typo"]
    nothing = moderator_client.post(review_url(typo), {"action": "reject"})
    assert nothing.status_code == HTTPStatus.OK
    assert "Choose a reason or write one: the player reads it." in html_lib.unescape(page(nothing))
    other = moderator_client.post(review_url(typo), {"action": "reject", "reason": "other"})
    assert "Say in a few words why: the player reads it." in html_lib.unescape(page(other))
    free = moderator_client.post(review_url(typo), {"action": "reject", "reason": "other", "message": "Spam."})
    assert free.status_code == HTTPStatus.FOUND
    typo.refresh_from_db()
    assert typo.reason == "Spam."


def test_mark_as_duplicate_of_another_suggestion_of_the_same_item(moderator_client, world):
    typo, attack = world["typo"], world["attack"]
    twin = suggestions.submit(attack, kind="typo", comment=typo.comment, proposal=typo.proposal, address="192.0.2.9")
    unrelated = suggestions.submit(world["angriff"], kind="typo", comment="x", address="192.0.2.9")

    review = moderator_client.get(review_url(twin))
    choices = re.findall(r'<option value="(\d+)"', page(review))
    assert choices == [str(typo.pk)]  # the same item's open or accepted suggestions only
    assert f'href="{review_url(typo)}">#{typo.pk}</a>' in page(review)  # "the same suggestion from others"

    refused = moderator_client.post(review_url(twin), {"action": "duplicate", "of": unrelated.pk})
    assert refused.status_code == HTTPStatus.OK and refused.context["duplicate_form"].errors

    response = moderator_client.post(review_url(twin), {"action": "duplicate", "of": typo.pk}, follow=True)
    assert f"Suggestion #{twin.pk} is marked as a duplicate of #{typo.pk}." in messages_of(response)
    twin.refresh_from_db()
    assert twin.status == Suggestion.Status.DUPLICATE and twin.duplicate_of == typo


def test_block_the_senders_address_after_a_confirmation(moderator_client, moderator, world):
    typo = world["typo"]
    review = moderator_client.get(review_url(typo))
    assert f'href="{block_url(typo)}?next=' in page(review)

    confirm = moderator_client.get(block_url(typo))
    assert confirm.status_code == HTTPStatus.OK and 'id="block-form"' in page(confirm)
    assert not suggestions.is_blocked(ADDRESS)

    response = moderator_client.post(block_url(typo), {"action": "block", "note": "Spam run"}, follow=True)

    assert suggestions.is_blocked(ADDRESS)
    assert not suggestions.is_blocked("198.51.100.4")
    assert any("is blocked" in message for message in messages_of(response))
    assert response.redirect_chain[-1][0] == QUEUE
    assert "The address is blocked." in text_of(moderator_client.get(review_url(typo)))
    with pytest.raises(suggestions.Blocked):
        suggestions.submit(world["attack"], kind="typo", comment="Again", address=ADDRESS)

    moderator_client.post(block_url(typo), {"action": "unblock"})
    assert not suggestions.is_blocked(ADDRESS)


def test_csrf_is_required_for_every_action(client, moderator, world):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(moderator)
    typo = world["typo"]
    assert strict.post(review_url(typo), {"action": "accept"}).status_code == HTTPStatus.FORBIDDEN
    assert strict.post(block_url(typo), {"action": "block"}).status_code == HTTPStatus.FORBIDDEN
    typo.refresh_from_db()
    assert typo.status == Suggestion.Status.OPEN and not suggestions.is_blocked(ADDRESS)


@pytest.mark.parametrize(
    ("language", "title", "accept", "reason"),
    [
        ("de", "Zu prüfende Vorschläge", "Annehmen", "Braucht eine Quelle"),
        ("pl", "Sugestie do przejrzenia", "Przyjmij", "Potrzebne źródło"),
        ("nl", "Te beoordelen suggesties", "Accepteren", "Bron nodig"),
    ],
)
def test_the_admin_speaks_the_moderators_language(moderator_client, world, language, title, accept, reason):
    moderator_client.cookies["django_language"] = language
    assert f"<h1>{title}</h1>" in page(moderator_client.get(QUEUE))
    review = page(moderator_client.get(review_url(world["typo"])))
    assert f'value="{accept}"' in review and reason in review


# --- no suggestion text unescaped -------------------------------------------------------


def test_the_xss_corpus_in_comment_proposal_and_email_is_printed_escaped(moderator_client, world):
    attack = world["attack"]
    corpus = "\n\n".join(VECTORS)
    made = []
    for k, vector in enumerate(VECTORS):
        made.append(
            suggestions.submit(
                attack,
                kind="other",
                comment=f"{vector} comment {k}",
                proposal=f"{vector}\n\n{attack.body}",
                address=f"10.0.{k // 250}.{k % 250}",
            )
        )
    whole = suggestions.submit(attack, kind="typo", comment=corpus[:4000], proposal=corpus, address="192.0.2.200")
    # An address a form would refuse, written straight into the row: printed as text too.
    Suggestion.objects.filter(pk=whole.pk).update(email=one_line(VECTORS[10])[:254])

    pages = [moderator_client.get(QUEUE), moderator_client.get(QUEUE, {"page": 2})]
    pages += [moderator_client.get(review_url(s)) for s in [whole, *made[::7]]]
    Entry.objects.filter(pk=attack.pk).update(body="Changed since: the three-way view.")
    pages.append(moderator_client.get(review_url(whole)))  # stale: every text shown three ways
    for response in pages:
        assert response.status_code == HTTPStatus.OK
        assert Markup.of(page(response)) == [], response.request["PATH_INFO"]
    review = page(pages[2])
    assert "&lt;script&gt;__xss.push(1)&lt;/script&gt;" in review  # the vectors are there, as text
    assert html_lib.escape(one_line(VECTORS[10])[:254], quote=True) in review  # the e-mail, as text
    queue = page(pages[0])
    assert "&lt;img src=x onerror=__xss.push(11)&gt;" in queue


class Markup(HTMLParser):
    """What the browser would build from a page that could run: an event handler, a
    script URL, an inline script, or a vector's call anywhere but in text."""

    CALLS = ("__xss", "alert(", "confirm(", "prompt(")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.in_script = False

    @classmethod
    def of(cls, document: str) -> list[str]:
        parser = cls()
        parser.feed(document)
        parser.close()
        return parser.found

    def handle_starttag(self, tag, attrs):
        self.in_script = tag == "script"
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}>")
            if any(call in value for call in self.CALLS) or value.strip().lower().startswith(("javascript:", "data:")):
                self.found.append(f"<{tag} {name}={value[:60]}>")
        if tag == "script" and not dict(attrs).get("src"):
            self.found.append("inline <script>")
        if tag in ("img", "svg", "iframe", "object", "embed", "math", "base", "meta") and any(
            call in str(attrs) for call in self.CALLS
        ):
            self.found.append(f"<{tag}>")

    def handle_endtag(self, tag):
        self.in_script = False

    def handle_data(self, data):
        if self.in_script and data.strip():
            self.found.append(f"script text {data[:60]}")
