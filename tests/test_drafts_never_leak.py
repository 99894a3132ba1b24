"""A draft, an item in review or an archived item never shows on any public surface.

For each kind of item (entry, erratum, FAQ question) and each unpublished status, one
hidden item and one published control item are made, each with its own title word and
body word. Every surface that shows items of that kind must show the control (so the
check can fail) and must not show either word of the hidden item: the pages, the
search page, the API lists and details, the search and suggest API, the feeds and the
sitemap. All titles share the word "sentinel", so one search finds every published item
without the hidden item's own words in the query (the search page repeats the query).
"""

import re
from dataclasses import dataclass
from http import HTTPStatus

import pytest

from rules.content.querysets import Status
from tests.builds import sitemap_documents
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

HIDDEN_STATUSES = [Status.DRAFT, Status.REVIEW, Status.ARCHIVED]
KINDS = ["entry", "erratum", "question"]
GAME = "leak-game"


@dataclass
class Item:
    obj: object
    title_word: str
    body_word: str

    @property
    def words(self) -> list[str]:
        return [self.title_word, self.body_word]


# kind → ((control title word, body word), (hidden title word, body word))
WORDS = {
    "entry": (("quokka", "bilby"), ("narwhal", "axolotl")),
    "erratum": (("xylograph", "zymurgy"), ("pangolin", "okapi")),
    "question": (("quixotic", "wombat"), ("capybara", "tapir")),
}


def make_item(kind: str, game, words: tuple[str, str], status: str, anchor) -> Item:
    title, body = words
    if kind == "entry":
        obj = make_entry(
            game=game, title=f"{title.title()} sentinel", body=f"The {body} rule.", status=status
        )
    elif kind == "erratum":
        obj = make_erratum(
            game=game,
            title=f"{title.title()} sentinel",
            corrected_text=f"The {body} fix.",
            affects=[anchor],
            status=status,
        )
    else:
        obj = make_question(
            game=game,
            question=f"{title.title()} sentinel?",
            answer=f"The {body} answer.",
            related_entries=[anchor],
            status=status,
        )
    return Item(obj, title, body)


# Module-scoped, so that pytest runs the tests grouped by kind and status, and the world
# of each pair is written once for its tests (tests.module_world).
@pytest.fixture(scope="module", params=HIDDEN_STATUSES)
def status(request):
    return request.param


@pytest.fixture(scope="module", params=KINDS)
def kind(request):
    return request.param


@written_together
def build_world(kind, status):
    """A game with a published anchor entry, a published control item and a hidden item.

    Errata and questions touch the anchor (so its page and API detail show them). Hidden
    and control entries are both touched by a published erratum and a published question
    (so the errata and FAQ pages and the API lists show the control entry, not the hidden).
    """
    game = make_game(slug=GAME, name="Leak Game")
    anchor = make_entry(game=game, title="Anchor", body="The anchor rule.")
    control_words, hidden_words = WORDS[kind]
    control = make_item(kind, game, control_words, Status.PUBLISHED, anchor)
    hidden = make_item(kind, game, hidden_words, status, anchor)
    if kind == "entry":
        make_erratum(game=game, title="Shared fix", affects=[anchor, control.obj, hidden.obj])
        make_question(
            game=game,
            question="Shared question?",
            related_entries=[anchor, control.obj, hidden.obj],
        )
    return {"kind": kind, "anchor": anchor, "control": control, "hidden": hidden}


_world_of_the_module, world = fixtures(build_world, "world", by=("kind", "status"))


# --- Surfaces: each returns the text a reader or client gets ("" for a 404) --------------


def fetch(client, url: str) -> str:
    response = client.get(url, follow=True)
    assert response.status_code in (HTTPStatus.OK, HTTPStatus.NOT_FOUND), (
        url,
        response.status_code,
    )
    return response.content.decode().lower() if response.status_code == HTTPStatus.OK else ""


API_ROUTES = {"entry": "entries", "erratum": "errata", "question": "faq"}


def own_or_anchor_page(client, world, item):
    """An entry's own page; for errata and questions, the page of the entry they touch."""
    entry = item.obj if world["kind"] == "entry" else world["anchor"]
    return fetch(client, entry.url_in("en"))


SURFACES = {
    "home page": lambda c, w, i: fetch(c, "/en/"),
    "game page": lambda c, w, i: fetch(c, f"/en/games/{GAME}/"),
    "entry page": own_or_anchor_page,
    "errata page": lambda c, w, i: fetch(c, f"/en/games/{GAME}/errata/"),
    "faq page": lambda c, w, i: fetch(c, f"/en/games/{GAME}/faq/"),
    "search page": lambda c, w, i: fetch(c, "/en/search/?q=sentinel"),
    "api entries": lambda c, w, i: fetch(c, "/api/v1/entries/?page_size=100"),
    "api errata": lambda c, w, i: fetch(c, "/api/v1/errata/?page_size=100"),
    "api faq": lambda c, w, i: fetch(c, "/api/v1/faq/?page_size=100"),
    "api detail": lambda c, w, i: fetch(c, f"/api/v1/{API_ROUTES[w['kind']]}/{i.obj.pk}/"),
    "api anchor detail": lambda c, w, i: fetch(c, f"/api/v1/entries/{w['anchor'].pk}/"),
    "api search": lambda c, w, i: fetch(c, "/api/v1/search/?q=sentinel"),
    "api suggest": lambda c, w, i: fetch(c, "/api/v1/search/suggest/?q=sentinel&limit=20"),
    "site feed": lambda c, w, i: fetch(c, "/en/feeds/changes/"),
    "game feed": lambda c, w, i: fetch(c, f"/en/games/{GAME}/feeds/changes/"),
    "errata feed": lambda c, w, i: fetch(c, f"/en/games/{GAME}/feeds/errata/"),
    "sitemap": lambda c, w, i: b"".join(sitemap_documents(c)).decode().lower(),
}

