"""Entry previews: /api/v1/entries/preview/ (by page address) and /api/v1/entries/lookup/
(by title or alias, for [[Game: Term]] on other sites)."""

import json
from http import HTTPStatus
from urllib.parse import urlencode

import pytest

from rules.api.previews import MAX_BODY_BYTES
from rules.content.models import Entry
from rules.content.querysets import Status
from rules.search.previews import EXCERPT_LENGTH, HTML_HEAD, MAX_TERMS, excerpt
from tests.factories import make_entry, make_game, written_together
from tests.module_world import fixtures

from .conftest import BASE, get_json
from .test_contract import validate

PREVIEW = "/api/v1/entries/preview/"
LOOKUP = "/api/v1/entries/lookup/"
ORIGIN = "https://forum.example"


def preview_url(**params) -> str:
    return f"{PREVIEW}?{urlencode(params)}"


def lookup_url(*terms, **params) -> str:
    return f"{LOOKUP}?{urlencode([*params.items(), *(('term', t) for t in terms)])}"


@written_together
def build_tavern():
    """A game in English and German with a long entry, aliases and a translation."""
    game = make_game(
        slug="tavern-brawl", name="Tavern Brawl", localized_names={"de": "Kneipenschlägerei"}
    )
    stool = make_entry(
        game=game,
        title="Bar Stool",
        number="4.2",
        aliases=["Stool", "Seat"],
        body="A **bar stool** can be thrown once per round.\n\n"
        "- It deals 2 damage.\n- It breaks afterwards.\n\n"
        "1. Pick it up.\n2. Throw it at a [[Patron]].\n\n" + "More rules follow here. " * 40,
    )
    make_entry(game=game, title="Patron", body="Anyone in the tavern.")
    make_entry(
        game=game, title="Seat", body="Where a patron sits."
    )  # a title beats Bar Stool's alias
    make_entry(game=game, title="Zdolności", language="pl", body="Specjalne zdolności.")
    make_entry(game=game, title="Secret Plan", body="Hidden.", status=Status.DRAFT)
    hocker = make_entry(
        game=game,
        language="de",
        title="Barhocker",
        body="Ein Barhocker.",
        translation_key=stool.translation_key,
    )
    plan = make_entry(game=game, language="fr", title="Tabouret", body="Un tabouret.")
    return {"game": game, "stool": stool, "hocker": hocker, "tabouret": plan}


# Written once for the module's tests that read it (tests.module_world).
_tavern_of_the_module, tavern = fixtures(build_tavern, "tavern")


# --- excerpts ------------------------------------------------------------------------


def test_excerpt_is_plain_text_with_a_line_per_paragraph_and_list_item():
    text, truncated = excerpt(
        '<p>One <strong>bold</strong> &amp; <a class="xref" href="/en/x/">linked</a>.</p>'
        '<ul><li>first</li><li>second</li></ul><ol start="3"><li>third</li><li>fourth</li></ol>'
    )
    assert text == "One bold & linked.\n• first\n• second\n3. third\n4. fourth"
    assert truncated is False


def test_excerpt_is_cut_at_a_word_with_an_ellipsis():
    text, truncated = excerpt("<p>" + "abcdefg " * 100 + "</p>")
    assert truncated is True
    assert len(text) <= EXCERPT_LENGTH + 1 and text.endswith("abcdefg…")


def test_excerpt_of_the_head_of_a_long_html_never_shows_half_a_tag():
    html = "<p>" + "word " * 10 + '<a class="xref" href="/en/games/g/rules/s/">link</a></p>'
    text, truncated = excerpt(html[: html.index("href") + 5], cut=True)
    assert "<" not in text and "href" not in text
    assert text == "word " * 9 + "word…" and truncated is True


# --- preview by address ---------------------------------------------------------------


def test_preview_of_an_entry(client, tavern):
    stool = tavern["stool"]
    data = get_json(client, preview_url(game="tavern-brawl", slug="bar-stool", language="en"))
    assert data["id"] == stool.pk
    assert data["title"] == "Bar Stool" and data["number"] == "4.2"
    assert (
        data["language"] == "en"
        and data["game"] == "tavern-brawl"
        and data["game_name"] == "Tavern Brawl"
    )
    assert data["excerpt"].startswith(
        "A bar stool can be thrown once per round.\n• It deals 2 damage.\n• It breaks afterwards.\n"
        "1. Pick it up.\n2. Throw it at a Patron.\nMore rules follow here."
    )
    assert "<" not in data["excerpt"] and len(data["excerpt"]) <= EXCERPT_LENGTH + 1
    assert data["truncated"] is True and data["excerpt"].endswith("…")
    assert data["url"] == f"{BASE}/en/games/tavern-brawl/rules/bar-stool/"
    assert data["api_url"] == f"{BASE}/api/v1/entries/{stool.pk}/"


