"""Markdown to safe HTML, the same way everywhere (pages, API ``body_html``, previews).

Python-Markdown parses; nh3 (the Rust ammonia sanitizer) then keeps only the tags and
attributes a rules text needs, so no script, event handler or ``javascript:`` URL from
content can ever reach a reader.
"""

from collections.abc import Callable
from xml.etree import ElementTree

import markdown
import nh3
from markdown.inlinepatterns import InlineProcessor
from django.utils.safestring import SafeString, mark_safe

from .references import WIKI_LINK

ALLOWED_TAGS = {
    "p", "br", "hr", "ul", "ol", "li", "strong", "em", "b", "i", "code", "pre", "blockquote",
    "h2", "h3", "h4", "h5", "h6", "a", "span", "table", "thead", "tbody", "tr", "th", "td",
    "del", "ins", "sup", "sub",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "class"},
    "span": {"class", "title"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
}
URL_SCHEMES = {"http", "https", "mailto"}

# A resolver takes a label as written and returns the linked entry's URL, or None.
LinkResolver = Callable[[str], str | None]


class _WikiLinkProcessor(InlineProcessor):
    def __init__(self, pattern: str, resolve: LinkResolver | None):
        super().__init__(pattern)
        self.resolve = resolve

    def handleMatch(self, m, data):  # noqa: N802 - Python-Markdown's API
        label = m.group(1).strip()
        shown = (m.group(2) or label).strip()
        url = self.resolve(label) if self.resolve else None
        if url:
            el = ElementTree.Element("a", {"class": "xref", "href": url})  # class first: see rendering
        else:
            el = ElementTree.Element("span", {"class": "xref xref-wanted"})
        el.text = shown
        return el, m.start(0), m.end(0)


class _WikiLinkExtension(markdown.Extension):
    def __init__(self, resolve: LinkResolver | None):
        super().__init__()
        self.resolve = resolve

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's API
        # Priority above links (160) so "[[A]]" is not read as a reference link.
        md.inlinePatterns.register(_WikiLinkProcessor(WIKI_LINK.pattern, self.resolve), "wikilink", 175)


def render_markdown(text: str, resolve: LinkResolver | None = None) -> SafeString:
    """Render Markdown and sanitise the result; ``[[Term]]`` links use ``resolve``."""
    md = markdown.Markdown(extensions=["sane_lists", "tables", _WikiLinkExtension(resolve)])
    # "\<" is an escape, as in CommonMark: the importer writes it for a "<" in plain
    # text ("\<b>" is the text "<b>"), which Python-Markdown would otherwise read as a
    # backslash and then raw HTML (that the sanitiser drops with its content).
    md.ESCAPED_CHARS = [*md.ESCAPED_CHARS, "<"]
    html = md.convert(text or "")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        # No rel on links: most are internal [[links]], and target= is not allowed, so
        # "noopener" protects nothing here.
        link_rel=None,
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above

