"""Entry and game pages stored by the worker (rules.pages.stored_pages,
rules.pages.stored_game_pages): a stored page is served only while it is made of what the
reader's request would render, so it is the same bytes as rendering in the request,
before and after every kind of write."""

import gzip
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.urls import reverse
from django.utils import translation
from django_tasks_db.models import DBTaskResult

from rules.content.models import Entry, Game, Source
from rules.content.querysets import Status
from rules.content.releases import Release
from rules.moderation.translations import start_translation
from rules.pages import stored, stored_pages
from rules.pages.models import StoredEntryPage, StoredGamePage
from rules.shared.compression import body_digest, gzipped
from tests.builds import run_background_tasks
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together

pytestmark = pytest.mark.django_db

MARKER = "<!-- as stored -->"
GZIP_MARKER = "<!-- as stored, compressed -->"
UI_LANGUAGES = [code for code, _name in settings.LANGUAGES]


@pytest.fixture(autouse=True)
def _uncached(settings):
    """The rendering path is what is compared: the whole-response cache is off."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


@written_together
def world():
    """Two games; the first with a source, see-also links both ways, an erratum, a FAQ
    question, a German translation and an entry only in German."""
    user = get_user_model().objects.create_user("translator")
    game = make_game(name="Heroes")
    source = make_source(game=game, title="Rules Reference")
    attack = make_entry(game=game, source=source, title="Attack", body="Deal damage. See [[Defence]].",
                        see_also=["Damage"])  # fmt: skip
    damage = make_entry(game=game, source=source, title="Damage", body="Damage stays on the card.")
    make_entry(game=game, source=source, title="Defence", body="Exhaust to defend. See [[Attack]].")
    make_entry(game=game, language="de", title="Nur Deutsch", body="Gibt es nur auf Deutsch.")
    make_erratum(game=game, title="Attack fix", original_text="Deal damage", corrected_text="Deal 1 damage",
                 affects=[attack])  # fmt: skip
    make_question(game=game, question="Does damage stay?", related_entries=[damage])
    translate_and_publish(attack, "Angriff", user)
    other = make_game(name="Villains")
    make_entry(game=other, title="Scheme", body="Add threat.")
    return game, other


def translate_and_publish(entry: Entry, title: str, user) -> None:
    """A German translation of ``entry``, made by the translators' tool and published."""
    german = start_translation(entry, "de", user)
    german.title = title
    german.save()
    german.status = Status.PUBLISHED
    german.save()


def edit(model, lookup: dict, **values) -> None:
    """One row found by ``lookup`` saved with new ``values``, as a moderator's edit."""
    row = model.objects.get(**lookup)
    for name, value in values.items():
        setattr(row, name, value)
    row.save()


STORED = (StoredEntryPage, StoredGamePage)


def stored_count() -> int:
    return sum(model.objects.count() for model in STORED)


def pages() -> list[str]:
    """Every game's page and every entry page's address in every UI language (an entry
    page's redirects left out)."""
    urls = []
    for ui_language in UI_LANGUAGES:
        with translation.override(ui_language):
            urls += [reverse("rules:game", args=[slug]) for slug in Game.objects.values_list("slug", flat=True)]
    for entry in Entry.objects.published().select_related("game"):
        for ui_language in UI_LANGUAGES:
            urls.append(entry.url_in(ui_language))
    return urls


def get_all(client, urls) -> dict[str, tuple[int, str]]:
    got = {}
    for url in urls:
        response = client.get(url)
        got[url] = (response.status_code, response.content.decode())
    return got


def live(client, urls) -> dict[str, tuple[int, str]]:
    """The pages as rendered in the request: with no page stored."""
    for model in STORED:
        model.objects.all().delete()
    return get_all(client, urls)


def mark_stored() -> None:
    """Every stored page gets a comment, to see which responses came from the store."""
    for model in STORED:
        model.objects.update(html=Concat(F("html"), Value(MARKER)))


def mark_stored_gzip() -> None:
    """Every stored page's gzip bytes (only) get a comment, made as the worker makes them."""
    for model in STORED:
        for page in model.objects.all():
            marked = (page.html + GZIP_MARKER).encode()
            page.gzip, page.digest = gzipped(marked, kept=True), body_digest(marked)
            page.save(update_fields=["gzip", "digest"])


def get_gzip(client, urls) -> dict[str, tuple[int, bytes, dict]]:
    """Each page as a client that takes gzip gets it: status, bytes and the headers that
    say what the bytes are."""
    got = {}
    for url in urls:
        response = client.get(url, headers={"accept-encoding": "gzip, deflate, br"})
        headers = {name: response.get(name) for name in ("Content-Encoding", "Content-Length", "ETag", "Vary")}
        got[url] = (response.status_code, response.content, headers)
    return got