def test_a_short_entry_is_whole(client, tavern):
    data = get_json(client, preview_url(game="tavern-brawl", slug="patron"))
    assert data["excerpt"] == "Anyone in the tavern." and data["truncated"] is False


def test_a_long_body_reads_only_its_head_and_says_so(client, tavern):
    long_entry = make_entry(game=tavern["game"], title="Long", body="Lorem ipsum dolor. " * 2000)
    assert len(Entry.objects.get(pk=long_entry.pk).body_html) > HTML_HEAD
    data = get_json(client, preview_url(game="tavern-brawl", slug="long"))
    assert data["excerpt"].startswith("Lorem ipsum dolor. Lorem") and data["truncated"] is True


def test_the_preview_is_the_version_the_page_shows(client, tavern):
    # The German UI's address of the English entry: the page goes on to the German
    # translation, and so does its preview.
    data = get_json(client, preview_url(game="tavern-brawl", slug="bar-stool", language="de"))
    assert data["title"] == "Barhocker" and data["language"] == "de"
    assert data["game_name"] == "Kneipenschlägerei"
    assert data["url"] == f"{BASE}/de/games/tavern-brawl/rules/barhocker/"
    # No Polish version: the entry in its own language, as the page shows it.
    data = get_json(client, preview_url(game="tavern-brawl", slug="bar-stool", language="pl"))
    assert data["title"] == "Bar Stool"
    # Content the UI does not speak: its address says ?content=fr.
    data = get_json(client, preview_url(game="tavern-brawl", slug="tabouret", language="fr"))
    assert (
        data["title"] == "Tabouret"
        and data["url"] == f"{BASE}/en/games/tavern-brawl/rules/tabouret/?content=fr"
    )
    # Without a language: the first version by language code.
    assert (
        get_json(client, preview_url(game="tavern-brawl", slug="bar-stool"))["title"] == "Bar Stool"
    )


@pytest.mark.parametrize(
    "params",
    [
        {"game": "tavern-brawl", "slug": "secret-plan"},  # a draft
        {"game": "tavern-brawl", "slug": "no-such-entry"},
        {"game": "no-such-game", "slug": "bar-stool"},
    ],
)
def test_no_published_entry_is_a_json_404(client, tavern, params):
    data = get_json(client, preview_url(**params), status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "No published entry at this address."}


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ("slug=bar-stool", {"game": ["This field is required."]}),
        ("game=tavern-brawl&slug=", {"slug": ["Must not be empty."]}),
        (
            "game=tavern-brawl&slug=bar-stool&language=",
            {"language": ["Must not be empty: leave the parameter out to not filter by it."]},
        ),
        (
            "game=tavern-brawl&slug=bar-stool&language=xx",
            {"language": ["Must be one of: en, de, pl, nl, fr, es, it."]},
        ),
        ("game=tavern%00&slug=bar-stool", {"game": ["Null characters are not allowed."]}),
        (f"game={'g' * 101}&slug=bar-stool", {"game": ["Must be at most 100 characters."]}),
    ],
)
def test_bad_preview_parameters_are_a_json_400(client, tavern, query, errors):
    data = get_json(client, f"{PREVIEW}?{query}", status=HTTPStatus.BAD_REQUEST)
    assert data["errors"] == errors
    assert data["detail"] == f"Invalid query parameter: {', '.join(errors)}."


# --- lookup by term -------------------------------------------------------------------


def titles(data) -> list:
    return [result["entry"] and result["entry"]["title"] for result in data["results"]]


def test_lookup_by_title_alias_and_folded_spelling(client, tavern):
    data = get_json(
        client,
        lookup_url(
            "Bar Stool",
            "stool",
            "“PATRON”",
            "Seat",
            "Zdolnosci",
            "Nothing Like It",
            "Secret Plan",
            game="tavern-brawl",
        ),
    )
    assert data["game"] == "tavern-brawl"
    assert [result["term"] for result in data["results"]] == [
        "Bar Stool", "stool", "“PATRON”", "Seat", "Zdolnosci", "Nothing Like It", "Secret Plan"
    ]  # fmt: skip
    # the alias "Stool"; quotes and case aside; the entry titled "Seat" rather than Bar
    # Stool's alias; diacritics folded; unknown and draft: null
    assert titles(data) == ["Bar Stool", "Bar Stool", "Patron", "Seat", "Zdolności", None, None]
    assert data["results"][0]["entry"]["excerpt"].startswith("A bar stool can be thrown")


