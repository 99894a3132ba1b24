"""Cleaning: drop what is not the rules text, repair what the extraction broke.

Works on numbered lines so that every warning can name the line of the original
document. Each step is generic; nothing here knows a particular document.
"""

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .crossrefs import match_cross_reference_line
from .ligatures import repair_dropped_ligatures, repair_ligatures
from .report import Repair, Warning
from .vocabulary import is_foreign, is_own_language

PAGE_NUMBER = re.compile(r"^\s*(?:\d{1,7}|\d{1,4}\s*/\s*\d{1,4}|[-–—]\s*\d{1,4}\s*[-–—])\s*$")
LONE_BRACKET = re.compile(r"^\s*[\[\]{}|]\s*$")
SUBSTANTIAL = 40  # characters: a line this long is not repeated by accident …
# … but one wrapped line may be; a single repeated line counts as a duplicated block only
# when it is a whole paragraph (web text has one line per paragraph).
WHOLE_PARAGRAPH = 150


@dataclass
class Line:
    number: int  # 1-based line number in the original document
    text: str


@dataclass
class Cleaned:
    lines: list[Line]
    repairs: list[Repair] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


@lru_cache(maxsize=1)
def _boilerplate() -> frozenset[str]:
    path = Path(__file__).parent / "data" / "boilerplate.txt"
    rows = (row.strip().casefold() for row in path.read_text(encoding="utf-8").splitlines())
    return frozenset(row for row in rows if row and not row.startswith("#"))


def clean(text: str, language: str) -> Cleaned:
    text, ligature_repairs = repair_ligatures(text, language)
    raw_lines, dropped_repairs = repair_dropped_ligatures(
        # rstrip() would also strip "\f", the page break the next steps rely on.
        [raw if raw == PAGE_BREAK else raw.rstrip() for raw in text.split("\n")],
        language,
    )
    lines = [Line(i, raw) for i, raw in enumerate(raw_lines, start=1)]
    result = Cleaned(lines=[])
    for repair in ligature_repairs:
        result.repairs.append(
            Repair(
                repair.original,
                repair.replacement,
                note=f"ligature, {repair.count}×: " + ", ".join(repair.examples),
            )
        )
    for repair in dropped_repairs:
        result.repairs.append(
            Repair(
                repair.original,
                repair.replacement,
                line=repair.lines[0],
                note=f"dropped ligature, {len(repair.lines)}× (lines {_line_list(repair.lines)})",
            )
        )
    lines = _drop_running_furniture(lines, result)
    lines = _drop_page_furniture(lines)
    lines = _join_pages(lines)
    lines = _trim_foreign_edges(lines, language, result)
    lines = _drop_duplicate_blocks(lines, result)
    result.lines = _collapse_blank_runs(lines)
    return result


def _line_list(numbers: list[int], shown: int = 8) -> str:
    text = ", ".join(str(n) for n in numbers[:shown])
    return text + (f" and {len(numbers) - shown} more" if len(numbers) > shown else "")


# -- Running headers and footers ---------------------------------------------------------
#
# A page's first and last few lines that repeat, digits aside, at the edges of many
# pages are running headers and footers ("Rules Reference", "Page 3 of 12", "17 —
# Marvel Champions"). Pages are known from form feeds (PDF text and many text exports
# have them) or, failing those, from the lone page numbers that end them.

EDGE = 3  # lines at the top and at the bottom of a page that may be furniture
PAGE_BREAK = "\f"
_DIGITS = re.compile(r"\d+")


def _pages(lines: list[Line]) -> list[list[Line]]:
    has_breaks = any(line.text == PAGE_BREAK for line in lines)
    pages: list[list[Line]] = [[]]
    for line in lines:
        if line.text == PAGE_BREAK:
            pages.append([])
            continue
        pages[-1].append(line)
        if not has_breaks and PAGE_NUMBER.match(line.text):
            pages.append([])
    return [page for page in pages if any(line.text.strip() for line in page)]


def _furniture_key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.split())).casefold()


