"""Blocks to items: entries, errata and FAQ questions, each with a Markdown body."""

import re
from dataclasses import dataclass, field

from .crossrefs import normalise_title, title_aliases
from .options import SectionOverride
from .report import Repair
from .structure.blocks import Block
from .structure.markers import names_a_faq, number_ancestors
from .structure.outline import has_body, heading_style, outline
from .titles import DEFAULT as DEFAULT_NUMBERED_TITLE
from .titles import render as render_numbered_title

KINDS = ("glossary", "rulebook", "faq")


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
    # label → the page the line named ("Upkeep" on page 7); the model keeps no page for a
    # cross-reference, so only the import report shows it
    cross_reference_pages: dict[str, str] = field(default_factory=dict)
    redirect: bool = False  # the whole entry was "See "X".": an alias of X, if X is here
    entry_kind: str = "glossary"  # glossary | section | ruling
    is_fragment: bool = False
    affects: list[str] = field(default_factory=list)
    erratum_kind: str = "correction"
    topic: str = ""  # questions: the (non-question) heading they stand under
    # A numbered paragraph's title is made by the source's pattern (``titles``), not written
    # in the document: a stored rule's own title may win over it (``writing``).
    title_from_pattern: bool = False

    @property
    def body(self) -> str:
        return blocks_to_markdown(self.body_blocks)


def detect_kind(blocks: list[Block]) -> str:
    """rulebook when numbered rules dominate, faq when there are questions (a fair share of
    the headings, or any "Q:"/"A:" pair) or errata headings, glossary otherwise."""
    headings = [b for b in blocks if b.type == "heading"]
    questions = sum(1 for h in headings if h.question)
    numbered = sum(1 for b in blocks if b.type == "numbered") + sum(
        1 for h in headings if h.number and not h.question
    )
    unnumbered = sum(1 for h in headings if not h.number and not h.question and not h.section)
    if numbered >= 3 and numbered >= unnumbered:
        return "rulebook"
    if any(h.section in ("errata", "clarifications", "questions") for h in headings):
        return "faq"
    if any(b.answer for b in blocks) or (questions and questions * 20 >= len(headings)):
        return "faq"
    return "glossary"


def split_items(
    blocks: list[Block],
    kind: str,
    *,
    overrides: dict[str, SectionOverride] | None = None,
    leading_fragment_title: str | None = None,
    numbered_title: str = DEFAULT_NUMBERED_TITLE,
    repairs: list[Repair] | None = None,
) -> list[ParsedItem]:
    """Items from blocks.

    * Headings open items: glossary entries (with aliases), rulebook sections, FAQ
      questions (a heading ending in "?" or with a "Q:" prefix), errata (headings under
      an "Errata"/"Clarifications" section heading) and rulings (other FAQ headings).
    * A heading with no body of its own that groups others (``structure.outline``) is
      the parent of the entries under it; in a FAQ it is no item at all but the topic of
      the questions under it. A document title (a first heading with no body that all
      others stand under) is no item in glossaries and FAQs.
    * In a rulebook a numbered paragraph ("601.2a To cast …") is an entry titled by
      ``numbered_title`` (``titles``): ``{number}`` is its number, ``{parent}`` the title
      of the section heading it stands under. Parent: the entry whose number is a prefix of its
      number (601.2a → 601.2 → 601), else the heading it stands under.
    * Text before the first heading is kept as a fragment.
    """
    overrides = {_key(k): v for k, v in (overrides or {}).items()}
    repairs = repairs if repairs is not None else []
    parents = outline(blocks)
    titles: dict[int, str] = {}  # heading index → its (repaired) title
    items_of: dict[int, ParsedItem] = {}  # heading index → the item it opened
    section_title: dict[
        int, str
    ] = {}  # id(item) → the section heading's title, for numbered titles
    by_number: dict[str, ParsedItem] = {}
    document_title = _document_title(blocks, parents)
    subtitle = _subtitle(blocks, document_title)
    items: list[ParsedItem] = []
    current: ParsedItem | None = None
    enclosing: ParsedItem | None = None  # the heading item numbered paragraphs stand under

    def ancestors(index: int):
        parent = parents.get(index)
        while parent is not None:
            yield parent
            parent = parents.get(parent)

    def fragment(line: int) -> ParsedItem:
        item = _fragment(line, leading_fragment_title)
        item.entry_kind = {"rulebook": "section", "faq": "ruling"}.get(kind, "glossary")
        items.append(item)
        return item

    for index, block in enumerate(blocks):
        if block.type == "heading":
            title = _repair_title(block.text, block.line, repairs)
            titles[index] = title
            override = overrides.get(_key(title))
            grouping = not has_body(blocks, index)
            if (
                override is None
                and grouping
                and (index in (document_title, subtitle) or (kind == "faq" and not block.question))
            ):
                current = None  # a grouping heading: a parent or topic, not an item
                enclosing = None
                continue
            item = _new_heading_item(title, block.line, kind, None)
            item.number = block.number
            if kind == "faq":
                _faq_item(item, index, block, blocks, ancestors, titles, document_title)
                if index == 0 and item.type == "entry" and not block.section and names_a_faq(title):
                    item.is_fragment = True  # the document's title and introduction
            parent_item = _number_parent(block.number, by_number) or next(
                (
                    items_of[a]
                    for a in ancestors(index)
                    if a in items_of and items_of[a].type == "entry"
                ),
                None,
            )
            if item.type == "entry" and parent_item is not None:
                item.parent = parent_item.title
            _apply_override(item, override)
            items.append(item)
            items_of[index] = item
            section_title[id(item)] = item.title
            if block.number:
                by_number[block.number] = item
            current = enclosing = item
        elif block.type == "numbered" and kind == "rulebook":
            parent_item = _number_parent(block.number, by_number) or enclosing
            section = section_title.get(id(parent_item), "") if parent_item else ""
            title = render_numbered_title(numbered_title, section, block.number)
            current = ParsedItem(
                "entry",
                title,
                block.line,
                number=block.number,
                parent=parent_item.title if parent_item else None,
                entry_kind="section",
                title_from_pattern=True,
            )
            current.body_blocks.append(
                Block("paragraph", block.text, block.line, markdown=block.markdown)
            )
            items.append(current)
            section_title[id(current)] = section
            by_number[block.number] = current
        elif block.type == "crossref":
            if current is None:
                current = fragment(block.line)
            current.cross_references.extend(
                label for label in block.labels if label not in current.cross_references
            )
            for label, page in block.pages.items():
                current.cross_reference_pages.setdefault(label, page)
            if block.redirect and not current.body_blocks and len(current.cross_references) == 1:
                current.redirect = True
        else:
            if current is not None and current.redirect:
                current.redirect = False  # text after "See X": an entry after all
            if current is None:
                current = fragment(block.line)
            current.body_blocks.append(block)
    return _fold_redirects(items)