def test_lookup_in_the_readers_language_and_by_the_games_name(client, tavern):
    make_entry(game=tavern["game"], language="nl", title="Brawl", body="Een vechtpartij.")
    make_entry(game=tavern["game"], language="en", title="Brawl", body="A fight.")
    terms = ("Barhocker", "Bar Stool", "Patron", "Brawl")
    data = get_json(client, lookup_url(*terms, game="Kneipenschlägerei", language="de"))
    assert data["game"] == "tavern-brawl"
    # Bar Stool's German version; Patron has none; Brawl: the first by language code
    assert titles(data) == ["Barhocker", "Barhocker", "Patron", "Brawl"]
    assert [r["entry"]["language"] for r in data["results"]] == ["de", "de", "en", "en"]
    data = get_json(client, lookup_url(*terms, game="tavern brawl", language="nl"))
    assert [r["entry"]["language"] for r in data["results"]] == ["de", "en", "en", "nl"]
    data = get_json(client, lookup_url("bar stool", game="TAVERN-BRAWL"))  # the name, any case
    assert titles(data) == ["Bar Stool"]


def test_lookup_in_an_unknown_game_finds_nothing_but_answers(client, tavern):
    data = get_json(client, lookup_url("Bar Stool", game="Another Game"))
    assert data == {"game": None, "results": [{"term": "Bar Stool", "entry": None}]}


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ("game=tavern-brawl", {"term": ["This parameter is required: one or more terms."]}),
        ("game=tavern-brawl&term=Seat&term=", {"term": ["Term 2: Must not be empty."]}),
        ("game=tavern-brawl&term=a%00b", {"term": ["Term 1: Null characters are not allowed."]}),
        ("game=g" + "&term=x" * (MAX_TERMS + 1), {"term": [f"At most {MAX_TERMS} terms."]}),
        (f"game=g&term={'x' * 301}", {"term": ["Term 1: Must be at most 300 characters."]}),
        ("term=Seat&language=", {
            "game": ["This field is required."],
            "language": ["Must not be empty: leave the parameter out to not filter by it."],
        }),
    ],
)  # fmt: skip
def test_bad_lookup_parameters_are_a_json_400(client, tavern, query, errors):
    data = get_json(client, f"{LOOKUP}?{query}", status=HTTPStatus.BAD_REQUEST)
    assert data["errors"] == errors


# --- the lookup as a POST: the same answer, for lists a URL cannot carry -------------------


def post_lookup(client, body, status=HTTPStatus.OK, content_type="application/json", **extra):
    data = body if isinstance(body, str) else json.dumps(body)
    response = client.post(LOOKUP, data=data, content_type=content_type, **extra)
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    return response.json()


@pytest.mark.parametrize("language", [None, "de", "nl"])
def test_a_posted_lookup_answers_what_the_get_answers(client, tavern, language):
    terms = ["Barhocker", "stool", "“PATRON”", "Zdolnosci", "Nothing Like It", "Secret Plan"]
    asked = {"language": language} if language else {}
    got = get_json(client, lookup_url(*terms, game="Kneipenschlägerei", **asked))
    posted = post_lookup(client, {"game": "Kneipenschlägerei", "terms": terms, **asked})
    assert posted == got
    assert titles(posted)[2:] == ["Patron", "Zdolności", None, None]


