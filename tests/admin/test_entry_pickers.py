"""An erratum's "Affects" and a FAQ question's "Related entries": only entries of the
item's own game and language, labelled with both, searchable; a link across games or
languages is refused by the form (on the field) and by the model.

Two games each have a German entry "Reaktion": the case that linked an Arkham FAQ into
Marvel Champions.
"""

from http import HTTPStatus

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from faq.models import Question
from rules.content.models import Entry, Erratum
from rules.content.querysets import Status
from tests.admin.forms import form_data, submit_change_form
from tests.factories import make_entry, make_erratum, make_game, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

PICKER = "/admin/rules/entry/picker/"


def build_arkham():
    return make_game(name="Arkham Horror", slug="arkham")


# Written once for the module's tests that read it (tests.module_world).
_arkham_of_the_module, arkham = fixtures(build_arkham, "arkham")


def build_marvel():
    return make_game(name="Marvel Champions", slug="marvel")


# Written once for the module's tests that read it (tests.module_world).
_marvel_of_the_module, marvel = fixtures(build_marvel, "marvel")


@pytest.fixture
def reaktion(arkham):
    return make_entry(game=arkham, language="de", title="Reaktion")


@pytest.fixture
def marvel_reaktion(marvel):
    return make_entry(game=marvel, language="de", title="Reaktion")


def pick(client, field: str = "affects", model: str = "erratum", app: str = "rules", **params):
    """What the picker offers: (id, text, disabled) for each result."""
    response = client.get(PICKER, {"app_label": app, "model_name": model, "field_name": field, **params})
    assert response.status_code == HTTPStatus.OK, response.content
    return [(row["id"], row["text"], row.get("disabled", False)) for row in response.json()["results"]]


def change_url(obj) -> str:
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])


# --- the picker's choices ---------------------------------------------------------------


def test_the_picker_offers_only_the_chosen_game_and_language_each_labelled(
    moderator_client, arkham, marvel, reaktion, marvel_reaktion
):
    make_entry(game=arkham, language="en", title="Reaction")
    draft = make_entry(game=arkham, language="de", title="Reaktionsfenster", kind="section", number="4.2",
                       status=Status.DRAFT)  # fmt: skip

    offered = pick(moderator_client, game=arkham.pk, language="de")

    assert offered == [
        (str(reaktion.pk), "Reaktion (Arkham Horror, German, Glossary entry)", False),
        (str(draft.pk), "4.2. Reaktionsfenster (Arkham Horror, German, Rule section, Draft)", False),
    ]
    assert pick(moderator_client, game=marvel.pk, language="de") == [
        (str(marvel_reaktion.pk), "Reaktion (Marvel Champions, German, Glossary entry)", False)
    ]


def test_the_picker_searches_titles_numbers_and_aliases(moderator_client, arkham, reaktion):
    window = make_entry(game=arkham, language="de", title="Fenster", number="4.2", aliases=["Zeitfenster"])
    make_entry(game=arkham, language="de", title="Angriff", body="Reaktion und Fenster im Text zählen nicht.")

    def ids(term):
        return [row[0] for row in pick(moderator_client, game=arkham.pk, language="de", term=term)]

    assert ids("reak") == [str(reaktion.pk)]
    assert ids("4.2") == [str(window.pk)]
    assert ids("zeitf") == [str(window.pk)]
    assert ids("nichts dergleichen") == []


def test_the_questions_picker_works_alike(moderator_client, arkham, reaktion, marvel_reaktion):
    offered = pick(moderator_client, "related_entries", "question", "faq", game=arkham.pk, language="de")
    assert [row[0] for row in offered] == [str(reaktion.pk)]


@pytest.mark.parametrize("params", [{}, {"game": "", "language": "de"}, {"language": "de"},
                                    {"game": "abc", "language": "de"}, {"game": "1", "language": "xx"}])  # fmt: skip
def test_without_a_game_and_language_the_picker_says_to_choose_them(moderator_client, reaktion, params):
    assert pick(moderator_client, **params) == [
        ("choose-game-and-language", "Choose the game and language first: only their entries can be chosen.", True)
    ]


