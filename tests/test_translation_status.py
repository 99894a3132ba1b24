"""A translation knows which version of its original it was made from, and says whether
the original changed since (rules.derived.translation_status), with what changed as a word diff."""

from http import HTTPStatus

import pytest
from django.contrib.auth import get_user_model

from rules.content.models import Entry
from rules.content.querysets import Status
from rules.derived import translation_status
from rules.moderation.translations import TranslationError, link, mark_up_to_date, start_translation, unlink
from tests.factories import make_entry, make_game
from tests.module_world import fixtures
from tests.stored import assert_stored_as_computed

pytestmark = pytest.mark.django_db


def build_boss():
    return get_user_model().objects.create_superuser("boss", "boss@example.org", "a-long-password")


# Written once for the module's tests that read it (tests.module_world).
_boss_of_the_module, boss = fixtures(build_boss, "boss")


def build_exhaust():
    game = make_game(slug="card-fight", name="Card Fight")
    return make_entry(game=game, title="Exhaust", body="Turn the card sideways. An exhausted card cannot attack.")


# Written once for the module's tests that read it (tests.module_world).
_exhaust_of_the_module, exhaust = fixtures(build_exhaust, "exhaust")


def fresh(entry) -> Entry:
    return Entry.objects.select_related("game").get(pk=entry.pk)


def assert_stored_equals_fresh() -> None:
    assert_stored_as_computed(translation_status, "translation_status")


def translate(entry, language: str, user, title: str, body: str) -> Entry:
    draft = start_translation(entry, language, user)
    draft.title, draft.body = title, body  # translated while a draft, then published
    draft.save()
    draft.status = Status.PUBLISHED
    draft.save()
    return draft


def page(client, entry) -> str:
    """The entry's own version, in the English UI."""
    response = client.get(f"{entry.url_in('en')}?content={entry.language}")
    assert response.status_code == HTTPStatus.OK
    return response.content.decode()


