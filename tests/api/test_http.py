"""The API as HTTP: conditional GET, CORS, the root, the OpenAPI schema and offline docs."""

import json
import re
import urllib.request
from http import HTTPStatus
from urllib.error import HTTPError

import pytest
import yaml
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.utils.http import parse_http_date

from rules.content.models import Entry
from tests.factories import make_entry

from .conftest import BASE, get_json

ORIGIN = "https://companion-app.example"


def test_api_root_lists_every_endpoint(client, db):
    assert get_json(client, "/api/v1/") == {
        "games": f"{BASE}/api/v1/games/",
        "sources": f"{BASE}/api/v1/sources/",
        "entries": f"{BASE}/api/v1/entries/",
        "errata": f"{BASE}/api/v1/errata/",
        "releases": f"{BASE}/api/v1/releases/",
        "faq": f"{BASE}/api/v1/faq/",
        "changes": f"{BASE}/api/v1/changes/",
        "bulk": f"{BASE}/api/v1/bulk/",
        "search": f"{BASE}/api/v1/search/",
    }


def test_browsers_get_the_browsable_api_with_its_filter_form(client, world):
    response = client.get("/api/v1/entries/?language=de", HTTP_ACCEPT="text/html")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    assert 'name="updated_after"' in html and 'name="kind"' in html
    assert "Du und Dein" in html


# --- Conditional GET -----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/v1/entries/", "detail"])
def test_etag_answers_304_until_the_content_changes(client, world, path):
    du = world["du"]
    url = f"/api/v1/entries/{du.pk}/" if path == "detail" else path
    first = client.get(url)
    etag = first["ETag"]
    # Weak: the same for the plain and the gzip response (one per representation).
    assert etag.startswith('W/"') and etag.endswith('"')

    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == HTTPStatus.NOT_MODIFIED
    assert again.content == b""
    assert again["ETag"] == etag

    du.title = "Du, Dein und Deins"
    du.save()
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == HTTPStatus.OK
    assert changed["ETag"] != etag
    assert "Du, Dein und Deins" in changed.content.decode()


def test_a_change_to_a_linked_entry_changes_the_etag(client, world):
    # The entry's updated_at does not move here: Last-Modified is when any public
    # content changed (rulesite.response_cache), never the entry's own date.
    url = f"/api/v1/entries/{world['du'].pk}/"
    etag = client.get(url)["ETag"]
    world["besitz"].title = "Besitz"
    world["besitz"].aliases = ["Kontrolle", "Besitz und Kontrolle"]
    world["besitz"].save()
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == HTTPStatus.OK
    assert response["ETag"] != etag
    assert response.has_header("Last-Modified")
    updated_at = Entry.objects.get(pk=world["du"].pk).updated_at
    assert parse_http_date(response["Last-Modified"]) >= int(updated_at.timestamp())


# --- CORS ------------------------------------------------------------------------------


def test_api_answers_any_origin(client, world):
    response = client.get("/api/v1/entries/", HTTP_ORIGIN=ORIGIN)
    assert response["Access-Control-Allow-Origin"] == "*"
    # browser code may read the ETag to revalidate
    assert "etag" in response["Access-Control-Expose-Headers"].lower()


def test_api_preflight_allows_reading_only(client, db):
    response = client.options(
        "/api/v1/entries/", HTTP_ORIGIN=ORIGIN, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert response.status_code == HTTPStatus.OK
    assert response["Access-Control-Allow-Origin"] == "*"
    assert set(response["Access-Control-Allow-Methods"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_pages_do_not_send_cors_headers(client, db):
    response = client.get("/admin/login/", HTTP_ORIGIN=ORIGIN)
    assert response.status_code == HTTPStatus.OK
    assert not response.has_header("Access-Control-Allow-Origin")


# --- Schema and docs ---------------------------------------------------------------------


def test_schema_is_openapi_3_with_every_endpoint(client, db):
    response = client.get("/api/v1/schema/")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"].startswith("application/vnd.oai.openapi")
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    lookups = {"games": "slug", "sources": "id", "entries": "id", "errata": "id", "releases": "id", "faq": "id"}
    assert set(schema["paths"]) == {
        path
        for name, lookup in lookups.items()
        for path in (f"/api/v1/{name}/", f"/api/v1/{name}/{{{lookup}}}/")
    } | {
        "/api/v1/search/", "/api/v1/search/suggest/", "/api/v1/entries/preview/", "/api/v1/entries/lookup/",
        "/api/v1/changes/", "/api/v1/bulk/", "/api/v1/bulk/all.json", "/api/v1/bulk/{game}/{language}.json",
    }  # fmt: skip
    entries = schema["paths"]["/api/v1/entries/"]["get"]
    assert {p["name"] for p in entries["parameters"]} == {
        "game",
        "language",
        "kind",
        "slug",
        "number",
        "updated_after",
        "ordering",
        "cursor",
        "page",
        "page_size",
    }


def test_schema_as_json(client, db):
    schema = get_json(client, "/api/v1/schema/?format=json", HTTP_ACCEPT="application/json")
    assert schema["openapi"].startswith("3.")


def test_schema_generates_without_warnings(tmp_path):
    # --fail-on-warn: every SerializerMethodField and filter has a declared type.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yaml"))
    assert yaml.safe_load((tmp_path / "s.yaml").read_text())["openapi"].startswith("3.")


URL_IN_HTML = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']|(https?://[^\s"'<>)]+)""")


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_docs_load_nothing_from_other_hosts(client, db, url):
    response = client.get(url, HTTP_ACCEPT="text/html")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    links = [attr or bare for attr, bare in URL_IN_HTML.findall(html)]
    # (the page's own address, og:url, is on this host: not another host)
    external = [link for link in links if re.match(r"(https?:)?//", link) and not link.startswith("http://testserver/")]
    assert external == []
    # and every asset they do load ships with the site (collectstatic finds it)
    assets = [link for link in links if link.startswith(settings.STATIC_URL)]
    assert any(asset.endswith(".js") for asset in assets)
    for asset in assets:
        assert finders.find(asset.removeprefix(settings.STATIC_URL)), asset


def test_swagger_ui_does_not_call_the_online_validator(client, db):
    # The settings are in the page's script file (the split view: no inline script).
    html = client.get("/api/v1/docs/").content.decode()
    assert '<script src="/api/v1/docs/?script="></script>' in html
    script = client.get("/api/v1/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert '"validatorUrl": null' in script.content.decode()


# --- Over real HTTP ----------------------------------------------------------------------


# serialized_rollback: the flush after this test must not lose the migrated rows
# (the moderator groups) that later tests rely on.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_entries_over_real_http(live_server):
    entry = make_entry(title="Echt")
    url = f"{live_server.url}/api/v1/entries/"

    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == HTTPStatus.OK
        assert response.headers["Content-Type"] == "application/json"
        etag = response.headers["ETag"]
        data = json.load(response)
    assert data["count"] == 1
    assert data["results"][0]["title"] == "Echt"
    assert data["results"][0]["url"] == f"{live_server.url}/api/v1/entries/{entry.pk}/"

    request = urllib.request.Request(url, headers={"If-None-Match": etag, "Origin": ORIGIN})
    with pytest.raises(HTTPError) as not_modified:
        urllib.request.urlopen(request, timeout=10)
    assert not_modified.value.code == HTTPStatus.NOT_MODIFIED
    assert not_modified.value.headers["Access-Control-Allow-Origin"] == "*"