def test_the_picker_speaks_the_moderators_language(moderator_client, arkham, reaktion):
    response = moderator_client.get(
        PICKER,
        {"app_label": "rules", "model_name": "erratum", "field_name": "affects", "game": arkham.pk, "language": "de"},
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.json()["results"][0]["text"] == "Reaktion (Arkham Horror, Deutsch, Glossareintrag)"


def test_a_game_moderator_is_offered_only_their_games_entries(
    client, game_moderator_for, arkham, marvel, reaktion, marvel_reaktion
):
    client.force_login(game_moderator_for(arkham))

    assert [row[0] for row in pick(client, game=arkham.pk, language="de")] == [str(reaktion.pk)]
    assert pick(client, game=marvel.pk, language="de") == []


@pytest.mark.parametrize(
    "params",
    [
        {"app_label": "rules", "model_name": "entry", "field_name": "parent"},  # not a picker's field
        {"app_label": "rules", "model_name": "erratum", "field_name": "nonsense"},
        {"app_label": "nowhere", "model_name": "erratum", "field_name": "affects"},
        {"model_name": "erratum", "field_name": "affects"},
    ],
)
def test_the_picker_refuses_other_fields(moderator_client, arkham, params):
    response = moderator_client.get(PICKER, {**params, "game": arkham.pk, "language": "de"})
    assert response.status_code == HTTPStatus.FORBIDDEN


def test_the_picker_is_for_staff_only(client, arkham, reaktion):
    response = client.get(PICKER, {"app_label": "rules", "model_name": "erratum", "field_name": "affects",
                                   "game": arkham.pk, "language": "de"})  # fmt: skip
    assert response.status_code == HTTPStatus.FOUND
    assert "/admin/login/" in response["Location"]


# --- the forms --------------------------------------------------------------------------


def test_the_form_shows_the_chosen_entries_with_their_game_and_a_picker(moderator_client, arkham, reaktion):
    erratum = make_erratum(game=arkham, language="de", title="Korrektur", affects=[reaktion])

    page = moderator_client.get(change_url(erratum)).content.decode()

    assert f'<option value="{reaktion.pk}" selected>Reaktion (Arkham Horror, German, Glossary entry)</option>' in page
    assert 'class="entry-picker"' in page and f'data-ajax--url="{PICKER}"' in page
    assert "js/admin-entry-picker.js" in page
    assert "SelectFilter2.js" not in page  # no list of every entry of every game


@pytest.mark.parametrize(("model", "field"), [("erratum", "affects"), ("question", "related_entries")])
def test_an_entry_of_another_game_is_refused_on_the_field(moderator_client, arkham, reaktion, marvel_reaktion,
                                                        model, field):  # fmt: skip
    item = (
        make_erratum(game=arkham, language="de", title="Korrektur", affects=[reaktion])
        if model == "erratum"
        else make_question(game=arkham, language="de", question="Wann?", related_entries=[reaktion])
    )

    text_field = "title" if model == "erratum" else "question"
    changes = {field: [str(reaktion.pk), str(marvel_reaktion.pk)], text_field: "Typed, not saved"}
    response = submit_change_form(moderator_client, item, **changes)

    assert response.status_code == HTTPStatus.OK
    errors = response.context["adminform"].form.errors[field]
    name = "erratum" if model == "erratum" else "FAQ question"
    assert errors == [
        f"“Reaktion” (Marvel Champions, German) is not of this {name}'s game and language (Arkham Horror, German): "
        "an erratum or FAQ question is only about entries of its own game and language."
    ]
    # Nothing was saved, and the moderator's choice is still in the form.
    item.refresh_from_db()
    assert list(getattr(item, field).all()) == [reaktion]
    assert getattr(item, text_field) in ("Korrektur", "Wann?")
    page = response.content.decode()
    assert f'<option value="{marvel_reaktion.pk}" selected>' in page and "Typed, not saved" in page


def test_an_entry_of_another_language_is_refused_too(moderator_client, arkham, reaktion):
    reaction = make_entry(game=arkham, language="en", title="Reaction")
    erratum = make_erratum(game=arkham, language="de", title="Korrektur")

    response = submit_change_form(moderator_client, erratum, affects=[str(reaction.pk)])

    assert response.status_code == HTTPStatus.OK
    assert "“Reaction” (Arkham Horror, English) is not of this erratum's game and language" in (
        response.context["adminform"].form.errors["affects"][0]
    )
    assert not erratum.affects.exists()


def test_moving_an_erratum_to_another_game_needs_entries_of_that_game(moderator_client, arkham, marvel, reaktion,
                                                                      marvel_reaktion):  # fmt: skip
    erratum = make_erratum(game=arkham, language="de", title="Korrektur", affects=[reaktion])

    refused = submit_change_form(moderator_client, erratum, game=str(marvel.pk))
    assert refused.status_code == HTTPStatus.OK
    assert "“Reaktion” (Arkham Horror, German) is not of this erratum's game" in (
        refused.context["adminform"].form.errors["affects"][0]
    )
    erratum.refresh_from_db()
    assert erratum.game == arkham

    moved = submit_change_form(moderator_client, erratum, game=str(marvel.pk), affects=[str(marvel_reaktion.pk)])
    assert moved.status_code == HTTPStatus.FOUND
    erratum.refresh_from_db()
    assert (erratum.game, list(erratum.affects.all())) == (marvel, [marvel_reaktion])


def test_a_new_question_with_an_entry_of_another_game_is_refused(moderator_client, arkham, marvel_reaktion):
    page = moderator_client.get(reverse("admin:faq_question_add"))
    data = form_data(page, "question_form")
    data.update(game=str(arkham.pk), language="de", question="Wann?", answer="Jetzt.",
                related_entries=[str(marvel_reaktion.pk)])  # fmt: skip

    response = moderator_client.post(reverse("admin:faq_question_add"), data)

    assert response.status_code == HTTPStatus.OK
    assert "is not of this FAQ question's game and language" in response.context["adminform"].form.errors[
        "related_entries"
    ][0]
    assert not Question.objects.exists()


def test_an_entry_that_errata_are_about_is_not_moved_to_another_language(moderator_client, arkham, reaktion):
    make_erratum(game=arkham, language="de", title="Korrektur", affects=[reaktion])
    make_question(game=arkham, language="de", question="Wann?", related_entries=[reaktion])

    response = submit_change_form(moderator_client, reaktion, language="en")

    assert response.status_code == HTTPStatus.OK
    assert response.context["adminform"].form.errors["language"] == [
        "“Korrektur” (Arkham Horror, German), “Wann?” (Arkham Horror, German) are about this entry, and an "
        "erratum or FAQ question is only about entries of its own game and language: remove the entry from them "
        "before moving the entry to another game or language."
    ]
    reaktion.refresh_from_db()
    assert reaktion.language == "de"


def test_an_entry_no_erratum_is_about_may_move(moderator_client, arkham, marvel, reaktion):
    response = submit_change_form(moderator_client, reaktion, game=str(marvel.pk))
    assert response.status_code == HTTPStatus.FOUND
    reaktion.refresh_from_db()
    assert reaktion.game == marvel


# --- the model --------------------------------------------------------------------------


def test_the_model_refuses_a_link_to_another_games_entry(arkham, reaktion, marvel_reaktion):
    erratum = make_erratum(game=arkham, language="de", title="Korrektur")

    with pytest.raises(ValidationError) as refused, transaction.atomic():
        erratum.affects.add(reaktion, marvel_reaktion)

    assert refused.value.messages == [
        "“Reaktion” (Marvel Champions, German) is not of this erratum's game and language (Arkham Horror, "
        "German): an erratum or FAQ question is only about entries of its own game and language."
    ]
    assert not Erratum.affects.through.objects.exists()  # not even the entry that was right


def test_the_model_refuses_from_the_entrys_side_and_for_questions(arkham, marvel, reaktion, marvel_reaktion):
    erratum = make_erratum(game=arkham, language="de", title="Korrektur")
    question = make_question(game=arkham, language="de", question="Wann?")
    english = make_entry(game=arkham, language="en", title="Reaction")

    with pytest.raises(ValidationError, match="“Korrektur” \\(Arkham Horror, German\\) is not of this entry's"):
        with transaction.atomic():
            marvel_reaktion.errata.add(erratum)
    with pytest.raises(ValidationError, match="“Reaction” \\(Arkham Horror, English\\) is not of this FAQ"):
        with transaction.atomic():
            question.related_entries.set([reaktion, english])
    with pytest.raises(ValidationError, match="are not of this FAQ question's game and language"):
        with transaction.atomic():
            question.related_entries.add(english, marvel_reaktion)
    assert not Question.related_entries.through.objects.exists()
    assert not Erratum.affects.through.objects.exists()


def test_the_model_links_entries_of_the_same_game_and_language(arkham, reaktion):
    window = make_entry(game=arkham, language="de", title="Fenster")
    erratum = make_erratum(game=arkham, language="de", title="Korrektur")
    question = make_question(game=arkham, language="de", question="Wann?")

    erratum.affects.set([reaktion, window])
    question.related_entries.add(reaktion)

    assert set(erratum.affects.all()) == {reaktion, window}
    assert list(question.related_entries.all()) == [reaktion]
    assert set(Entry.objects.get(pk=reaktion.pk).errata.all()) == {erratum}


def test_the_refusal_in_german(moderator_client, arkham, reaktion, marvel_reaktion):
    erratum = make_erratum(game=arkham, language="de", title="Korrektur")
    moderator_client.cookies["django_language"] = "de"

    response = submit_change_form(moderator_client, erratum, affects=[str(marvel_reaktion.pk)])

    assert response.context["adminform"].form.errors["affects"] == [
        "„Reaktion“ (Marvel Champions, Deutsch) gehört nicht zu Spiel und Sprache dieses Elements (Erratum: "
        "Arkham Horror, Deutsch): Ein Erratum oder eine FAQ-Frage betrifft nur Einträge des eigenen Spiels in der "
        "eigenen Sprache."
    ]


def test_a_revert_that_would_link_across_games_is_refused_with_the_reason(moderator_client, arkham, marvel, reaktion):
    erratum = make_erratum(game=arkham, language="de", title="Korrektur")
    submit_change_form(moderator_client, erratum, affects=[str(reaktion.pk)])
    linked = erratum.history.latest()
    submit_change_form(moderator_client, erratum, affects=[])
    # The entry has moved to another game since (written outside the admin's forms).
    Entry.objects.filter(pk=reaktion.pk).update(game=marvel)
    url = reverse("admin:rules_erratum_revert", args=[erratum.pk, linked.history_id])
    versions = erratum.history.count()

    response = moderator_client.post(url, {"_version": str(erratum.history.latest().history_id)}, follow=True)

    assert response.status_code == HTTPStatus.OK
    assert [str(message) for message in response.context["messages"]][-1] == (
        "“Reaktion” (Marvel Champions, German) is not of this erratum's game and language (Arkham Horror, German): "
        "an erratum or FAQ question is only about entries of its own game and language."
    )
    assert not erratum.affects.exists() and erratum.history.count() == versions
