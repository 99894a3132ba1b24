"""The change list's status actions say how many items changed and how many already had
the status: counted from the items selected, whatever the list was filtered by.

The list a moderator acts on is usually filtered by the status the items have now
("Draft"); after publishing, those items no longer match that filter, which once made
the message say "-2 items already had that status".
"""

import pytest

from rules.content.querysets import Status
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together

pytestmark = pytest.mark.django_db

# action → the status it gives, and a status it takes items from
TRANSITIONS = [
    ("publish", Status.PUBLISHED, Status.DRAFT),
    ("send_to_review", Status.REVIEW, Status.DRAFT),
    ("return_to_draft", Status.DRAFT, Status.REVIEW),
    ("archive", Status.ARCHIVED, Status.PUBLISHED),
]


def act(client, action: str, items, *, url: str = "/admin/rules/entry/", language: str = "en") -> list[str]:
    """Run ``action`` on ``items`` from the change list at ``url``; the messages shown."""
    response = client.post(
        url,
        {"action": action, "_selected_action": [str(item.pk) for item in items]},
        follow=True,
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    return [str(message) for message in response.context["messages"]]


@written_together
def entries(status: str, count: int, game=None) -> list:
    game = game or make_game()
    return [make_entry(game=game, title=f"{status} {n}", status=status) for n in range(count)]


@pytest.mark.parametrize(("action", "target", "source"), TRANSITIONS)
@pytest.mark.parametrize("count", [1, 2])
def test_a_list_filtered_by_the_old_status_counts_what_changed(moderator_client, action, target, source, count):
    items = entries(source, count)
    url = f"/admin/rules/entry/?status__exact={source}"

    shown = act(moderator_client, action, items, url=url)

    expected = "1 item changed." if count == 1 else f"{count} items changed."
    assert shown == [expected]  # nothing "already had that status", least of all -count
    assert {item.status for item in type(items[0]).objects.filter(pk__in=[i.pk for i in items])} == {target}


@pytest.mark.parametrize(("action", "target", "source"), TRANSITIONS)
def test_items_that_had_the_status_are_counted_apart(moderator_client, action, target, source):
    game = make_game()
    one_to_change = entries(source, 1, game)
    two_already = entries(target, 2, game)
    two_to_change = entries(source, 2, game)
    one_already = entries(target, 1, game)

    assert act(moderator_client, action, [*one_to_change, *two_already]) == [
        "1 item changed.",
        "2 items already had that status.",
    ]
    assert act(moderator_client, action, [*two_to_change, *one_already]) == [
        "2 items changed.",
        "1 item already had that status.",
    ]


@pytest.mark.parametrize(("action", "target", "source"), TRANSITIONS)
def test_nothing_to_change_says_so(moderator_client, action, target, source):
    items = entries(target, 2)

    shown = act(moderator_client, action, items, url=f"/admin/rules/entry/?status__exact={target}")

    assert shown == ["0 items changed.", "2 items already had that status."]


@pytest.mark.parametrize(("action", "target", "source"), TRANSITIONS)
def test_the_counts_in_german(moderator_client, action, target, source):
    game = make_game()
    one, two = entries(source, 1, game), entries(source, 2, game)
    already_one, already_two = entries(target, 1, game), entries(target, 2, game)
    url = f"/admin/rules/entry/?status__exact={source}"

    assert act(moderator_client, action, one, url=url, language="de") == ["1 Element geändert."]
    assert act(moderator_client, action, two, url=url, language="de") == ["2 Elemente geändert."]
    assert act(moderator_client, action, [*already_one], language="de") == [
        "0 Elemente geändert.",
        "1 Element hatte diesen Status bereits.",
    ]
    assert act(moderator_client, action, [*already_two], language="de") == [
        "0 Elemente geändert.",
        "2 Elemente hatten diesen Status bereits.",
    ]


def test_errata_and_questions_count_the_same_way(moderator_client):
    game = make_game()
    errata = [make_erratum(game=game, title=f"Fix {n}", status=Status.DRAFT) for n in range(2)]
    questions = [make_question(game=game, question=f"Why {n}?", status=Status.REVIEW) for n in range(2)]

    assert act(moderator_client, "publish", errata, url="/admin/rules/erratum/?status__exact=draft") == [
        "2 items changed."
    ]
    assert act(moderator_client, "publish", questions, url="/admin/faq/question/?status__exact=review") == [
        "2 items changed."
    ]
