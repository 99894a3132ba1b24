"""The API does what its OpenAPI schema says, and the schema says what the API does.

One test per thing schemathesis found (``scripts/api_contract.py`` runs it against a
live server): the schema view echoing ``?version=``, filters reading a bad or empty value
as "no filter", errors missing from the schema, ``source_url`` declared a URI while it
may be empty. Responses are checked against the schema with jsonschema-rs, the validator
schemathesis uses, with format checking on.
"""

from http import HTTPStatus
from urllib.parse import quote

import jsonschema_rs
import pytest

from rules.content.models import Source
from tests.factories import make_entry, make_game, make_source

from .conftest import get_json

SCHEMA = "/api/v1/schema/"
LISTS = [f"/api/v1/{name}/" for name in ("games", "sources", "entries", "errata", "faq")]
EMPTY = "Must not be empty: leave the parameter out to not filter by it."
EVIL = 'a";filename="evil.html'


@pytest.fixture
def schema(client, db):
    return get_json(client, f"{SCHEMA}?format=json", HTTP_ACCEPT="application/json")


def json_schema(node):
    """OpenAPI 3.0's ``nullable: true`` in JSON Schema terms (as schemathesis reads it)."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: json_schema(value) for key, value in node.items()}
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def validate(schema: dict, component: str, instance) -> list[str]:
    """What is wrong with ``instance`` as the schema's ``component`` (formats checked)."""
    document = {
        "$ref": f"#/components/schemas/{component}",
        "components": json_schema(schema["components"]),
    }
    validator = jsonschema_rs.validator_for(document, validate_formats=True)
    return [error.message for error in validator.iter_errors(instance)]


# --- The schema view ---------------------------------------------------------------------


@pytest.mark.parametrize("version", ["%00", "%0a", "%7f", quote(EVIL), "2.0.0", ""])
def test_schema_of_an_unknown_version_is_404_json_echoing_nothing(client, db, version):
    # Each of these was a 500 (NUL, newline, DEL in a header) or went into the
    # Content-Disposition file name and the YAML body.
    response = client.get(f"{SCHEMA}?version={version}")
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "There is no schema of that version; this API is 1.0.0."}
    assert not response.has_header("Content-Disposition")


@pytest.mark.parametrize("query", ["", "?version=1.0.0", "?format=json&version=1.0.0"])
def test_schema_file_name_is_fixed(client, db, query):
    response = client.get(f"{SCHEMA}{query}")
    assert response.status_code == HTTPStatus.OK
    suffix = "json" if "json" in query else "yaml"
    assert response["Content-Disposition"] == f'inline; filename="rulesite API.{suffix}"'
    assert b"version: 1.0.0\n" in response.content or b'"version": "1.0.0"' in response.content


def test_the_evil_version_reaches_neither_header_nor_body(client, db):
    response = client.get(f"{SCHEMA}?version={quote(EVIL)}&format=json")
    assert "evil" not in str(response.headers) and b"evil" not in response.content


@pytest.mark.parametrize("lang", ["%00", "xx", "", quote(EVIL)])
def test_schema_in_an_unknown_language_is_400_json(client, db, lang):
    data = get_json(client, f"{SCHEMA}?lang={lang}", status=HTTPStatus.BAD_REQUEST)
    assert data["errors"] == {"lang": ["Must be one of: en, de, pl, nl."]}


def test_schema_in_a_ui_language(client, db):
    assert client.get(f"{SCHEMA}?lang=de").status_code == HTTPStatus.OK


def test_schema_in_an_unknown_format_is_404_json(client, db):
    # The schema's own renderers would have written this error as YAML.
    assert get_json(client, f"{SCHEMA}?format=xyz", status=HTTPStatus.NOT_FOUND) == {
        "detail": "Not found."
    }


# --- Filters: a bad or empty value is a 400, never "no filter" ---------------------------


@pytest.fixture
def sources(db):
    game = make_game(slug="contract-game")
    official = make_source(game=game, title="Official rules", official=True)
    fan = make_source(game=game, title="Fan translation", official=False)
    return official, fan


