"""API lists assembled from stored JSON (rules/api/stored.py) are, byte for byte, what the
lists' serializers give when asked afresh: for every stored kind (games, entries,
errata, FAQ questions), after every kind of write, in every representation, filtered
(queries built per request) and unfiltered (compiled once)."""

import json
import re
import uuid

import pytest

from faq.models import Question
from rules.content.models import Entry, Erratum, Game, Source
from rules.content.querysets import Status
from rules.derived import stored_json
from rules.derived.models import PublicItem
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/v1/games/",
    "/api/v1/entries/?page_size=100",
    "/api/v1/entries/?ordering=updated_at&page_size=3",
    "/api/v1/entries/?game=blue-moon&language=de",
    "/api/v1/errata/",
    "/api/v1/faq/",
    "/api/v1/games/?language=de",
    "/api/v1/errata/?game=blue-moon&ordering=id",
    "/api/v1/entries/?language=en&page_size=1&page=2",
    # Unfiltered by page number: the compiled queries (rules.api.stored.CompiledList).
    "/api/v1/entries/?page_size=2&page=2",
    "/api/v1/games/?page=last&page_size=1",
]


@pytest.fixture(autouse=True)
def _uncached(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


@written_together
def build_world():
    game = make_game(slug="blue-moon", name="Blue Moon", localized_names={"de": "Blauer Mond"})
    source = make_source(game=game, title="Rulebook", official=True)
    fight = make_entry(game=game, title="Fight", body="Roll the die. See [[Boost]].", source=source, number="4.1")
    boost = make_entry(game=game, title="Boost", body="Then [[Fight]].", see_also=["Fight", "Missing"])
    kampf = make_entry(game=game, language="de", title="Kampf", body="Würfle.", translation_key=fight.translation_key)
    erratum = make_erratum(game=game, title="Fix", corrected_text="Roll **twice**.", affects=[fight, boost])
    question = make_question(game=game, question="Roll?", answer="Yes, [[Fight]].", related_entries=[fight])
    other = make_game(slug="dusk", name="Dusk")
    make_entry(game=other, title="Night", body="Dark « quotes » and \u2028 a separator.")
    return {"game": game, "source": source, "fight": fight, "boost": boost, "kampf": kampf, "erratum": erratum,
            "question": question}  # fmt: skip


# Written once for the module (tests.module_world): every test asks for it.
_world_of_the_module, world = fixtures(build_world, "world")


def fresh(client, monkeypatch, url, **headers) -> bytes:
    """The list as the serializers give it with nothing stored to read."""
    with monkeypatch.context() as patched:
        patched.setattr(stored_json, "_makers", {})
        return client.get(url, headers=headers).content


def details(world) -> list[str]:
    """One item of every stored kind, as its detail URL (a deleted one: a 404 either way)."""
    return [
        f"/api/v1/entries/{world['fight'].pk}/",
        f"/api/v1/entries/{world['kampf'].pk}/",
        f"/api/v1/entries/{world['boost'].pk}/",
        f"/api/v1/errata/{world['erratum'].pk}/",
        f"/api/v1/faq/{world['question'].pk}/",
        "/api/v1/games/blue-moon/",
        "/api/v1/games/dusk/",
    ]


def assert_stored_is_fresh(client, monkeypatch, world=None, **headers):
    for url in LISTS:
        served = client.get(url, headers=headers)
        assert served.status_code == 200, url
        assert without_csrf(served.content) == without_csrf(fresh(client, monkeypatch, url, **headers)), url
    for url in details(world) if world else []:
        served = client.get(url, headers=headers)
        with monkeypatch.context() as patched:
            patched.setattr(stored_json, "_makers", {})
            serialized = client.get(url, headers=headers)
        assert served.status_code == serialized.status_code, url
        assert without_csrf(served.content) == without_csrf(serialized.content), url


def without_csrf(content: bytes) -> bytes:
    """The browsable API's page holds a new CSRF token each time; nothing else differs."""
    return re.sub(rb'("csrfToken": "|name="csrfmiddlewaretoken" value=")[^"]*', rb"\1", content)


def setattr_save(obj, **values):
    for name, value in values.items():
        setattr(obj, name, value)
    obj.save()


def test_every_item_has_its_json_stored(world):
    kinds = dict(PublicItem.objects.filter(body__isnull=False).values_list("kind", "object_id").distinct())
    assert {"game", "entry", "erratum", "question"} <= set(kinds)
    assert not PublicItem.objects.filter(kind__in=["game", "entry", "erratum", "question"], body__isnull=True).exists()
    assert not PublicItem.objects.filter(kind="source", body__isnull=False).exists()  # sources are not stored


WRITES = [
    pytest.param(lambda w: setattr_save(w["fight"], body="Roll two dice."), id="entry text"),
    pytest.param(lambda w: setattr_save(w["fight"], title="Fight Hard"), id="entry renamed (linked from others)"),
    # The placeholder's own escape, typed as text (a rules text about JSON, say), stays text.
    pytest.param(lambda w: setattr_save(w["fight"], body=r'Type \u0000 or "\u0000/x".'), id="placeholder as text"),
    pytest.param(lambda w: setattr_save(w["boost"], status=Status.DRAFT), id="entry unpublished"),
    pytest.param(lambda w: Entry.objects.get(pk=w["boost"].pk).delete(), id="entry deleted"),
    pytest.param(lambda w: make_erratum(game=w["game"], title="Another", affects=[w["boost"]]), id="erratum added"),
    pytest.param(lambda w: setattr_save(w["erratum"], corrected_text="Roll thrice."), id="erratum text"),
    pytest.param(lambda w: w["erratum"].affects.remove(w["boost"]), id="erratum link removed"),
    pytest.param(lambda w: Erratum.objects.get(pk=w["erratum"].pk).delete(), id="erratum deleted"),
    pytest.param(lambda w: make_question(game=w["game"], question="Boost?", related_entries=[w["boost"]]),
                 id="question added"),  # fmt: skip
    pytest.param(lambda w: setattr_save(Question.objects.get(pk=w["question"].pk), answer="No."), id="answer"),
    pytest.param(lambda w: setattr_save(w["kampf"], translation_key=uuid.uuid4()), id="translation unlinked"),
    pytest.param(lambda w: setattr_save(Game.objects.get(pk=w["game"].pk), slug="blue-moon-2"), id="game slug"),
    pytest.param(lambda w: setattr_save(Game.objects.get(pk=w["game"].pk), name="Blue Sun"), id="game name"),
    pytest.param(lambda w: setattr_save(Source.objects.get(pk=w["source"].pk), title="Rules v2"), id="source title"),
    pytest.param(lambda w: make_entry(game=w["game"], language="pl", title="Walka"), id="new language"),
    pytest.param(lambda w: Game.objects.get(slug="dusk").delete(), id="game deleted"),
]


@pytest.mark.parametrize("write", WRITES)
def test_stored_lists_equal_fresh_ones_after_every_write(client, monkeypatch, world, write):
    assert_stored_is_fresh(client, monkeypatch, world)
    write(world)
    assert_stored_is_fresh(client, monkeypatch, world)
    assert_bulk_files_are_fresh(monkeypatch)


def bulk_files() -> dict[str, dict]:
    """Every bulk file there is to have, as the worker makes it now (rules.api.bulk), parsed
    and without the time it was made at."""
    from rules.api import bulk
    from rules.builds.kinds import KINDS
    from rules.builds.models import BuiltFile

    kind = KINDS[BuiltFile.Kind.BULK]
    files = {}
    for _game, _language, path, file in bulk.file_records():
        gathered = kind.gather(file)
        if gathered is not None:
            document = json.loads(kind.render(file, gathered))
            del document["made_at"]
            files[path] = document
    return files


def assert_bulk_files_are_fresh(monkeypatch):
    """Assembled from stored JSON, the files hold what serializing every item gives (the
    same data: the stored bodies escape U+2028 as the API's renderer does, the file's own
    encoder did not)."""
    made = bulk_files()
    with monkeypatch.context() as patched:
        patched.setattr(stored_json, "_makers", {})
        serialized = bulk_files()
    assert made == serialized
    assert made["/api/v1/bulk/all.json"]["entries"], "the file of everything lists entries"


def test_a_bulk_file_is_assembled_from_the_stored_json(monkeypatch, world):
    fight = world["fight"].pk
    body = PublicItem.objects.get(kind="entry", object_id=fight).body
    PublicItem.objects.filter(kind="entry", object_id=fight).update(body=body.replace("Roll the die.", "Stored."))
    entries = {entry["id"]: entry for entry in bulk_files()["/api/v1/bulk/all.json"]["entries"]}
    assert entries[fight]["body"] == "Stored. See [[Boost]]."  # made by hand above: read, not serialized
    assert entries[fight]["url"].startswith("http")  # the site's address put in
    PublicItem.objects.filter(kind="entry", object_id=world["boost"].pk).update(body=None)
    entries = {entry["id"]: entry for entry in bulk_files()["/api/v1/bulk/all.json"]["entries"]}
    assert entries[fight]["body"] == "Roll the die. See [[Boost]].", "a body missing: the section is serialized"


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Accept-Language": "de"}, id="another UI language"),
        pytest.param({"Accept": "application/json; indent=2"}, id="indented"),
        pytest.param({"Accept": "text/html"}, id="browsable API"),
        pytest.param({"Host": "localhost"}, id="another allowed address"),
    ],
)
def test_every_representation_of_a_stored_list_is_the_fresh_one(client, monkeypatch, world, headers):
    assert_stored_is_fresh(client, monkeypatch, world, **headers)