def _fold_redirects(items: list[ParsedItem]) -> list[ParsedItem]:
    """A redirect-only entry ("Tapped / See "Exhaust, Exhausted".") whose target is in the
    document becomes an alias of the target (with its own aliases); one whose target is
    not stays an entry with no body and one cross-reference: a redirect the site resolves
    once the target exists."""
    if not any(item.redirect for item in items):
        return items
    names: dict[str, ParsedItem] = {}
    for item in items:
        if item.type == "entry" and not item.redirect:
            for name in (item.title, *item.aliases):
                names.setdefault(normalise_title(name), item)
    out = []
    for item in items:
        target = names.get(normalise_title(item.cross_references[0])) if item.redirect else None
        if target is None or target is item:
            out.append(item)
            continue
        for alias in (item.title, *item.aliases):
            if _key(alias) not in {_key(a) for a in (target.title, *target.aliases)}:
                target.aliases.append(alias)
    return out


def _faq_item(
    item: ParsedItem,
    index: int,
    block: Block,
    blocks: list[Block],
    ancestors,
    titles,
    document_title,
) -> None:
    """A FAQ heading: a question, an erratum (in an errata section) or a ruling."""
    chain = [index, *ancestors(index)]
    section = next((blocks[i].section for i in chain if blocks[i].section), "")
    if block.question:
        item.type = "question"
        item.topic = next(
            (
                titles.get(i, blocks[i].text)
                for i in chain[1:]
                if not blocks[i].question
                and blocks[i].section != "questions"
                and i != document_title
            ),
            "",
        )
    elif section in ("errata", "clarifications"):
        item.type = "erratum"
        item.erratum_kind = "clarification" if section == "clarifications" else "correction"
    if item.type != "question":
        group = next(
            (i for i in chain[1:] if not has_body(blocks, i) and i != document_title), None
        )
        if group is not None:
            item.topic = titles.get(group, blocks[group].text)


def _number_parent(number: str, by_number: dict[str, ParsedItem]) -> ParsedItem | None:
    for candidate in number_ancestors(number) if number else ():
        if candidate in by_number:
            return by_number[candidate]
    return None


