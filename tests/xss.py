"""The XSS corpus (tests/xss_vectors.txt) and the content made of it: every field a
moderator or an import fills, as moderators and imports produce it
(tests/browser/test_xss.py renders all of it in Chromium).

Many vectors go into few items: a long field (a body, an answer, aliases, see-also
labels) holds every vector; a short one (a title, a game's name) holds as many as its
length allows, so a handful of items carries the whole corpus in each field.
"""

import io
import json
from itertools import zip_longest
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.validators import URLValidator

from rules.content.models import Game
from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together

VECTORS_FILE = Path(__file__).with_name("xss_vectors.txt")
PLACEHOLDER = "§"
MARK = "Zebracorpus"  # a word every carrier item contains: search finds them all by it


def load_vectors() -> list[str]:
    """The vectors, numbered from 1 in file order ("§" → the number, "\\n" → a line break)."""
    vectors = []
    for line in VECTORS_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line == "#" or line.startswith("# "):
            continue
        number = len(vectors) + 1
        vectors.append(line.replace(PLACEHOLDER, str(number)).replace("\\n", "\n"))
    return vectors


VECTORS = load_vectors()


def one_line(vector: str) -> str:
    """A single-line field (a title, a label) cannot hold a line break: a space instead."""
    return vector.replace("\n", " ")


def packed(limit: int, prefix: str = "") -> list[str]:
    """Every vector, in as few strings of at most ``limit`` characters as they fit."""
    chunks, current = [], prefix
    for vector in map(one_line, VECTORS):
        candidate = f"{current} {vector}" if current else vector
        if len(candidate) > limit and current != prefix:
            chunks.append(current)
            candidate = f"{prefix} {vector}" if prefix else vector
        current = candidate
    chunks.append(current)
    return chunks


def all_vectors_text() -> str:
    """Every vector as a Markdown paragraph of its own, with the marker word."""
    return f"{MARK} text.\n\n" + "\n\n".join(VECTORS)


def source_urls() -> list[str]:
    """Source addresses a moderator can save (the admin's URL field validates them):
    every vector that still makes a valid http(s) URL as a query string."""
    valid, validate = [], URLValidator()
    for vector in map(one_line, VECTORS):
        url = f"https://example.org/rules?v={vector}"
        try:
            validate(url)
        except ValidationError:
            continue
        if len(url) <= 200:
            valid.append(url)
    return valid


@written_together
def make_corpus_game(slug: str = "xss-game") -> dict:
    """A game whose every moderator-filled field holds the corpus, through the ORM."""
    names = packed(200)
    game = make_game(slug=slug, name=names[0], publisher=one_line(VECTORS[0]))
    extra_games = [
        make_game(slug=f"{slug}-name-{k}", name=name) for k, name in enumerate(names[1:], 1)
    ]

    urls = source_urls()
    sources = [
        make_source(
            game=game, title=title or f"Source {k}", attribution=attribution or "", url=url or ""
        )
        for k, (title, attribution, url) in enumerate(zip_longest(packed(300), packed(300), urls))
    ]

    carrier = make_entry(
        game=game,
        title="Carrier",
        aliases=[one_line(v) for v in VECTORS],
        see_also=[one_line(v) for v in VECTORS],
        body=all_vectors_text(),
        source=sources[0],
        page="12",
    )
    # A second version, so the history shows the corpus in a diff.
    carrier.body = all_vectors_text() + "\n\n" + "\n\n".join(reversed(VECTORS[::3]))
    carrier.save()
    titled = [
        make_entry(
            game=game, title=title, body=f"{MARK} title carrier.", source=sources[k % len(sources)]
        )
        for k, title in enumerate(packed(300, prefix=MARK))
    ]

    erratum = make_erratum(
        game=game,
        title="Carrier erratum",
        original_text=f"{MARK} original.\n\n" + "\n\n".join(VECTORS[::2]),
        corrected_text=all_vectors_text(),
        affects=[carrier],
        source=sources[0],
    )
    erratum.corrected_text += "\n\n" + "\n\n".join(
        reversed(VECTORS[::7])
    )  # under the diff preview limit
    erratum.save()  # a second version: the history shows the corpus in a diff
    errata = [
        make_erratum(game=game, title=title, corrected_text=f"{MARK} corrected.", affects=[carrier])
        for title in packed(300, prefix=MARK)
    ]

    questions = [
        make_question(
            game=game,
            question=question or f"{MARK} question {k}?",
            topic=topic or "",
            answer=all_vectors_text() if k == 0 else f"{MARK} answer.",
            related_entries=[carrier],
        )
        for k, (question, topic) in enumerate(zip_longest(packed(500, prefix=MARK), packed(200)))
    ]
    questions[0].answer += "\n\n" + "\n\n".join(reversed(VECTORS[::3]))
    questions[0].save()
    return {
        "game": game,
        "extra_games": extra_games,
        "sources": sources,
        "carrier": carrier,
        "titled": titled,
        "erratum": erratum,
        "errata": errata,
        "questions": questions,
    }


