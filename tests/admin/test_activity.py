"""The activity page: every recorded change (admin edits, imports, code), who made it, what.

The assertions read the table a moderator sees on /admin/activity/.
"""

from html.parser import HTMLParser
from http import HTTPStatus

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rules.content.models import Entry
from rules.importing import ImportOptions, import_document
from rules.importing.pipeline import SourceInfo
from tests.admin.conftest import make_staff
from tests.admin.forms import form_data
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together

pytestmark = pytest.mark.django_db

ACTIVITY_URL = "/admin/activity/"
GLOSSARY = b"""\
Angriff
Ein Angriff ist eine Aktion, bei der eine Einheit eine feindliche Einheit bekaempft.

Bewegung
Eine Einheit darf sich in ihrem Zug bis zu drei Felder weit bewegen.
"""
COLUMNS = ["when", "who", "what", "game", "action", "reason", "fields"]


class _Table(HTMLParser):
    """The rows of table#activity: each a dict of cell texts, plus the "what" link."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self._row, self._cell, self._in_table = [], None, None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == "activity":
            self._in_table = True
        elif self._in_table and tag == "tr":
            self._row = []
        elif self._row is not None and tag == "td":
            self._cell = []
        elif self._cell is not None and tag == "a" and len(self._row) == 2:
            self._link = attrs.get("href")

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_table = False
        elif tag == "td" and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row:
            row = dict(zip(COLUMNS, self._row, strict=True))
            row["link"] = getattr(self, "_link", None)
            self._link = None
            self.rows.append(row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def table(response) -> list[dict]:
    assert response.status_code == HTTPStatus.OK
    parser = _Table()
    parser.feed(response.content.decode())
    return parser.rows


def activity(client, **params) -> list[dict]:
    return table(client.get(ACTIVITY_URL, params))


def import_glossary(game_slug="helden", title="Regelreferenz"):
    options = ImportOptions(
        game=game_slug, game_name="Helden", language="de", kind="glossary", source=SourceInfo(title=title)
    )
    return import_document(GLOSSARY, options)


def edit_in_admin(client, entry, **changes):
    url = reverse("admin:rules_entry_change", args=[entry.pk])
    data = {**form_data(client.get(url), "entry_form"), **changes}
    response = client.post(url, data)
    assert response.status_code == HTTPStatus.FOUND


# --- What the page shows --------------------------------------------------------------


def test_the_url_is_named_and_the_page_looks_like_the_admin(moderator_client):
    response = moderator_client.get(reverse("admin:activity"))

    assert response.status_code == HTTPStatus.OK
    page = response.content.decode()
    assert "<h1>Activity</h1>" in page
    assert 'class="breadcrumbs"' in page


def test_an_import_an_admin_edit_and_a_code_save_all_appear(moderator_client):
    import_glossary()
    entry = Entry.objects.get(title="Angriff")
    edit_in_admin(moderator_client, entry, body="Ein Angriff ist eine Aktion.")
    bewegung = Entry.objects.get(title="Bewegung")
    bewegung.number = "7"
    bewegung.save()  # code: no user, no reason

    rows = activity(moderator_client)

    admin_edit, code_save = rows[1], rows[0]  # newest first
    assert code_save["who"] == "no user"
    assert code_save["what"] == "Entry: Bewegung"
    assert code_save["action"] == "changed"
    assert code_save["fields"] == "Number"
    assert admin_edit["who"] == "mod"
    assert admin_edit["what"] == "Entry: Angriff"
    assert admin_edit["link"] == reverse("admin:rules_entry_change", args=[entry.pk])
    assert admin_edit["action"] == "changed"
    assert "Body" in admin_edit["fields"]
    assert admin_edit["game"] == "Helden"
    imported = rows[2:]
    assert {row["what"] for row in imported} >= {"Game: Helden", "Entry: Angriff", "Entry: Bewegung"}
    assert all(row["who"] == "no user" for row in imported)
    assert all(row["action"] == "created" for row in imported)
    assert all(row["reason"] == "import: Regelreferenz" for row in imported if row["what"].startswith("Entry"))


def test_a_deleted_item_is_marked_and_not_linked(moderator_client):
    erratum = make_erratum(title="Old ruling")
    erratum.delete()

    rows = activity(moderator_client)

    assert rows[0]["what"] == "Erratum: Old ruling (deleted)"
    assert rows[0]["action"] == "deleted"
    assert rows[0]["link"] is None
    assert rows[1]["what"] == "Erratum: Old ruling (deleted)"  # its creation too


def test_m2m_changes_are_named(moderator_client):
    game = make_game()
    question = make_question(game=game, question="Can I attack twice?")
    question.related_entries.add(make_entry(game=game, title="Attack"))

    rows = activity(moderator_client, type="question")

    assert rows[0]["what"] == "FAQ question: Can I attack twice?"
    assert rows[0]["fields"] == "Related entries"


def test_pages_of_fifty_newest_first(moderator_client):
    @written_together  # sixty saves, each its own version; one pipeline run
    def sixty_sources():
        game = make_game(name="Paged")
        for n in range(60):
            make_source(game=game, title=f"Source {n:02}")

    sixty_sources()

    first = activity(moderator_client, type="source")
    second = activity(moderator_client, type="source", page=2)

    assert len(first) == 50 and len(second) == 10
    assert first[0]["what"] == "Source: Source 59"
    assert second[-1]["what"] == "Source: Source 00"


def test_the_query_count_does_not_grow_with_the_rows_on_the_page(moderator_client):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert moderator_client.get(ACTIVITY_URL).status_code == HTTPStatus.OK
        return len(captured)

    def one_of_each(n):
        game = make_game()
        entry = make_entry(game=game, title=f"Entry {n}")
        entry.body = "Changed."
        entry.save()
        make_erratum(game=game, affects=[entry])
        make_question(game=game, related_entries=[entry])
        make_source(game=game)

    one_of_each(0)
    few = queries()
    for n in range(1, 8):
        one_of_each(n)
    many = queries()

    assert many == few


# --- Filters --------------------------------------------------------------------------


def test_filter_by_user_type_and_game(moderator_client, moderator):
    import_glossary()
    edit_in_admin(moderator_client, Entry.objects.get(title="Angriff"), body="Neu.")
    other_game = make_game(name="Other")
    make_erratum(game=other_game, title="A fix")

    by_moderator = activity(moderator_client, user=moderator.pk)
    automatic = activity(moderator_client, user="none")
    errata = activity(moderator_client, type="erratum")
    other = activity(moderator_client, game=other_game.pk)

    assert [row["what"] for row in by_moderator] == ["Entry: Angriff"]
    assert automatic and all(row["who"] == "no user" for row in automatic)
    assert [row["what"] for row in errata] == ["Erratum: A fix"]
    assert {row["game"] for row in other} == {"Other"}


@pytest.mark.parametrize(
    "params",
    [{"user": "abc"}, {"user": "999999"}, {"type": "nonsense"}, {"game": "x"}, {"game": "999999"}, {"page": "abc"}],
)
def test_bad_filter_values_are_reported_not_errors(moderator_client, params):
    make_entry(title="Still listed")

    response = moderator_client.get(ACTIVITY_URL, params)

    assert response.status_code == HTTPStatus.OK
    rows = table(response)
    assert any(row["what"] == "Entry: Still listed" for row in rows)
    if "page" not in params:
        assert "Some filters were not understood" in response.content.decode()


# --- Who may read it ------------------------------------------------------------------


def test_a_game_moderator_sees_only_their_games(client, game_moderator_for):
    mine, theirs = make_game(name="Mine"), make_game(name="Theirs")
    make_entry(game=mine, title="My rule")
    make_entry(game=theirs, title="Their rule")
    client.force_login(game_moderator_for(mine))

    rows = activity(client)
    asked_for_theirs = client.get(ACTIVITY_URL, {"game": theirs.pk})

    assert {row["what"] for row in rows} == {"Game: Mine", "Entry: My rule"}
    assert "Theirs" not in client.get(ACTIVITY_URL).content.decode()  # nor in the game filter
    assert "Their rule" not in asked_for_theirs.content.decode()
    assert "Some filters were not understood" in asked_for_theirs.content.decode()


def test_staff_without_view_permissions_get_403(client):
    client.force_login(make_staff("nobody"))
    assert client.get(ACTIVITY_URL).status_code == HTTPStatus.FORBIDDEN


def test_visitors_are_sent_to_the_login(client):
    response = client.get(ACTIVITY_URL)
    assert response.status_code == HTTPStatus.FOUND
    assert response["Location"].startswith(reverse("admin:login"))
