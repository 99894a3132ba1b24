"""A reader's repeated request is answered in front of Django with the bytes Django sent,
and is still never stale (rulesite/front_cache.py): with Redis (the tokens' copy beside
the answers) and with the per-process cache (the tokens read from the database). The
site's own WSGI stack, in this process, against a real ``redis-server`` (skipped with a
reason without one, unless ``RULESITE_REQUIRE_REDIS=1``, as in CI); "Django answered" is
observed as Django's ``request_started`` signal. Across processes and servers:
``tests/test_cache_across_processes.py``."""

import contextlib

import pytest
from django.core import signals
from django.core.cache.backends.redis import RedisCache
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.test import RequestFactory

from rulesite import front_cache
from tests.processes import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def django_requests():
    """How many requests reached Django (a list, so a test can reset it). Django's test
    client unhooks the connection checks the same way: the test's transaction stays."""
    started = []

    def count(**kwargs):
        started.append(1)

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    signals.request_started.connect(count)
    yield started
    signals.request_started.disconnect(count)
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(params=["redis", "per-process"])
def response_cache(request, settings):
    """The response cache: Redis, or the per-process cache ``make run`` uses."""
    if request.param == "redis":
        return request.getfixturevalue("redis_cache")
    from django.core.cache import caches

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    return caches["default"]


@pytest.fixture
def site(response_cache, django_requests):
    """The site as ``rulesite.wsgi`` serves it: Django, with the front cache around it."""
    application = front_cache.wrap(WSGIHandler())
    assert isinstance(application, front_cache.FrontCache)
    return application


def forget_front_keys(cache, site=None) -> None:
    """Every kept answer evicted (and, with Redis, ``site``'s copies of them)."""
    if isinstance(cache, RedisCache):
        client = cache._cache.get_client()
        for kept in client.scan_iter(match="*front:*"):
            client.delete(kept)
        if site is not None:
            site.answers.copies.clear()
    else:
        for key in [key for key in cache._cache if ":front:" in key]:
            cache.delete(key.split(":", 2)[2])


def front_keys(cache) -> int:
    """How many answers the front cache keeps in ``cache``."""
    if isinstance(cache, RedisCache):
        return len(list(cache._cache.get_client().scan_iter(match="*front:*")))
    return sum(":front:" in key for key in cache._cache)  # LocMemCache's own keys


