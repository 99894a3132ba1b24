"""The structure stage: cleaned lines → blocks (headings, paragraphs, lists, numbered
rules, cross-reference lines) → the outline of the headings.

One way through: ``markers`` (the words and patterns of each language) and ``wraps``
(joining hard-wrapped lines) serve ``blocks`` (the block builder); ``outline`` reads the
finished blocks. Splitting (``rules.importing.splitting``) comes after and reads both;
nothing here knows of items.
"""

from .blocks import Block, build_blocks
from .markers import is_index_letter, number_ancestors, section_kind
from .outline import has_body, heading_style, outline
from .wraps import Evidence, join_wrapped

__all__ = [
    "Block",
    "Evidence",
    "build_blocks",
    "has_body",
    "heading_style",
    "is_index_letter",
    "join_wrapped",
    "number_ancestors",
    "outline",
    "section_kind",
]
