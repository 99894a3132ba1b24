"""A small published world for the API tests, plus the JSON helpers every file uses."""

from http import HTTPStatus

from rules.content.models import Entry, Source
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together
from tests.module_world import fixtures

BASE = "http://testserver"


def get_json(client, url, status=HTTPStatus.OK, **extra):
    """GET ``url`` and return its JSON body, after checking status and content type."""
    response = client.get(url, **extra)
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    return response.json()


def changed_at(obj) -> str:
    """The ``updated_at`` an item's JSON shows: when its public representation last
    changed (``rules.derived.models.PublicItem``), in the API's format."""
    from rules.api.serializers import timestamp
    from rules.derived.models import PublicItem

    # The feed's kinds are the models' names (game, source, entry, erratum, question).
    return timestamp(PublicItem.objects.get(kind=obj._meta.model_name, object_id=obj.pk).changed_at)


def set_changed_at(model, when, **lookup) -> None:
    """Say that the matching items' JSON last changed ``when`` (for ``updated_after``)."""
    from rules.derived.models import PublicItem

    ids = model._default_manager.filter(**lookup).values_list("pk", flat=True)
    PublicItem.objects.filter(kind=model._meta.model_name, object_id__in=list(ids)).update(changed_at=when)


def result_ids(client, url, key="id"):
    """The ``key`` of every item on one page of the list at ``url``."""
    return [item[key] for item in get_json(client, url)["results"]]


@written_together
def build_world() -> dict:
    """One game in German and English, with an entry that has everything a page shows.

    ``du`` ("Du und Dein") is in a section, cites a source, links an entry by see-also
    and by [[link]] (and one label of each kind is wanted), is linked from another
    entry, has an English translation, and is touched by an erratum and a FAQ question.
    """
    game = make_game(
        slug="marvel-champions",
        name="Marvel Champions",
        localized_names={"de": "Marvel Champions: Das Kartenspiel"},
        publisher="Fantasy Flight Games",
        year=2019,
        bgg_id=285774,
    )
    source = make_source(
        game=game,
        language="de",
        title="Referenzhandbuch",
        kind=Source.Kind.RULES_REFERENCE,
        version="1.6",
        official=True,
        url="https://example.org/referenz.pdf",
        attribution="Asmodee",
    )
    section = make_entry(
        game=game, language="de", title="Spielbegriffe", kind=Entry.Kind.SECTION, number="2"
    )
    besitz = make_entry(
        game=game, language="de", title="Besitz und Kontrolle", aliases=["Kontrolle"]
    )
    du = make_entry(
        game=game,
        language="de",
        title="Du und Dein",
        aliases=["Du", "Dein"],
        number="2.3",
        parent=section,
        source=source,
        page="12",
        body="Meint den Spieler, der die [[Kontrolle]] hat. Siehe [[Fehlt noch|dort]].",
        see_also=["Besitz und Kontrolle", "Gibt es nicht"],
    )
    referrer = make_entry(game=game, language="de", title="Spieler", see_also=["Du und Dein"])
    you = make_entry(
        game=game, language="en", title="You and Your", translation_key=du.translation_key
    )
    erratum = make_erratum(
        game=game,
        language="de",
        title="Korrektur zu Du",
        original_text="Du bist immer gemeint.",
        corrected_text="Gemeint ist der Spieler, der [[Du und Dein|die Karte]] kontrolliert.",
        affects=[du],
        source=source,
        page="3",
    )
    question = make_question(
        game=game,
        language="de",
        question="Bin ich gemeint?",
        answer="Ja, siehe **[[Dein]]**.",
        topic="Grundlagen",
        related_entries=[du],
        source=source,
        page="4",
    )
    return {
        "game": game,
        "source": source,
        "section": section,
        "besitz": besitz,
        "du": du,
        "referrer": referrer,
        "you": you,
        "erratum": erratum,
        "question": question,
    }


# Written once for a module whose every test asks for it (tests.module_world).
_world_of_the_module, world = fixtures(build_world, "world")