def test_a_started_translation_is_up_to_date_until_the_original_changes(client, exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte zur Seite.")
    assert german.translation_of == exhaust and german.translation_base is not None
    state = fresh(german).translation_state
    assert state and state.up_to_date and state.original.title == "Exhaust"
    html = page(client, german)
    assert "Translation up to date" in html and 'class="notice translation-status translation-current"' in html
    assert_stored_equals_fresh()

    exhaust.body = "Turn the card sideways. An exhausted card cannot attack or defend."
    exhaust.save()
    state = fresh(german).translation_state
    assert not state.up_to_date and state.checked
    assert str(state.diff_html) == (
        "Turn the card sideways. An exhausted card cannot <del>attack.</del><ins>attack or defend.</ins>"
    )
    assert_stored_equals_fresh()
    html = page(client, german)
    assert 'class="notice translation-status notice-warning translation-outdated"' in html
    assert "<ins>attack or defend.</ins>" in html
    assert 'href="/en/games/card-fight/rules/exhaust/"' in html  # the original, on its own page


def test_a_status_change_or_a_save_without_a_text_change_keeps_it_up_to_date(exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    exhaust.aliases = ["Tap"]  # not the text
    exhaust.save()
    assert fresh(german).translation_state.up_to_date


def test_a_renamed_original_is_a_change_too(exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    exhaust.title = "Exhausting"
    exhaust.save()
    state = fresh(german).translation_state
    assert not state.up_to_date
    assert str(state.title_diff_html) == "<del>Exhaust</del><ins>Exhausting</ins>"
    assert str(state.diff_html) == ""
    assert state.original.title == "Exhausting"


def test_marking_it_up_to_date_moves_it_to_the_original_s_current_version(exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    exhaust.body = "Rotate the card."
    exhaust.save()
    german = fresh(german)
    assert not german.translation_state.up_to_date
    mark_up_to_date(german, boss)
    assert fresh(german).translation_state.up_to_date
    assert german.history.first().history_change_reason.startswith("marked up to date with entry")
    assert_stored_equals_fresh()


def test_linking_records_the_original_and_unlinking_forgets_it(exhaust, boss):
    polish = make_entry(game=exhaust.game, language="pl", title="Wyczerpanie", body="Obróć kartę.")
    link(exhaust, polish, boss)
    polish = fresh(polish)
    assert polish.translation_of == exhaust and fresh(polish).translation_state.up_to_date
    unlink(exhaust, polish, boss)
    polish = fresh(polish)
    assert polish.translation_of is None and not polish.translation_state
    assert polish.translation_status == {}
    assert_stored_equals_fresh()


def test_versions_imported_side_by_side_have_no_status_until_marked(exhaust, boss):
    german = make_entry(game=exhaust.game, language="de", title="Erschöpfen", translation_key=exhaust.translation_key)
    assert not fresh(german).translation_state
    with pytest.raises(TranslationError):
        mark_up_to_date(german, boss)  # which original? it must be chosen
    mark_up_to_date(german, boss, original=exhaust)
    assert fresh(german).translation_state.up_to_date


def test_only_a_linked_version_can_be_the_original(exhaust, boss):
    german = make_entry(game=exhaust.game, language="de", title="Erschöpfen")
    with pytest.raises(TranslationError):
        mark_up_to_date(german, boss, original=exhaust)  # not linked


def test_an_unknown_base_is_never_claimed_up_to_date(client, exhaust):
    german = make_entry(game=exhaust.game, language="de", title="Erschöpfen", translation_key=exhaust.translation_key,
                        translation_of=exhaust)  # fmt: skip
    state = fresh(german).translation_state
    assert state and not state.up_to_date and not state.checked
    assert "It has not been checked against the original" in page(client, german)


def test_an_unpublished_original_gives_no_status(client, exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    exhaust.status = Status.DRAFT
    exhaust.save()
    assert not fresh(german).translation_state
    assert "translation-status" not in page(client, german)
    assert_stored_equals_fresh()


def test_a_chain_of_translations(exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    polish = translate(german, "pl", boss, "Wyczerpanie", "Obróć kartę.")
    assert fresh(polish).translation_state.original.title == "Erschöpfen"
    exhaust.body = "Rotate it."
    exhaust.save()
    assert not fresh(german).translation_state.up_to_date
    assert fresh(polish).translation_state.up_to_date  # its own original did not change


# --- the admin ------------------------------------------------------------------------------


def test_the_admin_shows_what_changed_and_marks_it_up_to_date(client, exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    exhaust.body = "Rotate the card."
    exhaust.save()
    client.force_login(boss)

    panel = client.get(f"/admin/rules/entry/{german.pk}/change/").content.decode()
    assert "the original changed" in panel
    url = f"/admin/rules/entry/{german.pk}/translations/up-to-date/"
    assert url in panel

    response = client.get(url)
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    assert (
        "<del>Turn</del><ins>Rotate</ins> the "
        "<del>card sideways. An exhausted card cannot attack.</del><ins>card.</ins>" in html
    )
    response = client.post(url, {"original": exhaust.pk})
    assert response.status_code == HTTPStatus.FOUND
    assert fresh(german).translation_state.up_to_date
    panel = client.get(f"/admin/rules/entry/{german.pk}/change/").content.decode()
    assert "up to date" in panel and "the original changed" not in panel


def test_the_admin_action_marks_many_and_skips_entries_without_an_original(client, exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    other = make_entry(game=exhaust.game, title="Ready")
    exhaust.body = "Rotate the card."
    exhaust.save()
    client.force_login(boss)
    response = client.post(
        "/admin/rules/entry/",
        {"action": "mark_up_to_date", "_selected_action": [german.pk, other.pk]},
        follow=True,
    )
    html = response.content.decode()
    assert "1 translation marked up to date." in html
    assert "1 entry has no recorded original" in html
    assert fresh(german).translation_state.up_to_date


def test_the_admin_refuses_an_original_that_is_not_a_linked_version(client, exhaust, boss):
    german = translate(exhaust, "de", boss, "Erschöpfen", "Drehe die Karte.")
    stranger = make_entry(game=exhaust.game, language="pl", title="Obcy")
    client.force_login(boss)
    response = client.post(f"/admin/rules/entry/{german.pk}/translations/up-to-date/", {"original": stranger.pk})
    assert response.status_code == HTTPStatus.OK  # the form again, with its error
    assert "Select a valid choice" in response.content.decode()