def call(application, path, method="GET", **headers) -> tuple[str, list, bytes]:
    """(status line, headers, body) of one request through a WSGI application."""
    environ = getattr(RequestFactory(), method.lower())(path, headers=headers).environ
    sent = {}

    def start_response(status, response_headers, exc_info=None):
        sent["status"], sent["headers"] = status, list(response_headers)

    result = application(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return sent["status"], sent["headers"], body


def header(answer, name: str) -> str | None:
    return next((value for key, value in answer[1] if key.lower() == name.lower()), None)


def urls(two_games) -> list[str]:
    fight = two_games["fight"]
    return [
        fight.get_absolute_url(),
        "/en/games/blue-moon/",
        "/en/",
        "/api/v1/entries/?page_size=50",
        f"/api/v1/entries/{fight.pk}/",
    ]


def test_a_repeated_request_gets_the_same_bytes_without_django(site, two_games, django_requests):
    for url in urls(two_games):
        django_requests.clear()
        first = call(site, url, accept_encoding="gzip")
        assert first[0] == "200 OK", url
        assert django_requests == [1], url
        again = call(site, url, accept_encoding="gzip")
        assert django_requests == [1], f"{url}: answered in front of Django"
        assert again == first, url


def test_each_encoding_language_and_media_type_gets_its_own_answer(site, two_games, django_requests):
    def indented(answer):
        return answer[2].startswith(b"{\n")

    variants = [
        ({"accept_encoding": "gzip"}, lambda answer: header(answer, "Content-Encoding") == "gzip"),
        ({}, lambda answer: header(answer, "Content-Encoding") is None and not indented(answer)),
        ({"accept_language": "de"}, lambda answer: header(answer, "Content-Language") == "de"),
        ({"accept_language": "pl,en;q=0.5"}, lambda answer: header(answer, "Content-Language") == "pl"),
        ({"accept": "application/json; indent=2"}, indented),
    ]
    url = "/api/v1/entries/?page_size=50"
    for headers, right in variants:  # each answered by Django once, and kept
        assert right(call(site, url, **headers)), headers
    django_requests.clear()
    for headers, right in variants:
        assert right(call(site, url, **headers)), headers
    assert django_requests == [], "every variant kept under its own key"


def test_a_page_under_a_language_prefix_is_one_answer_for_every_browser(
    site, two_games, django_requests, response_cache
):
    """Its language is the prefix's, and gzip is gzip however a browser spells it: one
    key, whatever ``Accept-Language``, ``Accept`` and ``Accept-Encoding`` say."""
    url = two_games["fight"].get_absolute_url()
    first = call(site, url, accept_encoding="gzip", accept_language="de")
    browsers = [
        {"accept_encoding": "gzip, deflate, br, zstd", "accept_language": "en-GB,en;q=0.9"},
        {"accept_encoding": "br;q=1.0, gzip;q=0.8, *;q=0.1", "accept_language": "pl", "accept": "text/html,*/*"},
    ]
    django_requests.clear()
    for headers in browsers:
        assert call(site, url, **headers) == first, headers
    assert django_requests == []
    assert header(call(site, url, accept_encoding="gzip;q=0"), "Content-Encoding") is None  # refused: its own
    assert front_keys(response_cache) == 2


def test_a_response_that_varies_by_what_its_key_left_out_is_not_kept(site):
    """A page under a language prefix that said it varies by ``Accept-Language`` (none
    does today) would be answered by Django every time, never in another language."""
    from django.http import HttpResponse

    response = HttpResponse(b"<p>Hallo</p>")
    status, varies = "200 OK", [("Vary", "Accept-Encoding, Accept-Language")]
    assert site.keepable(response, status, varies, negotiated=True)
    assert not site.keepable(response, status, varies, negotiated=False)
    assert not site.keepable(response, status, [("Vary", "User-Agent")], negotiated=True)


def test_a_unit_of_work_is_seen_by_the_next_request(
    site, response_cache, two_games, django_requests, django_capture_on_commit_callbacks
):
    fight, dusk = two_games["fight"], two_games["dusk"]
    pages = [fight.get_absolute_url(), dusk.get_absolute_url(), f"/api/v1/entries/{fight.pk}/"]
    before = {url: call(site, url) for url in pages}
    for url in pages:
        assert call(site, url) == before[url]

    with django_capture_on_commit_callbacks(execute=True):
        fight.body = "Roll two dice."
        fight.save()

    django_requests.clear()
    assert b"Roll two dice." in call(site, pages[0])[2]
    assert b"Roll two dice." in call(site, pages[2])[2]
    assert len(django_requests) == 2, "the edited game's answers are rendered again"
    # The other game's page: with Redis, Django reads the tokens again (the write threw
    # the copy away), finds its page still valid, and it is answered in front of Django
    # again after; with the per-process cache, the database's tokens say so at once.
    django_requests.clear()
    assert call(site, pages[1]) == before[pages[1]]
    assert call(site, pages[1]) == before[pages[1]]
    assert django_requests == ([1] if isinstance(response_cache, RedisCache) else [])


def test_a_write_no_unit_of_work_saw_is_seen_by_the_next_request(site, response_cache, two_games, django_requests):
    """SQL by hand (or another process) moves the database's tokens and tells no one: the
    per-process cache's answers are checked against the database on every request; the
    Redis copy is trusted for ``RESPONSE_CACHE_VERSION_SECONDS`` (rulesite/shared_version.py)."""
    from django.db import connection

    url = two_games["fight"].get_absolute_url()
    assert call(site, url) == call(site, url)
    with connection.cursor() as cursor:
        by_hand = ["<p>By hand.</p>", two_games["fight"].pk]
        cursor.execute("UPDATE rules_entry SET body_html = %s WHERE id = %s", by_hand)
    django_requests.clear()
    seen = b"By hand." in call(site, url)[2]
    if isinstance(response_cache, RedisCache):
        assert not seen and django_requests == [], "the copy's tokens are still the old ones"
    else:
        assert seen and django_requests == [1]


def test_a_database_error_while_reading_the_tokens_is_djangos_to_answer(settings, django_requests, two_games):
    """The per-process cache reads the tokens from the database in front of Django: when
    that fails, the request goes on to Django (whose request cycle deals with a broken
    connection) instead of failing in the WSGI layer."""
    from django.db import connection, transaction

    class RolledBack(Exception):
        pass

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    site = front_cache.wrap(WSGIHandler())
    url = two_games["fight"].get_absolute_url()
    first = call(site, url)
    assert call(site, url) == first
    django_requests.clear()
    status = None
    with contextlib.suppress(RolledBack), transaction.atomic():  # a savepoint, rolled back with the rename
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE rules_content_version RENAME TO rules_content_version_away")
        status, _headers, _body = call(site, url)
        raise RolledBack
    assert django_requests == [1], "Django answered"
    assert status.split()[0] in ("500", "503")  # Django's error page: it cannot read the version either
    assert call(site, url) == first


def test_writes_to_other_games_do_not_use_up_a_pages_place(
    settings, response_cache, django_requests, two_games, django_capture_on_commit_callbacks
):
    """With Redis each write throws the tokens' copy away, so the next request for the
    other game's page is Django's (it finds the page still valid); it is not kept a
    second time, so it never counts as another variant of its path, and once its answer
    is evicted it is kept again, however many writes there were. With the per-process
    cache the other game's page stays answered in front of Django."""
    settings.RESPONSE_CACHE_MAX_VARIANTS = 2
    after_a_write = [1] if isinstance(response_cache, RedisCache) else []
    site = front_cache.wrap(WSGIHandler())
    fight, url = two_games["fight"], two_games["dusk"].get_absolute_url()
    first = call(site, url)
    for turn in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            fight.body = f"Roll {turn} dice."
            fight.save()
        django_requests.clear()
        assert call(site, url) == call(site, url) == first
        assert django_requests == after_a_write, "Django at most once, after the write; then in front again"
    forget_front_keys(response_cache, site)  # evicted (maxmemory, MAX_ENTRIES) or expired
    django_requests.clear()
    assert call(site, url) == call(site, url) == first
    assert django_requests == [1]


def test_what_depends_on_more_than_the_key_is_answered_by_django(site, two_games, django_requests):
    url = "/api/v1/entries/?page_size=50"
    kept = call(site, url)
    call(site, url)
    etag = header(kept, "ETag")
    django_requests.clear()

    assert call(site, url, if_none_match=etag)[0] == "304 Not Modified"
    assert header(call(site, url, origin="https://app.example"), "Access-Control-Allow-Origin")
    assert call(site, url, cookie="sessionid=nobody")[2] == kept[2]
    assert call(site, url, method="HEAD")[0] == "200 OK"
    assert call(site, url, authorization="Bearer nothing")[0] in ("200 OK", "401 Unauthorized", "403 Forbidden")
    assert len(django_requests) == 5


def test_only_public_answers_are_kept(site, two_games, django_requests):
    for url in ["/en/games/no-such-game/", "/sw.js", "/admin/login/"]:
        django_requests.clear()
        first, again = call(site, url), call(site, url)
        assert first[0] == again[0]
        assert django_requests == [1, 1], f"{url}: not kept ({first[0]})"


def test_a_stranger_cannot_make_it_grow(settings, response_cache, django_requests, two_games):
    settings.RESPONSE_CACHE_MAX_VARIANTS = 3
    site = front_cache.wrap(WSGIHandler())
    url = "/api/v1/entries/?page_size=50"
    languages = [f"de;q=0.{n}" for n in range(9, 1, -1)]  # eight ways to ask for German
    for language in languages:
        assert header(call(site, url, accept_language=language), "Content-Language") == "de"
    assert front_keys(response_cache) == 3
    django_requests.clear()
    for language in languages:
        assert header(call(site, url, accept_language=language), "Content-Language") == "de"
    assert len(django_requests) == len(languages) - 3, "the kept three are answered in front of Django"


def test_with_redis_down_django_answers(settings, django_requests, two_games):
    unused = f"redis://127.0.0.1:{free_port()}/0"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": unused}}
    site = front_cache.wrap(WSGIHandler())
    for _ in range(2):
        status, _headers, body = call(site, two_games["fight"].get_absolute_url())
        assert status == "200 OK"
        assert b"Roll the die." in body
    assert django_requests == [1, 1]


def test_it_is_there_when_the_cache_stores_and_it_is_on(settings, response_cache):
    handler = WSGIHandler()
    settings.RESPONSE_CACHE_FRONT = False
    assert front_cache.wrap(handler) is handler
    settings.RESPONSE_CACHE_FRONT = True
    answers = front_cache.wrap(handler).answers
    assert isinstance(answers, front_cache.RedisAnswers if isinstance(response_cache, RedisCache)
                      else front_cache.CacheAnswers)  # fmt: skip
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    assert front_cache.wrap(handler) is handler  # caching off: nothing to answer from


def test_a_deployment_has_its_own_answers(settings, response_cache, django_requests, two_games):
    """The kept answer is the whole response, headers too: a setting that reaches the
    headers (here the referrer policy) or a deploy makes every answer Django's again, once."""
    url = two_games["fight"].get_absolute_url()
    site = front_cache.wrap(WSGIHandler())
    call(site, url)
    assert call(site, url) == call(site, url)
    assert django_requests == [1]
    assert header(call(site, url), "Referrer-Policy") == "same-origin"
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    redeployed = front_cache.wrap(WSGIHandler())
    assert header(call(redeployed, url), "Referrer-Policy") == "no-referrer"
    assert len(django_requests) == 2
    assert "0x" not in repr([(name, getattr(settings, name)) for name in dir(settings)
                             if name.startswith(front_cache.HEADER_SETTINGS)]), "the same in every process"  # fmt: skip


def test_each_process_reads_only_the_tokens_for_an_answer_it_has_a_copy_of(
    redis_cache, django_requests, two_games, django_capture_on_commit_callbacks
):
    """Two processes (two front caches on one Redis): each keeps a copy of what it sent,
    and a copy older than the tokens is dropped for the newer answer another process
    kept, which is then sent in front of Django."""
    first, second = front_cache.wrap(WSGIHandler()), front_cache.wrap(WSGIHandler())
    fight = two_games["fight"]
    url = fight.get_absolute_url()
    before = call(first, url)
    assert call(second, url) == before  # from Redis, and now a copy in each
    assert len(first.answers.copies.entries) == len(second.answers.copies.entries) == 1
    client = redis_cache._cache.get_client()
    for kept in client.scan_iter(match="*front:*"):
        client.delete(kept)
    django_requests.clear()
    assert call(first, url) == call(second, url) == before  # the copies, valid by the tokens
    assert django_requests == []

    with django_capture_on_commit_callbacks(execute=True):
        fight.body = "Roll two dice."
        fight.save()
    assert b"Roll two dice." in call(second, url)[2]  # Django, then kept in Redis and copied
    django_requests.clear()
    assert b"Roll two dice." in call(first, url)[2]  # its copy is older: Redis has the new one
    assert django_requests == []


def test_the_copies_stay_within_their_bytes():
    copies = front_cache.Copies(max_bytes=100)
    for number in range(5):
        copies.put(f"key-{number}", ("game", False, "tag", ("200 OK", (), b"x" * 40)), 40)
    assert list(copies.entries) == ["key-3", "key-4"] and copies.size == 80
    copies.get("key-3")  # used: the other is dropped next
    copies.put("key-5", ("game", False, "tag", ("200 OK", (), b"x" * 40)), 40)
    assert list(copies.entries) == ["key-3", "key-5"]
    copies.put("huge", ("game", False, "tag", ("200 OK", (), b"x" * 200)), 200)
    assert "huge" not in copies.entries
