"""rules.content.prepared: a query compiled once gives what its queryset gives, on every call."""

import pytest

from rules.content.models import Entry, Game
from rules.content.prepared import PreparedQuery
from rules.content.querysets import Status
from rules.pages.stored_pages import ENTRY_PAGE_VERSIONS
from tests.factories import make_entry, make_game, make_source, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def stored(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def page_queryset(game, slug):
    return Entry.objects.published().filter(game__slug=game, slug=slug).for_page().order_by()


@written_together
def build_versions():
    game = make_game(slug="prepared-game", name="Prepared")
    source = make_source(game=game, language="de", title="Regelreferenz")
    german = make_entry(game=game, language="de", title="Besitz", slug="besitz", source=source, aliases=["Kontrolle"])
    english = make_entry(game=game, language="en", title="Ownership", slug="besitz", body="Has **no** source.")
    make_entry(game=game, language="pl", title="Szkic", slug="besitz", status=Status.DRAFT)
    make_entry(game=make_game(slug="other-game"), language="de", title="Besitz", slug="besitz")
    return game, german, english


# Written once for the module's tests that read it (tests.module_world).
_versions_of_the_module, versions = fixtures(build_versions, "versions")


def test_it_loads_every_field_and_the_related_rows_the_queryset_loads(versions, django_assert_num_queries):
    game, german, english = versions
    expected = sorted(page_queryset(game.slug, "besitz"), key=lambda entry: entry.language)

    for _ in range(2):  # compiled on the first call, reused on the second
        with django_assert_num_queries(1):
            loaded = sorted(ENTRY_PAGE_VERSIONS(game.slug, "besitz"), key=lambda entry: entry.language)
            assert [stored(entry) for entry in loaded] == [stored(entry) for entry in expected]
            assert [entry.pk for entry in loaded] == [german.pk, english.pk]  # not the draft, not the other game
            assert loaded[0].source.title == "Regelreferenz" and loaded[1].source is None
            assert {entry.game.name for entry in loaded} == {"Prepared"}
            assert loaded[0].aliases == ["Kontrolle"]  # JSON decoded, as the queryset does


def test_a_read_gives_each_column_as_the_instance_holds_it_without_making_instances(versions):
    """``read()``: the rows, their digest and a column's value (converted as the instance's
    field is: JSON decoded, timestamps made aware) before any instance is made; the
    instances the same as ``with_digest``'s."""
    from rules.pages.models import StoredEntryPage
    from rules.pages.stored_pages import ENTRY_PAGE_STORED_GZIP

    game, german, _english = versions
    StoredEntryPage.objects.create(entry=german, ui_language="en", inputs="i" * 40, html="<p>x</p>", digest="d" * 40,
                                   gzip=b"\x1f\x8bcompressed")  # fmt: skip
    read = ENTRY_PAGE_STORED_GZIP.read(game.slug, "besitz", "en")
    assert read._instances is None
    fields = [field.attname for field in Entry._meta.concrete_fields]
    values = {read.value(row, "id"): {name: read.value(row, name) for name in fields} for row in read.rows}
    assert read._instances is None  # no instance made for the values
    instances, digest = ENTRY_PAGE_STORED_GZIP.with_digest(game.slug, "besitz", "en")
    assert values == {entry.pk: {name: getattr(entry, name) for name in fields} for entry in instances}
    assert read.digest == digest
    annotations = {read.value(row, "id"): (read.value(row, "stored_page"), bytes(read.value(row, "stored_gzip") or b""))
                   for row in read.rows}  # fmt: skip
    assert annotations[german.pk] == ("i" * 40 + "d" * 40, b"\x1f\x8bcompressed")
    assert values[german.pk]["aliases"] == ["Kontrolle"] and values[german.pk]["created_at"].tzinfo is not None
    assert sorted(entry.pk for entry in read.instances()) == sorted(entry.pk for entry in instances)


def test_each_call_reads_the_database_again(versions):
    game, german, _english = versions
    # In no order (the query has none: the page sorts the versions itself).
    assert sorted(entry.title for entry in ENTRY_PAGE_VERSIONS(game.slug, "besitz")) == ["Besitz", "Ownership"]

    Entry.objects.filter(pk=german.pk).update(title="Besitz (neu)")
    Game.objects.filter(pk=game.pk).update(name="Renamed")

    loaded = ENTRY_PAGE_VERSIONS(game.slug, "besitz")
    assert sorted(entry.title for entry in loaded) == ["Besitz (neu)", "Ownership"]
    assert {entry.game.name for entry in loaded} == {"Renamed"}
    assert ENTRY_PAGE_VERSIONS("no-such-game", "besitz") == []


def test_values_that_look_like_sql_are_only_values(versions):
    game, _german, _english = versions
    assert ENTRY_PAGE_VERSIONS(game.slug, "besitz' OR '1'='1") == []
    assert ENTRY_PAGE_VERSIONS("%", "%") == []


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda slug: Entry.objects.filter(title__icontains=slug), "not changed by a lookup"),
        (lambda slug: Entry.objects.filter(title="fixed"), "not changed by a lookup"),
        (lambda slug: Entry.objects.filter(slug=slug).values("pk"), "no values"),
        (lambda slug: Game.objects.filter(slug=slug), "loads Game, not Entry"),
    ],
)
def test_what_cannot_be_prepared_is_refused_when_first_run(build, message):
    with pytest.raises(ValueError, match=message):
        PreparedQuery(Entry, build, 1)("x")


