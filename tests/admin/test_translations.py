"""Linking translations from an entry's change page: the panel, start, link, unlink.

Real admin flows as a moderator: the panel on the change page, the confirmation pages,
the redirects and messages; then the public page, where the language switcher leads to
the linked version. The database is asked only for what no page shows (the history
record's user and reason, a translation key).
"""

import re
from http import HTTPStatus

import pytest
from django.urls import reverse

from rules.content.models import Entry
from rules.content.querysets import Status
from tests.admin.forms import submit_change_form
from tests.factories import make_entry, make_game
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def html(response) -> str:
    return response.content.decode()


def panel_rows(response) -> dict[str, str]:
    """language code → the panel row's text, white space collapsed."""
    found = re.findall(r'<tr class="translation-row[^"]*" data-language="(\w+)">(.*?)</tr>', html(response), re.S)
    return {code: " ".join(re.sub(r"<[^>]+>", " ", row).split()) for code, row in found}


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def change_url(entry) -> str:
    return reverse("admin:rules_entry_change", args=[entry.pk])


def start_url(entry, language: str) -> str:
    return reverse("admin:rules_entry_translation_start", args=[entry.pk, language])


def link_url(entry) -> str:
    return reverse("admin:rules_entry_translation_link", args=[entry.pk])


def unlink_url(entry, other) -> str:
    return reverse("admin:rules_entry_translation_unlink", args=[entry.pk, other.pk])


def build_game():
    return make_game(name="Arcadia", slug="arcadia")


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


@pytest.fixture
def attack(game):
    return make_entry(game=game, title="Attack", body="Roll a die. See [[Defence]].")


def test_panel_lists_every_language_with_its_version_or_a_start_link(moderator_client, game, attack):
    angriff = make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key)
    atak = make_entry(
        game=game, language="pl", title="Atak", translation_key=attack.translation_key, status=Status.DRAFT
    )

    response = moderator_client.get(change_url(attack))

    rows = panel_rows(response)
    assert list(rows)[:2] == ["en", "de"]  # its own language, then the game's
    assert set(rows) >= {"en", "de", "pl", "nl", "fr"}
    # "Translated from": none is recorded (made side by side); each may be checked against another.
    assert rows["en"] == "English Attack (this entry) Published — Check… View on site"
    assert rows["de"] == "Deutsch Angriff Published — Check… View on site Unlink"
    assert rows["pl"] == "Polski Atak Draft — Check… Unlink"
    assert rows["nl"] == "Nederlands No version Start translation"
    page = html(response)
    assert f'href="{change_url(angriff)}"' in page and f'href="{change_url(atak)}"' in page
    assert f'href="{angriff.canonical_url()}"' in page
    assert f'href="{unlink_url(attack, angriff)}"' in page
    assert f'href="{start_url(attack, "nl")}"' in page
    assert f'href="{link_url(attack)}"' in page


def test_panel_is_not_on_other_models(moderator_client, game):
    from tests.factories import make_erratum

    erratum = make_erratum(game=game)
    response = moderator_client.get(reverse("admin:rules_erratum_change", args=[erratum.pk]))
    assert response.status_code == HTTPStatus.OK
    assert 'id="translations-panel"' not in html(response)


def test_start_translation_creates_a_prefilled_linked_draft(moderator_client, moderator, game):
    rules = make_entry(game=game, title="Combat", kind="section", number="7")
    make_entry(
        game=game, language="de", title="Kampf", kind="section", number="7", translation_key=rules.translation_key
    )
    defence = make_entry(game=game, title="Defence")
    make_entry(game=game, language="de", title="Verteidigung", translation_key=defence.translation_key)
    attack = make_entry(
        game=game,
        title="Attack",
        body="Roll a die. See [[Defence]].",
        see_also=["Defence", "Terrain"],
        kind="section",
        number="7.1",
        order=3,
        parent=rules,
        page="12",
    )

    confirm = moderator_client.get(start_url(attack, "de"))
    assert confirm.status_code == HTTPStatus.OK
    page = html(confirm)
    assert "Roll a die. See [[Defence]]." in page
    assert "Verteidigung" in page and "Terrain" in page  # the see-also it fills in, and the one it cannot
    assert "Kampf" in page  # the parent's German version

    response = moderator_client.post(start_url(attack, "de"), follow=True)

    draft = Entry.objects.get(game=game, language="de", title="Attack")
    assert response.redirect_chain[-1][0] == change_url(draft)
    assert any("draft" in message for message in messages_of(response))
    assert draft.status == Status.DRAFT
    assert draft.translation_key == attack.translation_key
    assert draft.body == attack.body
    assert draft.see_also == ["Verteidigung"]
    assert (draft.kind, draft.number, draft.order) == ("section", "7.1", 3)
    assert draft.parent.title == "Kampf"
    assert draft.source is None and draft.page == ""
    assert draft.history.latest().history_user == moderator
    # The new draft's own panel shows where it came from.
    assert panel_rows(response)["en"].startswith("English 7.1. Attack Published")


