"""The moderators' worklists: wanted, untranslated, touched by errata, waiting for review.

Through the admin as a moderator sees it (the pages, the buttons, where they lead); the
database is asked only for what no page shows (a history record's user, that no
duplicate was made). The services are held to a fixed number of queries.
"""

import re
from http import HTTPStatus

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from rules.content.models import Entry, Erratum, Game
from rules.content.querysets import Status
from rules.moderation import worklists
from tests.admin.conftest import make_staff
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

WANTED = reverse("admin:worklist_wanted")
EVERY_LABEL = {"asked": "1"}  # the wanted list shows the labels two entries ask for unless asked
CREATE = reverse("admin:worklist_wanted_create")
UNTRANSLATED = reverse("admin:worklist_untranslated")
ERRATA = reverse("admin:worklist_errata")
REVIEW = reverse("admin:worklist_review")
OVERVIEW = reverse("admin:worklists")

pytestmark = pytest.mark.django_db


def html(response) -> str:
    return response.content.decode()


def rows(response, css_class: str) -> list[str]:
    """The text of each table row with ``css_class``, white space collapsed."""
    found = re.findall(rf'<tr class="{css_class}[^"]*"[^>]*>(.*?)</tr>', html(response), re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in found]


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def change_url(entry) -> str:
    return reverse("admin:rules_entry_change", args=[entry.pk])


# --- Wanted entries -------------------------------------------------------------------


@written_together
def build_wanted_world():
    game = make_game(name="Arcadia")
    asking = [
        make_entry(game=game, title="Attack", see_also=["Reaction"]),
        make_entry(game=game, title="Defence", body="Answer with a [[reaction]]."),
        make_entry(game=game, title="Old rule", see_also=["Reaction"], status=Status.ARCHIVED),
        make_entry(game=game, title="Movement", see_also=["Terrain"]),
    ]
    return game, asking


# Written once for the module's tests that read it (tests.module_world).
_wanted_world_of_the_module, wanted_world = fixtures(build_wanted_world, "wanted_world")


def test_wanted_lists_each_label_once_with_the_entries_that_ask(moderator_client, wanted_world):
    game, (attack, defence, old, movement) = wanted_world

    response = moderator_client.get(WANTED, {"asked": "1"})  # every label, not only the most asked for

    assert response.status_code == HTTPStatus.OK
    labels = rows(response, "wanted-label")
    assert len(labels) == 2
    # Most asked first; the archived entry does not ask any more.
    assert labels[0].startswith("Reaction Arcadia en 2 ")
    assert "Attack" in labels[0] and "Defence" in labels[0] and "Old rule" not in labels[0]
    assert labels[1].startswith("Terrain Arcadia en 1 Movement")
    assert f'href="{change_url(attack)}"' in html(response)
    assert f'href="{attack.canonical_url()}"' in html(response)
    assert "Create this entry" in html(response)


def test_wanted_filters_by_game_and_language(moderator_client, wanted_world):
    game, _asking = wanted_world
    other = make_game(name="Blue Moon")
    make_entry(game=other, language="de", title="Angriff", see_also=["Reaktion"])

    assert len(rows(moderator_client.get(WANTED, EVERY_LABEL), "wanted-label")) == 3
    by_game = rows(moderator_client.get(WANTED, {**EVERY_LABEL, "game": other.pk}), "wanted-label")
    assert [row.split()[0] for row in by_game] == ["Reaktion"]
    by_language = rows(moderator_client.get(WANTED, {**EVERY_LABEL, "language": "en"}), "wanted-label")
    assert [row.split()[0] for row in by_language] == ["Reaction", "Terrain"]
    # A bad filter value is ignored, not an error.
    odd = {**EVERY_LABEL, "game": "x", "language": "zz", "page": "abc"}
    assert moderator_client.get(WANTED, odd).status_code == HTTPStatus.OK


