"""Tiny factories: the fewest fields a test must name, published unless told otherwise."""

import functools
from itertools import count

from faq.models import Question
from rules.content.journal import unit_of_work
from rules.content.models import Entry, Erratum, Game, Source
from rules.content.querysets import Status

_sequence = count(1)


def written_together(build):
    """Decorates a function that writes many rows (a fixture's world, a test's corpus):
    its writes are one unit of work, so the pipeline derives everything once at its end,
    as an import does, instead of after every row. What is derived is the same either
    way (tests/test_derived_property.py); only tests that watch the pipeline between
    writes must write row by row. Instances saved inside get their derived fields when
    the unit ends; a row read again inside it is read before that, so read it after."""

    @functools.wraps(build)
    def build_in_one_unit(*args, **kwargs):
        with unit_of_work():
            return build(*args, **kwargs)

    return build_in_one_unit


def make_game(**kwargs) -> Game:
    n = next(_sequence)
    kwargs.setdefault("slug", f"game-{n}")
    kwargs.setdefault("name", f"Game {n}")
    return Game.objects.create(**kwargs)


def make_source(**kwargs) -> Source:
    kwargs.setdefault("game", kwargs.get("game") or make_game())
    kwargs.setdefault("language", "en")
    kwargs.setdefault("title", f"Rules Reference {next(_sequence)}")
    kwargs.setdefault("kind", Source.Kind.RULES_REFERENCE)
    return Source.objects.create(**kwargs)


def make_entry(**kwargs) -> Entry:
    kwargs.setdefault("game", kwargs.get("game") or make_game())
    kwargs.setdefault("language", "en")
    kwargs.setdefault("title", f"Entry {next(_sequence)}")
    kwargs.setdefault("body", "Some rules text.")
    kwargs.setdefault("status", Status.PUBLISHED)
    return Entry.objects.create(**kwargs)


def make_erratum(**kwargs) -> Erratum:
    affects = kwargs.pop("affects", [])
    kwargs.setdefault("game", kwargs.get("game") or make_game())
    kwargs.setdefault("language", "en")
    kwargs.setdefault("title", f"Erratum {next(_sequence)}")
    kwargs.setdefault("corrected_text", "The corrected rule.")
    kwargs.setdefault("status", Status.PUBLISHED)
    erratum = Erratum.objects.create(**kwargs)
    erratum.affects.set(affects)
    return erratum


def make_question(**kwargs) -> Question:
    related = kwargs.pop("related_entries", [])
    kwargs.setdefault("game", kwargs.get("game") or make_game())
    kwargs.setdefault("language", "en")
    kwargs.setdefault("question", f"Question {next(_sequence)}?")
    kwargs.setdefault("answer", "The answer.")
    kwargs.setdefault("status", Status.PUBLISHED)
    question = Question.objects.create(**kwargs)
    question.related_entries.set(related)
    return question


def make_many_entries(count: int, word: str, **kwargs) -> list[Entry]:
    """``count`` published entries of one game that all hold ``word`` (titled "Word 001"
    …), written and indexed as an import writes them: in bulk, then ``update_items``
    (``Entry.objects.create`` for each would take seconds for a few hundred)."""
    from rules.search import index

    game = kwargs.pop("game", None) or make_game()
    kwargs.setdefault("language", "en")
    kwargs.setdefault("status", Status.PUBLISHED)
    entries = Entry.objects.bulk_create(
        Entry(game=game, title=f"{word.title()} {n:03d}", slug=f"{word}-{n:03d}", body=f"A {word} on a card.", **kwargs)
        for n in range(1, count + 1)
    )
    index.update_items("entry", [entry.pk for entry in entries])
    return entries
