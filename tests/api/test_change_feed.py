"""GET /api/v1/changes/: a client that follows the public change feed holds exactly what a
fresh crawl of every list holds, drafts never appear, and an item's updated_at moves
whenever its JSON does (rules/derived/public_changes.py, rules/api/changes.py)."""

import json
import os
import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faq.models import Question
from rules.content.models import Entry, Erratum, Game, Source
from rules.content.querysets import Status
from rules.derived.models import PublicChange
from rules.importing import ImportOptions, import_document
from rules.importing.pipeline import SourceInfo
from tests.api.conftest import get_json
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.mirror import FeedMirror, paged
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

FEED = "/api/v1/changes/"


def changes_since(client, cursor: int) -> list[dict]:
    mirror = FeedMirror(cursor)
    mirror.follow(client)
    return mirror.seen


def latest(client) -> int:
    """The feed's cursor now, as a client finds it: its pages read to the end (no item
    fetched: what changed before does not matter to the test that asks)."""
    cursor, url = 0, f"{FEED}?since=0&limit=1000"
    while url:
        page = get_json(client, url)
        cursor, url = page["cursor"], page["next"]
    return cursor


def summary(changes: list[dict]) -> list[tuple]:
    return [(change["kind"], change["id"], change["action"]) for change in changes]


@written_together
def build_moon():
    game = make_game(slug="mondbasis", name="Mondbasis")
    source = make_source(game=game, language="de", title="Regelheft")
    entries = {
        title: make_entry(game=game, language="de", title=title, body=f"{title} regelt [[Zug]].", source=source)
        for title in ("Zug", "Rakete", "Krater")
    }
    return game, source, entries


# Written once for the module's tests that read it (tests.module_world).
_moon_of_the_module, moon = fixtures(build_moon, "moon")


# --- what appears, and how --------------------------------------------------------------


def test_a_draft_never_appears_and_publishing_is_a_creation(client, moon):
    game, _source, _entries = moon
    cursor = latest(client)
    draft = make_entry(game=game, language="de", title="Geheimgang", body="Nur für Moderatoren.", status=Status.DRAFT)
    draft.body = "Immer noch geheim."
    draft.save()
    assert ("entry", draft.pk) not in {(c["kind"], c["id"]) for c in changes_since(client, cursor)}
    draft.status = Status.PUBLISHED
    draft.save()
    seen = changes_since(client, cursor)
    mine = [c for c in seen if c["id"] == draft.pk and c["kind"] == "entry"]
    assert [c["action"] for c in mine] == ["created"]
    assert mine[0]["url"].endswith(f"/api/v1/entries/{draft.pk}/")
    assert (mine[0]["game"], mine[0]["language"]) == ("mondbasis", "de")
    # The game's JSON counts its published entries: it changed too.
    assert ("game", game.pk, "updated") in summary(seen)


def test_unpublishing_and_deleting_are_deletions_without_a_url(client, moon):
    game, _source, entries = moon
    cursor = latest(client)
    entries["Rakete"].status = Status.ARCHIVED
    entries["Rakete"].save()
    krater = entries["Krater"].pk
    entries["Krater"].delete()
    seen = changes_since(client, cursor)
    gone = [c for c in seen if c["action"] == "deleted"]
    assert {(c["kind"], c["id"]) for c in gone} == {("entry", entries["Rakete"].pk), ("entry", krater)}
    assert all(c["url"] is None for c in gone)


def test_a_rename_gives_the_old_and_new_slug(client, moon):
    _game, _source, entries = moon
    cursor = latest(client)
    zug = entries["Zug"]
    zug.title = "Spielzug"
    zug.save()
    seen = changes_since(client, cursor)
    own = next(c for c in seen if (c["kind"], c["id"]) == ("entry", zug.pk))
    assert (own["action"], own["old_slug"], own["new_slug"]) == ("updated", "zug", "spielzug")
    # The two entries linking to it show its new title: their JSON changed too.
    linking = {c["id"] for c in seen if c["kind"] == "entry" and c["action"] == "updated"}
    assert {entries["Rakete"].pk, entries["Krater"].pk} <= linking