def test_create_this_entry_makes_a_draft_that_resolves_the_references_once_published(
    moderator_client, moderator, wanted_world
):
    game, (attack, defence, _old, _movement) = wanted_world

    response = moderator_client.post(CREATE, {"game": game.pk, "language": "en", "label": "Reaction"}, follow=True)

    draft = Entry.objects.get(game=game, language="en", title="Reaction")
    assert response.redirect_chain[-1][0] == change_url(draft)
    assert any("was created" in message for message in messages_of(response))
    assert draft.status == Status.DRAFT
    record = draft.history.latest()
    assert record.history_user == moderator
    assert record.history_change_reason == "created from the wanted list"
    assert LogEntry.objects.filter(user=moderator, object_id=str(draft.pk)).exists()

    # Still wanted (a draft resolves nothing), but the list offers the draft, not a duplicate.
    reaction_row = rows(moderator_client.get(WANTED, EVERY_LABEL), "wanted-label")[0]
    assert "An entry with this name exists (Draft)" in reaction_row
    assert "Create this entry" not in reaction_row

    draft.status = Status.PUBLISHED
    draft.save()

    assert [row.split()[0] for row in rows(moderator_client.get(WANTED, EVERY_LABEL), "wanted-label")] == ["Terrain"]
    page = moderator_client.get(attack.canonical_url())
    assert f'href="{draft.get_absolute_url()}"' in html(page)
    assert attack.cross_references.get().target == draft


def test_create_twice_or_from_a_stale_list_never_makes_a_duplicate(moderator_client, wanted_world):
    game, _asking = wanted_world
    data = {"game": game.pk, "language": "en", "label": "Reaction"}
    first = moderator_client.post(CREATE, data)
    again = moderator_client.post(CREATE, {**data, "label": "  reaction. "}, follow=True)

    entry = Entry.objects.get(game=game, title="Reaction")
    assert Entry.objects.filter(game=game, language="en", title__iexact="reaction").count() == 1
    assert first.url == change_url(entry)
    assert again.redirect_chain[-1][0] == change_url(entry)
    assert any("already exists" in message for message in messages_of(again))


def test_create_matches_an_alias_of_an_existing_entry(moderator_client, wanted_world):
    game, _asking = wanted_world
    existing = make_entry(game=game, title="Response", aliases=["Terrain"], status=Status.ARCHIVED)

    response = moderator_client.post(CREATE, {"game": game.pk, "language": "en", "label": "Terrain"})

    assert response.url == change_url(existing)
    assert not Entry.objects.filter(title="Terrain").exists()


def test_create_refuses_bad_input_and_get_without_a_500(moderator_client, wanted_world):
    game, _asking = wanted_world
    before = Entry.objects.count()

    assert moderator_client.get(CREATE).status_code == HTTPStatus.METHOD_NOT_ALLOWED
    incomplete = moderator_client.post(CREATE, {"game": game.pk, "language": "en"}, follow=True)
    assert incomplete.redirect_chain[-1][0] == WANTED
    assert any("could not be created" in message for message in messages_of(incomplete))
    assert moderator_client.post(CREATE, {"game": 999999, "language": "en", "label": "X"}).status_code == 404
    bad_language = moderator_client.post(CREATE, {"game": game.pk, "language": "xx", "label": "X"})
    assert bad_language.status_code == HTTPStatus.FOUND
    assert Entry.objects.count() == before


def test_game_moderators_see_and_create_only_in_their_games(client, game_moderator_for, wanted_world):
    game, _asking = wanted_world
    mine = make_game(name="Mine")
    make_entry(game=mine, title="Draw", see_also=["Deck"])
    client.force_login(game_moderator_for(mine))

    labels = rows(client.get(WANTED, EVERY_LABEL), "wanted-label")
    assert [row.split()[0] for row in labels] == ["Deck"]
    assert "Reaction" not in html(client.get(WANTED, {**EVERY_LABEL, "game": game.pk}))

    refused = client.post(CREATE, {"game": game.pk, "language": "en", "label": "Reaction"})
    assert refused.status_code == HTTPStatus.NOT_FOUND
    assert not Entry.objects.filter(title="Reaction").exists()
    assert client.post(CREATE, {"game": mine.pk, "language": "en", "label": "Deck"}).status_code == HTTPStatus.FOUND
    assert Entry.objects.filter(game=mine, title="Deck", status=Status.DRAFT).exists()


