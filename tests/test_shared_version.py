"""With Redis, a cached response is answered in one round trip and no query, and is
still never stale (rulesite/shared_version.py): a real ``redis-server`` per module
(skipped with a reason without one, unless ``RULESITE_REQUIRE_REDIS=1``, as in CI)."""

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content import version as content_version
from rules.content.models import Entry
from rulesite import shared_version

pytestmark = pytest.mark.django_db


def get(client, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return response, len(captured)


URLS = ["/en/", "/api/v1/entries/?page_size=50"]


def test_a_cached_response_is_answered_without_a_query(client, redis_cache, two_games):
    for url in [two_games["fight"].get_absolute_url(), *URLS]:
        first, _ = get(client, url)
        second, count = get(client, url)
        assert count == 0, f"{url}: the tokens and the response come from Redis"
        assert second.content == first.content


def test_a_unit_of_work_that_commits_is_seen_by_the_next_request(
    client, redis_cache, two_games, django_capture_on_commit_callbacks
):
    fight, dusk = two_games["fight"], two_games["dusk"]
    for url in [fight.get_absolute_url(), dusk.get_absolute_url(), *URLS]:
        get(client, url)

    with django_capture_on_commit_callbacks(execute=True):
        fight.body = "Roll two dice."
        fight.save()

    page, _ = get(client, fight.get_absolute_url())
    assert "Roll two dice." in page.content.decode()
    assert "Roll two dice." in get(client, f"/api/v1/entries/{fight.pk}/")[0].content.decode()
    # The other game's page: the database's tokens are read once again, the page is kept.
    _, count = get(client, dusk.get_absolute_url())
    assert count == 1
    assert get(client, dusk.get_absolute_url())[1] == 0


def test_a_reader_never_puts_back_tokens_a_commit_made_old(redis_cache, two_games):
    """The reader read the generation, then the database; a unit committed in between: its
    tokens are refused, so the copy cannot keep a version older than the database's."""
    shared = shared_version.configured()
    tokens, generation, _ = shared.lookup("blue-moon", "response:any")
    assert tokens is None  # nothing in the copy yet
    before = content_version.current("blue-moon")

    Entry.objects.filter(pk=two_games["fight"].pk).update(title="Fight!")  # the commit...
    shared.forget()  # ...and its writer throwing the copy away

    assert not shared.fill(before, "blue-moon", generation)
    assert shared.lookup("blue-moon", "response:any")[0] is None
    # A reader that read the generation after the commit fills it.
    _, generation, _ = shared.lookup("blue-moon", "response:any")
    assert shared.fill(content_version.current("blue-moon"), "blue-moon", generation)
    assert shared.lookup("blue-moon", "response:any")[0].tag("blue-moon") == content_version.current("blue-moon").tag(
        "blue-moon"
    )


def test_a_write_outside_any_unit_is_seen_once_the_copy_expires(client, redis_cache, two_games, settings):
    settings.RESPONSE_CACHE_VERSION_SECONDS = 1
    url = two_games["fight"].get_absolute_url()
    get(client, url)  # fills the copy (for one second) and stores the page
    Entry.objects.filter(pk=two_games["fight"].pk).update(body_html="<p>By hand.</p>")  # no unit, no forget()
    deadline = time.monotonic() + 3
    while "By hand." not in get(client, url)[0].content.decode():
        assert time.monotonic() < deadline, "still the old page after the copy's lifetime"
        time.sleep(0.1)


def test_redis_down_still_answers_every_page(client, settings, two_games):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:9/0"}
    }
    for url in [two_games["fight"].get_absolute_url(), *URLS]:
        assert get(client, url)[0].status_code == 200


def test_made_up_game_addresses_never_grow_the_copy(client, redis_cache, two_games):
    """A 404 for a slug no game has reads the database each time rather than keeping a
    field for it: a client cannot fill Redis with slugs of its choosing."""
    import redis as redis_py

    client.get(two_games["fight"].get_absolute_url())
    for n in range(20):
        assert client.get(f"/en/games/no-such-game-{n}/").status_code == 404
    raw = redis_py.Redis.from_url(redis_cache._cache._servers[0])
    fields = raw.hkeys(shared_version.configured().key)
    assert sorted(fields) == [b"c", b"g:blue-moon", b"v"]


def test_a_reply_error_leaves_no_reply_for_the_next_request(redis_cache):
    """A round trip whose first command fails (here a key of the wrong type) has its other
    replies unread: the connection is dropped rather than handed back to the pool, where
    the next round trip would have read them as its own."""
    import redis as redis_py

    shared = shared_version.configured()
    raw = redis_py.Redis.from_url(redis_cache._cache._servers[0])
    raw.set("a-string", b"not a hash")
    raw.set("other", b"the other's value")
    raw.set("mine", b"my value")
    with pytest.raises(redis_py.exceptions.ResponseError):
        shared.round_trip(("HGETALL", "a-string"), ("GET", "other"))
    assert shared.round_trip(("GET", "mine")) == [b"my value"]
    assert shared_version.as_dict(shared.round_trip(("HGETALL", "no-such-hash"))[0]) == {}


def test_threads_at_once_each_read_their_own_replies(redis_cache):
    """gunicorn's threads make round trips at the same time: none ever reads a reply meant
    for another (each thread has a connection of its own)."""
    import threading

    import redis as redis_py

    shared = shared_version.configured()
    raw = redis_py.Redis.from_url(redis_cache._cache._servers[0])
    for number in range(8):
        raw.set(f"thread-{number}", f"value {number}".encode())
    wrong = []

    def read(number: int) -> None:
        for _ in range(300):
            try:
                value, tokens = shared.round_trip(("GET", f"thread-{number}"), ("HGETALL", "no-such-hash"))
                if value != f"value {number}".encode() or shared_version.as_dict(tokens) != {}:
                    wrong.append((number, value))
            except Exception as error:  # a reply of another thread's, or a broken exchange
                wrong.append((number, repr(error)))

    threads = [threading.Thread(target=read, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
