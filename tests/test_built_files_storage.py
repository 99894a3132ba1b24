"""Built files kept in object storage (``DJANGO_BUILT_FILES_URL=s3://…``), against a real
S3-speaking server run here (moto's standalone ``moto_server``, over HTTP; skipped with
the reason when it is not installed, never in CI: ``RULESITE_REQUIRE_S3=1``), and files
that heal: one its record says is stored but the storage lacks is built again, found by
a reader's request or by the worker's periodic check, and the admin's front page says
when files stay missing or no worker has been seen.
"""

import gzip
import logging
import urllib.request
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from rules.builds import upkeep
from rules.builds.models import BuiltFile
from rules.jobs.models import WorkerBeat
from rulesite.settings.base import built_files_storage
from tests.builds import content_of, get_built, run_background_tasks
from tests.factories import make_entry, make_game, written_together
from tests.module_world import fixtures
from tests.services import s3_server

pytestmark = pytest.mark.django_db

URL = "/de/games/mond/print/glossary/"
PDF = "/de/games/mond/print/glossary.pdf"


@written_together
def build_game():
    game = make_game(slug="mond", name="Mond")
    for n, title in enumerate(["Angriff", "Bewegung", "Karte", "Zug"]):
        make_entry(game=game, language="de", title=title, body=f"Regeltext {n}. " * 30)
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    with s3_server(tmp_path_factory.mktemp("s3")) as server:
        yield server


@pytest.fixture
def on_s3(s3, settings, monkeypatch):
    """The built files of this test on the S3 server, as DJANGO_BUILT_FILES_URL would set it."""
    for name, value in s3.environ.items():
        monkeypatch.setenv(name, value)
    prefix = f"built-{timezone.now().timestamp():.6f}"  # a folder of this test's own
    settings.STORAGES = {**settings.STORAGES, "builtfiles": built_files_storage(f"s3://{s3.bucket}/{prefix}", None)}
    return s3, prefix


def plain(client, url=URL, **headers):
    return client.get(url, headers={"accept-encoding": "identity", **headers})


def test_the_storage_is_chosen_by_one_url(tmp_path):
    assert built_files_storage("", tmp_path)["OPTIONS"]["location"] == tmp_path
    assert built_files_storage(f"file://{tmp_path}/x", None)["OPTIONS"]["location"] == tmp_path / "x"
    s3 = built_files_storage("s3://bucket/some/prefix/", None)
    assert s3["BACKEND"] == "storages.backends.s3.S3Storage"
    assert (s3["OPTIONS"]["bucket_name"], s3["OPTIONS"]["location"]) == ("bucket", "some/prefix")
    for wrong in ("ftp://host/x", "file://relative", "s3://", "/just/a/path"):
        with pytest.raises(ImproperlyConfigured, match="DJANGO_BUILT_FILES_URL"):
            built_files_storage(wrong, None)


def test_a_booklet_is_kept_on_s3_and_served_from_it(client, game, on_s3):
    server, prefix = on_s3
    assert client.get(URL).status_code == 503
    run_background_tasks()
    file = BuiltFile.objects.get(kind=BuiltFile.Kind.BOOKLET_HTML)
    assert f"{prefix}/{file.name}" in server.keys() and f"{prefix}/{file.gzip_name}" in server.keys()

    response = plain(client)
    assert response.status_code == 200 and response.streaming
    body = content_of(response)
    assert "Regeltext 3." in body.decode() and len(body) == int(response["Content-Length"]) == file.size
    etag = response["ETag"]
    assert client.get(URL, headers={"accept-encoding": "identity", "if-none-match": etag}).status_code == 304

    part = plain(client, range="bytes=100-199")
    assert part.status_code == 206 and part["Content-Range"] == f"bytes 100-199/{file.size}"
    assert content_of(part) == body[100:200]
    assert content_of(plain(client, range="bytes=-10")) == body[-10:]
    assert plain(client, range=f"bytes={file.size}-").status_code == 416

    packed = client.get(URL, headers={"accept-encoding": "gzip"})
    assert packed["Content-Encoding"] == "gzip" and gzip.decompress(content_of(packed)) == body