def test_start_translation_is_refused_when_that_language_has_a_version(moderator_client, game, attack):
    make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key, status="draft")
    before = Entry.objects.count()

    confirm = moderator_client.get(start_url(attack, "de"))
    assert "already has a version in Deutsch" in html(confirm)
    assert 'type="submit"' not in html(confirm).split('id="content-main"')[1]

    response = moderator_client.post(start_url(attack, "de"), follow=True)
    assert response.redirect_chain[-1][0] == change_url(attack)
    assert any("already a version in Deutsch" in message for message in messages_of(response))
    assert Entry.objects.count() == before


def test_start_translation_bad_ids_and_languages_are_404(moderator_client, attack):
    assert moderator_client.get(start_url(attack, "xx")).status_code == HTTPStatus.NOT_FOUND
    assert moderator_client.get(start_url(attack, "en")).status_code == HTTPStatus.NOT_FOUND
    missing = reverse("admin:rules_entry_translation_start", args=[999999, "de"])
    assert moderator_client.post(missing).status_code == HTTPStatus.NOT_FOUND
    assert moderator_client.get(f"/admin/rules/entry/{attack.pk}/translations/link/nonsense/").status_code in (
        HTTPStatus.NOT_FOUND,
        HTTPStatus.FOUND,
    )


def test_link_offers_unlinked_entries_and_links_one(moderator_client, moderator, game, attack):
    angriff = make_entry(game=game, language="de", title="Angriff")
    same_language = make_entry(game=game, title="Assault")
    other_game = make_entry(language="de", title="Angriff anderswo")
    linked_elsewhere = make_entry(game=game, language="pl", title="Atak")
    make_entry(game=game, language="nl", title="Aanval", translation_key=linked_elsewhere.translation_key)

    page = html(moderator_client.get(link_url(attack)))
    assert '<optgroup label="Deutsch">' in page
    assert "Angriff (Published)" in page
    for not_offered in (same_language, other_game, linked_elsewhere):
        assert f'value="{not_offered.pk}"' not in page

    response = moderator_client.post(link_url(attack), {"other": angriff.pk}, follow=True)

    assert response.redirect_chain[-1][0] == change_url(attack)
    assert any("is now the Deutsch version" in message for message in messages_of(response))
    assert panel_rows(response)["de"].startswith("Deutsch Angriff Published")
    angriff.refresh_from_db()
    assert angriff.translation_key == attack.translation_key
    assert angriff.history.latest().history_user == moderator


def test_link_refusals_are_form_errors(moderator_client, game, attack):
    make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key)
    second_german = make_entry(game=game, language="de", title="Attacke")
    same_language = make_entry(game=game, title="Assault")
    atak = make_entry(game=game, language="pl", title="Atak")
    make_entry(game=game, language="nl", title="Aanval", translation_key=atak.translation_key)

    cases = {
        second_german: "already has a version in Deutsch",
        same_language: "is in the same language",
        atak: "linked to versions of its own",
        attack: "cannot be linked to itself",
    }
    for other, reason in cases.items():
        response = moderator_client.post(link_url(attack), {"other": other.pk})
        assert response.status_code == HTTPStatus.OK, other
        assert reason in html(response), other
        other.refresh_from_db()
        assert other.translation_key != attack.translation_key or other == attack
    for bad in ({"other": 999999}, {"other": "abc"}, {}):
        response = moderator_client.post(link_url(attack), bad)
        assert response.status_code == HTTPStatus.OK
        assert "errornote" in html(response)


def test_unlink_gives_the_version_its_own_key(moderator_client, moderator, game, attack):
    angriff = make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key)

    confirm = moderator_client.get(unlink_url(attack, angriff))
    assert "will no longer be linked" in html(confirm)
    response = moderator_client.post(unlink_url(attack, angriff), follow=True)

    assert response.redirect_chain[-1][0] == change_url(attack)
    assert panel_rows(response)["de"] == "Deutsch No version Start translation"
    angriff.refresh_from_db()
    assert angriff.translation_key != attack.translation_key
    assert angriff.history.latest().history_user == moderator
    # Not linked any more: unlinking again is a 404.
    assert moderator_client.post(unlink_url(attack, angriff)).status_code == HTTPStatus.NOT_FOUND


