"""The outline: which heading of a document's blocks stands under which.

Markdown levels decide when the document has them; numbers (2.3 under 2); in plain
text, a heading directly followed by another heading (or a section heading such as
"Errata") groups the headings after it. Splitting reads the outline to give entries
their parents and FAQ questions their topics; this module reads blocks only.
"""

from dataclasses import dataclass

from .blocks import Block
from .markers import is_number_prefix


def heading_style(block: Block) -> str:
    """What makes headings of one level look alike in plain text."""
    if block.question:
        return "question"
    if block.number:
        return f"number{block.number.count('.') + 1 + (block.number[-1:].isalpha())}"
    letters = [c for c in block.text if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "caps"
    return "title"


@dataclass
class _Open:
    index: int
    style: str
    number: str
    section: bool = False
    child_style: str | None = None


def outline(blocks: list[Block]) -> dict[int, int | None]:
    """For each heading (by block index), the index of the heading it stands under.

    Markdown levels decide when the document has them. In plain text a heading directly
    followed by another heading (no body between), or a section heading such as
    "Errata", is a *group*: the headings after it stand under it until one of its own
    level comes. Its level is recognised by style (ALL CAPS, Title, a number's depth):
    a heading like the group's own, where the group's children look different, is the
    group's sibling; a heading like the group's first child is another child; when all
    headings look alike, a heading that is itself a group starts a new group beside
    the old one, any other stays under it. Numbered headings stand under the heading
    whose number is a prefix of theirs (2.3 under 2).
    """
    parents: dict[int, int | None] = {}
    headings = [i for i, block in enumerate(blocks) if block.type == "heading"]
    if any(blocks[i].level for i in headings):
        stack: list[int] = []
        for i in headings:
            level = blocks[i].level or 7
            while stack and (blocks[stack[-1]].level or 7) >= level:
                stack.pop()
            parents[i] = stack[-1] if stack else None
            stack.append(i)
        return parents

    open_: list[_Open] = []
    for i in headings:
        block = blocks[i]
        style = heading_style(block)
        group = is_group(blocks, i)
        parent: _Open | None = None
        sibling_of: _Open | None = None
        if open_ and open_[-1].index == i - 1:
            parent = open_[-1]  # directly after a group heading: its first child
            if parent.child_style is None:
                parent.child_style = style
        else:
            while open_:
                top = open_[-1]
                if top.section and not block.section and not group and top.child_style is None:
                    parent = top  # under "Errata" (with an introduction of its own)
                    break
                if block.number:
                    if top.number:
                        if is_number_prefix(top.number, block.number):
                            parent = top
                            break
                    elif top.child_style and top.child_style.startswith("number"):
                        parent = top
                        break
                elif group and style == top.style and not top.number:
                    open_.pop()  # a group beside the open one
                    parent = open_[-1] if open_ else None
                    break
                elif style == top.child_style:
                    parent = top
                    break
                elif style == top.style and not top.number:
                    sibling_of = open_.pop()  # the next heading of the group's own level
                    parent = open_[-1] if open_ else None
                    break
                open_.pop()
        if parent is not None:
            while open_ and open_[-1] is not parent:
                open_.pop()
        parents[i] = parent.index if parent else None
        if group:
            open_.append(_Open(i, style, block.number, section=bool(block.section)))
        elif sibling_of is not None and sibling_of.child_style not in (None, style):
            # "PLAYING THE GAME" with a body of its own, beside the group "SETUP": the
            # headings that look like SETUP's children are its children.
            open_.append(_Open(i, style, block.number, child_style=sibling_of.child_style))
    return parents


def is_group(blocks: list[Block], index: int) -> bool:
    """A heading with no body of its own (the next block is a heading), or a section
    heading ("Errata", "FAQ"): the headings after it stand under it."""
    block = blocks[index]
    if block.question:
        return False
    if block.section in ("errata", "clarifications", "questions"):
        return True
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return following is not None and following.type == "heading"


def has_body(blocks: list[Block], index: int) -> bool:
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return following is not None and following.type != "heading"