def test_an_argument_used_twice_gets_its_value_in_both_places(versions):
    game, german, _english = versions
    same = PreparedQuery(Entry, lambda text: Entry.objects.filter(game__slug=game.slug, title=text, slug=text), 1)
    make_entry(game=game, language="nl", title="kontrolle", slug="kontrolle-nl")
    make_entry(game=game, language="pl", title="Besitz", slug="kontrolle")
    german.title = german.slug = "kontrolle"
    german.save()
    assert [entry.pk for entry in same("kontrolle")] == [german.pk]
    assert same("besitz") == []


def test_annotations_are_set_on_the_instances_and_left_out_of_the_digest(versions):
    """The entry page reads its stored page beside the rows (``ENTRY_PAGE_STORED``): the
    rows' digest is the same with or without it, and changes when a row does."""
    from rules.pages.models import StoredEntryPage
    from rules.pages.stored_pages import ENTRY_PAGE_STORED

    game, german, english = versions
    plain, digest = ENTRY_PAGE_VERSIONS.with_digest(game.slug, "besitz")
    StoredEntryPage.objects.create(entry=german, ui_language="en", inputs="i" * 40, html="<p>stored</p>")
    with_pages, digest_with_pages = ENTRY_PAGE_STORED.with_digest(game.slug, "besitz", "en")
    assert digest_with_pages == digest
    stored = {entry.pk: entry.stored_page for entry in with_pages}
    assert stored == {german.pk: "i" * 40 + "<p>stored</p>", english.pk: None}
    assert [entry.stored_page for entry in ENTRY_PAGE_STORED(game.slug, "besitz", "de")] == [None, None]
    german.title = "Besitz (neu)"
    german.save()
    assert ENTRY_PAGE_STORED.with_digest(game.slug, "besitz", "en")[1] != digest


def test_the_game_pages_queries_load_what_their_querysets_load(django_assert_num_queries):
    """Every page of a game reads the game with its stored languages (``GAME_LANGUAGES``);
    the game page reads its sources and their public releases (``game_sources``)."""
    from rules.content.releases import Release
    from rules.derived.models import GameLanguage
    from rules.pages.page_context import GAME_LANGUAGES, game_sources

    game = make_game(slug="shelf-game", name="Shelf")
    make_entry(game=game, language="de", title="Regal")
    make_entry(game=game, language="en", title="Shelf")
    make_entry(game=make_game(slug="shelf-game-2"), language="de", title="Anderes")
    book = make_source(game=game, language="de", title="Buch")
    make_source(game=game, language="de", title="Blatt")
    make_source(game=game, language="en", title="Book")
    for sequence, (version, held) in enumerate([("1.0", False), ("1.1", False), ("2.0", True)], start=1):
        Release.objects.create(source=book, sequence=sequence, version=version, held=held)

    with django_assert_num_queries(1):
        rows = sorted(GAME_LANGUAGES("shelf-game"), key=lambda row: row.language)
    # The game page's lists are left out: only the game page reads them.
    assert {frozenset(row.get_deferred_fields()) for row in rows} == {frozenset({"glossary_html", "sections_html"})}
    expected = GameLanguage.objects.filter(game=game).order_by("language")
    assert [stored(row) for row in rows] == [stored(row) for row in expected]
    assert [row.language for row in rows] == ["de", "en"] and {row.game.name for row in rows} == {"Shelf"}
    assert GAME_LANGUAGES("no-such-game") == []

    with django_assert_num_queries(2):
        sources, _digest = game_sources("shelf-game", "de")
    assert [source.title for source in sources] == ["Blatt", "Buch"]  # as Source orders them, German only
    by_title = {source.title: source for source in sources}
    # Public releases newest first, not the one held for review, and without documents.
    assert [release.version for release in by_title["Buch"].public_releases] == ["1.1", "1.0"]
    assert by_title["Blatt"].public_releases == []
    assert "pending_document" in by_title["Buch"].public_releases[0].get_deferred_fields()
    with django_assert_num_queries(1):
        assert game_sources("shelf-game", "pl")[0] == []


