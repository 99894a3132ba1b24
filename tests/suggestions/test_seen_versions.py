"""Only text the public could have seen reaches a player: the form's hidden
``seen_version`` names the version a proposal was made against, and the status page shows
that version's text as the deleted side of its diff. History ids are sequential, so a
stranger can count down through them: a version that was never published (a draft, an
item in review) must never be accepted, for entries, errata and FAQ answers alike."""

import re
from http import HTTPStatus

import pytest

from rules.content.querysets import Status
from rules.moderation import suggestions
from rules.moderation.models import Suggestion
from tests.factories import make_entry, make_erratum, make_game, make_question

from .sending import send

pytestmark = pytest.mark.django_db

SECRET = "SECRETDRAFT789"
FIRST = "Published first."
SECOND = "Published second."
PROPOSAL = "A proposal of mine."

KINDS = {
    "entry": (make_entry, "body", "rules"),
    "erratum": (make_erratum, "corrected_text", "errata"),
    "question": (make_question, "answer", "faq"),
}


def written(item, field: str, text: str, status: str | None = None):
    setattr(item, field, text)
    if status is not None:
        item.status = status
    item.save()


@pytest.fixture(params=list(KINDS))
def world(request):
    """An item whose first versions were a draft with a secret, rewritten, then published
    and edited once more; and another item of the same game still a draft with a secret."""
    make, field, section = KINDS[request.param]
    game = make_game(slug="blue-moon", name="Blue Moon")
    item = make(game=game, slug="exhaust", status=Status.DRAFT, **{field: f"Do not tell: {SECRET}."})
    written(item, field, f"{SECRET} and more secrets.", Status.REVIEW)
    written(item, field, FIRST)  # rewritten while still in review
    written(item, field, FIRST, Status.PUBLISHED)
    written(item, field, SECOND)
    other = make(game=game, slug="hidden", status=Status.DRAFT, **{field: f"Elsewhere: {SECRET}."})
    return {
        "item": item,
        "other": other,
        "field": field,
        "url": f"/en/games/blue-moon/{section}/exhaust/suggest/",
    }


def status_page(client, response) -> str:
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]
    page = client.get(response["Location"])
    assert page.status_code == HTTPStatus.OK
    return page.content.decode()


def test_no_seen_version_shows_text_that_was_never_published(client, world):
    item, other = world["item"], world["other"]
    ids = sorted(item.history.values_list("history_id", flat=True))
    others = list(other.history.values_list("history_id", flat=True))
    highest = max(ids + others)
    made_up = [highest + 1, highest + 1000, 2**40]
    current = ids[-1]
    for number, version in enumerate(ids + others + made_up):
        response = send(
            client, world["url"], address=f"198.51.100.{number + 1}", proposal=PROPOSAL, seen_version=version
        )
        html = status_page(client, response)
        assert SECRET not in html, version
        suggestion = Suggestion.objects.get(token=response["Location"].split("/")[-2])
        assert SECRET not in suggestion.seen_text
        if suggestion.seen_version != current:
            # Only a version the public saw is taken as it is: here, the first published.
            record = item.history.get(history_id=suggestion.seen_version)
            assert record.status == Status.PUBLISHED, version
    assert Suggestion.objects.count() == len(ids + others + made_up)


def test_an_earlier_published_version_is_still_the_one_the_proposal_was_made_against(client, world):
    item, field = world["item"], world["field"]
    first_published = item.history.filter(status=Status.PUBLISHED).order_by("history_id").first()
    assert getattr(first_published, field) == FIRST
    response = send(client, world["url"], proposal=PROPOSAL, seen_version=first_published.history_id)
    html = status_page(client, response)
    suggestion = Suggestion.objects.get()
    assert (suggestion.seen_text, suggestion.seen_version) == (FIRST, first_published.history_id)
    deleted = " ".join(re.findall(r"<del>(.*?)</del>", html))
    assert "Published" in deleted and "first." in deleted  # the text they saw, as the diff's old side
    assert suggestions.stale(suggestion)  # the text changed since: the moderator merges by hand


def test_text_at_takes_published_versions_only(world):
    item, field = world["item"], world["field"]
    current = (SECOND, item.history.order_by("-history_id").first().history_id)
    for record in item.history.all():
        seen = suggestions.text_at(item, record.history_id)
        if record.status == Status.PUBLISHED:
            assert seen == (getattr(record, field), record.history_id)
        else:
            assert seen == current
    for record in world["other"].history.all():
        assert suggestions.text_at(item, record.history_id) == current
    assert suggestions.text_at(item, None) == current