def test_create_needs_the_add_permission(client, wanted_world):
    game, _asking = wanted_world
    viewer = make_staff("viewer", games=[game])
    viewer.user_permissions.add(Permission.objects.get(codename="view_entry"))
    client.force_login(viewer)

    page = client.get(WANTED, EVERY_LABEL)
    assert page.status_code == HTTPStatus.OK
    assert "Reaction" in html(page) and "Create this entry" not in html(page)
    refused = client.post(CREATE, {"game": game.pk, "language": "en", "label": "Reaction"})
    assert refused.status_code == HTTPStatus.FORBIDDEN


def test_staff_without_entry_permissions_cannot_see_worklists(client):
    client.force_login(make_staff("nobody"))
    for url in (OVERVIEW, WANTED, UNTRANSLATED, ERRATA, REVIEW):
        assert client.get(url).status_code == HTTPStatus.FORBIDDEN, url


def test_anonymous_users_are_sent_to_the_login(client):
    response = client.get(WANTED, EVERY_LABEL)
    assert response.status_code == HTTPStatus.FOUND
    assert response.url.startswith(reverse("admin:login"))


# --- Untranslated ---------------------------------------------------------------------


@pytest.fixture
@written_together
def translation_world():
    game = make_game(name="Arcadia")
    attack = make_entry(game=game, title="Attack")
    make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key)
    block = make_entry(game=game, title="Block")
    draft = make_entry(game=game, language="de", title="Blocken", translation_key=block.translation_key, status="draft")
    charge = make_entry(game=game, title="Charge")
    make_entry(game=game, title="Hidden draft", status=Status.DRAFT)
    return game, attack, block, draft, charge


def test_untranslated_counts_per_language_pair(moderator_client, translation_world):
    game, *_ = translation_world

    pairs = rows(moderator_client.get(UNTRANSLATED), "language-pair")

    assert pairs == ["Arcadia en de 2 1", "Arcadia de en 0 0"]


def test_untranslated_lists_one_pair_with_what_is_in_progress(moderator_client, translation_world):
    game, attack, block, draft, charge = translation_world

    response = moderator_client.get(UNTRANSLATED, {"game": game.pk, "from": "en", "to": "de"})

    listed = rows(response, "untranslated-entry")
    assert [row.split()[0] for row in listed] == ["Block", "Charge"]
    assert "In progress: Blocken (Draft)" in listed[0]
    assert f'href="{change_url(draft)}"' in html(response)
    start = reverse("admin:rules_entry_translation_start", args=[charge.pk, "de"])
    assert f'href="{start}"' in html(response)
    assert "Attack" not in " ".join(listed)


def test_untranslated_ignores_a_pair_the_game_does_not_have(moderator_client, translation_world):
    game, *_ = translation_world
    response = moderator_client.get(UNTRANSLATED, {"game": game.pk, "from": "en", "to": "pl"})
    assert response.status_code == HTTPStatus.OK
    assert rows(response, "untranslated-entry") == []
    assert len(rows(response, "language-pair")) == 2


# --- Touched by errata ----------------------------------------------------------------


def test_errata_list_shows_entries_whose_text_predates_an_erratum(moderator_client):
    game = make_game(name="Arcadia")
    touched = make_entry(game=game, title="Attack")
    rewritten = make_entry(game=game, title="Block")
    untouched = make_entry(game=game, title="Charge")
    erratum = make_erratum(game=game, title="Attack deals 2", affects=[touched, rewritten])
    make_erratum(game=game, title="Draft erratum", status=Status.DRAFT, affects=[untouched])
    rewritten.body = "The rewritten rule."
    rewritten.save()

    response = moderator_client.get(ERRATA)

    listed = rows(response, "stale-entry")
    assert len(listed) == 1
    assert listed[0].startswith("Attack")
    assert "Attack deals 2" in listed[0]
    assert reverse("admin:rules_erratum_change", args=[erratum.pk]) in html(response)

    # The erratum is changed again: the rewritten entry is due again too.
    erratum.corrected_text = "Attack deals 3."
    erratum.save()
    assert len(rows(moderator_client.get(ERRATA), "stale-entry")) == 2