# --- rows (prepared_rows: the pipeline's per-game reads) ---------------------------------


@pytest.fixture
def a_game_with_everything():
    """Every kind of row the pipeline's reads join: two languages, a translation, a
    section tree, errata (dated, with an original text), FAQ questions, a release."""
    from datetime import date

    from rules.content.releases import Release, ReleaseChange
    from tests.factories import make_erratum, make_question

    @written_together
    def build():
        game = make_game(slug="rows-game", name="Rows")
        source = make_source(game=game, language="en", title="Reference")
        setup = make_entry(game=game, title="Setup", kind="section", number="1", source=source)
        draw = make_entry(game=game, title="Draw", number="1.1", parent=setup, aliases=["Pull"], body="See [[Setup]].")
        make_entry(game=game, title="Unfinished", status=Status.DRAFT, body="[[Draw]]")
        make_entry(game=game, language="de", title="Ziehen", translation_of=draw, translation_key=draw.translation_key)
        make_erratum(game=game, title="Draw fix", original_text="Draw 1.", corrected_text="Draw 2.", affects=[draw],
                     published_on=date(2024, 5, 1))  # fmt: skip
        make_question(game=game, question="When?", answer="Now, see [[Draw]].", related_entries=[draw, setup])
        release = Release.objects.create(source=source, sequence=9, version="2.0", effective_on=date(2025, 1, 2))
        ReleaseChange.objects.create(release=release, item_type="entry", item_id=draw.pk, change="renumbered",
                                     number="1.1", previous_number="1.2", title="Draw", slug="draw")  # fmt: skip
        return game

    return build()


def test_every_prepared_read_gives_its_querysets_rows(a_game_with_everything, django_assert_num_queries):
    """Each read the pipeline prepared (``@prepared_rows``) returns, from its compiled SQL,
    the rows its queryset returns: converted (dates, JSON, booleans), ordered, grouped,
    for this game and language and not another's."""
    import rules.derived.pipeline  # noqa: F401 - every module with prepared reads
    from rules.content.prepared import EVERY_PREPARED_ROWS

    game = a_game_with_everything
    other = make_game(slug="other-rows-game")
    assert len(EVERY_PREPARED_ROWS) >= 15
    compared = 0
    for prepared in EVERY_PREPARED_ROWS:
        for game_id in (game.pk, other.pk):
            for arguments in [(game_id,)] if prepared.kinds == (int,) else [(game_id, "en"), (game_id, "de")]:
                expected = list(prepared.build(*arguments))
                for _ in range(2):  # compiled on the first call, reused after
                    with django_assert_num_queries(1):
                        assert prepared(*arguments) == expected, prepared.__name__
                compared += bool(expected)
    assert compared >= 15  # most reads found rows of the game with everything


def test_prepared_rows_refuse_what_they_cannot_prepare(db):
    from rules.content.prepared import PreparedRows

    instances = PreparedRows(lambda game_id: Entry.objects.filter(game_id=game_id), (int,))
    with pytest.raises(ValueError, match="values_list"):
        instances(1)
    lowered = PreparedRows(lambda title: Entry.objects.filter(title__icontains=title).values_list("pk"), (str,))
    with pytest.raises(ValueError, match="parameter as it is"):
        lowered("x")
    by_game = PreparedRows(lambda game_id: Entry.objects.filter(game_id=game_id).values_list("pk"), (int,))
    with pytest.raises(TypeError):
        by_game("1")  # compiled for a number: a string is refused, never sent
    with pytest.raises(TypeError):
        by_game(1, 2)