def test_readers_can_be_sent_to_the_storage_itself(client, game, on_s3, settings):
    """A 302 to a presigned URL of the object, naming the headers S3 is to answer with
    (type, disposition, encoding: moto honours them for small objects only, so they are
    read from the URL here), whose bytes are the file's."""
    settings.BUILT_FILES_REDIRECT = True
    get_built(client, PDF)
    response = client.get(PDF)
    assert response.status_code == 302
    assert "no-store" in response["Cache-Control"]
    asked = parse_qs(urlsplit(response["Location"]).query)
    assert asked["response-content-type"] == ["application/pdf"]
    assert asked["response-content-disposition"] == ['inline; filename="mond-glossary-de.pdf"']
    with urllib.request.urlopen(response["Location"], timeout=10) as stored:  # noqa: S310 - the local S3 server
        data = stored.read()
    assert data.startswith(b"%PDF") and len(data) == BuiltFile.objects.get(kind=BuiltFile.Kind.BOOKLET_PDF).size

    get_built(client, URL)
    html = client.get(URL, headers={"accept-encoding": "gzip"})
    assert html.status_code == 302 and html["Vary"] == "Accept-Encoding"
    assert parse_qs(urlsplit(html["Location"]).query)["response-content-encoding"] == ["gzip"]
    with urllib.request.urlopen(html["Location"], timeout=10) as stored:  # noqa: S310
        assert "Regeltext 3." in gzip.decompress(stored.read()).decode()
    plain_html = client.get(URL, headers={"accept-encoding": "identity"})
    assert "response-content-encoding" not in plain_html["Location"]
    with urllib.request.urlopen(plain_html["Location"], timeout=10) as stored:  # noqa: S310
        assert "Regeltext 3." in stored.read().decode()


def test_a_file_deleted_from_the_storage_is_built_again_on_the_next_request(client, game, on_s3, caplog):
    server, prefix = on_s3
    before = content_of(get_built(client, URL, headers={"accept-encoding": "identity"}))
    file = BuiltFile.objects.get(kind=BuiltFile.Kind.BOOKLET_HTML)
    server.client().delete_object(Bucket=server.bucket, Key=f"{prefix}/{file.gzip_name}")

    with caplog.at_level(logging.WARNING, logger="rules.builds.tasks"):
        response = client.get(URL, headers={"accept-encoding": "gzip"})
    assert response.status_code == 503 and response["Retry-After"]
    assert "missing from the storage" in caplog.text and file.gzip_name in caplog.text
    assert client.get(URL).status_code == 503  # the same until the worker made it

    run_background_tasks()
    response = client.get(URL, headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert gzip.decompress(content_of(response)) == before
    assert BuiltFile.objects.get(pk=file.pk).missing_since is None


def test_the_workers_check_finds_files_nobody_asked_for(client, game, tmp_path):
    """On the default storage (a directory): the same for every storage."""
    get_built(client, URL)
    get_built(client, PDF)
    assert upkeep.check() == 0
    pdf = BuiltFile.objects.get(kind=BuiltFile.Kind.BOOKLET_PDF)
    from rules.builds.storage import storage

    storage().delete(pdf.name)
    assert upkeep.check() == 1
    assert upkeep.check() == 0  # asked for once
    assert run_background_tasks() == 1
    assert storage().exists(BuiltFile.objects.get(pk=pdf.pk).name)
    assert client.get(PDF).status_code == 200


def test_the_admin_front_page_warns_of_missing_files_and_a_silent_worker(admin_client, game, client):
    def warnings():
        response = admin_client.get("/admin/")
        assert response.status_code == 200
        html = response.content.decode()
        return html[html.index("<main"):] if "operations-warnings" in html else ""

    get_built(client, URL)
    WorkerBeat.objects.create(worker_id="w1", seen_at=timezone.now())
    assert warnings() == ""

    file = BuiltFile.objects.get()
    from rules.builds.storage import storage

    storage().delete(file.name)
    assert client.get(URL, headers={"accept-encoding": "identity"}).status_code == 503
    assert warnings() == ""  # missing for a moment: the worker is on it
    BuiltFile.objects.filter(pk=file.pk).update(missing_since=timezone.now() - timedelta(minutes=6))
    assert "1 built file (booklet, sitemap or bulk file) has been missing from the storage" in warnings()

    WorkerBeat.objects.update(seen_at=timezone.now() - timedelta(minutes=7))
    assert "No background worker has been seen for 7 minutes" in warnings()
    run_background_tasks()
    WorkerBeat.objects.update(seen_at=timezone.now())
    assert warnings() == ""


def test_a_storage_that_cannot_be_reached_is_being_prepared_not_an_error(client, game, on_s3, settings, caplog):
    server, prefix = on_s3
    get_built(client, URL)
    unreachable = built_files_storage(f"s3://{server.bucket}/{prefix}", None)
    unreachable["OPTIONS"]["endpoint_url"] = "http://127.0.0.1:9"  # nothing listens there
    settings.STORAGES = {**settings.STORAGES, "builtfiles": unreachable}
    with caplog.at_level(logging.WARNING, logger="rules.builds.serving"):
        response = client.get(URL)
    assert response.status_code == 503 and response["Retry-After"]
    assert "the built files' storage failed" in caplog.text
    assert BuiltFile.objects.get().is_stored  # nothing was taken for lost