# Where a published item of each kind shows (by title, link or slug). The game page shows
# errata and questions only as counts: test_game_page_and_home_counts checks those.
SHOWN_ON = {
    "entry": [
        "home page", "game page", "entry page", "errata page", "faq page", "search page",
        "api entries", "api errata", "api faq", "api detail", "api search", "api suggest",
        "site feed", "game feed", "sitemap",
    ],
    "erratum": [
        "home page", "entry page", "errata page", "search page", "api entries", "api errata",
        "api detail", "api anchor detail", "api search", "api suggest", "errata feed",
    ],
    "question": [
        "entry page", "faq page", "search page", "api entries", "api faq", "api detail",
        "api anchor detail", "api search", "api suggest",
    ],
}  # fmt: skip


def hidden_items_never_show(client, world, surface):
    show = SURFACES[surface]
    control, hidden = world["control"], world["hidden"]

    assert control.title_word in show(client, world, control), (
        f"the published item is missing on the {surface}"
    )
    text = show(client, world, hidden)
    for word in hidden.words:
        assert word not in text, f"the {hidden.obj.status} item's {word!r} shows on the {surface}"


# One test per kind (each of its surfaces a case), so that its kind is a module-scoped
# parameter: pytest then runs each kind and status's cases together, on one world.
@pytest.mark.parametrize("surface", SHOWN_ON["entry"])
@pytest.mark.parametrize("kind", ["entry"], indirect=True, scope="module")
def test_hidden_entries_never_show(client, world, surface):
    hidden_items_never_show(client, world, surface)


@pytest.mark.parametrize("surface", SHOWN_ON["erratum"])
@pytest.mark.parametrize("kind", ["erratum"], indirect=True, scope="module")
def test_hidden_errata_never_show(client, world, surface):
    hidden_items_never_show(client, world, surface)


@pytest.mark.parametrize("surface", SHOWN_ON["question"])
@pytest.mark.parametrize("kind", ["question"], indirect=True, scope="module")
def test_hidden_questions_never_show(client, world, surface):
    hidden_items_never_show(client, world, surface)


@pytest.mark.parametrize("kind", KINDS, indirect=True, scope="module")
def test_hidden_items_have_no_page_or_api_detail(client, world):
    route = API_ROUTES[world["kind"]]
    control, hidden = world["control"].obj, world["hidden"].obj

    assert client.get(f"/api/v1/{route}/{control.pk}/").status_code == HTTPStatus.OK
    assert client.get(f"/api/v1/{route}/{hidden.pk}/").status_code == HTTPStatus.NOT_FOUND
    if world["kind"] == "entry":
        assert client.get(control.url_in("en")).status_code == HTTPStatus.OK
        for language in ("en", "de"):
            assert client.get(hidden.url_in(language)).status_code == HTTPStatus.NOT_FOUND


def test_game_page_and_home_counts(client, status):
    """Counts are public too: only published items are counted."""
    game = make_game(slug="counted", name="Counted Game")
    for item_status in (Status.PUBLISHED, status):
        make_entry(game=game, status=item_status)
        make_erratum(game=game, status=item_status)
        make_question(game=game, status=item_status)

    game_page = client.get("/en/games/counted/").content.decode()
    home = client.get("/en/").content.decode()

    assert "FAQ (1 question)" in game_page
    assert "Errata (1)" in game_page
    assert "1 entry" in home


def test_cross_references_do_not_reveal_hidden_entries(client, status):
    """A published entry naming a hidden one in its see-also or body shows the label as
    written (the published entry's own text) but no link to it; a hidden entry linking
    to a published one is not among the published one's "referenced by"."""
    game = make_game(slug="xref-game")
    target = make_entry(game=game, title="Visible target")
    hidden = make_entry(
        game=game,
        title="Narwhal sentinel",
        body="Like [[Hub]], says the axolotl.",
        see_also=["Hub"],
        status=status,
    )
    referrer = make_entry(game=game, title="Quokka referrer", see_also=["Hub"])
    hub = make_entry(
        game=game,
        title="Hub",
        body="See [[Visible target]] and [[Narwhal sentinel]].",
        see_also=["Visible target", "Narwhal sentinel"],
    )

    page = client.get(hub.url_in("en")).content.decode()

    assert f'href="{target.url_in("en")}"' in page
    assert f'href="{referrer.url_in("en")}"' in page  # referenced by, the published one
    assert f'href="{hidden.url_in("en")}"' not in page
    assert hidden.slug not in page
    assert "axolotl" not in page
    # The labels as the hub's author wrote them, shown as wanted references, not links.
    assert '<span class="xref xref-wanted">Narwhal sentinel</span>' in page
    assert not re.search(r"<a [^>]*>\s*Narwhal sentinel\s*</a>", page)
    api = client.get(f"/api/v1/entries/{hub.pk}/").content.decode()
    assert hidden.slug not in api
    assert f"/api/v1/entries/{hidden.pk}/" not in api


def test_publishing_the_hidden_item_shows_it(client, world):
    """The other side of every check above: once published, the same item does show."""
    hidden = world["hidden"]
    hidden.obj.status = Status.PUBLISHED
    hidden.obj.save()

    for surface in SHOWN_ON[world["kind"]]:
        assert hidden.title_word in SURFACES[surface](client, world, hidden), surface