def test_a_stored_page_is_the_page_rendered_in_the_request(client):
    world()
    urls = pages()
    rendered = live(client, urls)
    done, finished = stored_pages.refresh()
    assert finished and done == stored_count() > 0
    assert StoredGamePage.objects.count() == 2 * len(UI_LANGUAGES)  # each game's page in each UI language
    assert get_all(client, urls) == rendered
    mark_stored()
    served = get_all(client, urls)
    from_store = [url for url, (status, html) in served.items() if html.endswith(MARKER)]
    # Every page a reader gets at its address (not a redirect to its translation).
    assert sorted(from_store) == sorted(url for url, (status, _html) in rendered.items() if status == 200)
    assert stored_pages.refresh() == (0, True)  # nothing changed: nothing rendered again


def as_read(got: dict) -> dict:
    """``get_gzip``'s answers as the reader's browser has them: the page decompressed, and
    the headers that say what it is (the length says only how it was compressed)."""
    return {
        url: (status, gzip.decompress(body) if headers["Content-Encoding"] == "gzip" else body,
              headers["ETag"], headers["Vary"])  # fmt: skip
        for url, (status, body, headers) in got.items()
    }


def test_a_client_taking_gzip_gets_the_stored_page_compressed_for_size(client):
    """The worker stores each page compressed too, and a client that takes gzip (every
    browser) is sent those bytes: the same page, ETag and Vary as the page compressed in
    the request (rulesite.compression), and compressed for size where the request's
    (the cache off here) is compressed for speed (rules.shared.compression)."""
    world()
    urls = pages()
    rendered = get_gzip(client, urls)
    assert {headers["Content-Encoding"] for status, _body, headers in rendered.values() if status == 200} == {"gzip"}
    stored_pages.refresh()
    served = get_gzip(client, urls)
    assert as_read(served) == as_read(rendered)
    for url, (status, body, headers) in served.items():
        if status == 200:
            assert int(headers["Content-Length"]) == len(body) < len(rendered[url][1]), url
    mark_stored_gzip()
    served = get_gzip(client, urls)
    from_store = [url for url, (status, body, _headers) in served.items()
                  if status == 200 and gzip.decompress(body).decode().endswith(GZIP_MARKER)]  # fmt: skip
    assert sorted(from_store) == sorted(url for url, (status, _body, _headers) in rendered.items() if status == 200)
    # A page stored before its gzip bytes were (or too short for them) is rendered.
    for model in STORED:
        model.objects.update(gzip=None)
    assert get_gzip(client, urls) == rendered


def edit_body():
    edit(Entry, {"title": "Damage"}, body="Damage stays on the card until healed.")


def retitle_a_see_also_target():
    edit(Entry, {"title": "Damage"}, title="Harm")


def new_erratum():
    make_erratum(game=Game.objects.get(name="Heroes"), title="Defence fix", original_text="Exhaust",
                 corrected_text="Ready", affects=[Entry.objects.get(title="Defence")])  # fmt: skip


def new_question():
    make_question(game=Game.objects.get(name="Heroes"), question="Can I attack twice?",
                  related_entries=[Entry.objects.get(title="Attack")])  # fmt: skip


def unpublish_a_linked_entry():
    edit(Entry, {"title": "Defence"}, status=Status.DRAFT)


def rename_the_game():
    edit(Game, {"name": "Heroes"}, name="Heroes Reborn")


def retitle_the_source():
    edit(Source, {"title": "Rules Reference"}, title="Rules Reference 2.0")


def translate():
    translator = get_user_model().objects.get(username="translator")
    translate_and_publish(Entry.objects.get(title="Damage"), "Schaden", translator)


def announce_a_release():
    Release.objects.create(source=Source.objects.get(title="Rules Reference"), sequence=1, version="2.0")


def first_content_in_a_new_language():
    make_entry(game=Game.objects.get(name="Heroes"), language="pl", title="Atak", body="Zadaj obrażenia.")


WRITES = [edit_body, retitle_a_see_also_target, new_erratum, new_question, unpublish_a_linked_entry,
          rename_the_game, retitle_the_source, translate, announce_a_release,
          first_content_in_a_new_language]  # fmt: skip


