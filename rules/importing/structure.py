"""Lines to blocks: headings, paragraphs, list items, numbered rules, cross-reference lines.

Hard line wraps are joined here. Whether a document is hard-wrapped (PDF text) or has one
line per paragraph (web text) is measured, not assumed: in a wrapped text many lines end
mid-sentence and the next one starts in lower case.
"""

import re
from dataclasses import dataclass, field

from .cleaning import Line
from .crossrefs import match_cross_reference_line, split_labels
from .vocabulary import is_word

BULLET = re.compile(r"^(?P<indent>\s*)(?:[•·▪◦‣∙●○■□➢►–—*+-]|x(?=\s+[\"“„'‘(\[A-ZÀ-ÞĄĆĘŁŃÓŚŹŻ0-9]))\s+(?P<text>\S.*)$")
NUMBERED = re.compile(
    r"^(?P<number>\d{1,3}(?:\.\d{1,3})+[a-z]?|\d{1,3}[a-z]?(?=[.)]))[.)]?\s+(?P<text>\S.*)$"
)
TERMINAL = ".!?:;"
CLOSERS = "\"'”’»)]"
ELLIPSIS = ("...", "…")
CONNECTORS = {"and", "or", "of", "the", "und", "oder", "des", "der", "die", "i", "oraz", "lub", "en", "of", "van", "het", "de", "et", "ou", "y", "o", "from", "in", "on", "to", "for"}


@dataclass
class Block:
    type: str  # heading | paragraph | bullet | numbered | crossref
    text: str
    line: int
    level: int = 0
    number: str = ""
    labels: list[str] = field(default_factory=list)
    last_raw: str = ""  # the last physical line, to judge whether the block goes on

    def append(self, text: str, language: str) -> None:
        self.text = join_wrapped(self.text, text, language)
        self.last_raw = text


def ends_sentence(text: str) -> bool:
    stripped = text.rstrip().rstrip(CLOSERS)
    return bool(stripped) and stripped[-1] in TERMINAL


def join_wrapped(left: str, right: str, language: str) -> str:
    """Join a hard-wrapped line; rejoin a word hyphenated across the break if it is a word."""
    right = right.strip()
    match = re.search(r"([^\W\d_]+)-$", left)
    if match and right[:1].islower():
        head = match.group(1)
        tail = re.match(r"[^\W\d_]+", right)
        if tail and is_word((head + tail.group(0)).lower(), language):
            return left[:-1] + right
        return left + right  # a real hyphenated compound: keep the hyphen, no space
    return f"{left.rstrip()} {right}"


def measure(lines: list[Line]) -> tuple[int, bool]:
    """The wrap width (90th percentile of line lengths) and whether the text is wrapped."""
    texts = [line.text.strip() for line in lines if line.text.strip()]
    if not texts:
        return 0, False
    lengths = sorted(len(text) for text in texts)
    width = lengths[int(0.9 * (len(lengths) - 1))]
    breaks = sum(
        1
        for a, b in zip(texts, texts[1:], strict=False)
        if not ends_sentence(a) and b[:1].islower()
    )
    return width, breaks >= max(2, 0.15 * len(texts))


def build_blocks(lines: list[Line], language: str, *, markdown: bool = False) -> list[Block]:
    width, wrapped = measure(lines)
    heading_max = min(90, int(0.75 * width)) if wrapped else 90
    blocks: list[Block] = []
    current: Block | None = None
    block_ended = True  # the previous physical line closed its block
    list_context = False  # the previous paragraph ended with ":"; short lines are items

    def next_text(position: int) -> str:
        for line in lines[position + 1 :]:
            if line.text.strip():
                return line.text.strip()
        return ""

    for position, line in enumerate(lines):
        raw = line.text
        stripped = raw.strip()
        if not stripped:
            current, block_ended = None, True
            continue

        labels_match = match_cross_reference_line(stripped)
        bullet = BULLET.match(raw)
        numbered = NUMBERED.match(stripped)

        if labels_match is not None:
            current = Block("crossref", labels_match, line.number, last_raw=stripped)
            blocks.append(current)
            list_context = False
        elif bullet:
            current = Block("bullet", bullet.group("text").strip(), line.number, level=len(bullet.group("indent")), last_raw=stripped)
            blocks.append(current)
        elif numbered:
            current = Block("numbered", numbered.group("text").strip(), line.number, number=numbered.group("number"), last_raw=stripped)
            blocks.append(current)
            list_context = False
        elif current is not None and _continues(current, stripped, block_ended, wrapped, width):
            current.append(stripped, language)
        elif list_context and len(stripped) <= 40 and not ends_sentence(stripped):
            current = Block("bullet", stripped, line.number, level=0, last_raw=stripped)
            blocks.append(current)
        elif block_ended and _looks_like_heading(stripped, heading_max) and next_text(position):
            current = Block("heading", stripped, line.number, last_raw=stripped)
            blocks.append(current)
            list_context = False
        else:
            current = Block("paragraph", stripped, line.number, last_raw=stripped)
            blocks.append(current)
            list_context = False

        ends_with_colon = current.type in ("paragraph", "bullet") and current.text.rstrip().endswith(":")
        list_context = ends_with_colon or (list_context and current.type == "bullet")
        block_ended = current.type == "heading" or (
            ends_sentence(current.last_raw) and (not wrapped or len(current.last_raw) < 0.85 * width)
        )
        if current.type == "crossref":
            block_ended = not _crossref_goes_on(current.last_raw, width)

    for block in blocks:
        if block.type == "crossref":
            block.labels = split_labels(block.text)
    _normalise_levels(blocks)
    return blocks


def _continues(current: Block, text: str, block_ended: bool, wrapped: bool, width: int) -> bool:
    if current.type == "heading":
        return False
    if current.type == "crossref":
        return _crossref_goes_on(current.last_raw, width)
    if current.last_raw.endswith("-") or (text[:1].islower() and not ends_sentence(current.last_raw)):
        return True
    return wrapped and not block_ended


def _crossref_goes_on(last_line: str, width: int) -> bool:
    """A cross-reference line wraps when it ends with a comma or mid-label ("Out of")."""
    if last_line.rstrip().endswith(","):
        return True
    words = last_line.split()
    return bool(words) and len(last_line) >= 0.75 * width and (words[-1].islower() or words[-1] in CONNECTORS)


def _looks_like_heading(text: str, max_length: int) -> bool:
    if len(text) > max_length or len(text.split()) > 12:
        return False
    first = text.lstrip("\"'“„‘«(")[:1]
    if not (first.isupper() or first.isdigit()):
        return False
    core = text.rstrip(CLOSERS + " ")
    if core.endswith(ELLIPSIS) or core.endswith("?"):
        return True
    return not core or core[-1] not in ".,;:!"


def _normalise_levels(blocks: list[Block]) -> None:
    """Indentation widths → nesting levels 0, 1, 2 … within each run of list items."""
    run: list[Block] = []
    for block in [*blocks, None]:
        if block is not None and block.type == "bullet":
            run.append(block)
            continue
        if run:
            indents = sorted({b.level for b in run})
            for b in run:
                b.level = indents.index(b.level)
            run = []