def _drop_running_furniture(lines: list[Line], result: Cleaned) -> list[Line]:
    pages = _pages(lines)
    if len(pages) < 2:
        return lines
    edges: list[list[Line]] = []
    for page in pages:
        content = [line for line in page if line.text.strip()]
        depth = min(EDGE, len(content) // 3)  # a short page has a short edge
        edges.append(content[:depth] + content[-depth:] if depth else [])
    pages_with: dict[str, int] = {}
    for edge in edges:
        # A cross-reference line is content, however often it repeats.
        keys = {
            _furniture_key(line.text)
            for line in edge
            if match_cross_reference_line(line.text) is None
        }
        for key in keys:
            pages_with[key] = pages_with.get(key, 0) + 1
    needed = max(2, round(0.3 * len(pages)))
    furniture = {key for key, count in pages_with.items() if count >= needed and len(key) <= 80}
    if not furniture:
        return lines
    drop = {
        line.number for edge in edges for line in edge if _furniture_key(line.text) in furniture
    }
    examples: dict[str, str] = {}  # one example per kind of furniture line, as written
    for edge in edges:
        for line in edge:
            if line.number in drop:
                examples.setdefault(_furniture_key(line.text), line.text.strip())
    shown = [f"{text!r} ({pages_with[key]} pages)" for key, text in examples.items()]
    result.warnings.append(
        Warning(
            min(drop),
            f"dropped {len(drop)} running header/footer lines on {len(pages)} pages: "
            + "; ".join(shown[:5])
            + (" …" if len(shown) > 5 else ""),
        )
    )
    return [line for line in lines if line.number not in drop]


def _runs_on(last: str, following: str) -> bool:
    """Does a page's last line stop mid-sentence (so the next page continues it)?"""
    if last.endswith(("-", ",")):
        return True
    if last.rstrip("\"'”’»)]")[-1:] in ".!?:;" or match_cross_reference_line(last) is not None:
        return False
    # A wrapped line of text, not a heading at the foot of a page; or the next page
    # goes on in lower case.
    return len(last) >= 40 or following[:1].islower()


def _join_pages(lines: list[Line]) -> list[Line]:
    """Remove page breaks. A sentence that runs on over the break is joined up again
    (the blank lines around the break go); otherwise the break becomes a blank line."""
    out: list[Line] = []
    for index, line in enumerate(lines):
        if line.text != PAGE_BREAK:
            if out and out[-1].text == PAGE_BREAK and not line.text.strip():
                continue  # blank lines after a joining break
            out.append(line)
            continue
        while out and not out[-1].text.strip():
            out.pop()
        last = out[-1].text.strip() if out else ""
        following = next(
            (later.text.strip() for later in lines[index + 1 : index + 20] if later.text.strip()),
            "",
        )
        out.append(Line(line.number, PAGE_BREAK if last and _runs_on(last, following) else ""))
    return [line for line in out if line.text != PAGE_BREAK]


def _drop_page_furniture(lines: list[Line]) -> list[Line]:
    """Page numbers, viewer controls, and running headers set between lone brackets."""
    boilerplate = _boilerplate()
    kept: list[Line] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.text.strip()
        # "[", "Rules Reference", "]": a running header the PDF put between bracket glyphs.
        if (
            stripped == "["
            and index + 2 < len(lines)
            and lines[index + 2].text.strip() == "]"
            and len(lines[index + 1].text.strip()) <= 60
        ):
            index += 3
            continue
        if (
            PAGE_NUMBER.match(stripped)
            or LONE_BRACKET.match(stripped)
            or stripped.casefold() in boilerplate
        ):
            index += 1
            continue
        kept.append(line)
        index += 1
    return kept


def _trim_foreign_edges(lines: list[Line], language: str, result: Cleaned) -> list[Line]:
    """Drop a hosting website's text before and after the document.

    From each end, the run of lines before the document's language takes over is dropped
    if it holds at least one line that clearly reads as another language (short lines
    such as "Info" or "Forenregeln" carry no signal either way).
    """

    def edge(sequence: list[Line]) -> int:
        # The edge ends where two lines in a row (of those with three words or more)
        # read as the document's language; a single mixed line ("Registrieren auf E-Mails
        # für … Rules Reference") does not end it.
        foreign_seen, candidate = False, None
        for position, line in enumerate(sequence):
            text = line.text.strip()
            if len(text.split()) < 3:
                continue
            if is_own_language(text, language) and not is_foreign(text, language):
                if candidate is not None:
                    return candidate if foreign_seen else 0
                candidate = position
            else:
                candidate = None
                foreign_seen = foreign_seen or is_foreign(text, language)
        return len(sequence) if foreign_seen else 0

    head = edge(lines)
    if head == len(lines):
        return lines  # nothing reads as the document's language: keep everything
    tail = edge(list(reversed(lines)))
    if head:
        result.warnings.append(
            Warning(
                lines[0].number,
                f"dropped lines {lines[0].number}–{lines[head - 1].number}: website text, "
                "not in the document's language",
            )
        )
    if tail:
        first = lines[len(lines) - tail]
        result.warnings.append(
            Warning(
                first.number,
                f"dropped lines {first.number}–{lines[-1].number}: website text, "
                "not in the document's language",
            )
        )
    return lines[head : len(lines) - tail]


def _drop_duplicate_blocks(lines: list[Line], result: Cleaned) -> list[Line]:
    """Remove a block of lines that repeats an earlier block word for word.

    A repeat starts at a substantial line (long enough not to repeat by accident) seen
    before, and runs as long as the following lines match those after the first
    occurrence, short lines included. It must be two lines or more, or one whole
    paragraph.
    """
    content = [line for line in lines if line.text.strip()]
    first_seen: dict[str, int] = {}
    drop: set[int] = set()
    index = 0
    while index < len(content):
        key = content[index].text.strip()
        earlier = first_seen.get(key)
        # A repeat starts at a substantial line; never at a cross-reference line, which
        # two entries may well share word for word.
        if (
            earlier is not None
            and len(key) >= SUBSTANTIAL
            and match_cross_reference_line(key) is None
        ):
            length = 0
            while (
                index + length < len(content)
                and earlier + length < index
                and content[index + length].text.strip() == content[earlier + length].text.strip()
            ):
                length += 1
            repeated = sum(len(content[index + offset].text.strip()) for offset in range(length))
            if length < 2 and repeated < WHOLE_PARAGRAPH:
                # One wrapped line that happens to repeat is text, not a duplicated block.
                first_seen.setdefault(key, index)
                index += 1
                continue
            for offset in range(length):
                drop.add(content[index + offset].number)
            result.warnings.append(
                Warning(
                    content[index].number,
                    f"dropped lines {content[index].number}–{content[index + length - 1].number}: "
                    f"they repeat lines {content[earlier].number}–"
                    f"{content[earlier + length - 1].number}",
                )
            )
            index += length
            continue
        first_seen.setdefault(key, index)
        index += 1
    return [line for line in lines if line.number not in drop]


def _collapse_blank_runs(lines: list[Line]) -> list[Line]:
    out: list[Line] = []
    for line in lines:
        if not line.text.strip() and (not out or not out[-1].text.strip()):
            continue
        out.append(line)
    while out and not out[-1].text.strip():
        out.pop()
    return out