@pytest.mark.parametrize("write", WRITES, ids=lambda write: write.__name__)
def test_after_a_write_no_stored_page_is_served_stale(client, write):
    game, _other = world()
    stored_pages.refresh()
    mark_stored()
    write()  # the worker has not run since
    urls = pages()
    served = get_all(client, urls)
    rendered = live(client, urls)
    assert {url: (status, html.removesuffix(MARKER)) for url, (status, html) in served.items()} == rendered
    heroes = [url for url in urls if f"/games/{game.slug}/" in url and served[url][0] == 200]
    assert any(not served[url][1].endswith(MARKER) for url in heroes)  # the write changed some pages
    scheme = Entry.objects.get(title="Scheme")
    villains = [scheme.url_in("en"), reverse("rules:game", args=[scheme.game.slug])]
    assert all(served[url][1].endswith(MARKER) for url in villains)  # another game's pages stay stored


def test_the_worker_stores_again_only_what_changed(client, django_assert_num_queries):
    world()
    _done, _finished = stored_pages.refresh()
    total = stored_count()
    edit_body()
    done, finished = stored_pages.refresh()
    assert finished and 0 < done < total
    # Nothing written since: no game is looked at (old pages, the tokens, the stored
    # entry and game pages' inputs, the games), however many pages there are.
    with django_assert_num_queries(5):
        assert stored_pages.refresh() == (0, True)
    edit(Entry, {"title": "Scheme"}, body="Add two threat.")  # the other game's one entry
    assert stored_pages.refresh() == (len(UI_LANGUAGES), True)  # its page: the game's shows no body
    edit(Entry, {"title": "Scheme"}, title="Scheme card")
    assert stored_pages.refresh() == (2 * len(UI_LANGUAGES), True)  # its page and its game's list


def test_requests_with_a_query_or_a_session_cookie_are_rendered(client):
    game, _other = world()
    stored_pages.refresh()
    mark_stored()
    entry = Entry.objects.get(title="Attack").url_in("en")
    game = f"/en/games/{game.slug}/"
    assert client.get(entry).content.decode().endswith(MARKER)
    assert not client.get(entry + "?content=de").content.decode().endswith(MARKER)
    # A parameter the page does not read is dropped before it (rulesite.response_cache):
    # the page asked for is the plain one.
    assert client.get(game + "?content=de&sort=new").content.decode().endswith(MARKER)
    client.cookies[settings.SESSION_COOKIE_NAME] = "made-up"
    assert not client.get(entry).content.decode().endswith(MARKER)
    assert not client.get(game).content.decode().endswith(MARKER)


def test_a_deploy_leaves_the_stored_pages_unused_until_stored_again(client, monkeypatch):
    game, _other = world()
    stored_pages.refresh()
    mark_stored()
    urls = [Entry.objects.get(title="Attack").url_in("en"), f"/en/games/{game.slug}/"]
    assert all(client.get(url).content.decode().endswith(MARKER) for url in urls)
    monkeypatch.setattr(stored, "deployed", lambda: "another deploy")
    assert not any(client.get(url).content.decode().endswith(MARKER) for url in urls)
    done, _finished = stored_pages.refresh()
    assert done == stored_count()  # every page again


def test_a_unit_of_work_asks_the_worker_once_and_it_stores_the_pages(client, django_capture_on_commit_callbacks):
    queued = DBTaskResult.objects.filter(task_path=stored_pages.store_entry_pages.module_path)
    with django_capture_on_commit_callbacks(execute=True):
        game, _other = world()
    assert queued.count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        make_entry(game=game, title="Block", body="Exhaust to block.")
    assert queued.count() == 1  # one run waits already: it will see this entry too
    run_background_tasks()
    assert queued.get().return_value == stored_count() > 0
    block = Entry.objects.get(title="Block")
    assert StoredEntryPage.objects.filter(entry=block).count() == len(UI_LANGUAGES)
    assert StoredGamePage.objects.filter(game=game).count() == len(UI_LANGUAGES)


def test_the_web_processes_and_the_worker_agree_on_what_pages_are_rendered_with(settings):
    """The worker stores pages in one process and the web servers read them in others:
    ``deployed()`` must be the same in every process of one deploy, whatever language the
    process has active when it first asks (a reader's request, or none in the worker)."""
    code = (
        "import django; django.setup(); from django.conf import settings; from django.utils import translation; "
        f"settings.DEBUG = {settings.DEBUG!r}; translation.activate(LANGUAGE); "
        "from rules.pages import stored; print(stored.deployed())"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "rulesite.settings.test")}
    made = [subprocess.run([sys.executable, "-c", code.replace("LANGUAGE", repr(language))], env=env, check=True,
                           capture_output=True, text=True, cwd=settings.BASE_DIR).stdout.split()[-1]
            for language in ("de", "pl")]  # fmt: skip
    assert made == [stored.deployed()] * 2
