"""Booklets and sitemaps built in the background and served like static files
(rules/builds/): never made in a request, made again only when what they show changed,
served with ETag, Range and gzip, and a "being prepared" page before they exist."""

import gzip
import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from rules.builds.models import BuiltFile
from rules.builds.tasks import build_file
from rules.content.journal import unit_of_work
from rules.content.querysets import Status
from tests.builds import content_of, get_built, run_background_tasks
from tests.factories import make_entry, make_game, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

URL = "/de/games/mond/print/glossary/"


def build_tasks():
    """The queued builds (a write also asks the worker to store entry pages: not counted)."""
    return DBTaskResult.objects.filter(task_path=build_file.module_path)


@written_together
def build_game():
    game = make_game(slug="mond", name="Mond")
    for n, title in enumerate(["Angriff", "Bewegung", "Karte", "Zug"]):
        make_entry(game=game, language="de", title=title, body=f"Regeltext {n}. " * 30)
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def plain(client, url=URL, **headers):
    return client.get(url, headers={"accept-encoding": "identity", **headers})


def test_asked_for_before_it_exists_it_is_being_prepared(client, game):
    response = client.get(URL)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "no-store" in response["Cache-Control"]
    assert "<h1>Wird vorbereitet</h1>" in response.content.decode()  # the reader's language
    assert build_tasks().count() == 1
    # Asking again before the worker ran asks for nothing more.
    client.get(URL)
    assert build_tasks().count() == 1

    run_background_tasks()
    response = plain(client)
    assert response.status_code == 200
    html = content_of(response).decode()
    assert "Bewegung" in html and "Regeltext 3." in html
    assert response["ETag"].startswith('"') and response["Last-Modified"]
    assert int(response["Content-Length"]) == len(content_of(plain(client)))


def test_no_request_makes_the_same_file_twice(client, game):
    for port in (1001, 1002, 1003):
        client.get(f"{URL}?x={port}", headers={"host": f"localhost:{port}"})
    assert BuiltFile.objects.count() == 1
    assert build_tasks().count() == 1


def test_nothing_in_the_file_comes_from_the_request(client, game):
    client.get(f"{URL}?utm=%3Cscript%3E", headers={"host": "localhost:4444"})
    run_background_tasks()
    html = content_of(plain(client, f"{URL}?utm=elsewhere")).decode()
    assert "4444" not in html and "utm" not in html and "script%3E" not in html
    assert 'href="http://testserver/de/games/mond/print/glossary/"' in html  # Read online: the site's address


def test_a_change_is_served_as_last_built_while_it_is_made_again(client, game):
    get_built(client, URL)
    entry = game.entries.get(title="Karte")
    entry.body = "Ganz neuer Text."
    entry.save()

    stale = content_of(plain(client)).decode()
    assert "Regeltext 2." in stale and "Ganz neuer Text." not in stale
    assert build_tasks().filter(status="READY").count() == 1
    plain(client)
    assert build_tasks().filter(status="READY").count() == 1, "one build per change, however many readers"

    run_background_tasks()
    fresh = content_of(plain(client)).decode()
    assert "Ganz neuer Text." in fresh


def test_a_write_elsewhere_checks_the_file_and_makes_nothing(client, game):
    get_built(client, URL)
    before = BuiltFile.objects.get()
    make_entry(game=make_game(), title="Somewhere else")

    plain(client)
    run_background_tasks()

    after = BuiltFile.objects.get()
    assert after.name == before.name and after.built_at == before.built_at
    assert after.checked_token != before.checked_token
    assert build_tasks().filter(return_value="unchanged").count() == 1


def test_ranges(client, game):
    whole = content_of(get_built(client, URL, headers={"accept-encoding": "identity"}))
    size = len(whole)
    etag = plain(client)["ETag"]

    first = plain(client, range="bytes=0-99")
    assert first.status_code == 206
    assert first["Content-Range"] == f"bytes 0-99/{size}"
    assert content_of(first) == whole[:100]

    tail = plain(client, range="bytes=-50")
    assert content_of(tail) == whole[-50:]
    assert content_of(plain(client, range=f"bytes={size - 10}-")) == whole[-10:]

    beyond = plain(client, range=f"bytes={size}-")
    assert beyond.status_code == 416 and beyond["Content-Range"] == f"bytes */{size}"

    assert plain(client, range="bytes=0-1,5-6").status_code == 200  # several: the whole file
    assert plain(client, range="lines=1-2").status_code == 200
    assert plain(client, range="bytes=0-9", if_range='"another version"').status_code == 200
    assert plain(client, range="bytes=0-9", if_range=etag).status_code == 206