def test_a_posted_lookup_takes_the_full_limits(client, tavern):
    """50 terms of 300 characters, astral ones: 180 kB as JSON, far beyond any URL."""
    long_title = "🍺" * 290 + " Bar Rule"  # 299 characters
    make_entry(game=tavern["game"], title=long_title, body="Drink responsibly.")
    terms = [long_title, *(("🎲" * 299 + str(i % 10)) for i in range(MAX_TERMS - 2)), "Patron"]
    body = json.dumps({"game": "tavern-brawl", "terms": terms})
    assert len(body) > 150_000 and max(map(len, terms)) == 300
    data = post_lookup(client, body)
    assert [result["term"] for result in data["results"]] == terms
    assert titles(data) == [long_title, *([None] * (MAX_TERMS - 2)), "Patron"]


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"game": "tavern-brawl"}, {"terms": ["This field is required."]}),
        ({"game": "tavern-brawl", "terms": "Seat"}, {"terms": ["Must be a list of terms."]}),
        ({"game": "tavern-brawl", "terms": []}, {"terms": ["Required: one or more terms."]}),
        ({"game": "g", "terms": ["x"] * (MAX_TERMS + 1)}, {"terms": [f"At most {MAX_TERMS} terms."]}),
        ({"game": "tavern-brawl", "terms": ["Seat", "", 7, "a\x00b", "x" * 301]}, {"terms": [
            "Term 2: Must not be empty.", "Term 3: Must be text.",
            "Term 4: Null characters are not allowed.", "Term 5: Must be at most 300 characters.",
        ]}),
        ({"terms": ["Seat"], "language": "xx"}, {
            "game": ["This field is required."],
            "language": ["Must be one of: en, de, pl, nl, fr, es, it."],
        }),
        ({"game": "", "terms": ["Seat"]}, {"game": ["Must not be empty."]}),
        ({"game": 0, "terms": ["Seat"], "language": 1}, {
            "game": ["Must be text."], "language": ["Must be one of: en, de, pl, nl, fr, es, it."],
        }),
    ],
)  # fmt: skip
def test_bad_lookup_bodies_are_a_json_400_naming_each_field(client, tavern, body, errors):
    data = post_lookup(client, body, status=HTTPStatus.BAD_REQUEST)
    assert data["errors"] == errors
    assert data["detail"] == f"Invalid field of the request body: {', '.join(sorted(errors))}."


@pytest.mark.parametrize(
    "body", ["[\"Seat\"]", "{\"game\": ", "null", "\"Seat\"", "[" * 10_000 + "]" * 10_000, "{\"a\":" * 5_000 + "1"]
)
def test_a_body_that_is_not_a_json_object_is_a_json_400(client, tavern, body):
    data = post_lookup(client, body, status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] and "errors" not in data


