"""Readers see a large import before or after, never half of it (rules/importing/rows.py,
"Readers see a large import before or after").

An import of more than ``COMMIT_EVERY`` rows commits batch by batch; what it makes public
is held back (stored as drafts that name the import) until its last unit of work
publishes all of it at once. Watched from another database connection while it runs,
every public surface shows none or all of its entries: ``published()``, the API's list,
the search index, the public change feed and the release.
"""

import threading

import pytest
from django.db import connection
from django.test import Client

from rules.content.models import Entry
from rules.content.releases import Release
from rules.derived.models import PublicChange
from rules.importing import ImportOptions, import_document
from rules.importing import rows as rows_module
from rules.importing.pipeline import SourceInfo
from rules.search.models import SearchDocument

ENTRIES = 1100  # three batches of COMMIT_EVERY (500)
WORDS = ["Zug", "Karte", "Angriff", "Schild", "Runde", "Würfel", "Aktion", "Held", "Schurke", "Plan", "Zone"]


def glossary(count: int) -> str:
    titles = [f"{WORDS[n % len(WORDS)]} {n:04}" for n in range(count)]
    return "\n".join(
        f"{title}\nRegel für {title}: Lege eine Karte ab und ziehe {n % 4 + 1} Karten.\n"
        f"Siehe auch: {titles[(n + 1) % count]}\n"
        for n, title in enumerate(titles)
    )


def options(game: str, **kwargs) -> ImportOptions:
    return ImportOptions(
        game=game, game_name=game.title(), language="de", kind="glossary",
        source=SourceInfo(title="Glossar", version="1.0"), **kwargs,
    )  # fmt: skip


def seen(game: str) -> dict[str, int]:
    """What a reader sees of the game's entries now, on this thread's own connection:
    the database's public surfaces in one statement (one snapshot, on SQLite and on
    PostgreSQL alike), then the API's list."""
    surfaces = {
        "published()": Entry.objects.published().filter(game__slug=game),
        "search index": SearchDocument.objects.filter(game__slug=game, item_type="entry"),
        "change feed": PublicChange.objects.filter(game_slug=game, kind="entry", action="created"),
        "release": Release.objects.public().filter(source__game__slug=game),
    }
    parts, params = [], []
    for queryset in surfaces.values():
        sql, args = queryset.order_by().values("pk").query.sql_with_params()
        parts.append(f"(SELECT COUNT(*) FROM ({sql}) AS counted)")
        params.extend(args)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(parts)}", params)
        counts = dict(zip(surfaces, cursor.fetchone(), strict=True))
    api = Client().get(f"/api/v1/entries/?game={game}&page_size=1")
    assert api.status_code in (200, 404), api.status_code  # 404: the game does not exist yet
    return {**counts, "API list": api.json()["count"] if api.status_code == 200 else 0}


@pytest.mark.django_db(transaction=True)
def test_an_import_watched_from_another_connection_shows_none_or_all_of_its_entries():
    document = glossary(ENTRIES)
    nothing = {"published()": 0, "API list": 0, "search index": 0, "change feed": 0, "release": 0}
    everything = {"published()": ENTRIES, "API list": ENTRIES, "search index": ENTRIES, "change feed": ENTRIES,
                  "release": 1}  # fmt: skip
    batch_done, looked = threading.Event(), threading.Event()
    batches: list[int] = []
    failure: list[BaseException] = []

    def progress(stage: str, done: int = 0, total: int = 0) -> None:
        # After each batch has committed: let the reader look before the next one.
        if stage == "writing" and done:
            batches.append(done)
            batch_done.set()
            looked.wait(timeout=60)
            looked.clear()

    def run() -> None:
        try:
            import_document(document, options("gross", progress=progress))
        except BaseException as error:  # handed to the test's thread
            failure.append(error)
        finally:
            connection.close()
            batch_done.set()

    importer = threading.Thread(target=run)
    importer.start()
    observations = []
    try:
        while importer.is_alive():
            at_a_batch = batch_done.wait(timeout=0.05)
            observations.append(seen("gross"))
            if at_a_batch:
                batch_done.clear()
                looked.set()
    finally:
        looked.set()
        importer.join(timeout=300)
    assert not failure, failure
    observations.append(seen("gross"))

    assert batches == [500, 1000, 1100]  # it did commit in batches, and was looked at after each
    assert len(observations) > len(batches)
    database = [without_api(seen) for seen in observations]
    half = [counts for counts in database if counts not in (without_api(nothing), without_api(everything))]
    assert half == [], half[:3]
    assert {seen["API list"] for seen in observations} <= {0, ENTRIES}
    first_all = database.index(without_api(everything))
    assert all(counts == without_api(everything) for counts in database[first_all:])  # never back
    assert observations[-1] == everything


def without_api(counts: dict) -> dict:
    return {k: v for k, v in counts.items() if k != "API list"}


@pytest.mark.django_db(transaction=True)
def test_an_import_that_stops_midway_leaves_its_rows_hidden_and_running_it_again_publishes_them(
    monkeypatch, django_user_model
):
    monkeypatch.setattr(rows_module, "COMMIT_EVERY", 7)

    def fail_after_two(stage, done=0, total=0):
        if stage == "writing" and done >= 14:
            raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError):
        import_document(glossary(30), options("halb", progress=fail_after_two))

    assert Entry.objects.filter(game__slug="halb").count() == 14  # written, and held back
    assert seen("halb") == {"published()": 0, "API list": 0, "search index": 0, "change feed": 0, "release": 0}
    held = Entry.objects.filter(game__slug="halb").first()
    assert Client().get(held.get_absolute_url()).status_code == 404
    assert found(held.title) == []
    # Moderators see them, and why they are not public.
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("boss", password="x"))
    listing = admin.get(f"/admin/rules/entry/?game__id__exact={held.game_id}")
    assert listing.status_code == 200
    assert listing.content.decode().count("held back by an unfinished import") == 14

    rerun = import_document(glossary(30), options("halb"))

    assert len(rerun.created) == 16 and len(rerun.unchanged) == 14
    assert seen("halb") == {"published()": 30, "API list": 30, "search index": 30, "change feed": 30, "release": 1}
    assert Client().get(held.get_absolute_url()).status_code == 200
    assert held.title in found(held.title)  # its search row made in a batch, stored at the end
    assert not Entry.objects.filter(held_by_import__isnull=False).exists()
    # Each entry has its one version, as the import left it: published.
    for entry in Entry.objects.filter(game__slug="halb"):
        assert list(entry.history.values_list("history_type", "status")) == [("+", "published")]


def found(title: str) -> list[str]:
    """The titles the API's search answers ``title`` with, in the game "halb"."""
    response = Client().get("/api/v1/search/", {"q": title, "game": "halb", "language": "de"})
    assert response.status_code == 200, response.content
    return [hit["title"] for hit in response.json()["results"]]
