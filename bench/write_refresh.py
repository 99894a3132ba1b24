"""What the write-time work of errata applied and translation status costs a write.

    .venv/bin/python bench/write_refresh.py [--entries 600] [--errata 100] [--database-url URL]

Builds one game: ``--entries`` English entries, ``--errata`` errata each quoting a
passage of one or two of them, and a German translation of every second entry (started
from it, so it records its original), then changes every fourth original so that half
the translations are out of date. Then it times, per game refresh (``rules.derived.relations.
refresh``, which runs after every entry, erratum and link write):

- the relations alone (``compute`` and the fingerprint comparison, as before),
- the errata applied (``rules.derived.corrections.refresh``) and the translation status
  (``rules.derived.translation_status.refresh``) when nothing changed (the common case: they
  compare fingerprints and write nothing),
- the same when every entry's inputs changed (``manage.py render_html`` after a
  renderer change),
- one entry saved through ``Entry.save()``, everything included.

``--without`` builds and saves with the two turned off, for a baseline of the last line.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def timed(function, repeat: int = 5) -> float:
    """The median wall time of ``function()`` in milliseconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=600)
    parser.add_argument("--errata", type=int, default=100)
    parser.add_argument("--database-url")
    parser.add_argument(
        "--without", action="store_true", help="for a baseline: build and save without errata applied and statuses"
    )
    args = parser.parse_args()

    from benchdb import setup_django

    setup_django(args.database_url)
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from rules.content.journal import unit_of_work
    from rules.content.models import Entry, Erratum, Game
    from rules.content.querysets import Status
    from rules.derived import corrections, relations, translation_status
    from rules.moderation.translations import start_translation

    if args.without:
        corrections.refresh = translation_status.refresh = lambda game_id: 0
    user = get_user_model().objects.create_user("bench")
    started = time.perf_counter()
    with unit_of_work():
        game = Game.objects.create(slug="bench-game", name="Bench Game")
        entries = [
            Entry.objects.create(
                game=game, language="en", title=f"Term {i}", status=Status.PUBLISHED,
                body=f"Term {i} lets a player draw {i % 7} cards and gain {i % 5} gold. "
                f"It ends when the round ends; see [[Term {(i + 1) % args.entries}]].\n\n"
                f"- Exhaust a card to use it.\n- Ready it in the refresh phase.",
            )  # fmt: skip
            for i in range(args.entries)
        ]
        for i in range(args.errata):
            first = entries[(i * 5) % args.entries]
            erratum = Erratum.objects.create(
                game=game, language="en", title=f"Fix {i}", status=Status.PUBLISHED,
                original_text=f"draw {((i * 5) % args.entries) % 7} cards",
                corrected_text=f"draw {((i * 5) % args.entries) % 7 + 1} cards",
            )  # fmt: skip
            erratum.affects.set([first, entries[(i * 5 + 1) % args.entries]])
        for entry in entries[::2]:
            draft = start_translation(entry, "de", user)
            draft.status = Status.PUBLISHED
            draft.save()
        for entry in entries[::4]:
            entry.body += " Then rest."
            entry.save()
    print(f"built {Entry.objects.count()} entries, {Erratum.objects.count()} errata in "
          f"{time.perf_counter() - started:.1f} s on {connection.vendor}")  # fmt: skip
    applied = Entry.objects.exclude(corrections_fingerprint="").count()
    stale = sum(1 for s in Entry.objects.exclude(translation_status={}).values_list("translation_status", flat=True)
                if not s["up_to_date"])  # fmt: skip
    print(f"{applied} entries with errata to apply, {stale} translations out of date")

    def relations_only():
        computed = relations.compute(game.pk)
        stored = dict(Entry.objects.filter(game_id=game.pk).values_list("pk", "relations_fingerprint"))
        assert all(stored[pk] == relations.fingerprint(data) for pk, data in computed.items())

    def forced(module):
        def run():
            with transaction.atomic():
                field = {corrections: "corrections_fingerprint", translation_status: "translation_status_fingerprint"}
                Entry.objects.filter(game=game).update(**{field[module]: "stale"})
                module.refresh(game.pk)
        return run

    def steps_3_to_5():
        relations.refresh(game.pk)
        corrections.refresh(game.pk)
        translation_status.refresh(game.pk)

    rows = [
        ("relations alone (compute + compare)", timed(relations_only)),
        ("errata applied, nothing changed", timed(lambda: corrections.refresh(game.pk))),
        ("translation status, nothing changed", timed(lambda: translation_status.refresh(game.pk))),
        ("errata applied, every entry again", timed(forced(corrections), repeat=3)),
        ("translation status, every entry again", timed(forced(translation_status), repeat=3)),
        ("relations, corrections, status (pipeline's steps 3-5), nothing changed", timed(steps_3_to_5)),
    ]
    entry = entries[10]

    def save_one():
        entry.body += " x"
        entry.save()

    rows.append(("one Entry.save() (a unit of work: the whole pipeline)", timed(save_one)))
    width = max(len(name) for name, _ in rows)
    for name, ms in rows:
        print(f"{name:<{width}}  {ms:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