def plain_text_document() -> str:
    """A glossary as publishers write them, a few vectors in each entry's text and its
    "See also" line, and entry titles made of vectors."""
    blocks = []
    for k in range(0, len(VECTORS), 15):
        group = VECTORS[k : k + 15]
        lines = [
            f"{MARK} Term {k // 15 + 1}",
            *(one_line(v) for v in group),
            f"See also: {one_line(group[0])}",
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def canonical_document(slug: str) -> dict:
    """The canonical JSON of ``export_rules`` with the corpus in every field it carries."""
    titles = packed(300, prefix=MARK)
    return {
        "format": "rulesite-export",
        "version": 1,
        "language": None,
        "game": {
            "slug": slug,
            "name": packed(200)[1],
            "localized_names": {"de": packed(200)[2]},
            "publisher": one_line(VECTORS[3]),
            "year": None,
            "bgg_id": None,
        },
        "sources": [
            {
                "language": "en",
                "title": title,
                "kind": "rules_reference",
                "version": one_line(VECTORS[k % len(VECTORS)])[:100],
                "official": False,
                "url": url or "",
                "attribution": attribution or "",
            }
            for k, (title, attribution, url) in enumerate(
                zip_longest(packed(300, prefix=MARK), packed(300), source_urls())
            )
            if title
        ],
        "entries": [
            {
                "language": "en",
                "slug": f"carrier-{k}",
                "title": title,
                "aliases": [one_line(v) for v in VECTORS] if k == 0 else [],
                "kind": "glossary",
                "number": "",
                "parent": None,
                "order": k,
                "body": all_vectors_text() if k == 0 else f"{MARK} body.",
                "see_also": [one_line(v) for v in VECTORS] if k == 0 else [],
                "source": packed(300, prefix=MARK)[0],
                "page": "",
                "status": "published",
                "is_fragment": False,
            }
            for k, title in enumerate(titles)
        ],
        "errata": [
            {
                "language": "en",
                "slug": f"carrier-erratum-{k}",
                "title": title,
                "kind": "correction",
                "original_text": "\n\n".join(VECTORS[::2]) if k == 0 else "",
                "corrected_text": all_vectors_text() if k == 0 else f"{MARK} corrected.",
                "published_on": None,
                "order": k,
                "source": None,
                "page": "",
                "status": "published",
                "affects": ["carrier-0"],
            }
            for k, title in enumerate(titles)
        ],
        "questions": [
            {
                "language": "en",
                "slug": f"carrier-question-{k}",
                "question": question,
                "answer": all_vectors_text() if k == 0 else f"{MARK} answer.",
                "topic": topic or "",
                "order": k,
                "source": None,
                "page": "",
                "status": "published",
                "related_entries": ["carrier-0"],
            }
            for k, (question, topic) in enumerate(
                zip_longest(packed(500, prefix=MARK), packed(200))
            )
            if question
        ],
    }


def import_corpus(directory: Path) -> tuple[Game, Game]:
    """One import of each format, as ``import_rules`` reads them."""
    text = directory / "corpus-glossary.txt"
    text.write_text(plain_text_document(), encoding="utf-8")
    call_command(
        "import_rules",
        str(text),
        "--game",
        "xss-text",
        "--game-name",
        packed(200)[3],
        "--language",
        "en",
        "--kind",
        "glossary",
        "--source-title",
        packed(300)[1],
        stdout=io.StringIO(),
    )
    canonical = directory / "corpus.json"
    canonical.write_text(
        json.dumps(canonical_document("xss-json"), ensure_ascii=False, indent=2), encoding="utf-8"
    )
    call_command("import_rules", str(canonical), "--game", "xss-json", stdout=io.StringIO())
    return Game.objects.get(slug="xss-text"), Game.objects.get(slug="xss-json")