def test_mark_text_as_checked_takes_the_entry_off_and_is_logged(moderator_client, moderator):
    game = make_game()
    entry = make_entry(game=game, title="Attack")
    make_erratum(game=game, affects=[entry])
    updated_at = Entry.objects.get(pk=entry.pk).updated_at

    url = reverse("admin:worklist_errata_checked", args=[entry.pk])
    response = moderator_client.post(url, {"next": f"{ERRATA}?game={game.pk}"}, follow=True)

    assert response.redirect_chain[-1][0] == f"{ERRATA}?game={game.pk}"
    assert any("marked as checked" in message for message in messages_of(response))
    assert rows(response, "stale-entry") == []
    log = LogEntry.objects.get(object_id=str(entry.pk))
    assert log.user == moderator and log.is_change()
    # Bookkeeping, not an edit: readers do not see the entry as recently changed.
    assert Entry.objects.get(pk=entry.pk).updated_at == updated_at


def test_mark_text_as_checked_is_post_only_scoped_and_safe(client, game_moderator_for):
    game, other = make_game(), make_game()
    entry = make_entry(game=other)
    make_erratum(game=other, affects=[entry])
    client.force_login(game_moderator_for(game))
    url = reverse("admin:worklist_errata_checked", args=[entry.pk])

    assert client.get(url).status_code == HTTPStatus.METHOD_NOT_ALLOWED
    assert client.post(url).status_code == HTTPStatus.NOT_FOUND
    assert client.post(reverse("admin:worklist_errata_checked", args=[999999])).status_code == 404
    assert worklists.errata_count(Game.objects.all()) == 1
    # "next" elsewhere is not followed.
    mine = make_entry(game=game)
    make_erratum(game=game, affects=[mine])
    response = client.post(reverse("admin:worklist_errata_checked", args=[mine.pk]), {"next": "https://evil.example/"})
    assert response.url == ERRATA


# --- Waiting for review ---------------------------------------------------------------


def test_review_lists_items_oldest_first_with_who_changed_them(moderator_client, moderator):
    game = make_game(name="Arcadia")
    author = make_staff("author")
    erratum = make_erratum(game=game, title="Erratum in review", status=Status.REVIEW)
    entry = Entry(game=game, language="en", title="Entry in review", status=Status.REVIEW)
    entry._history_user = author
    entry.save()
    question = make_question(game=game, question="Question in review?", status=Status.REVIEW)
    Erratum.objects.filter(pk=erratum.pk).update(updated_at=timezone.now() - timezone.timedelta(days=2))
    make_entry(game=game, title="A draft", status=Status.DRAFT)
    make_entry(game=game, title="Published")

    response = moderator_client.get(REVIEW)

    listed = rows(response, "review-item")
    assert [row.split(" Arcadia")[0] for row in listed] == [
        "Erratum in review Erratum",
        "Entry in review Entry",
        "Question in review? FAQ question",
    ]
    assert listed[1].endswith("author")
    assert "1 draft is not sent to review yet" in html(response)
    assert reverse("admin:faq_question_change", args=[question.pk]) in html(response)


# --- Overview, index, scoping, query counts -------------------------------------------


def test_overview_counts_each_list_for_the_users_games(client, moderator_client, game_moderator_for, wanted_world):
    game, (attack, *_rest) = wanted_world
    make_erratum(game=game, affects=[attack])
    make_entry(game=game, title="To review", status=Status.REVIEW)

    page = html(moderator_client.get(OVERVIEW))
    assert re.search(r'id="count-wanted">1<', page)  # asked for by two entries or more: "Reaction"
    assert "(2 in all)" in page
    assert re.search(r'id="count-errata">1<', page)
    assert re.search(r'id="count-review">1<', page)
    assert re.search(r'id="count-untranslated">0<', page)

    client.force_login(game_moderator_for(make_game()))
    page = html(client.get(OVERVIEW))
    assert re.search(r'id="count-wanted">0<', page) and re.search(r'id="count-errata">0<', page)


def test_admin_index_has_a_moderation_box(moderator_client, wanted_world):
    page = html(moderator_client.get(reverse("admin:index")))
    assert 'id="moderation-module"' in page
    for url in (WANTED, UNTRANSLATED, ERRATA, REVIEW, OVERVIEW):
        assert f'href="{url}"' in page


def test_admin_index_shows_the_worklist_counts(moderator_client, wanted_world):
    """Needs RulesiteAdminSite.index() to pass ``moderation`` (see the report)."""
    page = html(moderator_client.get(reverse("admin:index")))
    box = page[page.index('id="moderation-module"') :]
    assert re.search(rf'href="{WANTED}">Wanted entries</a>', box)
    assert re.search(r'id="count-wanted">1</td>', box)


