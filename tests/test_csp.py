"""The Content-Security-Policy header (django-csp, rulesite/settings/base.py): on every
kind of response, on copies served from the response cache, and with the ReDoc page's
additions only there. Whether pages work under it is tests/browser/test_csp.py."""

from html.parser import HTMLParser

import pytest
from csp.middleware import CSPMiddleware
from django.db import connection
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

BASE_DIRECTIVES = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def directives(response) -> dict[str, str]:
    header = response.headers["Content-Security-Policy"]
    parts = (part.strip().split(None, 1) for part in header.split(";") if part.strip())
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


@written_together
def build_world():
    game = make_game(slug="blue-moon", name="Blue Moon")
    fight = make_entry(game=game, title="Fight", body="Roll the die.")
    make_erratum(game=game, title="Fix", corrected_text="Roll twice.", affects=[fight])
    make_question(game=game, question="Roll?", answer="Yes.", related_entries=[fight])
    return {"game": game, "fight": fight}


# Written once for the module's tests that read it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")


def public_urls(world) -> list[str]:
    return [
        "/en/",
        "/en/games/blue-moon/",
        world["fight"].get_absolute_url(),
        "/en/games/blue-moon/errata/",
        "/en/games/blue-moon/faq/",
        "/en/search/?q=roll",
        "/en/feeds/changes/",
        "/api/v1/entries/",
        "/api/v1/docs/",
        "/api/v1/docs/?script=",
    ]


def test_every_public_response_has_the_policy_and_keeps_it_from_the_cache(client, world):
    for url in public_urls(world):
        first = client.get(url)
        with CaptureQueriesContext(connection) as captured:
            again = client.get(url)
        assert first.status_code == again.status_code == 200, url
        assert len(captured) == 1, f"{url}: the second answer comes from the cache"
        assert directives(first).items() >= BASE_DIRECTIVES.items(), url
        assert (
            again.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"]
        ), url
        assert "nonce-" not in first.headers["Content-Security-Policy"], (
            f"{url}: a cached nonce would be reused"
        )


def test_redoc_alone_may_add_style_elements_and_a_blob_worker_also_from_the_cache(client, world):
    first = client.get("/api/v1/redoc/")
    with CaptureQueriesContext(connection) as captured:
        again = client.get("/api/v1/redoc/")
    assert len(captured) == 1
    for response in (first, again):
        policy = directives(response)
        assert policy["style-src-elem"] == "'self' 'unsafe-inline'"
        assert policy["worker-src"] == "'self' blob:"
        assert policy["style-src"] == "'self'"  # inline style attributes stay refused
        assert policy["script-src"] == "'self'"
    home = directives(client.get("/en/"))
    assert "style-src-elem" not in home and "blob:" not in home["worker-src"]


def test_the_header_is_the_one_django_csp_builds_and_follows_the_settings(client, world, settings):
    """rulesite.csp builds the settings' policy once: it must be django-csp's own, for
    pages, the API, errors and a report-only policy, and a changed setting must show."""

    def django_csps(url: str) -> dict[str, str]:
        response = HttpResponse()
        CSPMiddleware(lambda request: response).process_response(RequestFactory().get(url), response)
        return {name: value for name, value in response.items() if name.startswith("Content-Security")}

    urls = [*public_urls(world)[:-2], "/en/games/blue-moon/rules/no-such-rule/", "/api/v1/entries/999999/"]
    for url in urls:
        headers = {name: value for name, value in client.get(url).items() if name.startswith("Content-Security")}
        assert headers == django_csps(url) and len(headers) == 1, url

    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {**BASE_DIRECTIVES, "img-src": ["'self'", "https:"]}}
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": {"default-src": ["'none'"]}}
    response = client.get("/en/games/blue-moon/rules/no-such-rule/")  # never cached
    assert directives(response)["img-src"] == "'self' https:"
    assert response.headers["Content-Security-Policy-Report-Only"] == "default-src 'none'"


def test_errors_redirects_and_the_admin_have_the_policy(client, world):
    for url, status in [
        ("/en/games/blue-moon/rules/no-such-rule/", 404),
        ("/api/v1/entries/999999/", 404),
        ("/admin/login/", 200),
    ]:
        response = client.get(url)
        assert response.status_code == status, url
        assert directives(response).items() >= BASE_DIRECTIVES.items(), url

    client.force_login(make_staff("maria", MODERATORS_GROUP))
    for url in [
        "/admin/",
        f"/admin/rules/entry/{world['fight'].pk}/change/",
        "/admin/rules/entry/",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert directives(response).items() >= BASE_DIRECTIVES.items(), url


class InlineCode(HTMLParser):
    """Script and style the policy would refuse: inline <script>, on* handlers, style=."""

    def __init__(self):
        super().__init__()
        self.found = []
        self.open_script = None

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.open_script = self.getpos()
        if tag == "style":
            self.found.append(f"<style> at {self.getpos()}")
        for name, _value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"{tag} {name}= at {self.getpos()}")

    def handle_endtag(self, tag):
        if tag == "script":
            self.open_script = None

    def handle_data(self, data):
        if self.open_script is not None and data.strip():
            self.found.append(f"inline <script> at {self.open_script}")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_our_pages_carry_no_inline_script_or_style(client, world):
    moderator = make_staff("maria", MODERATORS_GROUP)
    pages = [
        *public_urls(world)[:6],
        "/api/v1/docs/",
        "/api/v1/redoc/",
        "/en/no-such-page/",
        "/admin/login/",
    ]
    for url in pages:
        response = client.get(url)
        assert inline_code(response.content.decode()) == [], url
    client.force_login(moderator)
    fight = world["fight"]
    for url in [
        "/admin/",
        f"/admin/rules/entry/{fight.pk}/change/",
        f"/admin/rules/entry/{fight.pk}/view/",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert inline_code(response.content.decode()) == [], url


def test_the_server_error_page_carries_no_inline_script_or_style():
    html = render_to_string("500.html")
    assert inline_code(html) == []
    assert '<link rel="stylesheet" href="/static/css/site.css">' in html