def test_game_moderators_cannot_touch_other_games_translations(client, game_moderator_for, game, attack):
    angriff = make_entry(game=game, language="de", title="Angriff", translation_key=attack.translation_key)
    client.force_login(game_moderator_for(make_game()))

    for url in (start_url(attack, "nl"), link_url(attack), unlink_url(attack, angriff)):
        assert client.get(url).status_code == HTTPStatus.NOT_FOUND, url
        assert client.post(url, {"other": angriff.pk}).status_code == HTTPStatus.NOT_FOUND, url
    assert not Entry.objects.filter(language="nl").exists()
    angriff.refresh_from_db()
    assert angriff.translation_key == attack.translation_key


def test_game_moderators_translate_their_own_games(client, game_moderator_for, game, attack):
    client.force_login(game_moderator_for(game))
    response = client.post(start_url(attack, "nl"))
    draft = Entry.objects.get(language="nl")
    assert response.url == change_url(draft)


def test_the_public_language_switcher_leads_to_the_linked_translation(moderator_client, client, game, attack):
    angriff = make_entry(game=game, language="de", title="Angriff", status=Status.DRAFT)
    moderator_client.post(link_url(attack), {"other": angriff.pk})

    english_page = f"/en/games/arcadia/rules/{attack.slug}/"
    german_url = f"/de/games/arcadia/rules/{angriff.slug}/"
    # The draft is linked but not public: the switcher does not lead to it yet.
    assert f'href="http://testserver{german_url}"' not in html(client.get(english_page))

    angriff.refresh_from_db()
    angriff.status = Status.PUBLISHED
    angriff.save()

    page = html(client.get(english_page))
    assert re.search(rf'<a href="http://testserver{german_url}" hreflang="de"', page)
    # Asking for the English entry in German lands on the German version.
    response = client.get(f"/de/games/arcadia/rules/{attack.slug}/")
    assert response.status_code == HTTPStatus.FOUND
    assert response.url == german_url
    assert "Angriff" in html(client.get(german_url))


def aliases_on_form(client, entry) -> str:
    """The aliases textarea of the entry's change form, as the moderator sees it."""
    page = html(client.get(change_url(entry)))
    return re.search(r'<textarea name="aliases"[^>]*>(.*?)</textarea>', page, re.S).group(1).strip()


def test_a_started_translation_renamed_as_it_is_first_published_keeps_no_alias_of_the_source_title(
    moderator_client, game, attack
):
    moderator_client.post(start_url(attack, "de"))
    draft = Entry.objects.get(game=game, language="de")
    assert draft.title == "Attack"

    response = submit_change_form(moderator_client, draft, title="Angriff", status=Status.PUBLISHED)

    assert response.status_code == HTTPStatus.FOUND
    draft.refresh_from_db()
    assert (draft.title, draft.status, draft.slug) == ("Angriff", Status.PUBLISHED, "angriff")
    assert draft.aliases == []
    assert aliases_on_form(moderator_client, draft) == ""
    # A German label "Attack" names no German entry: it is wanted, not this one.
    teller = make_entry(game=game, language="de", title="Verteidigung", see_also=["Attack"])
    assert teller.cross_references.get().target is None


def test_a_started_translation_renamed_as_a_draft_then_published_keeps_only_titles_it_was_published_under(
    moderator_client, game, attack
):
    moderator_client.post(start_url(attack, "de"))
    draft = Entry.objects.get(game=game, language="de")
    submit_change_form(moderator_client, draft, title="Angrif")  # a typo, fixed before publishing
    submit_change_form(moderator_client, draft, title="Angriff", status=Status.PUBLISHED)
    draft.refresh_from_db()
    assert draft.aliases == []

    # Published as "Angriff": readers know it by that title, so a rename keeps it.
    submit_change_form(moderator_client, draft, title="Angriffe")

    draft.refresh_from_db()
    assert draft.aliases == ["Angriff"]
    assert aliases_on_form(moderator_client, draft) == "Angriff"


def test_an_entry_published_under_a_title_keeps_it_as_an_alias_after_returning_to_draft(moderator_client, game):
    entry = make_entry(game=game, title="Assault", status=Status.DRAFT)
    submit_change_form(moderator_client, entry, status=Status.PUBLISHED)
    submit_change_form(moderator_client, entry, status=Status.DRAFT)

    submit_change_form(moderator_client, entry, title="Attack")

    entry.refresh_from_db()
    assert entry.aliases == ["Assault"]
    # Renamed again while still a draft: "Attack" was never public, "Assault" stays.
    submit_change_form(moderator_client, entry, title="Onslaught")
    entry.refresh_from_db()
    assert entry.aliases == ["Assault"]
