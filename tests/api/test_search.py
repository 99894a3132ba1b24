"""Search in the API: /api/v1/search/ (paginated hits) and /api/v1/search/suggest/.

The content is made up here with words no demo content has ("quixotic", "zymurgy",
"xylograph"), so every hit is one of ours. The assertions are what a client notices: the
JSON shape, absolute URLs, what is found and what is not, status codes and messages.
"""

import json
import re
import urllib.request
from http import HTTPStatus
from urllib.parse import quote

import pytest
import yaml

from rules.content.journal import unit_of_work
from rules.content.querysets import Status
from rules.search import MAX_RESULTS, TYPES
from tests.factories import make_entry, make_erratum, make_game, make_many_entries, make_question, written_together
from tests.module_world import fixtures

from .conftest import BASE, get_json

SEARCH = "/api/v1/search/"
SUGGEST = "/api/v1/search/suggest/"
HIT_FIELDS = {
    "type", "id", "title", "number", "game", "game_name", "language", "snippet", "url",
    "api_url", "score", "was",
}  # fmt: skip
SUGGESTION_FIELDS = {"title", "type", "id", "language", "game", "url", "alias"}
LANGUAGES = ["en", "de", "pl", "nl", "fr", "es", "it"]


def hits(client, url, **extra):
    return get_json(client, url, **extra)["results"]


def found(client, url) -> set[tuple[str, int]]:
    """(type, id) of every hit on one page."""
    return {(hit["type"], hit["id"]) for hit in hits(client, url)}


@written_together
def build_corpus():
    """One game with an entry, an erratum and a question about "quixotic" in English,
    the entry in German, the word in another game, and a draft that must never show."""
    game = make_game(slug="zephyr-quest", name="Zephyr Quest")
    other = make_game(slug="other-quest", name="Other Quest")
    entry = make_entry(
        game=game,
        language="en",
        title="Quixotic Gambit",
        number="4.2",
        aliases=["Xylograph"],
        body="When you play a quixotic card, draw two cards and discard one.",
    )
    german = make_entry(
        game=game,
        language="de",
        title="Quixotischer Zug",
        body="Wenn du eine quixotic Karte spielst, ziehe zwei Karten.",
        translation_key=entry.translation_key,
    )
    erratum = make_erratum(
        game=game,
        language="en",
        title="Quixotic Gambit correction",
        corrected_text="A quixotic card is discarded after it resolves.",
        affects=[entry],
    )
    question = make_question(
        game=game,
        language="en",
        question="Can a quixotic gambit be cancelled?",
        answer="No: once declared, the quixotic gambit resolves.",
        related_entries=[entry],
    )
    elsewhere = make_entry(
        game=other, language="en", title="Windmills", body="Tilting is quixotic by nature."
    )
    draft = make_entry(
        game=game,
        language="en",
        title="Quixotic Draft",
        body="A quixotic rule nobody has reviewed yet.",
        status=Status.DRAFT,
    )
    return {
        "game": game,
        "entry": entry,
        "german": german,
        "erratum": erratum,
        "question": question,
        "elsewhere": elsewhere,
        "draft": draft,
    }


# Written once for the module's tests that read it (tests.module_world).
_corpus_of_the_module, corpus = fixtures(build_corpus, "corpus")


# --- The contract --------------------------------------------------------------------------


def test_search_answers_a_page_of_hits_with_every_field(client, corpus):
    entry = corpus["entry"]
    data = get_json(client, f"{SEARCH}?q=quixotic&game=zephyr-quest&language=en&type=entry")
    assert list(data) == [
        "count", "truncated", "next", "previous", "query", "read_as", "suggestion", "corrected",
        "confident", "cutoff", "results",
    ]  # fmt: skip
    assert data["count"] == 1 and data["next"] is None and data["previous"] is None
    assert data["truncated"] is False
    assert data["query"] == "quixotic"

    [hit] = data["results"]
    assert set(hit) == HIT_FIELDS
    assert (hit["type"], hit["id"]) == ("entry", entry.pk)
    assert "Quixotic Gambit" in hit["title"]
    assert hit["number"] == "4.2"
    assert hit["game"] == "zephyr-quest" and hit["game_name"] == "Zephyr Quest"
    assert hit["language"] == "en"
    assert isinstance(hit["score"], float | int) and hit["score"] > 0
    assert re.search(r"<mark>quixotic</mark>", hit["snippet"], re.IGNORECASE)
    assert hit["api_url"] == f"{BASE}/api/v1/entries/{entry.pk}/"
    # the same page the entry resource links, absolute
    detail = get_json(client, hit["api_url"])
    assert hit["url"] == detail["html_url"]
    assert hit["url"].startswith(f"{BASE}/en/games/zephyr-quest/")