def _document_title(blocks: list[Block], parents: dict[int, int | None]) -> int | None:
    """The index of a heading that names the whole document: the first block, with no
    body of its own, and either every other heading stands under it or the next heading
    at the top level looks different ("Spelregels" above "1. Spelmateriaal"). In
    Markdown: the only heading of its level."""
    if not blocks or blocks[0].type != "heading" or blocks[0].question or blocks[0].section:
        return None
    if has_body(blocks, 0) or blocks[0].number:
        return None
    first = blocks[0]
    if first.level:
        return (
            None
            if any(b.type == "heading" and b.level and b.level <= first.level for b in blocks[1:])
            else 0
        )
    top = next((i for i in sorted(parents) if i and parents[i] is None), None)
    if top is None or heading_style(blocks[top]) != heading_style(first):
        return 0
    return None


def _subtitle(blocks: list[Block], document_title: int | None) -> int | None:
    """ "LES REMPARTS DE VALBRUNE" / "Lexique des règles": a second heading with no body
    right under the document's title names the document too, when no other heading of
    the document is without a body (it groups nothing the others do not share)."""
    if document_title != 0 or len(blocks) < 3:
        return None
    second = blocks[1]
    if second.type != "heading" or second.question or second.section or second.number:
        return None
    if has_body(blocks, 1) or any(
        block.type == "heading" and not has_body(blocks, index) for index, block in enumerate(blocks) if index > 1
    ):
        return None
    return 1


def _under(index: int, ancestor: int, parents: dict[int, int | None]) -> bool:
    parent = parents.get(index)
    while parent is not None and parent != ancestor:
        parent = parents.get(parent)
    return parent == ancestor


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


def _new_heading_item(
    title: str, line: int, kind: str, override: SectionOverride | None
) -> ParsedItem:
    if kind == "faq":
        item_type = "question" if title.rstrip().endswith("?") else "entry"
        entry_kind = "ruling"
    else:
        item_type, entry_kind = "entry", ("section" if kind == "rulebook" else "glossary")
    item = ParsedItem(item_type, title, line, entry_kind=entry_kind)
    if kind == "glossary":
        item.aliases = title_aliases(title)
    _apply_override(item, override)
    return item


def _apply_override(item: ParsedItem, override: SectionOverride | None) -> None:
    if override:
        item.type = override.type or item.type
        item.title = override.title or item.title
        item.aliases = list(dict.fromkeys([*item.aliases, *override.aliases]))
        item.affects = list(override.affects)
        item.erratum_kind = override.erratum_kind or item.erratum_kind
        if item.type != "entry":
            item.parent = None


def _fragment(line: int, title: str | None) -> ParsedItem:
    return ParsedItem("entry", title or f"Fragment (line {line})", line, is_fragment=True)


_MD_INLINE = re.compile(r"([\\`*_]|\[\[|<(?=[A-Za-z/!?]))")
# "&lt;" in plain text is those four characters, not "<": Markdown has no backslash
# escape for "&", so an entity-like "&" is written as one.
_MD_ENTITY = re.compile(r"&(?=#?\w+;)")
_MD_LINE_START = re.compile(r"^(\s*)([#>+]|-(?=\s)|\d+[.)](?=\s))")
# A well-formed wiki link, [[Term]] or [[Term|shown text]]: kept, not escaped.
_WIKI_LINK = re.compile(r"\[\[[^\[\]|\n]+?(?:\|[^\[\]\n]+?)?\]\]")


def escape_markdown(text: str) -> str:
    """Escape what Markdown would read as markup in plain rules text, and nothing more.

    Well-formed ``[[Term]]`` / ``[[Term|shown text]]`` links are kept as links."""
    out: list[str] = []
    position = 0
    for match in _WIKI_LINK.finditer(text):
        out.append(_MD_INLINE.sub(lambda m: "\\" + m.group(1), text[position : match.start()]))
        out.append(match.group(0))
        position = match.end()
    out.append(_MD_INLINE.sub(lambda m: "\\" + m.group(1), text[position:]))
    escaped = _MD_ENTITY.sub("&amp;", "".join(out))
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


def blocks_to_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    previous: Block | None = None
    for block in blocks:
        text = block.text if block.markdown else escape_markdown(block.text)
        if block.type == "bullet":
            same_list = (
                previous is not None
                and previous.type == "bullet"
                and (previous.ordered == block.ordered or block.level > 0)
            )
            if previous is not None and not same_list:
                out.append("")
            marker = f"{block.number or 1}." if block.ordered else "-"
            out.append("    " * block.level + f"{marker} " + text)
        elif block.type == "numbered":
            # "1." items make an ordered list; "2.1"-style rules are paragraphs of their own
            if previous is not None and not (
                previous.type == "numbered" and previous.number.isdigit() and block.number.isdigit()
            ):
                out.append("")
            out.append(
                f"{block.number}. {text}"
                if block.number.isdigit()
                else f"**{block.number}** {text}"
            )
        else:
            if previous is not None:
                out.append("")
            out.append(text)
        previous = block
    return "\n".join(out).strip()