def test_a_body_too_large_is_a_json_413_and_another_type_a_415(client, tavern):
    padding = " " * (MAX_BODY_BYTES - 44)
    fits = '{"game": "tavern-brawl", "terms": ["Seat"]' + padding + "}"
    assert len(fits) <= MAX_BODY_BYTES
    assert titles(post_lookup(client, fits)) == ["Seat"]
    data = post_lookup(client, fits + " " * 100, status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
    assert data == {
        "detail": f"The request body is over {MAX_BODY_BYTES} bytes: at most {MAX_TERMS} terms of 300 "
        "characters are looked up at once."
    }
    data = post_lookup(client, "game=tavern-brawl&terms=Seat", status=HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                       content_type="application/x-www-form-urlencoded")
    assert "application/x-www-form-urlencoded" in data["detail"]


def test_the_post_is_allowed_from_another_origin_and_never_cached(client, tavern):
    # A JSON POST is preflighted for its Content-Type (POST itself is a CORS-safelisted method).
    preflight = client.options(
        LOOKUP, HTTP_ORIGIN=ORIGIN, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type",
    )
    assert preflight.status_code == HTTPStatus.OK
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "content-type" in preflight["Access-Control-Allow-Headers"].split(", ")
    response = client.post(
        LOOKUP, data=json.dumps({"game": "tavern-brawl", "terms": ["Patron"]}),
        content_type="application/json", HTTP_ORIGIN=ORIGIN,
    )
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "ETag" not in response and "public" not in response.get("Cache-Control", "")
    patron = Entry.objects.get(slug="patron")
    patron.body = "Everyone drinking in the tavern."
    patron.save()
    again = post_lookup(client, {"game": "tavern-brawl", "terms": ["Patron"]})
    assert again["results"][0]["entry"]["excerpt"] == "Everyone drinking in the tavern."


def test_no_other_api_url_takes_a_post(client, tavern):
    for url in ("/api/v1/entries/", PREVIEW, "/api/v1/games/", "/api/v1/search/"):
        response = client.post(url, data="{}", content_type="application/json", HTTP_ORIGIN=ORIGIN)
        assert response.status_code == HTTPStatus.METHOD_NOT_ALLOWED, url
        assert response.json()["detail"] == 'Method "POST" not allowed.'


# --- HTTP: any origin, cached, validators, schema ------------------------------------------


@pytest.mark.parametrize(
    "url",
    [preview_url(game="tavern-brawl", slug="patron"), lookup_url("Patron", game="tavern-brawl")],
)
def test_readable_from_any_origin_and_revalidated_by_etag(client, tavern, url):
    first = client.get(url, HTTP_ORIGIN=ORIGIN)
    assert first["Access-Control-Allow-Origin"] == "*"
    assert "public" in first["Cache-Control"]
    cached = client.get(url, HTTP_ORIGIN=ORIGIN, HTTP_IF_NONE_MATCH=first["ETag"])
    assert cached.status_code == HTTPStatus.NOT_MODIFIED
    assert cached["Access-Control-Allow-Origin"] == "*"

    patron = Entry.objects.get(slug="patron")
    patron.body = "Everyone drinking in the tavern."
    patron.save()
    changed = client.get(url, HTTP_ORIGIN=ORIGIN, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == HTTPStatus.OK
    assert "Everyone drinking" in changed.content.decode()


def test_responses_match_the_schema(client, tavern):
    schema = get_json(client, "/api/v1/schema/?format=json", HTTP_ACCEPT="application/json")
    assert {"/api/v1/entries/preview/", "/api/v1/entries/lookup/"} <= set(schema["paths"])
    lookup = schema["paths"]["/api/v1/entries/lookup/"]["get"]
    assert {p["name"] for p in lookup["parameters"]} == {"game", "term", "language"}
    preview = get_json(client, preview_url(game="tavern-brawl", slug="bar-stool"))
    assert validate(schema, "Preview", preview) == []
    found = get_json(client, lookup_url("Seat", "Nothing", game="tavern-brawl"))
    assert validate(schema, "LookupResponse", found) == []
    nothing = get_json(client, lookup_url("Seat", game="Nothing"))
    assert validate(schema, "LookupResponse", nothing) == []
    # The POST: its body's bounds, the same answer, and its own errors.
    post = schema["paths"]["/api/v1/entries/lookup/"]["post"]
    body = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    terms = schema["components"]["schemas"][body]["properties"]["terms"]
    assert (terms["minItems"], terms["maxItems"], terms["items"]["maxLength"]) == (1, MAX_TERMS, 300)
    assert {"200", "400", "413", "414", "415"} <= set(post["responses"])
    assert validate(schema, "LookupResponse", post_lookup(client, {"game": "tavern-brawl", "terms": ["Seat"]})) == []
    assert validate(schema, body, {"game": "tavern-brawl", "terms": ["Seat"], "language": "de"}) == []


# --- queries: the same for a small game and a large one, for one term and for many ---------


@written_together
def populate(n: int):
    game = make_game(slug="big-game", name="Big Game")
    for other in range(3):
        make_game(name=f"Other Game {other}")
    for i in range(n):
        entry = make_entry(
            game=game,
            title=f"Term {i}",
            aliases=[f"Alias {i}"],
            body=f"Compare [[Term {(i + 1) % n}]]. " + "Text. " * 50,
            see_also=[f"Term {(i + 2) % n}"],
        )
        make_entry(
            game=game, language="de", title=f"Begriff {i}", translation_key=entry.translation_key
        )


@pytest.mark.parametrize("n", [2, 20])
@pytest.mark.parametrize(
    ("url", "queries"),
    [
        # version, the entries at the address (with their game)
        (preview_url(game="big-game", slug="term-1", language="en"), 2),
        # ... and its translation
        (preview_url(game="big-game", slug="term-1", language="de"), 3),
        # version, games, name keys, entries: whatever the number of terms
        ("lookup", 4),
        # ... and their German versions
        ("lookup-de", 5),
        # the same as a POST, without the content version (a POST is never cached)
        ("lookup-post", 3),
    ],
)
def test_queries_do_not_grow_with_content_or_terms(
    client, db, django_assert_num_queries, n, url, queries
):
    populate(n)
    posted = url == "lookup-post"
    if url.startswith("lookup"):
        terms = [*(f"Term {i}" for i in range(n)), *(f"alias {i}" for i in range(n))]
        language = {"lookup-de": {"language": "de"}}.get(url, {})
        url = lookup_url(*terms, game="Big Game", **language)
    with django_assert_num_queries(queries):
        if posted:
            data = post_lookup(client, {"game": "Big Game", "terms": terms})
        else:
            data = get_json(client, url)
    if "results" in data:
        assert len(data["results"]) == 2 * n and all(result["entry"] for result in data["results"])
        assert {r["entry"]["language"] for r in data["results"]} == {language.get("language", "en")}
    else:
        assert data["title"] in ("Term 1", "Begriff 1")