def test_page_urls_are_in_the_items_language_whatever_the_client_speaks(client, corpus):
    german = corpus["german"]
    [hit] = hits(client, f"{SEARCH}?q=quixotic&language=de", HTTP_ACCEPT_LANGUAGE="pl")
    assert hit["id"] == german.pk
    assert hit["url"] == f"{BASE}/de/games/zephyr-quest/rules/{german.slug}/"
    url = f"{SEARCH}?q=quixotic&game=zephyr-quest&language=en&type=entry"
    [hit] = hits(client, url, HTTP_ACCEPT_LANGUAGE="de")
    assert hit["url"].startswith(f"{BASE}/en/games/zephyr-quest/")


def test_html_in_the_content_is_escaped_in_snippets(client, db):
    make_entry(
        title="Tags",
        body='Never <script>alert("quixotic")</script> or <b>quixotic</b> & co.',
    )
    [hit] = hits(client, f"{SEARCH}?q=quixotic")
    snippet = hit["snippet"]
    assert "<script" not in snippet and "<b>" not in snippet
    assert "&lt;script" in snippet and "&amp;" in snippet
    # the only markup in a snippet is <mark>
    assert set(re.findall(r"</?(\w+)", snippet)) == {"mark"}


def test_every_type_is_found_with_its_api_url(client, corpus):
    results = {hit["type"]: hit for hit in hits(client, f"{SEARCH}?q=quixotic&game=zephyr-quest&language=en")}
    assert set(results) == {"entry", "erratum", "question"}
    erratum, question = corpus["erratum"], corpus["question"]
    assert results["erratum"]["id"] == erratum.pk
    assert results["erratum"]["api_url"] == f"{BASE}/api/v1/errata/{erratum.pk}/"
    assert results["question"]["id"] == question.pk
    assert results["question"]["api_url"] == f"{BASE}/api/v1/faq/{question.pk}/"
    for hit in results.values():
        assert hit["url"].startswith(f"{BASE}/en/games/zephyr-quest/")
        assert hit["url"] == get_json(client, hit["api_url"])["html_url"]


def test_search_paginates_like_every_list(client, db):
    game = make_game(slug="brewing")
    with unit_of_work():  # one pipeline run, as an import
        made = {make_entry(game=game, title=f"Zymurgy rule {i}", body="zymurgy").pk for i in range(25)}
    first = get_json(client, f"{SEARCH}?q=zymurgy&page_size=10")
    assert first["count"] == 25 and first["truncated"] is False
    assert first["previous"] is None
    assert first["next"] == f"{BASE}{SEARCH}?page=2&page_size=10&q=zymurgy"
    seen = [hit["id"] for hit in first["results"]]
    page = first
    while page["next"]:
        page = get_json(client, page["next"])
        seen += [hit["id"] for hit in page["results"]]
    assert len(seen) == 25 and set(seen) == made
    last = get_json(client, f"{SEARCH}?q=zymurgy&page_size=10&page=3")
    assert len(last["results"]) == 5 and last["next"] is None
    assert last["previous"] == f"{BASE}{SEARCH}?page=2&page_size=10&q=zymurgy"
    by_name = get_json(client, f"{SEARCH}?q=zymurgy&page_size=10&page=last")
    assert by_name["results"] == last["results"]


def page_through(client, url: str) -> tuple[list[dict], list[dict]]:
    """Every page from ``url`` on by its ``next`` links: (the pages, every hit seen)."""
    pages = [get_json(client, url)]
    while pages[-1]["next"]:
        pages.append(get_json(client, pages[-1]["next"]))
    return pages, [hit for page in pages for hit in page["results"]]


