"""The ``[[Term]]`` / ``[[Term|shown text]]`` link syntax of bodies, errata and answers.

A syntax, not a resolution: the Markdown renderer, the search index, the errata
applier and cross-reference resolution (``rules.derived.references``) all read it from here.
"""

import re

from .text import normalize_label

# [[Term]] or [[Term|shown text]]; the label may not contain brackets or a pipe.
WIKI_LINK = re.compile(r"\[\[([^\[\]|]+?)(?:\|([^\[\]]+?))?\]\]")


def body_links(body: str) -> list[str]:
    """The labels of the ``[[…]]`` links in a Markdown body, in order, without repeats."""
    seen: dict[str, str] = {}
    for match in WIKI_LINK.finditer(body or ""):
        label = match.group(1).strip()
        seen.setdefault(normalize_label(label), label)
    return list(seen.values())
