"""Stored HTML made into HTML fpdf2 writes without failing, for the PDF booklets.

fpdf2 2.8.9's ``write_html`` fails on HTML our sanitiser lets through (``rules.shared.markdown``:
its tags, the attributes ``a`` href/title/class, ``span`` class/title, ``ol`` start,
``th``/``td`` align, and links to http, https, mailto or a relative address): an ``<a>``
without href (``KeyError``), a fragment naming no place it knows (``#1.1``), a bare
number (a page number to fpdf2), a tag inside a table cell after its text. So the HTML
is rewritten before fpdf2 sees it, one pass over its tags (``for_fpdf``); fpdf2 itself
is not patched. Decisions:

- **A link keeps only where it goes**, as fpdf2 follows it: a fragment naming a place
  in the PDF (``anchors``: an entry, a rule number in a text, a footnote, a letter)
  links there; http, https and mailto links stay (non-ASCII percent-encoded: a PDF's
  URI is ASCII); a site-relative or relative address is made absolute against the
  booklet's online page (``page_url``), as the HTML booklet resolves it. Anything else
  (no href, an empty one, ``#``, a fragment naming nothing in the PDF, another scheme)
  is its text, unlinked.
- **Every other attribute is dropped**, but an ``ol``'s numeric start and a cell's
  left/center/right alignment: afterwards no tag holds a non-ASCII character, ``<`` or
  ``>``, so the code pass below never touches one.
- **A table cell is its text**: fpdf2 takes one run of text per cell, so the tags in a
  cell (a link, emphasis, a nested table) are dropped and its text kept, a line break
  becoming a space.
- **Code is in DejaVu Sans Mono**; a run of characters it lacks that DejaVu Sans has
  (★, ①) is wrapped in ``<font face="dejavu">`` inside code, so it is drawn, not missing.
"""

import re
from html import escape, unescape
from urllib.parse import quote, unquote, urljoin, urlsplit

from .pdf_fonts import MONO, SANS, missing

# A tag as the sanitiser writes it: attribute values in double quotes, which they never
# hold ('"' is written &quot;), though they may hold ">".
_TAG = re.compile(r'<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s"=>/]+(?:="[^"]*")?)*)\s*/?>')
_ATTRIBUTE = re.compile(r'([^\s"=>/]+)(?:="([^"]*)")?')
_KEPT = {
    ("ol", "start"): re.compile(r"-?[0-9]{1,9}"),
    ("td", "align"): re.compile(r"left|center|right"),
    ("th", "align"): re.compile(r"left|center|right"),
}
_CELLS = {"td", "th"}
_SCHEMES = {"http", "https", "mailto"}
_URL_SAFE = "!#$%&'()*+,/:;=?@[]~"  # ASCII that stays as written: reserved characters and escapes
_CODE = re.compile(r"<(code|pre)>(.*?)</\1>", re.DOTALL)


def for_fpdf(html: str, *, anchors: set[str] | frozenset[str], page_url: str) -> str:
    """Stored (sanitised) HTML as fpdf2 writes it: see the module's decisions. ``anchors``
    are the places in the PDF a fragment may link to; ``page_url`` is the absolute
    address relative links are resolved against."""
    in_cell = 0  # > 0: inside a table cell (counting tables nested in it)

    def tag(match: re.Match) -> str:
        nonlocal in_cell
        closing, name, attributes = match.group(1), match.group(2).lower(), match.group(3)
        if in_cell:
            if name == "table":
                in_cell += -1 if closing else 1
            elif name in _CELLS and closing and in_cell == 1:
                in_cell = 0
                return f"</{name}>"
            return " " if name == "br" else ""
        if closing:
            return f"</{name}>"
        if name in _CELLS:
            in_cell = 1
        if name == "a":
            href = next((value for key, value in _ATTRIBUTE.findall(attributes) if key.lower() == "href"), "")
            return f'<a href="{escape(_target(unescape(href), anchors, page_url))}">'
        if not attributes:
            return f"<{name}>"
        kept = "".join(
            f' {key}="{value}"'
            for key, value in ((key.lower(), unescape(value)) for key, value in _ATTRIBUTE.findall(attributes))
            if (name, key) in _KEPT and _KEPT[name, key].fullmatch(value)
        )
        return f"<{name}{kept}>"

    html = _TAG.sub(tag, html)
    if "<code>" in html or "<pre>" in html:
        html = _CODE.sub(_code_in_fonts, html)
    return html


def _target(href: str, anchors, page_url: str) -> str:
    """Where a link goes in the PDF: ``#name`` (a place in it), an absolute URL, or ""
    (no link)."""
    href = href.strip()
    if href.startswith("#"):
        name = unquote(href[1:])
        return f"#{name}" if name in anchors else ""
    if not href:
        return ""
    try:
        url = urljoin(page_url, href)
        scheme = urlsplit(url).scheme.lower()
    except ValueError:  # "http://[x": no address
        return ""
    return quote(url, safe=_URL_SAFE) if scheme in _SCHEMES else ""


def _code_in_fonts(match: re.Match) -> str:
    """A code span or block with the runs of characters the code font lacks in the text font."""
    lacking = missing(MONO)
    body = match.group(2)
    if not lacking.search(body):
        return match.group(0)
    body = lacking.sub(lambda run: f'<font face="{SANS}">{run.group()}</font>', body)
    return f"<{match.group(1)}>{body}</{match.group(1)}>"