@pytest.mark.parametrize("size", [100, 40])
def test_paging_reaches_every_result_counted_when_more_match_than_are_ranked(client, db, size):
    make_many_entries(MAX_RESULTS + 50, "zymurgy")
    pages, seen = page_through(client, f"{SEARCH}?q=zymurgy&page_size={size}")
    assert len(pages) == -(-MAX_RESULTS // size)
    for page in pages:
        assert page["results"], "a page that paging links to is empty"
        assert page["count"] == MAX_RESULTS and page["truncated"] is True
    assert len(seen) == len({hit["id"] for hit in seen}) == MAX_RESULTS
    scores = [hit["score"] for hit in seen]
    assert scores == sorted(scores, reverse=True)  # one order across the pages
    last = pages[-1]
    assert last["next"] is None
    assert get_json(client, f"{SEARCH}?q=zymurgy&page_size={size}&page=last") == last
    past = get_json(client, f"{SEARCH}?q=zymurgy&page_size={size}&page={len(pages) + 1}", status=HTTPStatus.NOT_FOUND)
    assert past == {"detail": "Invalid page."}


@pytest.mark.parametrize(("extra", "truncated"), [(0, False), (1, True)])
def test_truncated_only_when_more_matched(client, db, monkeypatch, extra, truncated):
    monkeypatch.setattr("rules.search.service.MAX_RESULTS", 30)
    make_many_entries(30 + extra, "zymurgy")
    pages, seen = page_through(client, f"{SEARCH}?q=zymurgy&page_size=20")
    assert [(page["count"], page["truncated"], len(page["results"])) for page in pages] == [
        (30, truncated, 20),
        (30, truncated, 10),
    ]
    get_json(client, f"{SEARCH}?q=zymurgy&page_size=20&page=3", status=HTTPStatus.NOT_FOUND)


def test_best_hits_come_first(client, corpus):
    scores = [hit["score"] for hit in hits(client, f"{SEARCH}?q=quixotic")]
    assert scores == sorted(scores, reverse=True)


def test_did_you_mean(client, corpus):
    data = get_json(client, f"{SEARCH}?q=qiuxotic&game=zephyr-quest&language=en")
    assert data["suggestion"] is not None
    assert "quixotic" in data["suggestion"].lower()


# --- Filters ---------------------------------------------------------------------------------


def test_drafts_are_never_found(client, corpus):
    ids = {hit["id"] for hit in hits(client, f"{SEARCH}?q=quixotic&page_size=100")}
    assert corpus["draft"].pk not in ids
    assert not any("Draft" in hit["title"] for hit in hits(client, f"{SEARCH}?q=quixotic+draft"))


def test_filter_by_game(client, corpus):
    everywhere = found(client, f"{SEARCH}?q=quixotic&language=en&type=entry")
    assert everywhere == {("entry", corpus["entry"].pk), ("entry", corpus["elsewhere"].pk)}
    results = hits(client, f"{SEARCH}?q=quixotic&game=other-quest")
    assert [(hit["id"], hit["game"]) for hit in results] == [
        (corpus["elsewhere"].pk, "other-quest")
    ]


def test_filter_by_language(client, corpus):
    assert found(client, f"{SEARCH}?q=quixotic&language=de") == {("entry", corpus["german"].pk)}
    assert {hit["language"] for hit in hits(client, f"{SEARCH}?q=quixotic&language=en")} == {"en"}
    assert hits(client, f"{SEARCH}?q=quixotic&language=fr") == []


@pytest.mark.parametrize("kind", ["entry", "erratum", "question"])
def test_filter_by_type(client, corpus, kind):
    expected = {name: corpus[name] for name in ("entry", "erratum", "question")}
    results = found(client, f"{SEARCH}?q=quixotic&game=zephyr-quest&language=en&type={kind}")
    assert results == {(kind, expected[kind].pk)}


def test_unknown_game_is_no_results(client, corpus):
    data = get_json(client, f"{SEARCH}?q=quixotic&game=no-such-game")
    assert data["count"] == 0 and data["results"] == []
    assert get_json(client, f"{SUGGEST}?q=Quix&game=no-such-game")["results"] == []


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        (SEARCH, "game"),
        (SEARCH, "language"),
        (SEARCH, "type"),
        (SUGGEST, "game"),
        (SUGGEST, "language"),
    ],
)
def test_an_empty_filter_is_400_not_no_filter(client, corpus, url, parameter):
    # As in every list: leave a filter out not to filter by it (the schema says so).
    data = get_json(client, f"{url}?q=quixotic&{parameter}=", status=HTTPStatus.BAD_REQUEST)
    assert data["errors"] == {
        parameter: ["Must not be empty: leave the parameter out to not filter by it."]
    }


# --- Validation ------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [SEARCH, SUGGEST])
@pytest.mark.parametrize("query", ["", "q=", "q=%20%20%20", "q=%21%3F...%20-%20%2A", "q=%00"])
def test_empty_query_is_no_results(client, corpus, url, query):
    data = get_json(client, f"{url}?{query}")
    assert data["results"] == []
    if url == SEARCH:
        assert data["count"] == 0 and data["next"] is None and data["suggestion"] is None


