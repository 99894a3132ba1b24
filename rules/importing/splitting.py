"""Blocks to items: entries, errata and FAQ questions, each with a Markdown body."""

import re
from dataclasses import dataclass, field

from .cleaning import Repair
from .structure import Block

KINDS = ("glossary", "rulebook", "faq")


@dataclass
class SectionOverride:
    """Per-section instructions from a manifest: "this section is an erratum"."""

    type: str | None = None  # entry | erratum | question
    aliases: list[str] = field(default_factory=list)
    affects: list[str] = field(default_factory=list)
    title: str | None = None
    erratum_kind: str | None = None


@dataclass
class ParsedItem:
    type: str  # entry | erratum | question
    title: str
    line: int
    body_blocks: list[Block] = field(default_factory=list)
    number: str = ""
    parent: str | None = None
    aliases: list[str] = field(default_factory=list)
    cross_references: list[str] = field(default_factory=list)
    entry_kind: str = "glossary"  # glossary | section | ruling
    is_fragment: bool = False
    affects: list[str] = field(default_factory=list)
    erratum_kind: str = "correction"
    topic: str = ""  # questions: the (non-question) heading they stand under

    @property
    def body(self) -> str:
        return blocks_to_markdown(self.body_blocks)


def detect_kind(blocks: list[Block]) -> str:
    numbered = sum(1 for b in blocks if b.type == "numbered")
    headings = [b for b in blocks if b.type == "heading"]
    if numbered >= 3 and numbered >= len(headings):
        return "rulebook"
    if any(h.text.rstrip().endswith("?") for h in headings):
        return "faq"
    return "glossary"


def split_items(
    blocks: list[Block],
    kind: str,
    *,
    overrides: dict[str, SectionOverride] | None = None,
    leading_fragment_title: str | None = None,
    numbered_title: str = "{parent} {number}",
    repairs: list[Repair] | None = None,
) -> list[ParsedItem]:
    overrides = {_key(k): v for k, v in (overrides or {}).items()}
    repairs = repairs if repairs is not None else []
    items: list[ParsedItem] = []
    section: ParsedItem | None = None  # the heading item numbered rules hang under
    current: ParsedItem | None = None

    for block in blocks:
        if block.type == "heading":
            title = _repair_title(block.text, block.line, repairs)
            current = _new_heading_item(title, block.line, kind, overrides.get(_key(title)))
            items.append(current)
            section = current
        elif block.type == "numbered" and kind == "rulebook":
            parent = section.title if section else None
            title = numbered_title.format(parent=parent or "", number=block.number).strip()
            current = ParsedItem(
                "entry", title, block.line, number=block.number, parent=parent, entry_kind="section"
            )
            current.body_blocks.append(Block("paragraph", block.text, block.line))
            items.append(current)
        elif block.type == "crossref":
            if current is None:
                current = _fragment(block.line, leading_fragment_title)
                items.append(current)
            current.cross_references.extend(label for label in block.labels if label not in current.cross_references)
        else:
            if current is None:
                current = _fragment(block.line, leading_fragment_title)
                items.append(current)
            current.body_blocks.append(block)
    return items


def _key(title: str) -> str:
    return re.sub(r"\s+", " ", title).strip().casefold()


def _repair_title(title: str, line: int, repairs: list[Repair]) -> str:
    """Drop a stray closing bracket that has no opening one ("… budowy)")."""
    for opener, closer in ("()", "[]"):
        if title.endswith(closer) and title.count(opener) < title.count(closer):
            fixed = title[:-1].rstrip()
            repairs.append(Repair(title, fixed, line=line, note="unbalanced bracket in a heading"))
            title = fixed
    return title


def _new_heading_item(title: str, line: int, kind: str, override: SectionOverride | None) -> ParsedItem:
    if kind == "faq":
        item_type = "question" if title.rstrip().endswith("?") else "entry"
        entry_kind = "ruling"
    else:
        item_type, entry_kind = "entry", ("section" if kind == "rulebook" else "glossary")
    item = ParsedItem(item_type, title, line, entry_kind=entry_kind)
    if kind == "glossary":
        item.aliases = _aliases_from_title(title)
    if override:
        item.type = override.type or item.type
        item.title = override.title or item.title
        item.aliases = list(dict.fromkeys([*item.aliases, *override.aliases]))
        item.affects = list(override.affects)
        item.erratum_kind = override.erratum_kind or item.erratum_kind
    return item


def _aliases_from_title(title: str) -> list[str]:
    """"Du, Dein" names two words of one entry: each part is an alias."""
    parts = [part.strip() for part in title.split(",")]
    if len(parts) >= 2 and all(part and len(part.split()) <= 2 for part in parts):
        return parts
    return []


def _fragment(line: int, title: str | None) -> ParsedItem:
    return ParsedItem("entry", title or f"Fragment (line {line})", line, is_fragment=True)


_MD_INLINE = re.compile(r"([\\`*_]|\[\[|<(?=[A-Za-z/!?]))")
_MD_LINE_START = re.compile(r"^(\s*)([#>+]|-(?=\s)|\d+[.)](?=\s))")


def escape_markdown(text: str) -> str:
    """Escape what Markdown would read as markup in plain rules text, and nothing more."""
    text = _MD_INLINE.sub(lambda m: "\\" + m.group(1), text)
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def blocks_to_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    previous: str | None = None
    for block in blocks:
        text = escape_markdown(block.text)
        if block.type == "bullet":
            if previous not in ("bullet", None):
                out.append("")
            out.append("    " * block.level + "- " + text)
        elif block.type == "numbered":
            if previous not in ("numbered", None):
                out.append("")
            out.append(f"{block.number}. {text}" if block.number.isdigit() else f"**{block.number}** {text}")
        else:
            if previous is not None:
                out.append("")
            out.append(text)
        previous = block.type
    return "\n".join(out).strip()
