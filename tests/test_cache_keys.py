"""A cached response is keyed by exactly its representation (rulesite/cache_key.py,
rulesite/hosts.py, rulesite/visitors.py): nothing a client adds to a request makes the
cache render and store the same page again, and no client gets another's representation."""

import gzip

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver

from tests.factories import make_entry, make_game, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@written_together
def build_game():
    game = make_game(slug="blue-moon", name="Blue Moon")
    for n in range(25):
        make_entry(game=game, title=f"Rule {n:02}", body="Roll the die and move.")
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def get(client, url, **headers):
    """The response and how many queries answered it (1: the content version alone,
    which is a cached answer)."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, headers=headers)
    return response, len(captured)


def body(response) -> bytes:
    content = response.content
    return gzip.decompress(content) if response.get("Content-Encoding") == "gzip" else content


# --- the host --------------------------------------------------------------------------


def test_a_client_chosen_port_is_neither_rendered_nor_stored(client, game):
    first, _ = get(client, "/api/v1/entries/?page_size=5", host="localhost:12345")
    assert first.status_code == 200
    assert b"12345" not in first.content
    assert b'"next":"http://localhost/api/v1/entries/?page=2&page_size=5"' in first.content
    for port in (23456, 34567, 45678):
        again, count = get(client, "/api/v1/entries/?page_size=5", host=f"localhost:{port}")
        assert count == 1, "another port is the same response, from the cache"
        assert again.content == first.content


def test_the_servers_own_port_is_kept(client, game):
    # The test client's server port is 80, the default: an explicit :80 is the same host.
    response = client.get("/api/v1/games/", headers={"host": "localhost:80"})
    assert b"http://localhost/api/v1/games/blue-moon/" in response.content


def test_a_host_that_is_not_allowed_is_refused(client, game):
    assert client.get("/en/", headers={"host": "evil.example"}).status_code == 400


@override_settings(SITE_URL="https://rules.example.org", SITE_URL_CONFIGURED=True, ALLOWED_HOSTS=["*"])
def test_with_a_site_url_every_absolute_url_names_it(client, game):
    response = client.get("/api/v1/entries/?page_size=5", headers={"host": "attacker.example:81"})
    assert b"attacker" not in response.content
    assert b'"next":"http://rules.example.org/api/v1/entries/?page=2&page_size=5"' in response.content
    _, count = get(client, "/api/v1/entries/?page_size=5", host="other.example")
    assert count == 1


# --- query parameters ------------------------------------------------------------------


def test_an_unknown_parameter_is_the_same_page_from_the_cache(client, game):
    entry = game.entries.first()
    first = client.get(entry.get_absolute_url())
    for n in range(5):
        again, count = get(client, f"{entry.get_absolute_url()}?x={n}&utm_source=forum")
        assert count == 1
        assert again.content == first.content


def test_an_unknown_parameter_never_reaches_the_api_output(client, game):
    response = client.get("/api/v1/entries/?page_size=5&x=%3Cb%3E&page=2")
    assert response.status_code == 200
    assert b"x=" not in response.content
    assert b'"next":"http://testserver/api/v1/entries/?page=3&page_size=5"' in response.content


def test_a_parameter_the_view_reads_is_a_response_of_its_own(client, game):
    first = client.get("/api/v1/entries/?page_size=5")
    second, count = get(client, "/api/v1/entries/?page_size=5&page=2")
    assert count > 1
    assert second.json()["results"] != first.json()["results"]


def test_every_value_of_a_repeated_parameter_counts_in_order(client, game):
    one = client.get("/api/v1/entries/lookup/?game=blue-moon&term=Rule%2001&term=Rule%2002").json()
    other, count = get(client, "/api/v1/entries/lookup/?game=blue-moon&term=Rule%2002&term=Rule%2001")
    assert count > 1
    assert [item["term"] for item in other.json()["results"]] == ["Rule 02", "Rule 01"]
    assert [item["term"] for item in one["results"]] == ["Rule 01", "Rule 02"]


def test_every_public_view_declares_what_it_reads():
    """A view without a declaration is never cached (safe, but slow): every public route
    declares its query parameters, so none is left uncached by oversight."""
    from rulesite import cache_key

    undeclared, private = [], []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern).startswith("admin/"):
                    continue
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                view = pattern.callback
                if getattr(view, "public_params", None) is not None:
                    continue
                if getattr(view, "private_page", False):  # declared never cached, on purpose
                    private.append(prefix + str(pattern.pattern))
                    continue
                view_class = getattr(view, "cls", None)
                if view_class is None:
                    undeclared.append(prefix + str(pattern.pattern))
                    continue
                actions = getattr(view, "actions", None) or {"get": "get"}
                if "get" in actions and cache_key._api_params(view, view_class, "GET") is None:
                    undeclared.append(prefix + str(pattern.pattern))

    walk(get_resolver().url_patterns)
    # The API's catch-all answers a JSON 404, which is never cached anyway.
    assert undeclared == [r"api/v1/^[\s\S]*/$"]
    # Players' suggestions (rules.pages.suggestions): a form with a CSRF token, a private page.
    assert sorted(private) == [
        "en/games/<slug:game>/errata/<slug:slug>/suggest/",
        "en/games/<slug:game>/faq/<slug:slug>/suggest/",
        "en/games/<slug:game>/rules/<slug:slug>/suggest/",
        "en/suggestions/<slug:token>/",
    ]


# --- media types -----------------------------------------------------------------------


def test_the_schema_in_json_never_answers_a_yaml_client(client, game):
    as_json = client.get("/api/v1/schema/", headers={"accept": "application/vnd.oai.openapi+json"})
    assert as_json["Content-Type"].startswith("application/vnd.oai.openapi+json")
    as_yaml = client.get("/api/v1/schema/", headers={"accept": "application/vnd.oai.openapi"})
    assert as_yaml["Content-Type"].startswith("application/vnd.oai.openapi")
    assert not as_yaml["Content-Type"].startswith("application/vnd.oai.openapi+json")
    assert body(as_yaml).startswith(b"openapi:")
    again = client.get("/api/v1/schema/", headers={"accept": "application/vnd.oai.openapi+json"})
    assert body(again).startswith(b"{")


def test_a_json_first_client_never_gives_browsers_json(client, game):
    as_json = client.get("/api/v1/games/", headers={"accept": "application/json, text/html"})
    assert as_json["Content-Type"] == "application/json"
    browser = client.get("/api/v1/games/", headers={"accept": BROWSER_ACCEPT})
    assert browser["Content-Type"].startswith("text/html")
    json_again, count = get(client, "/api/v1/games/", accept="application/json, text/html")
    assert count == 1 and json_again["Content-Type"] == "application/json"


def test_json_indent_is_its_own_representation(client, game):
    plain = client.get("/api/v1/games/", headers={"accept": "application/json"})
    indented = client.get("/api/v1/games/", headers={"accept": "application/json; indent=4"})
    assert b"\n    " in body(indented) and b"\n" not in body(plain)
    # Any other media type parameter is the same representation.
    other, count = get(client, "/api/v1/games/", accept="application/json; charset=utf-8; x=1")
    assert count == 1 and body(other) == body(plain)


def test_negotiation_kept_per_accept_header_and_format_answers_each_client_alike(client, game):
    """rulesite.cache_key keeps DRF's answer per short Accept header and ?format=, and
    negotiates longer ones each time: every way gives the representation DRF picks."""
    many = ", ".join(f"text/x-unknown-{n}" for n in range(20))  # over the kept length
    for accept in (f"{many}, application/json; indent=2", "application/json; indent=2"):
        for _ in range(2):
            indented = client.get("/api/v1/games/", headers={"accept": accept})
            assert indented["Content-Type"] == "application/json" and b'\n  "' in body(indented), accept
    as_json = client.get("/api/v1/games/?format=json", headers={"accept": BROWSER_ACCEPT})
    assert as_json["Content-Type"] == "application/json"
    assert client.get("/api/v1/games/", headers={"accept": BROWSER_ACCEPT})["Content-Type"].startswith("text/html")
    assert client.get("/api/v1/games/?format=nothing").status_code == 404


def test_a_path_too_long_to_be_kept_is_still_answered(client, game):
    assert client.get("/en/games/blue-moon/").status_code == 200
    missing = client.get("/en/games/blue-moon/rules/" + "x" * 500 + "/")
    assert missing.status_code == 404 and "<html" in body(missing).decode()


# --- encodings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept_encoding", "gzipped"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("gzip;q=0", False),
        ("gzip; q=0.0, identity", False),
        ("*", True),
        ("gzip;q=0, *", False),
        ("identity", False),
        ("", False),
        ("x-gzip", True),
        ("br;q=1, gzip;q=0.1", True),
    ],
)
def test_the_encoding_honours_its_quality(client, game, accept_encoding, gzipped):
    url = "/api/v1/entries/?page_size=20"
    # Warm the cache with the other encoding first: the key must still tell them apart.
    client.get(url, headers={"accept-encoding": "identity" if gzipped else "gzip"})
    response = client.get(url, headers={"accept-encoding": accept_encoding})
    assert (response.get("Content-Encoding") == "gzip") is gzipped


# --- sessions, methods, bounds ---------------------------------------------------------


def test_a_made_up_session_cookie_is_a_reader(client, game):
    entry = game.entries.first()
    first = client.get(entry.get_absolute_url())
    client.cookies[settings.SESSION_COOKIE_NAME] = "madeup0123456789madeup0123456789"
    again, count = get(client, entry.get_absolute_url())
    assert count == 2, "the session read (nothing found) and the content version"
    assert again.content == first.content
    assert "private" not in again.get("Cache-Control", "")


def test_a_signed_in_moderator_is_never_served_the_cache(admin_client, game):
    entry = game.entries.first()
    admin_client.get(entry.get_absolute_url())
    response = admin_client.get(entry.get_absolute_url())
    assert "private" in response["Cache-Control"]
    assert not [key for key in cache._cache if key.startswith(":1:response:")]


@pytest.mark.parametrize("url", ["/en/", "/en/games/blue-moon/", "/en/search/?q=roll", "/en/feeds/changes/"])
def test_options_renders_nothing(client, game, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.options(url)
    assert response.status_code == 200
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert response.content == b""
    assert len(captured) == 0


@pytest.mark.parametrize("url", ["/en/", "/en/games/blue-moon/", "/sitemap.xml", "/api/v1/entries/"])
def test_trace_is_refused_without_rendering(client, game, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.generic("TRACE", url)
    assert response.status_code == 405
    assert len(captured) <= 1


@override_settings(RESPONSE_CACHE_MAX_VARIANTS=3)
def test_one_path_holds_a_bounded_number_of_variants(client, game):
    # A fresh client and middleware: the setting is read when the middleware is made.
    for word in ("roll", "die", "move", "rule"):
        client.get(f"/en/search/?q={word}")
    stored = [key for key in cache._cache if key.startswith(":1:response:")]  # LocMem's own store
    assert len(stored) == 3
    _, count = get(client, "/en/search/?q=rule")
    assert count > 1, "the fourth query was not stored"
    _, count = get(client, "/en/search/?q=die")
    assert count == 1


@override_settings(RESPONSE_CACHE_MAX_BYTES=2000)
def test_a_response_over_the_size_limit_is_stored_compressed(client, game):
    """A client that does not take gzip is not the one who makes a large page render
    every time (an 11,000-rule contents page is over the cache's 1 MiB per value)."""
    first = client.get("/api/v1/entries/?page_size=20", headers={"accept-encoding": "identity"})
    assert len(first.content) > 2000 and "Content-Encoding" not in first
    second, count = get(client, "/api/v1/entries/?page_size=20", accept_encoding="identity")
    assert count == 1, "rendered again: only the content version is read from a stored response"
    assert second.content == first.content and second["ETag"] == first["ETag"]
    assert "Content-Encoding" not in second


@override_settings(RESPONSE_CACHE_MAX_BYTES=100)
def test_a_response_over_the_size_limit_even_compressed_is_not_stored(client, game):
    client.get("/api/v1/entries/?page_size=20", headers={"accept-encoding": "identity"})
    _, count = get(client, "/api/v1/entries/?page_size=20", accept_encoding="identity")
    assert count > 1