@pytest.mark.parametrize("url", [SEARCH, SUGGEST])
def test_query_longer_than_200_characters_is_400(client, corpus, url):
    get_json(client, f"{url}?q={'a' * 200}")  # the longest allowed
    data = get_json(client, f"{url}?q={'a' * 201}", status=HTTPStatus.BAD_REQUEST)
    assert data == {
        "detail": "Invalid query parameter: q.",
        "errors": {"q": ["Must be at most 200 characters."]},
    }
    data = get_json(client, f"{url}?q={'quixotic ' * 1000}", status=HTTPStatus.BAD_REQUEST)
    assert list(data["errors"]) == ["q"]


@pytest.mark.parametrize("url", [SEARCH, SUGGEST])
@pytest.mark.parametrize("value", ["xx", "EN", "de%00", "x" * 5000])
def test_unknown_language_is_400_naming_the_choices(client, corpus, url, value):
    data = get_json(client, f"{url}?q=quixotic&language={value}", status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == "Invalid query parameter: language."
    [message] = data["errors"]["language"]
    assert all(code in message for code in LANGUAGES)


@pytest.mark.parametrize("value", ["entries", "Entry", "faq", "question%00", "x" * 5000])
def test_unknown_type_is_400_naming_the_choices(client, corpus, value):
    data = get_json(client, f"{SEARCH}?q=quixotic&type={value}", status=HTTPStatus.BAD_REQUEST)
    assert data == {
        "detail": "Invalid query parameter: type.",
        "errors": {"type": ["Must be one of: entry, erratum, question."]},
    }


@pytest.mark.parametrize("url", [SEARCH, SUGGEST])
@pytest.mark.parametrize("value", ["%00", "a%00b", "x" * 5000])
def test_bad_game_is_400_as_in_the_lists(client, corpus, url, value):
    data = get_json(client, f"{url}?q=quixotic&game={value}", status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == "Invalid query parameter: game."


@pytest.mark.parametrize("page", ["abc", "0", "-1", "999", "1.5", "%00", "9" * 5000])
def test_bad_page_is_404_json(client, corpus, page):
    data = get_json(client, f"{SEARCH}?q=quixotic&page={page}", status=HTTPStatus.NOT_FOUND)
    assert data["detail"].startswith("Invalid page")


@pytest.mark.parametrize("size", ["abc", "0", "-5", "%00", "9" * 5000])
def test_bad_page_size_is_400_json(client, corpus, size):
    data = get_json(client, f"{SEARCH}?q=quixotic&page_size={size}", status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == "Invalid query parameter: page_size."


HOSTILE = [
    '" OR 1=1 --',
    "' OR '1'='1",
    "'",
    '"',
    "\\",
    "*",
    "NEAR(",
    "NEAR(quixotic gambit)",
    "quixotic NEAR/2 gambit",
    "quixotic*",
    '"quixotic',
    "quixotic'",
    "quixotic\\",
    "quixotic\x00gambit",
    "\x00quixotic",
    "quixotic AND",
    "OR quixotic",
    "NOT quixotic NOT",
    "-quixotic",
    "^quixotic",
    "title:quixotic",
    "{quixotic}",
    "(quixotic",
    "quixotic)",
    "quixotic); DROP TABLE rules_entry; --",
    "quixotic % _ %%",
    "quixotic & | ! <-> :*",
    "😀 quixotic",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_query_syntax_is_only_text(client, corpus, query):
    url = f"{SEARCH}?q={quote(query)}"
    data = get_json(client, url)
    assert isinstance(data["results"], list)
    if re.search(r"\bquixotic\b", query.replace("\x00", " ")):
        # the word is still searched for, whatever surrounds it
        assert ("entry", corpus["entry"].pk) in found(client, url)
    suggestions = get_json(client, f"{SUGGEST}?q={quote(query)}")
    assert isinstance(suggestions["results"], list)


def test_the_query_echoed_is_the_query_searched(client, corpus):
    assert get_json(client, f"{SEARCH}?q=%20quixotic%00gambit%20")["query"] == "quixotic gambit"
    assert get_json(client, f"{SUGGEST}?q=Quix%00")["query"] == "Quix"


def test_unknown_parameters_are_ignored(client, corpus):
    assert found(client, f"{SEARCH}?q=quixotic&nonsense=%00&{'x' * 5000}=1") == found(
        client, f"{SEARCH}?q=quixotic"
    )


@pytest.mark.parametrize("url", [SEARCH, SUGGEST])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_search_is_read_only(client, db, url, method):
    response = getattr(client, method)(url, data={"q": "x"}, content_type="application/json")
    assert response.status_code == HTTPStatus.METHOD_NOT_ALLOWED
    assert response["Content-Type"] == "application/json"


def test_unknown_search_path_is_404_json(client, db):
    data = get_json(client, "/api/v1/search/nothing-here/", status=HTTPStatus.NOT_FOUND)
    assert data == {"detail": "Not found."}


# --- Suggestions -----------------------------------------------------------------------------


def test_a_prefix_of_a_title_suggests_it(client, corpus):
    entry = corpus["entry"]
    response = client.get(f"{SUGGEST}?q=Quixotic%20Ga&language=en")
    assert response.status_code == HTTPStatus.OK
    data = response.json()
    assert list(data) == ["query", "results"]
    assert data["query"] == "Quixotic Ga"
    matches = [s for s in data["results"] if (s["type"], s["id"]) == ("entry", entry.pk)]
    assert len(matches) == 1
    [suggestion] = matches
    assert set(suggestion) == SUGGESTION_FIELDS
    assert suggestion["title"] == "Quixotic Gambit"
    assert suggestion["alias"] is None
    assert suggestion["language"] == "en" and suggestion["game"] == "zephyr-quest"
    assert suggestion["url"] == f"{BASE}/en/games/zephyr-quest/rules/{entry.slug}/"


def test_suggestions_are_case_insensitive_and_filtered(client, corpus):
    titles = {s["title"] for s in get_json(client, f"{SUGGEST}?q=quix")["results"]}
    assert {"Quixotic Gambit", "Quixotischer Zug"} <= titles
    german = get_json(client, f"{SUGGEST}?q=quix&language=de")["results"]
    assert [s["id"] for s in german] == [corpus["german"].pk]
    assert get_json(client, f"{SUGGEST}?q=quix&game=other-quest")["results"] == []


def test_an_alias_is_suggested_as_the_alias(client, corpus):
    results = get_json(client, f"{SUGGEST}?q=xylo")["results"]
    assert [(s["id"], s["title"], s["alias"]) for s in results] == [
        (corpus["entry"].pk, "Quixotic Gambit", "Xylograph")
    ]


def test_drafts_are_never_suggested(client, corpus):
    make_entry(game=corpus["game"], title="Quixotry", aliases=["Quixar"], status=Status.REVIEW)
    titles = [s["title"] for s in get_json(client, f"{SUGGEST}?q=Quixo&limit=20")["results"]]
    assert "Quixotic Gambit" in titles
    assert "Quixotic Draft" not in titles and "Quixotry" not in titles
    assert get_json(client, f"{SUGGEST}?q=Quixotic%20Dr")["results"] == []


def test_at_most_8_suggestions_unless_asked(client, db):
    with unit_of_work():  # one pipeline run, as an import
        for i in range(25):
            make_entry(title=f"Zymurgy {i:02}")
    assert len(get_json(client, f"{SUGGEST}?q=zym")["results"]) == 8
    assert len(get_json(client, f"{SUGGEST}?q=zym&limit=3")["results"]) == 3
    assert len(get_json(client, f"{SUGGEST}?q=zym&limit=500")["results"]) == 20  # capped


@pytest.mark.parametrize("limit", ["abc", "0", "-1", "1.5", "%00", "9" * 5000])
def test_bad_suggest_limit_is_400(client, db, limit):
    data = get_json(client, f"{SUGGEST}?q=zym&limit={limit}", status=HTTPStatus.BAD_REQUEST)
    assert data["detail"] == "Invalid query parameter: limit."


def test_suggestions_may_be_cached_briefly(client, corpus):
    response = client.get(f"{SUGGEST}?q=Quix")
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert directives == {"public", "max-age=60"}
    # errors are not
    bad = client.get(f"{SUGGEST}?q=Quix&language=xx")
    assert "max-age" not in bad.get("Cache-Control", "")


# --- Root, schema, HTTP, cost ------------------------------------------------------------------


def test_api_root_lists_search(client, db):
    assert get_json(client, "/api/v1/")["search"] == f"{BASE}/api/v1/search/"


def test_browsable_api_renders_search(client, corpus):
    response = client.get(f"{SEARCH}?q=quixotic", HTTP_ACCEPT="text/html")
    assert response.status_code == HTTPStatus.OK
    assert "Quixotic Gambit" in response.content.decode()


def test_schema_describes_both_endpoints(client, db):
    schema = yaml.safe_load(client.get("/api/v1/schema/").content)
    search, suggest = (schema["paths"][path]["get"] for path in (SEARCH, SUGGEST))

    params = {p["name"]: p for p in search["parameters"]}
    assert set(params) == {"q", "game", "language", "type", "page", "page_size"}
    assert params["type"]["schema"]["enum"] == ["entry", "erratum", "question"]
    assert sorted(params["language"]["schema"]["enum"]) == sorted(LANGUAGES)
    assert {p["name"] for p in suggest["parameters"]} == {"q", "game", "language", "limit"}

    components = schema["components"]["schemas"]

    def resolve(response):
        ref = response["200"]["content"]["application/json"]["schema"]["$ref"]
        return components[ref.rsplit("/", 1)[1]]

    page = resolve(search["responses"])
    assert list(page["properties"]) == [
        "count", "truncated", "next", "previous", "query", "read_as", "suggestion", "corrected",
        "confident", "cutoff", "results",
    ]  # fmt: skip
    assert page["properties"]["count"]["maximum"] == MAX_RESULTS
    assert f"the best {MAX_RESULTS}" in page["properties"]["count"]["description"]
    assert page["properties"]["truncated"]["type"] == "boolean"
    assert "truncated" in page["required"]
    assert "page past the last is a 404" in search["description"]
    assert "page past the last" in search["responses"]["404"]["description"]
    hit = components[page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]]
    assert set(hit["properties"]) == HIT_FIELDS
    assert "<mark>" in hit["properties"]["snippet"]["description"]
    suggestions = resolve(suggest["responses"])
    item = components[suggestions["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]]
    assert set(item["properties"]) == SUGGESTION_FIELDS
    assert "200 with no results" in search["description"]


# serialized_rollback: the flush after this test must not lose the migrated rows
# (the moderator groups) that later tests rely on.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_search_over_real_http(live_server):
    entry = make_entry(game=make_game(slug="live"), title="Quixotic Live", body="quixotic")
    url = f"{live_server.url}{SEARCH}?q=quixotic"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == HTTPStatus.OK
        assert response.headers["Content-Type"] == "application/json"
        data = json.load(response)
    [hit] = data["results"]
    assert hit["id"] == entry.pk
    assert hit["url"] == f"{live_server.url}/en/games/live/rules/{entry.slug}/"
    assert hit["api_url"] == f"{live_server.url}/api/v1/entries/{entry.pk}/"
    with urllib.request.urlopen(hit["url"], timeout=10) as page:  # the link works
        assert page.status == HTTPStatus.OK

    with urllib.request.urlopen(f"{live_server.url}{SUGGEST}?q=Quix", timeout=10) as response:
        assert "max-age=60" in response.headers["Cache-Control"]
        assert [s["title"] for s in json.load(response)["results"]] == ["Quixotic Live"]


# Enough for the search service's own work (its query, loading the hits, a "did you
# mean"), far below one query per hit.
MAX_QUERIES = 10


@pytest.mark.parametrize(
    ("kind", "size"), [("entry", 20), ("erratum", 20), ("question", 20), ("", 60)]
)
def test_a_page_of_hits_does_not_cost_a_query_per_hit(
    client, db, django_assert_max_num_queries, kind, size
):
    with unit_of_work():  # the pipeline derives and indexes once, as an import does
        game = make_game(slug="costly")
        for i in range(20):
            entry = make_entry(game=game, title=f"Zymurgy term {i}", number=f"1.{i}", body="zymurgy")
            make_erratum(game=game, title=f"Zymurgy fix {i}", corrected_text="zymurgy", affects=[entry])
            make_question(game=game, question=f"Zymurgy {i}?", answer="zymurgy", related_entries=[entry])
    with django_assert_max_num_queries(MAX_QUERIES):
        only = f"&type={kind}" if kind else ""
        data = get_json(client, f"{SEARCH}?q=zymurgy{only}&page_size={size}")
    assert len(data["results"]) == size
    assert {hit["type"] for hit in data["results"]} == ({kind} if kind else set(TYPES))
    with django_assert_max_num_queries(MAX_QUERIES):
        get_json(client, f"{SUGGEST}?q=zym&limit=20")