def source_titles(client, query: str) -> set[str]:
    data = get_json(client, f"/api/v1/sources/?game=contract-game&{query}")
    return {item["title"] for item in data["results"]}


@pytest.mark.parametrize("value", ["xyz", "null", "1", "yes", "%00"])
def test_official_that_is_not_a_boolean_is_400(client, sources, value):
    # official=xyz answered 200 with every source (django-filter's NullBooleanField).
    data = get_json(client, f"/api/v1/sources/?official={value}", status=HTTPStatus.BAD_REQUEST)
    assert data == {
        "detail": "Invalid query parameter: official.",
        "errors": {"official": ["Must be true or false."]},
    }


def test_official_filters(client, sources):
    assert source_titles(client, "official=true") == {"Official rules"}
    assert source_titles(client, "official=false") == {"Fan translation"}
    assert source_titles(client, "official=False") == {"Fan translation"}


EMPTY_FILTERS = [
    *((url, "language") for url in LISTS),
    *((url, "updated_after") for url in LISTS),
    *((url, "game") for url in LISTS[1:]),
    *((url, "kind") for url in ("/api/v1/sources/", "/api/v1/entries/", "/api/v1/errata/")),
    ("/api/v1/sources/", "official"),
    ("/api/v1/entries/", "slug"),
    ("/api/v1/faq/", "topic"),
]


@pytest.mark.parametrize(("url", "parameter"), EMPTY_FILTERS)
def test_an_empty_filter_is_400_not_the_whole_list(client, world, url, parameter):
    data = get_json(client, f"{url}?{parameter}=", status=HTTPStatus.BAD_REQUEST)
    assert data == {
        "detail": f"Invalid query parameter: {parameter}.",
        "errors": {parameter: [EMPTY]},
    }


def test_a_text_filter_matches_as_given(client, sources):
    # Not stripped: " contract-game" is no game's slug (it found the game before).
    assert get_json(client, "/api/v1/sources/?game=%20contract-game")["count"] == 0
    assert get_json(client, "/api/v1/sources/?game=contract-game")["count"] == 2


def test_a_bad_filter_on_a_detail_url_is_400_too(client, world):
    # Detail views run the filters (DRF's get_object), hence 400 on every operation.
    url = f"/api/v1/entries/{world['du'].pk}/"
    assert get_json(client, f"{url}?language=de")["id"] == world["du"].pk
    data = get_json(client, f"{url}?language=xx", status=HTTPStatus.BAD_REQUEST)
    assert list(data["errors"]) == ["language"]


# --- Pages -------------------------------------------------------------------------------


@pytest.fixture
def many_sources(db):
    game = make_game(slug="many-sources")
    Source.objects.bulk_create(
        Source(game=game, language="en", title=f"Source {i:03}", kind=Source.Kind.RULEBOOK)
        for i in range(101)
    )


@pytest.mark.parametrize("size", ["0", "", "-1"])
def test_page_size_below_one_or_empty_is_400(client, many_sources, size):
    data = get_json(client, f"/api/v1/sources/?page_size={size}", status=HTTPStatus.BAD_REQUEST)
    assert list(data["errors"]) == ["page_size"]


@pytest.mark.parametrize("size", ["101", "5000", "9" * 100])
def test_page_size_above_100_gives_100(client, many_sources, size):
    data = get_json(client, f"/api/v1/sources/?game=many-sources&page_size={size}")
    assert data["count"] == 101
    assert len(data["results"]) == 100
    assert "page=2" in data["next"]


@pytest.mark.parametrize("url", LISTS)
def test_an_empty_page_is_404_not_page_one(client, world, url):
    data = get_json(client, f"{url}?page=", status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "Invalid page."}


# --- The schema documents all this ----------------------------------------------------------


