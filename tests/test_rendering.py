"""Texts are rendered when written, and again whenever a link in them moves."""

import pytest
from django.core.management import call_command

import rules.shared.markdown
from rules.content.models import Entry
from rules.content.querysets import Status
from rules.derived import pipeline, rendering
from tests.factories import make_entry, make_erratum, make_game, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def stored(obj, field="body_html") -> str:
    return getattr(type(obj).objects.get(pk=obj.pk), field)


def build_game():
    return make_game(slug="blue-moon", name="Blue Moon")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def test_reading_pages_and_the_api_renders_no_markdown(client, game, monkeypatch):
    target = make_entry(game=game, title="Fight", body="**Fight** hard.")
    entry = make_entry(game=game, title="Boost", body="See [[Fight]].", see_also=["Fight"])
    make_erratum(game=game, title="Boost fix", corrected_text="Now [[Boost]] *twice*.", affects=[entry])
    make_question(game=game, question="Boost?", answer="Yes, [[Boost]].", related_entries=[entry])
    calls = []
    original = rules.shared.markdown.render_markdown
    monkeypatch.setattr(rules.shared.markdown, "render_markdown", lambda *a, **k: calls.append(a) or original(*a, **k))

    for url in (
        entry.get_absolute_url(),
        target.get_absolute_url(),
        f"/en/games/{game.slug}/errata/",
        f"/en/games/{game.slug}/faq/",
        "/api/v1/entries/",
        "/api/v1/errata/",
        "/api/v1/faq/",
        "/en/feeds/changes/",
    ):
        assert client.get(url).status_code == 200, url
    assert calls == []


def test_errata_and_answers_link_entries_on_pages_as_in_the_api(client, game):
    boost = make_entry(game=game, title="Boost")
    make_erratum(game=game, title="Fix", corrected_text="Read [[Boost]] and [[Nothing yet]].")
    make_question(game=game, question="Why?", answer="Because of [[boost]].")

    errata_page = client.get(f"/en/games/{game.slug}/errata/").content.decode()
    faq_page = client.get(f"/en/games/{game.slug}/faq/").content.decode()
    api = client.get("/api/v1/errata/").json()["results"][0]["corrected_html"]

    link = f'<a class="xref" href="{boost.get_absolute_url()}">Boost</a>'
    assert link in errata_page
    assert f'<a class="xref" href="{boost.get_absolute_url()}">boost</a>' in faq_page
    assert f'href="http://testserver{boost.get_absolute_url()}"' in api
    assert '<span class="xref xref-wanted">Nothing yet</span>' in errata_page


def test_a_link_follows_its_target_when_published_renamed_and_deleted(game):
    entry = make_entry(game=game, title="Boost", body="Then [[Fight]].")
    erratum = make_erratum(game=game, corrected_text="Also [[Fight]].")
    assert "xref-wanted" in stored(entry)

    fight = make_entry(game=game, title="Fight", status=Status.DRAFT)
    assert "xref-wanted" in stored(entry)  # a draft is not a link target

    fight.status = Status.PUBLISHED
    fight.save()
    assert 'href="/en/games/blue-moon/rules/fight/"' in stored(entry)
    assert 'href="/en/games/blue-moon/rules/fight/"' in stored(erratum, "corrected_html")

    fight.title = "Fight!"
    fight.aliases = []
    fight.slug = ""  # a new slug from the new title
    fight.save()
    fight.refresh_from_db()
    assert fight.slug == "fight-2" or fight.slug.startswith("fight")
    # The old title stayed an alias, so the label still resolves, to the new address.
    assert f'href="{fight.canonical_url()}"' in stored(entry)

    fight.delete()
    assert "xref-wanted" in stored(entry)
    assert "xref-wanted" in stored(erratum, "corrected_html")


def test_a_new_game_slug_moves_every_stored_link(game):
    make_entry(game=game, title="Fight")
    entry = make_entry(game=game, title="Boost", body="Then [[Fight]].")
    game.slug = "blue-moon-legends"
    game.save()
    assert 'href="/en/games/blue-moon-legends/rules/fight/"' in stored(entry)


def test_pages_in_another_ui_language_keep_the_readers_language(client, game):
    make_entry(game=game, language="de", title="Kampf")
    entry = make_entry(game=game, language="de", title="Boost", body="Siehe [[Kampf]].")
    assert 'href="/de/games/blue-moon/rules/kampf/"' in stored(entry)  # its own page's language

    html = client.get(entry.url_in("pl")).content.decode()
    assert 'class="xref" href="/pl/games/blue-moon/rules/kampf/"' in html


def test_bulk_writes_are_rendered_when_the_pipeline_runs(game):
    make_entry(game=game, title="Fight")
    entry = make_entry(game=game, title="Boost", body="Old.")
    # A bulk write (as the importers do) skips save(): the pipeline renders it once the
    # write is recorded (rules.content.journal, rules.derived.pipeline).
    Entry.objects.filter(pk=entry.pk).update(body="New [[Fight]].")
    from rules.content import journal

    journal.record(journal.Change.Kind.ENTRY, journal.Change.Action.UPDATED, entry, fields={"body"})
    assert stored(entry) == '<p>New <a class="xref" href="/en/games/blue-moon/rules/fight/">Fight</a>.</p>'


def test_imported_texts_are_stored_rendered(game):
    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    text = "Fight\nRoll the die. See [[Boost]].\n\nBoost\nAdd two.\n"
    options = ImportOptions(
        game=game.slug, language="en", kind="glossary", source=SourceInfo(title="Rules"), status=Status.PUBLISHED
    )
    import_document(text.encode(), options)
    fight = Entry.objects.get(game=game, title="Fight")
    assert '<a class="xref" href="/en/games/blue-moon/rules/boost/">Boost</a>' in fight.body_html
    assert Entry.objects.get(game=game, title="Boost").body_html == "<p>Add two.</p>"


def test_render_html_renders_what_is_out_of_date(game, monkeypatch):
    entry = make_entry(game=game, title="Boost", body="*One*.")
    Entry.objects.filter(pk=entry.pk).update(body_html="", html_fingerprint="")
    call_command("render_html", stdout=open("/dev/null", "w"))
    assert stored(entry) == "<p><em>One</em>.</p>"

    # A new renderer version renders everything again.
    monkeypatch.setattr(rendering, "RENDERER_VERSION", "test-next")
    assert pipeline.refresh_everything()["rendering"] == 1
    assert pipeline.refresh_everything()["rendering"] == 0
