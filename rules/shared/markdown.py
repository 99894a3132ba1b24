"""Markdown to safe HTML, the same way everywhere (pages, API ``body_html``, previews).

Python-Markdown parses; nh3 (the Rust ammonia sanitizer) then keeps only the tags and
attributes a rules text needs, so no script, event handler or ``javascript:`` URL from
content can ever reach a reader.

Raw HTML in a text may use the allowed tags (``<sup>``, ``<del>``, ``<br>`` …). Any other
markup written in a text is shown as text, never parsed: "Use <style> carefully." reads
exactly so. Otherwise an HTML parser would take it as markup, and the raw-text and RCDATA
elements (``<style>``, ``<script>``, ``<template>``, ``<title>``, ``<textarea>``,
``<iframe>``, ``<noscript>``, ``<xmp>``, ``<plaintext>``, ``<noembed>``, ``<noframes>``,
comments …) swallow everything after them: nh3 drops a style's or script's content with
it, and turns the rest into literal ``&lt;/p&gt;``. So before nh3 sees the HTML, each
``<`` of the raw HTML Python-Markdown passed through that does not open or close an
allowed tag is escaped (``_EscapeOtherMarkup``). Code spans and blocks are escaped by
Python-Markdown itself and are not touched; nh3 still sanitises everything after.
"""

import logging
import re
import threading
from collections.abc import Callable
from xml.etree import ElementTree

import markdown
import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown.inlinepatterns import InlineProcessor
from markdown.postprocessors import RawHtmlPostprocessor
from markdown.preprocessors import Preprocessor

from .wikilinks import WIKI_LINK

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
# A "<" in raw HTML that does not start an allowed tag: "<style", "</script", "<!--" ...
_ALLOWED = "|".join(sorted(ALLOWED_TAGS, key=len, reverse=True))
OTHER_MARKUP = re.compile(rf"<(?!/?(?:{_ALLOWED})(?=[\s/>]))", re.IGNORECASE)
# The same at a line's start (up to three spaces in; four would be code), where it could
# open a raw HTML block: a tag ("<name" then a space, "/" or ">"), an end tag, a comment,
# a declaration or a processing instruction; not an autolink ("<https://…>", "<a@b.org>").
OTHER_BLOCK_MARKUP = re.compile(
    rf"^( {{0,3}})<(?=[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/|!|\?)(?!/?(?:{_ALLOWED})(?=[\s/>]|$))", re.IGNORECASE
)

# A resolver takes a label as written and returns the linked entry's URL, or None.
LinkResolver = Callable[[str], str | None]


class _WikiLinkProcessor(InlineProcessor):
    def __init__(self, pattern: str, resolve: LinkResolver | None):
        super().__init__(pattern)
        self.resolve = resolve

    def handleMatch(self, m, data):
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

    def extendMarkdown(self, md):
        # Priority above links (160) so "[[A]]" is not read as a reference link.
        md.inlinePatterns.register(_WikiLinkProcessor(WIKI_LINK.pattern, self.resolve), "wikilink", 175)


class _EscapeOtherMarkup(RawHtmlPostprocessor):
    """Puts the raw HTML Python-Markdown set aside back with every tag that is not
    allowed (and every comment or declaration) escaped, so it shows as text."""

    def stash_to_string(self, text) -> str:
        return OTHER_MARKUP.sub("&lt;", str(text))


class _EscapeOtherBlockMarkup(Preprocessor):
    """A line that starts with other markup would open a raw HTML block, which
    Python-Markdown leaves unformatted up to its end (for ``<script>``, the whole rest of
    the text): escape it first, so the lines after it are Markdown as usual. Only a line's
    start: there, without fenced code, "<" can never be inside code."""

    def run(self, lines: list[str]) -> list[str]:
        return [OTHER_BLOCK_MARKUP.sub(r"\1&lt;", line) for line in lines]


class _RawHtmlAsTextExtension(markdown.Extension):
    def extendMarkdown(self, md):
        # Before html_block (20).
        md.preprocessors.register(_EscapeOtherBlockMarkup(md), "escape_other_block_markup", 25)
        md.postprocessors.register(_EscapeOtherMarkup(md), "raw_html", 30)  # replaces the default


_local = threading.local()
# Plain blocks: text Python-Markdown would only wrap in paragraphs and simple lists. No
# character that starts inline markup or HTML (escapes, code, emphasis, links, raw HTML,
# entities, tables), no trailing spaces (a line break), nothing unprintable (tabs,
# no-break spaces, controls), and no line that could start another block (indented code,
# a heading, a quote, a list item, a rule, a setext underline) but "- " items.
_MARKUP_CHARACTERS = re.compile(r"[\\`*_\[\]<>&|]| $", re.MULTILINE)
_BLOCK_START = re.compile(r"[ #>+=\-0-9]")
_BLANK_LINES = re.compile(r"\n{2,}")


