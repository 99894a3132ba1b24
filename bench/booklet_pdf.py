"""Benchmark: the PDF of a generated glossary (``rules.builds.booklet_pdf``), as the background
worker builds it (``rules.builds``).

    python bench/booklet_pdf.py [COUNT] [--runs 3] [--markup] [--database-url URL]

Imports a generated COUNT-entry glossary (``bench/generate_glossary.py``, 600 by
default) into a fresh SQLite file, makes the record a reader's first request for its PDF
makes, and times the build task itself, made to lay the PDF out
again each run (its fingerprint cleared). Prints each run's wall and CPU time, the
pages and the size, and the best of each (on a shared machine the wall time also holds
waiting for a core: compare CPU).
``--markup`` first adds to every entry's body a paragraph with a code span in Polish,
German and French, a link to another entry of the booklet, a site link, an external
link and an emphasised link, so the links and code fonts are timed too.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def add_markup(game) -> None:
    from rules.content.models import Entry
    from rules.derived.rendering import render_fields

    entries = list(Entry.objects.filter(game=game).order_by("title"))
    for index, entry in enumerate(entries):
        other = entries[(index * 7 + 3) % len(entries)]
        entry.body += (
            f"\n\nWrite `łódź`, `Straße` or `é` as [{other.title}](#entry-{other.slug}); "
            f"see [the game](/en/games/{game.slug}/), [the publisher](https://example.org/rules?a=1&b=2) "
            f"or [**this rule**](#entry-{entry.slug})."
        )
        render_fields(entry)
    Entry.objects.bulk_update(entries, ["body", "body_html", "html_fingerprint"], batch_size=500)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--markup", action="store_true")
    parser.add_argument("--database-url")
    args = parser.parse_args()

    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"
    from benchdb import setup_django

    setup_django(args.database_url)
    from generate_glossary import glossary

    from rules.content.models import Game
    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    options = ImportOptions(
        game="bench", game_name="Benchmark Game", language="en", kind="glossary",
        source=SourceInfo(title="Generated rules reference"),
    )  # fmt: skip
    print(import_document(glossary(args.count).encode(), options).summary())
    if args.markup:
        add_markup(Game.objects.get(slug="bench"))

    from rules.builds.models import BuiltFile
    from rules.builds.storage import storage
    from rules.builds.tasks import build_file

    # What the view makes on the first request for the PDF (the reader sees "being prepared").
    file = BuiltFile.objects.for_request(
        BuiltFile.Kind.BOOKLET_PDF, game=Game.objects.get(slug="bench"), language="en", part="glossary",
        variant="", ui_language="en",
    )  # fmt: skip
    best = best_cpu = None
    for run in range(1, args.runs + 1):
        BuiltFile.objects.filter(pk=file.pk).update(fingerprint="")
        started, cpu = time.perf_counter(), time.process_time()
        assert build_file.call(file.pk) == "built"
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        best, best_cpu = min(best or elapsed, elapsed), min(best_cpu or cpu, cpu)
        file.refresh_from_db()
        data = storage().open(file.name).read()
        pages = data.count(b"/Type /Page\n")
        print(f"run {run}: {elapsed:.2f} s ({cpu:.2f} s CPU), {pages} pages, {len(data) / 1e3:.0f} KB")
    print(f"best of {args.runs}: {best:.2f} s wall, {best_cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