def test_the_readers_address_is_in_every_url(client, world):
    body = client.get("/api/v1/entries/?page_size=100", secure=True).content.decode()
    assert '"url":"https://testserver/api/v1/entries/' in body
    assert "\\u0000" not in body


def test_an_item_without_a_stored_body_is_serialized_as_before(client, monkeypatch, world):
    PublicItem.objects.filter(kind="entry", object_id=world["fight"].pk).update(body=None)
    assert_stored_is_fresh(client, monkeypatch, world)


def test_a_detail_answer_is_its_stored_json_in_one_query(client, world, django_assert_num_queries):
    url = f"/api/v1/entries/{world['fight'].pk}/"
    PublicItem.objects.filter(kind="entry", object_id=world["fight"].pk).update(
        body=PublicItem.objects.get(kind="entry", object_id=world["fight"].pk).body.replace("Roll the die.", "Stored.")
    )  # made by hand, so an answer that shows it was read from the stored JSON
    with django_assert_num_queries(2):  # the content version, then the item's stored JSON
        response = client.get(url)
    assert response.json()["body"] == "Stored. See [[Boost]]."
    assert client.get(url, {"as_of": "2000-01-01"}).status_code == 404  # another question: serialized
    for missing in ["/api/v1/entries/0/", "/api/v1/entries/99999999999999999999/", "/api/v1/games/no-such-game/"]:
        answer = client.get(missing)
        assert answer.status_code == 404 and "detail" in answer.json(), missing


def test_a_refresh_of_everything_fills_bodies_made_before_they_were_stored(client, monkeypatch, world):
    from rules.derived.pipeline import refresh_everything

    PublicItem.objects.update(body=None)
    refresh_everything()
    assert not PublicItem.objects.filter(kind="entry", body__isnull=True).exists()
    assert_stored_is_fresh(client, monkeypatch)
