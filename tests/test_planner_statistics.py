"""Reads use the indexes made for them once a write has brought the planner's statistics
up to date (rules.shared.planner_statistics): the API's list of entries walks the index
of its order and stops at the page's end, instead of sorting every published entry in a
temporary B-tree; a search for a rule number looks the number up instead of reading
every search document."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules.content.querysets import Status
from tests.factories import make_entry, make_game, written_together

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_statistics_yet():
    """A database as new: no statistics left by an earlier test's committed writes (a
    test in a transaction of its own, a live server's), which ``PRAGMA optimize`` keeps
    while a table's size stays near what they counted. Rolled back with the test."""
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'")
        if cursor.fetchone():
            cursor.execute("DELETE FROM sqlite_stat1")
            cursor.execute("ANALYZE sqlite_schema")  # the planner reads them again: none


def plan_of(queries, marker: str) -> str:
    """SQLite's plan of the first captured query whose SQL holds ``marker``, one line."""
    sql = next(query["sql"] for query in queries if marker in query["sql"])
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return " / ".join(row[-1] for row in cursor.fetchall())


@written_together
def write_glossaries():
    for name in ("Alpha", "Beta", "Gamma"):
        game = make_game(name=name, slug=name.lower())
        for n in range(40):
            make_entry(game=game, title=f"{name} rule {n:02d}")
        for n in range(20):
            make_entry(game=game, title=f"{name} draft {n:02d}", status=Status.DRAFT)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL's statistics are autovacuum's, not ours")
def test_the_list_of_entries_walks_its_index_after_an_import(client):
    write_glossaries()

    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/entries/?page_size=50")

    assert response.status_code == 200
    titles = [item["title"] for item in response.json()["results"]]
    assert titles == [f"Alpha rule {n:02d}" for n in range(40)] + [f"Beta rule {n:02d}" for n in range(10)]
    plan = plan_of(queries, "LIMIT 50")
    assert "entry_published_in_order" in plan, plan
    assert "TEMP B-TREE" not in plan, plan


@written_together
def write_numbered_rules():
    game = make_game(name="Numbered", slug="numbered")
    for section in range(100, 110):
        for rule in range(1, 21):
            make_entry(game=game, title=f"Rule {section}.{rule}", number=f"{section}.{rule}")
    for n in range(40):
        make_entry(game=game, title=f"Glossary term {n:02d}")


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL's statistics are autovacuum's, not ours")
def test_a_search_for_a_rule_number_looks_it_up_in_the_index(client):
    write_numbered_rules()

    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/search/?q=105.7")

    assert response.status_code == 200
    assert response.json()["results"][0]["title"] == "Rule 105.7"
    plan = plan_of(queries, '"number" IN')
    assert "search_document_by_number" in plan, plan
