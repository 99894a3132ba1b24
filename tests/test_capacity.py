"""Costly work a few at a time per process, the rest told to come back; the same
question asked at the same moment computed once (rules/shared/capacity.py), and what a
player and an API client see when a lane is full."""

import threading
import time
from http import HTTPStatus

import pytest

from rules.moderation import suggestions
from rules.search import service
from rules.shared.capacity import Busy, Lane, SharedWork
from tests.factories import make_entry, make_game
from tests.suggestions.sending import send


def test_a_lane_lets_size_work_and_queue_wait_and_refuses_the_rest_at_once():
    lane = Lane("test", size=1, queue=1, wait=5.0, retry_after=3)
    inside, leave = threading.Event(), threading.Event()
    outcomes = []

    def holder():
        with lane.held():
            inside.set()
            leave.wait(5)

    def waiter():
        started = time.monotonic()
        with lane.held():
            outcomes.append(("waited", time.monotonic() - started))

    first = threading.Thread(target=holder)
    first.start()
    inside.wait(5)
    second = threading.Thread(target=waiter)
    second.start()
    time.sleep(0.2)  # the second is waiting now
    started = time.monotonic()
    with pytest.raises(Busy) as refused, lane.held():
        pass
    assert time.monotonic() - started < 0.1, "the third waited: the queue is full, it must be refused at once"
    assert refused.value.retry_after == 3
    leave.set()
    first.join(5)
    second.join(5)
    assert [kind for kind, _ in outcomes] == ["waited"]
    with lane.held():  # every place given back
        pass


def test_a_lane_refuses_after_its_wait():
    lane = Lane("test", size=1, queue=5, wait=0.2)
    outcome = []

    def other():
        started = time.monotonic()
        try:
            with lane.held():
                outcome.append("held")
        except Busy:
            outcome.append(time.monotonic() - started)

    with lane.held():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(5)
    assert len(outcome) == 1 and outcome[0] != "held" and 0.15 < outcome[0] < 2


def test_shared_work_computes_once_for_everyone_asking_meanwhile():
    shared, calls, release = SharedWork(), [], threading.Event()
    results = []

    def compute():
        calls.append(1)
        release.wait(5)
        return object()

    threads = [threading.Thread(target=lambda: results.append(shared.run("q", compute))) for _ in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    release.set()
    for thread in threads:
        thread.join(5)
    assert len(calls) == 1 and len(results) == 6 and len({id(result) for result in results}) == 1
    assert shared.run("q", lambda: "again") == "again"  # only while it runs: later, computed anew


def test_shared_work_gives_everyone_the_error_and_forgets_it():
    shared = SharedWork()
    with pytest.raises(ValueError):
        shared.run("q", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert shared.run("q", lambda: 7) == 7


@pytest.fixture
def full_question_lane(monkeypatch):
    """The questions' lane of this process with every place taken and no queue."""
    lane = Lane("questions", size=1, queue=0, wait=0)
    monkeypatch.setattr(service, "_questions", lane)
    with lane.held():
        yield lane


@pytest.mark.django_db
def test_a_question_when_every_place_is_taken_is_a_json_503_with_retry_after(client, full_question_lane):
    game = make_game(slug="mond")
    make_entry(game=game, title="Reaction", body="Play a reaction after its trigger.")
    response = client.get("/api/v1/search/?q=when+can+I+play+a+reaction%3F")
    assert response.status_code == HTTPStatus.SERVICE_UNAVAILABLE
    assert response["Content-Type"] == "application/json"
    assert "again" in response.json()["detail"]
    assert int(response["Retry-After"]) > 0
    # a term search is no question: it does not queue
    assert client.get("/api/v1/search/?q=reaction").status_code == HTTPStatus.OK


@pytest.mark.django_db
def test_the_search_page_says_busy_and_keeps_the_question(client, full_question_lane):
    make_entry(game=make_game(slug="mond"), title="Reaction", body="Play a reaction after its trigger.")
    response = client.get("/en/search/?q=when+can+I+play+a+reaction%3F")
    assert response.status_code == HTTPStatus.SERVICE_UNAVAILABLE
    html = response.content.decode()
    assert "Too many questions are being answered right now" in html
    assert 'value="when can I play a reaction?"' in html
    assert response["Retry-After"]
    assert client.get("/en/search/?q=when+can+I+play+a+reaction%3F").status_code == HTTPStatus.SERVICE_UNAVAILABLE


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["preview", "send"])
def test_a_suggestion_when_the_diffs_lane_is_full_keeps_the_text_and_says_busy(client, monkeypatch, action):
    entry = make_entry(game=make_game(slug="mond"), title="Reaction", body="Play a reaction after its trigger.")
    lane = Lane("suggestion diffs", size=1, queue=0, wait=0)
    monkeypatch.setattr(suggestions, "STRANGERS_DIFFS", lane)
    url = entry.get_absolute_url() + "suggest/"
    with lane.held():
        response = send(client, url, action=action, proposal="Play a reaction before its trigger.")
    assert response.status_code == HTTPStatus.SERVICE_UNAVAILABLE
    html = response.content.decode()
    assert "Too many suggestions are being checked right now" in html
    assert "Play a reaction before its trigger.</textarea>" in html
    assert response["Retry-After"]
    assert not suggestions.Suggestion.objects.exists()
    # with the place free again the same form goes through
    again = send(client, url, action=action, proposal="Play a reaction before its trigger.")
    assert again.status_code in (HTTPStatus.OK, HTTPStatus.FOUND)