def test_every_operation_documents_400_and_404_as_json_errors(schema):
    operations = [(path, op) for path, item in schema["paths"].items() for op in item.values()]
    assert len(operations) == 21  # 20 GETs, and the lookup's POST
    for path, operation in operations:
        for code in ("400", "404"):
            response = operation["responses"].get(code)
            assert response, f"{path}: no {code}"
            assert response["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }, path
        # and the server's own 414 (gunicorn.conf.py), which is HTML
        assert operation["responses"]["414"]["content"].keys() == {"text/html"}, path
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["detail"]
    assert set(error["properties"]) == {"detail", "errors"}


def test_error_responses_match_the_error_schema(client, world, schema):
    bad = get_json(client, "/api/v1/entries/?language=xx", status=HTTPStatus.BAD_REQUEST)
    missing = get_json(client, "/api/v1/entries/999999/", status=HTTPStatus.NOT_FOUND)
    assert validate(schema, "Error", bad) == []
    assert validate(schema, "Error", missing) == []
    assert validate(schema, "Error", {"errors": {}}) != []  # detail is required


def test_a_source_without_a_url_matches_the_schema(client, db, schema):
    # "source_url": "" was declared format: uri.
    game = make_game(slug="url-game")
    without = make_source(game=game, title="Printed only", url="")
    with_url = make_source(game=game, title="Online", url="https://example.org/rules.pdf")
    for source in (without, with_url):
        data = get_json(client, f"/api/v1/sources/{source.pk}/")
        assert validate(schema, "Source", data) == []
    data["source_url"] = "not a URL"
    assert validate(schema, "Source", data) != []  # formats are checked


def test_an_entry_matches_the_schema(client, world, schema):
    data = get_json(client, f"/api/v1/entries/{world['du'].pk}/")
    assert validate(schema, "Entry", data) == []


def test_query_parameters_carry_their_bounds(schema):
    for path, item in schema["paths"].items():
        parameters = {
            p["name"]: p["schema"] for p in item["get"].get("parameters", []) if p["in"] == "query"
        }
        for name in ("page", "page_size", "limit"):
            if name in parameters:
                assert parameters[name]["type"] == "integer"
                assert parameters[name]["minimum"] == 1, (path, name)
        for name in ("game", "slug", "topic"):
            if name in parameters:
                assert parameters[name]["minLength"] == 1, (path, name)
                assert parameters[name]["maxLength"] in (100, 200), (path, name)
        if "language" in parameters:
            assert "" not in parameters["language"]["enum"]
    sources = schema["paths"]["/api/v1/sources/"]["get"]["parameters"]
    assert {p["name"]: p["schema"] for p in sources}["official"] == {"type": "boolean"}


def test_a_newline_in_an_api_path_is_a_json_404(client, db):
    # It fell through to the site's HTML 404 page.
    response = client.get("/api/v1/sources/a%0Ab/")
    assert response.status_code == HTTPStatus.NOT_FOUND
    assert response.json() == {"detail": "Not found."}


def test_an_entry_by_slug_still_works(client, db):
    entry = make_entry(game=make_game(slug="slug-game"), language="de", title="Karte")
    url = "/api/v1/entries/?game=slug-game&language=de&slug=karte"
    assert [item["id"] for item in get_json(client, url)["results"]] == [entry.pk]


def test_every_query_parameter_refusing_a_nul_byte_says_so(client, schema):
    """Django's form fields refuse a NUL byte (a 400 naming the parameter): the schema
    must say so, or a schema-valid request is refused (schemathesis found
    ``/api/v1/changes/?game=`` so). Asked of every list with no required parameter; not of
    a ``format`` (a date-time has no NUL) nor of ``cursor`` (opaque: any value the API did
    not make is a 400, as its description says)."""
    import re

    asked, unsaid = 0, []
    for path, operations in schema["paths"].items():
        parameters = operations.get("get", {}).get("parameters", [])
        if "{" in path or any(parameter.get("required") for parameter in parameters):
            continue
        for parameter in parameters:
            kind = parameter.get("schema", {})
            if parameter["in"] != "query" or kind.get("type") != "string" or "format" in kind:
                continue
            if parameter["name"] == "cursor":
                continue
            response = client.get(path, {parameter["name"]: "a\x00b"})
            asked += 1
            refused = response.status_code == 400 and parameter["name"] in response.json().get("errors", {})
            if refused and "enum" not in kind and re.search(kind.get("pattern", ""), "a\x00b"):
                unsaid.append(f"{path}?{parameter['name']}")
    assert asked > 10
    assert unsaid == [], unsaid