def test_embedded_changes_update_the_items_that_show_them(client, moon):
    game, source, entries = moon
    rakete = entries["Rakete"]
    cursor = latest(client)
    erratum = make_erratum(game=game, language="de", title="Korrektur", affects=[rakete])
    seen = summary(changes_since(client, cursor))
    assert ("erratum", erratum.pk, "created") in seen and ("entry", rakete.pk, "updated") in seen

    cursor = latest(client)
    question = make_question(game=game, language="de", question="Wann startet die Rakete?", related_entries=[rakete])
    assert ("entry", rakete.pk, "updated") in summary(changes_since(client, cursor))

    cursor = latest(client)
    source.title = "Regelheft 2.0"
    source.save()
    seen = summary(changes_since(client, cursor))
    assert ("source", source.pk, "updated") in seen
    assert {("entry", entry.pk, "updated") for entry in entries.values()} <= set(seen)

    cursor, pk = latest(client), question.pk
    question.delete()
    seen = summary(changes_since(client, cursor))
    assert ("question", pk, "deleted") in seen and ("entry", rakete.pk, "updated") in seen


def test_an_erratum_or_question_about_a_renamed_entry_is_updated(client, moon):
    """They show the entry's title and slug, though nothing of their own changed."""
    game, _source, entries = moon
    krater = entries["Krater"]
    erratum = make_erratum(game=game, language="de", title="Korrektur", affects=[krater])
    question = make_question(game=game, language="de", question="Wie tief?", related_entries=[krater])
    cursor = latest(client)
    krater.title = "Einschlagkrater"
    krater.save()
    seen = summary(changes_since(client, cursor))
    assert ("erratum", erratum.pk, "updated") in seen and ("question", question.pk, "updated") in seen
    slug = get_json(client, f"/api/v1/errata/{erratum.pk}/")["affects"][0]["slug"]
    assert slug == "einschlagkrater"


def test_an_item_s_updated_at_moves_when_anything_it_shows_changes(client, moon):
    game, _source, entries = moon
    rakete = entries["Rakete"]
    url = f"/api/v1/entries/{rakete.pk}/"
    before = get_json(client, url)["updated_at"]
    make_erratum(game=game, language="de", title="Korrektur", affects=[rakete])
    after = get_json(client, url)
    assert after["errata"] and after["updated_at"] > before
    # A save that changes nothing it shows does not move it.
    Entry.objects.get(pk=rakete.pk).save()
    assert get_json(client, url)["updated_at"] == after["updated_at"]


# --- the cursor ---------------------------------------------------------------------------


def test_pages_by_cursor_and_resumes_where_it_stopped(client, moon):
    game, _source, _entries = moon
    everything = get_json(client, f"{FEED}?limit=1000")["results"]
    page = get_json(client, f"{FEED}?limit=2")
    assert [c["cursor"] for c in page["results"]] == [c["cursor"] for c in everything[:2]]
    assert page["cursor"] == everything[1]["cursor"] and f"since={page['cursor']}" in page["next"]
    mirror = FeedMirror()
    requests = mirror.follow(client, limit=2)
    assert requests == (len(everything) + 1) // 2 + (len(everything) % 2 == 0)
    assert [c["cursor"] for c in mirror.seen] == [c["cursor"] for c in everything]
    end = get_json(client, f"{FEED}?since={mirror.cursor}")
    assert end == {"cursor": mirror.cursor, "next": None, "results": []}
    new = make_entry(game=game, language="de", title="Neu")
    after = get_json(client, f"{FEED}?since={mirror.cursor}")["results"]
    assert [c["action"] for c in after if (c["kind"], c["id"]) == ("entry", new.pk)] == ["created"]


@pytest.mark.parametrize(
    "query", ["since=-1", "since=abc", "since=", "since=1.5", "limit=0", "limit=x", "since=%D9%A7", "since=1e3"]
)
def test_a_malformed_cursor_is_a_json_400(client, query):
    body = get_json(client, f"{FEED}?{query}", status=400)
    assert "detail" in body