def _plain_blocks(text: str) -> str | None:
    """Python-Markdown's HTML for a text of plain paragraphs and tight "- " lists (most
    imported bodies), made without parsing it; None for any other text.
    ``tests/test_markdown.py`` holds it to Python-Markdown's output."""
    if _MARKUP_CHARACTERS.search(text) or not text.replace("\n", "").isprintable():
        return None
    if not text.strip("\n"):
        return ""
    html = []
    after_list = False
    for block in _BLANK_LINES.split(text.strip("\n")):
        lines = block.split("\n")
        if all(line.startswith("- ") for line in lines):
            items = [line[2:] for line in lines]
            if after_list or any(_BLOCK_START.match(item) for item in items):
                return None  # two lists apart make one loose list; an item may hold a block
            html.append("<ul>\n" + "\n".join(f"<li>{item}</li>" for item in items) + "\n</ul>")
            after_list = True
        elif any(_BLOCK_START.match(line) for line in lines):
            return None
        else:
            html.append(f"<p>{block}</p>")
            after_list = False
    return "\n".join(html)


def _bounded(text: str) -> str | None:
    """``text`` as Python-Markdown may be given it: with more than ``UNCLOSED_BRACKETS``
    "[" that never close, those escaped ("\\[": the same text, as they could not open a
    link anyway; one inside a code span would show its backslash, which no real text
    has); None when a line is nested deeper than ``MAX_NESTING``. Linear."""
    prefixes = (prefix for prefix in _NESTING.findall(text) if len(prefix) > MAX_NESTING)
    if _INDENT.search(text) or any(len(_NESTING_MARK.findall(prefix)) > MAX_NESTING for prefix in prefixes):
        return None
    if text.count("[") <= UNCLOSED_BRACKETS:
        return text
    unclosed: list[int] = []
    for block_start, block in _blocks(text):
        opened: list[int] = []
        escaped = False
        for offset, character in enumerate(block):
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == "[":
                opened.append(block_start + offset)
            elif character == "]" and opened:
                opened.pop()
        unclosed += opened
    if len(unclosed) <= UNCLOSED_BRACKETS:
        return text
    pieces, previous = [], 0
    for position in unclosed:
        pieces += [text[previous:position], "\\["]
        previous = position + 1
    return "".join(pieces) + text[previous:]


def _blocks(text: str):
    """(offset, block) for each run of lines between blank lines."""
    start = 0
    for gap in _BLOCKS.finditer(text):
        yield start, text[start : gap.start()]
        start = gap.end()
    yield start, text[start:]


def _as_text(text: str) -> str:
    """The text shown as it is written: escaped paragraphs, line breaks kept."""
    paragraphs = [block.strip("\n") for _start, block in _blocks(text)]
    return "\n".join(f"<p>{escape(block).replace(chr(10), '<br>')}</p>" for block in paragraphs if block.strip())


def _parser() -> markdown.Markdown:
    """This thread's Markdown parser. Building one costs more than most texts take to
    convert (an import renders thousands), so each thread keeps one and resets it
    before every text: no reference, stashed HTML or link resolver carries over."""
    md = getattr(_local, "parser", None)
    if md is None:
        md = markdown.Markdown(
            extensions=["sane_lists", "tables", _WikiLinkExtension(None), _RawHtmlAsTextExtension()]
        )
        # "\<" is an escape, as in CommonMark: the importer writes it for a "<" in plain
        # text ("\<b>" is the text "<b>"), which Python-Markdown would otherwise read as a
        # backslash and then raw HTML (that the sanitiser drops with its content).
        md.ESCAPED_CHARS = [*md.ESCAPED_CHARS, "<"]
        _local.parser = md
    return md


# Bounds on what Python-Markdown is given (``_bounded``; bench/worst_case.py found each):
# its link parser looks for the "]" of every "[" to the end of the paragraph, so
# thousands of "[" that never close cost seconds (4,000: 2.8 s; 50,000 did not finish in
# 30 s); and its block parser recurses once per level of nesting, so a list nested a few
# hundred levels deep (or "- " × 25,000 on one line) raised RecursionError.
UNCLOSED_BRACKETS = 100  # past this many "[" that never close, they are escaped
MAX_NESTING = 32  # quote and list levels of one line; deeper, the text is shown as text
_NESTING = re.compile(r"^(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])))+", re.MULTILINE)
_NESTING_MARK = re.compile(r">|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])")
_INDENT = re.compile(r"^[ \t]{128,}", re.MULTILINE)  # 32 levels of four spaces
_BLOCKS = re.compile(r"\n[ \t]*\n")

logger = logging.getLogger(__name__)


def render_markdown(text: str, resolve: LinkResolver | None = None) -> SafeString:
    """Render Markdown and sanitise the result; ``[[Term]]`` links use ``resolve``.

    Bounded (``UNCLOSED_BRACKETS``, ``MAX_NESTING``): a text nested deeper than a rules
    text ever is is shown as escaped text, and should Python-Markdown fail anyway, the
    text is shown so too (logged) and the thread's parser is made anew: a parser left
    by an exception half reset rendered the next texts of its thread wrong (the first
    paragraph missing, ``[[links]]`` raw) until the process ended."""
    text = text or ""
    html = _plain_blocks(text)
    if html is None:
        bounded = _bounded(text)
        if bounded is None:
            html = _as_text(text)
        else:
            md = _parser()
            links = md.inlinePatterns["wikilink"]
            links.resolve = resolve
            try:
                html = md.reset().convert(bounded)
            except Exception:
                _local.parser = None  # never reused half reset
                logger.warning("Markdown could not be rendered; shown as text", exc_info=True)
                html = _as_text(text)
            finally:
                links.resolve = None
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

