"""After any sequence of writes, every derived column equals a fresh computation
(rules/pipeline.py): cross-reference rows and their targets, stored HTML, relations,
errata applied, translation status and the search index. A property test: hypothesis
writes the sequences, of every kind of write, alone and grouped in units of work."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faq.models import Question
from rules.content.journal import unit_of_work
from rules.content.models import CrossReference, Entry, Erratum, Game
from rules.content.querysets import Status
from rules.derived import corrections, references, relations, rendering, translation_status
from rules.importing import ImportOptions, import_document
from rules.importing.pipeline import SourceInfo
from rules.search.models import SearchDocument
from tests.factories import make_erratum, make_game, make_question

pytestmark = pytest.mark.django_db

TITLES = ["Zug", "Karte", "Held", "Schurke", "Runde", "Zone"]
OPERATIONS = ["create", "edit", "rename", "status", "delete", "erratum", "question", "translate", "unit", "import"]
_games = iter(range(10**6))


def body(rng: random.Random) -> str:
    linked = rng.choice(TITLES)
    return f"Ziehe {rng.randint(1, 5)} Karten. Siehe [[{linked}]]."


def apply(op: str, rng: random.Random, game: Game) -> None:
    entries = list(Entry.objects.filter(game=game).order_by("pk"))
    entry = rng.choice(entries) if entries else None
    if op == "create" or entry is None:
        title = f"{rng.choice(TITLES)} {rng.randint(1, 3)}" if rng.random() < 0.3 else rng.choice(TITLES)
        if Entry.objects.filter(game=game, language="de", title=title).exists():
            return
        Entry.objects.create(
            game=game, language="de", title=title, body=body(rng), see_also=[rng.choice(TITLES)],
            status=rng.choice([Status.PUBLISHED, Status.PUBLISHED, Status.DRAFT]),
        )  # fmt: skip
    elif op == "edit":
        entry.body = body(rng)
        entry.save()
    elif op == "rename":
        title = rng.choice(TITLES) + "!"
        if not Entry.objects.filter(game=game, language=entry.language, title=title).exists():
            entry.title = title
            entry.save()
    elif op == "status":
        entry.status = Status.DRAFT if entry.status == Status.PUBLISHED else Status.PUBLISHED
        entry.save()
    elif op == "delete":
        entry.delete()
    elif op == "erratum":
        same_language = [e for e in entries if e.language == entry.language]
        make_erratum(
            game=game, language=entry.language, title=f"Fix {rng.randint(1, 999)}",
            original_text="Ziehe" if rng.random() < 0.5 else "", corrected_text="Nimm",
            affects=rng.sample(same_language, k=min(2, len(same_language))),
        )  # fmt: skip
    elif op == "question":
        make_question(
            game=game, language=entry.language, question=f"Wann {rng.randint(1, 999)}?",
            answer=f"Siehe [[{rng.choice(TITLES)}]].", related_entries=[entry],
        )  # fmt: skip
    elif op == "translate":
        versions = Entry.objects.filter(translation_key=entry.translation_key, language="en")
        if entry.language == "de" and not versions.exists():
            Entry.objects.create(
                game=game, language="en", title=f"{entry.title} (en)", body="Draw cards.", status=Status.PUBLISHED,
                translation_key=entry.translation_key, translation_of=entry,
            )  # fmt: skip
    elif op == "unit":
        with unit_of_work():
            for _ in range(3):
                apply(rng.choice(["create", "edit", "rename", "status", "erratum"]), rng, game)
    elif op == "import":
        titles = rng.sample(TITLES, 3)
        text = "\n".join(f"{title}\n{body(rng)}\nSiehe auch: {rng.choice(TITLES)}\n" for title in titles)
        options = ImportOptions(
            game=game.slug, language="de", kind="glossary", source=SourceInfo(title="Glossar"), status=Status.PUBLISHED
        )
        import_document(text.encode(), options)


def assert_derived_data_fresh(game: Game) -> None:
    entries = list(Entry.objects.filter(game=game))
    # 1. cross-references: one row per label, each pointing where its label resolves now
    for language in {entry.language for entry in entries}:
        keys = references.resolution_keys(game.pk, language)
        for entry in (e for e in entries if e.language == language):
            wanted = references.wanted_references(entry)
            rows = {(ref.normalized_label, ref.in_body): ref for ref in CrossReference.objects.filter(entry=entry)}
            assert set(rows) == set(wanted), entry.title
            for (key, _in_body), ref in rows.items():
                assert ref.target_id == keys.get(key), (entry.title, ref.label)
    # 2. rendering: every stored HTML was made from its current text and link targets
    for spec in rendering.SPECS:
        for item in spec.model._default_manager.filter(game=game):
            targets = references.link_targets(game.pk, item.language)
            texts = {name: getattr(item, name) or "" for name in spec.texts}
            assert item.html_fingerprint == rendering.fingerprint(texts, targets), str(item)
    # 3–5. relations, errata applied, translation status
    computed = relations.compute(game.pk)
    for entry in entries:
        assert entry.relations == computed[entry.pk], entry.title
    for module, field in ((corrections, "corrections"), (translation_status, "translation_status")):
        fresh = module.compute(game.pk)
        for entry in entries:
            assert getattr(entry, field) == fresh.get(entry.pk, ({}, ""))[0], (field, entry.title)
    # 6. search index: exactly the published items, with their titles
    items = (("entry", Entry, "title"), ("erratum", Erratum, "title"), ("question", Question, "question"))
    for kind, model, title in items:
        published = dict(model._default_manager.filter(game=game, status=Status.PUBLISHED).values_list("pk", title))
        indexed = dict(SearchDocument.objects.filter(game=game, item_type=kind).values_list("item_id", "title"))
        assert indexed == published, kind


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=10), seed=st.integers(0, 10**6))
def test_derived_data_equals_a_fresh_computation_after_any_writes(db, operations, seed):
    rng = random.Random(seed)
    game = make_game(slug=f"eigenschaft-{next(_games)}")
    for op in operations:
        apply(op, rng, game)
        assert_derived_data_fresh(game)
