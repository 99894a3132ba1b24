"""Cross-reference quality: the share of entries whose "see also" labels come out exactly right.

    python bench/crossref_quality.py [--verbose] [--database-url URL]

Imports each test glossary under tests/importing/documents/quality/ (LANG_glossary*.txt
or .md, as many per language as there are, none written for the importer's benefit:
separators, inverted titles, page references, missed-line forms, redirect-only entries,
"see X in section Y" forms, "Related topics" lines above a list, one-letter terms, hard
wraps, running headers and Markdown vary between them; ``--documents DIR`` reads another
folder of such pairs, e.g. documents kept aside)
with ``manage.py import_rules --kind glossary --dry-run --format json``, the project's
own pipeline, and compares each entry with the hand-written answer beside it
(NAME.expected.json):

* an entry is right when the import has an entry of that title whose cross-references
  are exactly the expected labels, in order;
* a redirect-only entry ("Tapped / See "Exhaust, Exhausted".") is right when the import
  has no entry of that title and its target lists the title among its aliases;
* an entry the answer does not have (a section name, a "Related topics" line, a
  document's title taken for an entry) is wrong, and counts among all.

Prints, per language, right / all and the share; ``--verbose`` lists what was wrong.
"""

import argparse
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ROOT / "tests" / "importing" / "documents" / "quality"
LANGUAGES = ["en", "de", "pl", "nl", "es", "fr"]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def import_dry_run(path: Path, language: str, game: str = "quality") -> dict:
    """The JSON report of a dry-run import of ``path`` through the management command."""
    from django.core.management import call_command

    out = io.StringIO()
    call_command(
        "import_rules",
        str(path),
        game=game,
        game_name="Quality test game",
        language=language,
        kind="glossary",
        dry_run=True,
        format="json",
        stdout=out,
    )
    return json.loads(out.getvalue())


def score(report: dict, expected: dict) -> tuple[int, int, list[str]]:
    """(right, all, what was wrong) for one document."""
    items = {item["title"]: item for item in report["items"] if item["type"] == "entry"}
    right, problems = 0, []
    for title, labels in expected["entries"].items():
        item = items.get(title)
        if item is None:
            problems.append(f"{title!r}: no such entry")
        elif item["cross_references"] != labels:
            problems.append(f"{title!r}: {item['cross_references']} (expected {labels})")
        else:
            right += 1
    for title, target in expected.get("redirects", {}).items():
        aliases = {a.casefold() for a in items.get(target, {}).get("aliases", [])}
        if title in items:
            problems.append(f"{title!r}: imported as an entry, not as an alias of {target!r}")
        elif title.casefold() not in aliases:
            problems.append(f"{title!r}: not among the aliases of {target!r}")
        else:
            right += 1
    extra = [
        title
        for title, item in items.items()
        if title not in expected["entries"] and title not in expected.get("redirects", {})
    ]
    problems += [f"{title!r}: imported as an entry the answer does not have" for title in extra]
    return right, len(expected["entries"]) + len(expected.get("redirects", {})) + len(extra), problems


def documents(language: str, folder: Path = DOCUMENTS) -> list[Path]:
    """The test glossaries of a language: LANG_glossary*.txt or .md, each with its answer."""
    return sorted(
        path
        for path in folder.glob(f"{language}_glossary*")
        if path.suffix in (".txt", ".md") and (folder / f"{path.stem}.expected.json").exists()
    )


def measure(language: str, folder: Path = DOCUMENTS) -> tuple[int, int, list[str]]:
    """(right, all, what was wrong) over every test glossary of ``language`` in ``folder``."""
    right = total = 0
    problems: list[str] = []
    for number, path in enumerate(documents(language, folder)):
        expected = json.loads((folder / f"{path.stem}.expected.json").read_text(encoding="utf-8"))
        got, count, wrong = score(import_dry_run(path, language, game=f"quality-{number}"), expected)
        right, total = right + got, total + count
        problems += [f"{path.name}: {problem}" for problem in wrong]
    return right, total, problems


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--database-url")
    parser.add_argument("--documents", type=Path, default=DOCUMENTS, help="a folder of LANG_glossary* documents")
    args = parser.parse_args()

    from benchdb import setup_django

    setup_django(args.database_url)
    for language in LANGUAGES:
        right, total, problems = measure(language, args.documents)
        if not total:
            continue
        print(f"{language}: {right}/{total} entries exactly right, share {right / total:.2f}")
        if args.verbose:
            for problem in problems:
                print(f"    {problem}")


if __name__ == "__main__":
    main()