def test_a_cursor_beyond_the_newest_change_is_a_400(client, moon):
    """A mirror with a corrupted cursor must hear so, not "up to date" for ever."""
    newest = latest(client)
    assert get_json(client, f"{FEED}?since={newest}")["next"] is None  # the newest itself: up to date
    for since in (newest + 1, 999_999_999, 2**63 - 1, 10**30):
        body = get_json(client, f"{FEED}?since={since}", status=400)
        assert list(body["errors"]) == ["since"]
    # after everything was pruned, the last pruned cursor still reads as up to date
    PublicChange.objects.update(at=timezone.now() - timedelta(days=400))
    make_entry(game=moon[0], language="de", title="Zuletzt")
    after = latest(client)
    PublicChange.objects.update(at=timezone.now() - timedelta(days=400))
    call_command("prune_changes", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert get_json(client, f"{FEED}?since={after}")["results"] == []
    get_json(client, f"{FEED}?since={after + 1}", status=400)


def test_a_cursor_older_than_what_is_kept_is_410_gone(client, moon):
    old = latest(client)
    PublicChange.objects.update(at=timezone.now() - timedelta(days=400))
    call_command("prune_changes", stdout=open("/dev/null", "w"))  # noqa: SIM115
    # The newest change is kept, so a client that had everything can go on.
    body = get_json(client, f"{FEED}?since={old - 2}", status=410)
    assert "full copy" in body["detail"]
    assert [c["cursor"] for c in get_json(client, f"{FEED}?since={old - 1}")["results"]] == [old]
    assert get_json(client, f"{FEED}?since={old}")["results"] == []


# --- narrowed to one game and language (what a saved game follows) ----------------------


def changes_of(client, query: str) -> list[tuple]:
    return summary(get_json(client, f"{FEED}?{query}")["results"])


def test_game_and_language_narrow_the_feed_to_one_bulk_file(client, moon):
    game, _source, entries = moon
    other = make_game(slug="sternfahrt", name="Sternfahrt")
    cursor = latest(client)
    mine = make_entry(game=game, language="de", title="Schleuse", body="Siehe [[Zug]].")
    english = make_entry(game=game, language="en", title="Airlock")
    theirs = make_entry(game=other, language="de", title="Schleuse")
    since = f"since={cursor}"

    narrowed = changes_of(client, f"{since}&game=mondbasis&language=de")
    assert ("entry", mine.pk, "created") in narrowed and ("entry", entries["Zug"].pk, "updated") in narrowed
    assert ("game", game.pk, "updated") in narrowed  # a game's rows have no language: they pass
    assert not {("entry", english.pk), ("entry", theirs.pk), ("game", other.pk)} & {c[:2] for c in narrowed}
    assert {c[:2] for c in changes_of(client, f"{since}&game=mondbasis&language=en")} == {
        ("game", game.pk), ("entry", english.pk),
    }  # fmt: skip
    assert ("entry", theirs.pk, "created") in changes_of(client, f"{since}&language=de")
    assert ("entry", english.pk, "created") not in changes_of(client, f"{since}&language=de")
    assert changes_of(client, f"{since}&game=no-such-game") == []
    # Unfiltered, everything is still there.
    assert {("entry", mine.pk), ("entry", english.pk), ("entry", theirs.pk)} <= {
        c[:2] for c in changes_of(client, since)
    }


def test_the_next_page_keeps_the_filters(client, moon):
    game, _source, _entries = moon
    cursor = latest(client)
    for number in range(3):
        make_entry(game=game, language="de", title=f"Kuppel {number}")
    make_entry(game=make_game(slug="sternfahrt"), language="de", title="Fremd")
    page = get_json(client, f"{FEED}?since={cursor}&limit=1&game=mondbasis&language=de")
    assert page["next"].endswith(f"?since={page['cursor']}&limit=1&game=mondbasis&language=de")
    seen, following = list(page["results"]), page["next"]
    while following:
        page = get_json(client, following.removeprefix("http://testserver"))
        seen += page["results"]
        following = page["next"]
    assert {c["game"] for c in seen} == {"mondbasis"} and {c["language"] for c in seen} <= {"de", ""}


def test_a_renamed_game_shows_under_its_old_slug(client, moon):
    game, _source, _entries = moon
    cursor = latest(client)
    game.slug = "mondstation"
    game.save()
    renamed = [c for c in get_json(client, f"{FEED}?since={cursor}&game=mondbasis")["results"] if c["kind"] == "game"]
    assert [(c["old_slug"], c["new_slug"]) for c in renamed] == [("mondbasis", "mondstation")]


@pytest.mark.parametrize(
    ("query", "named"),
    [("game=", "game"), ("language=", "language"), ("language=xx", "language"), ("game=%00", "game"),
     (f"game={'a' * 101}", "game")],
)  # fmt: skip
def test_a_bad_filter_is_a_400_naming_it(client, query, named):
    body = get_json(client, f"{FEED}?{query}", status=400)
    assert list(body["errors"]) == [named]


# --- the property: a mirror kept by the feed is the lists --------------------------------

TITLES = ["Zug", "Rakete", "Krater", "Kuppel", "Schleuse"]
OPERATIONS = [
    "create", "draft", "edit", "rename", "status", "archive", "delete", "erratum", "erratum_delete", "question",
    "question_delete", "translate", "source", "game", "import", "import_prune", "revert", "canonical",
]  # fmt: skip
_names = iter(range(10**6))


def write(op: str, rng: random.Random, game: Game, secrets: dict[str, int]) -> None:
    """One write of kind ``op``; the text of each draft written goes into ``secrets``
    (text → the entry's id)."""
    entries = list(Entry.objects.filter(game=game).order_by("pk"))
    entry = rng.choice(entries) if entries else None

    def free(title: str, language: str = "de") -> bool:
        return not Entry.objects.filter(game=game, language=language, title=title).exists()

    if op in ("create", "draft") or entry is None:
        title = f"{rng.choice(TITLES)} {rng.randint(1, 9)}"
        if free(title):
            secret = f"GEHEIM{next(_names)}"
            draft = op == "draft"
            text = f"{secret if draft else 'Text'}: siehe [[{rng.choice(TITLES)}]]."
            status = Status.DRAFT if draft else Status.PUBLISHED
            made = make_entry(game=game, language="de", title=title, body=text, status=status)
            if draft:
                secrets[secret] = made.pk
    elif op == "edit":
        entry.body = f"Neu {rng.randint(1, 99)}: siehe [[{rng.choice(TITLES)}]]."
        if entry.status != Status.PUBLISHED:
            secret = f"GEHEIM{next(_names)}"
            entry.body = f"{secret} {entry.body}"
            secrets[secret] = entry.pk
        entry.save()
    elif op == "rename":
        title = rng.choice(TITLES)
        if free(title, entry.language):
            entry.title = title
            entry.save()
    elif op == "status":
        entry.status = Status.DRAFT if entry.status == Status.PUBLISHED else Status.PUBLISHED
        entry.save()
    elif op == "archive":
        entry.status = Status.ARCHIVED
        entry.save()
    elif op == "delete":
        entry.delete()
    elif op == "erratum":
        make_erratum(game=game, language=entry.language, title=f"Korrektur {next(_names)}", affects=[entry])
    elif op == "erratum_delete":
        erratum = Erratum.objects.filter(game=game).first()
        if erratum:
            erratum.delete()
    elif op == "question":
        make_question(game=game, language=entry.language, question=f"Frage {next(_names)}?", related_entries=[entry])
    elif op == "question_delete":
        question = Question.objects.filter(game=game).last()
        if question:
            question.related_entries.clear() if rng.random() < 0.5 else question.delete()
    elif op == "translate":
        if entry.language == "de" and not Entry.objects.filter(translation_of=entry).exists():
            make_entry(
                game=game, language="en", title=f"{entry.title} EN {next(_names)}", body="Moves.",
                translation_key=entry.translation_key, translation_of=entry,
            )  # fmt: skip
    elif op == "source":
        source = Source.objects.filter(game=game).first() or make_source(game=game, language="de")
        source.title = f"Heft {next(_names)}"
        source.save()
    elif op == "game":
        game.name = f"Mondbasis {next(_names)}"
        if rng.random() < 0.5:
            game.slug = f"mond-{next(_names)}"
        game.save()
    elif op == "revert":  # to an earlier version, as the admin's history page does
        from django.contrib.auth import get_user_model
        from django.core.exceptions import ValidationError

        from rules.content.history import revert

        editor, _ = get_user_model().objects.get_or_create(username="feed-editor")
        older = entry.history.order_by("history_id").first()
        if older is not None:
            try:
                revert(entry, older, editor)
            except ValidationError:  # its slug taken since: refused, nothing written
                pass
    elif op == "canonical":  # the game's canonical JSON, one text changed, imported back
        from rules.importing.canonical.export import export_game

        payload = json.loads(export_game(game))
        if payload["entries"]:
            rng.choice(payload["entries"])["body"] = f"Kanonisch {next(_names)}."
            import_document(json.dumps(payload).encode(), ImportOptions(game=game.slug, language=""))
    elif op in ("import", "import_prune"):
        titles = rng.sample(TITLES, 2)
        text = "\n".join(
            f"{title}\nImportiert {rng.randint(1, 9)}: siehe [[{rng.choice(TITLES)}]].\n"
            for title in titles
        )
        options = ImportOptions(
            game=game.slug, language="de", kind="glossary", source=SourceInfo(title="Glossar"),
            status=Status.PUBLISHED, prune=op == "import_prune",
        )  # fmt: skip
        import_document(text.encode(), options)


@settings(
    max_examples=int(os.environ.get("FEED_EXAMPLES", "30")), deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(operations=st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=10), seed=st.integers(0, 10**6))
def test_a_mirror_kept_by_the_feed_equals_a_fresh_crawl(db, client, operations, seed):
    rng = random.Random(seed)
    # A client's first full copy, and the feed's cursor at that moment (hypothesis runs
    # every example in the same database: the copy holds the earlier examples' items).
    mirror = FeedMirror(latest(client))
    for kind, items in paged(client).items():
        for item in map(json.loads, items):
            pk = Game.objects.get(slug=item["slug"]).pk if kind == "game" else item["id"]
            mirror.items[(kind, pk)] = item
    game = make_game(slug=f"mond-{next(_names)}", name="Mondbasis")
    secrets: dict[str, int] = {}
    for op in operations:
        write(op, rng, Game.objects.get(pk=game.pk), secrets)
        if rng.random() < 0.5:  # sometimes after each write, sometimes after several
            mirror.follow(client, limit=rng.choice([None, 1, 3]))
    mirror.follow(client)
    assert mirror.as_lists() == paged(client)
    # A draft's text is never public (published since: it is).
    published = set(Entry.objects.filter(status=Status.PUBLISHED).values_list("pk", flat=True))
    hidden = [secret for secret, pk in secrets.items() if pk not in published]
    text = json.dumps(list(mirror.items.values()))
    assert not [secret for secret in hidden if secret in text], "a draft's text reached the mirror"


def test_an_erratum_or_question_about_a_deleted_entry_is_updated(client, moon):
    """Their link rows go with the entry, before anyone can ask which showed it."""
    game, _source, entries = moon
    krater = entries["Krater"]
    erratum = make_erratum(game=game, language="de", title="Korrektur", affects=[krater, entries["Zug"]])
    question = make_question(game=game, language="de", question="Wie tief?", related_entries=[krater])
    cursor = latest(client)
    krater.delete()
    seen = summary(changes_since(client, cursor))
    assert ("erratum", erratum.pk, "updated") in seen and ("question", question.pk, "updated") in seen
    assert [e["title"] for e in get_json(client, f"/api/v1/errata/{erratum.pk}/")["affects"]] == ["Zug"]