def queries(function) -> int:
    with CaptureQueriesContext(connection) as captured:
        function()
    return len(captured)


@written_together
def grow(game, n: int) -> None:
    """n more of everything each list shows."""
    for i in range(n):
        entry = make_entry(game=game, title=f"Asker {i}", see_also=[f"Missing {i}"])
        make_entry(game=game, language="de", title=f"Frage {i}", status=Status.DRAFT if i % 2 else Status.PUBLISHED)
        make_erratum(game=game, affects=[entry])
        make_entry(game=game, title=f"Review {i}", status=Status.REVIEW)
        make_question(game=game, status=Status.REVIEW)


@pytest.mark.parametrize(
    ("name", "call", "expected"),
    [
        ("wanted", lambda games, game: worklists.wanted_entries(games), 2),
        ("untranslated pairs", lambda games, game: worklists.untranslated_pairs(games), 3),
        ("untranslated entries", lambda games, game: worklists.untranslated_entries(game, "en", "de"), 2),
        ("errata", lambda games, game: worklists.entries_touched_by_errata(games), 1),
        ("review", lambda games, game: worklists.waiting_for_review(games), 3),
        ("summary", lambda games, game: worklists.summary(games), 9),
    ],
)
def test_worklists_run_a_fixed_number_of_queries(django_assert_num_queries, name, call, expected):
    game = make_game()
    grow(game, 2)
    games = Game.objects.all()
    with django_assert_num_queries(expected):
        call(games, game)
    grow(game, 6)
    with django_assert_num_queries(expected):
        result = call(games, game)
    assert result, name


def test_worklist_pages_run_a_fixed_number_of_queries(moderator_client):
    game = make_game()
    grow(game, 2)
    urls = [OVERVIEW, WANTED, ERRATA, REVIEW, f"{UNTRANSLATED}?game={game.pk}&from=en&to=de"]
    small = {url: queries(lambda url=url: moderator_client.get(url)) for url in urls}
    grow(game, 6)
    large = {url: queries(lambda url=url: moderator_client.get(url)) for url in urls}
    assert small == large


def test_wanted_ranks_labels_by_how_many_entries_ask_with_a_threshold(moderator_client, wanted_world):
    page = moderator_client.get(WANTED)  # asked for by two entries or more, by default
    assert [row.split(" Arcadia")[0] for row in rows(page, "wanted-label")] == ["Reaction"]
    assert "the labels at least 2 entries ask for" in html(page)
    everything = moderator_client.get(WANTED, {"asked": "1"})
    assert [row.split(" Arcadia")[0] for row in rows(everything, "wanted-label")] == ["Reaction", "Terrain"]
    assert rows(moderator_client.get(WANTED, {"asked": "3"}), "wanted-label") == []
    assert moderator_client.get(WANTED, {"asked": "x"}).status_code == HTTPStatus.OK  # ignored, never a 500


OUTDATED = "/admin/worklists/outdated/"


def test_outdated_translations_are_a_worklist_counted_on_the_front_page(
    moderator_client, django_assert_num_queries
):
    from rules.moderation.translations import start_translation

    game = make_game(name="Arcadia")
    original = make_entry(game=game, title="Attack", body="Roll two dice.")
    translation = start_translation(original, "de", user=None)
    translation.title, translation.body, translation.status = "Angriff", "Wirf zwei Würfel.", Status.PUBLISHED
    translation.save()
    page = html(moderator_client.get(reverse("admin:index")))
    assert re.search(r'id="count-outdated">0<', page)

    original.body = "Roll three dice."
    original.save()  # the English original changed: the German translation is behind
    page = html(moderator_client.get(reverse("admin:index")))
    assert re.search(r'id="count-outdated">1<', page) and f'href="{OUTDATED}"' in page
    listed = rows(moderator_client.get(OUTDATED), "outdated-translation")
    assert len(listed) == 1 and listed[0].startswith("Angriff") and "Attack" in listed[0]
    assert re.search(r'id="count-outdated">1<', html(moderator_client.get(OVERVIEW)))
    with django_assert_num_queries(1):  # one query, however many
        assert len(worklists.outdated_translations(Game.objects.all())) == 1