def test_text_is_sent_compressed_to_clients_that_take_it(client, game):
    identity = get_built(client, URL, headers={"accept-encoding": "identity"})
    packed = client.get(URL, headers={"accept-encoding": "gzip"})
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(content_of(packed)) == content_of(identity)
    assert packed["ETag"] != identity["ETag"]
    assert "Accept-Encoding" in packed["Vary"]
    refused = client.get(URL, headers={"accept-encoding": "gzip;q=0"})
    assert "Content-Encoding" not in refused


def test_a_matching_etag_is_a_304(client, game):
    response = get_built(client, URL, headers={"accept-encoding": "identity"})
    again = plain(client, if_none_match=response["ETag"])
    assert again.status_code == 304


def test_head_sends_the_headers_only(client, game):
    get_built(client, URL)
    response = client.head(URL, headers={"accept-encoding": "identity"})
    assert response.status_code == 200
    assert int(response["Content-Length"]) > 1000
    assert response.content == b""


def test_a_booklet_request_costs_a_few_small_queries(client, game, django_assert_max_num_queries):
    get_built(client, URL)
    with unit_of_work():  # one pipeline run, as an import
        for title in range(40):
            make_entry(game=game, language="de", title=f"Neu {title}")
    run_background_tasks()
    plain(client)
    # The version, the game, its content languages (three), whether there is anything
    # to print, the file's record: none grows with the game.
    with django_assert_max_num_queries(7):
        plain(client)


def test_nothing_to_print(client, game):
    assert client.get("/de/games/mond/print/rules.pdf").status_code == 404
    game.entries.update(status=Status.DRAFT)
    assert client.get("/de/games/mond/print/glossary.pdf").status_code == 404
    assert not BuiltFile.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_busy_database_never_keeps_a_reader_waiting(client, game):
    """While a long write holds the database, a reader still gets the booklet as last
    built at once (the request for a new build gives up after a moment)."""
    get_built(client, URL)
    make_entry(game=game, language="de", title="Später")  # the file is now stale
    holding, release = threading.Event(), threading.Event()

    def writer():
        with transaction.atomic():
            BuiltFile.objects.select_for_update().update(error="held")  # the lock a build request needs
            holding.set()
            release.wait(10)
        connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    holding.wait(10)
    try:
        with CaptureQueriesContext(connection):
            response = plain(client)
        assert response.status_code == 200
        assert "Später" not in content_of(response).decode()
    finally:
        release.set()
        thread.join()
    assert build_tasks().count() == 1, "the stale file's build is asked for by a later reader"
    plain(client)
    assert build_tasks().count() == 2


def test_a_version_replaced_while_it_is_asked_for_is_looked_up_again(
    client, game, rf, django_capture_on_commit_callbacks
):
    """A build replaces a file and removes the old one: a request that read the old
    record just before opens the new one instead of failing."""
    from rules.builds.serving import serve
    from rules.content import version as content_version

    get_built(client, URL)
    stale = BuiltFile.objects.get()
    entry = game.entries.get(title="Zug")
    entry.body = "Der neue Zug."
    entry.save()
    plain(client)
    with django_capture_on_commit_callbacks(execute=True):  # the old file is removed on commit
        run_background_tasks()
    assert BuiltFile.objects.get().name != stale.name

    request = rf.get(URL, headers={"accept-encoding": "identity"})
    response = serve(request, stale, content_version.current().token)
    assert response.status_code == 200
    assert "Der neue Zug." in content_of(response).decode()


def test_a_pdf_is_sent_as_stored_whatever_the_client_accepts(client, game):
    url = "/de/games/mond/print/glossary.pdf"
    get_built(client, url)
    response = client.get(url, headers={"accept-encoding": "gzip"})
    assert "Content-Encoding" not in response
    assert content_of(response).startswith(b"%PDF-")
    part = client.get(url, headers={"accept-encoding": "gzip", "range": "bytes=0-4"})
    assert part.status_code == 206 and content_of(part) == b"%PDF-"


def test_a_withdrawn_entry_is_never_served_from_a_booklet_built_before(client, game):
    """Serving a booklet as last built is fine for a changed text, never for one a
    moderator took down: unpublishing or deleting makes it "being prepared" until the
    worker made it again without it."""
    get_built(client, URL)
    entry = game.entries.get(title="Karte")
    entry.status = Status.DRAFT
    entry.save()
    response = plain(client)
    assert response.status_code == 503
    run_background_tasks()
    html = content_of(plain(client)).decode()
    assert "Regeltext 2." not in html and "Regeltext 1." in html

    game.entries.get(title="Zug").delete()
    assert plain(client).status_code == 503
    run_background_tasks()
    assert "Regeltext 3." not in content_of(plain(client)).decode()
