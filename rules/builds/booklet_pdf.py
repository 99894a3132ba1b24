"""A booklet (``rules.builds.booklet``) as a PDF file, made in Python without a browser.

Decisions:

- **fpdf2**, pure Python (its own needs are fontTools, Pillow and defusedxml, all
  wheels): no browser, no system library, no network. WeasyPrint would lay out our own
  print CSS, but needs the Pango and HarfBuzz system libraries, which a machine with
  only Python does not have; the browser's own "Print → Save as PDF" of the booklet page
  remains the way to get exactly the page's layout.
- **The stored HTML** of each entry is written by fpdf2's HTML renderer (paragraphs,
  lists, emphasis, tables, code), first made into HTML it does not fail on
  (``rules.builds.booklet_pdf_html``): site links absolute so they open the site, a link to an
  entry, rule number, footnote or letter of the booklet a link to its place in the PDF
  (a named destination where the entry or footnote starts, for the places something
  links to only), any other link its text, a corrected passage's mark a link to its
  footnote. A text it still cannot lay out is written as plain text, never an error.
- **A font for every character** (``rules.builds.pdf_fonts``): DejaVu Sans, and DejaVu Sans
  Mono for code, both cut down to the Latin scripts and the symbols of a game text: the
  PDF core fonts have no "ł". A symbol Mono lacks is written in Sans inside code
  (``rules.builds.booklet_pdf_html``); a character neither has is U+FFFD, the replacement
  character, in every text the PDF writes (``normalize_text``), never an error.
- **Nothing comes from the request**: the site's address and the booklet's online path
  are arguments, so the PDF is the same bytes whichever host or query string asked.
- **Contents with page numbers** and PDF bookmarks (fpdf2's outline), a title page,
  page numbers in the footer, errata as footnotes under their entry with their
  corrected text (the page shows the word diff, which fpdf2 does not draw right).
- The whole response is cached like every page (``rulesite.response_cache``); the
  creation date is the booklet's last change, so the same content gives the same bytes.
"""

import logging
import re
from datetime import UTC, datetime
from html import unescape
from html.parser import HTMLParser
from urllib.parse import unquote

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from fpdf import FPDF
from fpdf.enums import XPos, YPos
from fpdf.fonts import FontFace

from ..derived.rendering import absolute_links_at, for_ui_language
from .booklet_pdf_html import for_fpdf
from .pdf_fonts import MONO, SANS, add_fonts, printable

# fontTools, which fpdf2 cuts the embedded fonts down with, logs every table it touches.
logging.getLogger("fontTools").setLevel(logging.WARNING)

FAMILY = SANS
HEADING_SIZES = {1: 22, 2: 15, 3: 13, 4: 11.5, 5: 11, 6: 10.5}
BODY_SIZE = 10.5
_SPACED = re.compile(r"<(p|li)([ >])")
MUTED = (90, 90, 90)
# write_html's options: code in the Mono family (fpdf2's own is Courier, Latin-1 only).
HTML_OPTIONS = {
    "li_prefix_color": (60, 60, 60),
    "tag_styles": {"code": FontFace(family=MONO), "pre": FontFace(family=MONO)},
}


class _Booklet(FPDF):
    def normalize_text(self, text: str) -> str:
        """Every text the PDF writes, in the font it is written in: a character the font
        lacks is replaced (``rules.builds.pdf_fonts.printable``), never an error."""
        return printable(text, self.font_family) if self.font_family in (SANS, MONO) else super().normalize_text(text)

    def footer(self):
        if self.page_no() == 1:  # the title page
            return
        self.set_y(-14)
        self.set_font(FAMILY, size=8.5)
        self.set_text_color(*MUTED)
        self.cell(0, 6, str(self.page_no()), align="C")
        self.set_text_color(0, 0, 0)


def _new_pdf() -> FPDF:
    pdf = _Booklet(format="A4")
    add_fonts(pdf)
    return pdf


class _Trial:
    """Whether fpdf2 lays out some HTML. A failure inside ``write_html`` leaves the
    document's graphics state half open, so HTML with a table (the construct known to
    fail) is first tried in a scratch document, thrown away; the same one for the
    booklet's next table, a new one after a failure (loading the fonts costs ~0.1 s)."""

    def __init__(self):
        self.pdf: FPDF | None = None

    def lays_out(self, fragment: str, size: float) -> bool:
        if "<table" not in fragment:
            return True
        if self.pdf is None:
            self.pdf = _new_pdf()
            self.pdf.add_page()
        self.pdf.set_font(FAMILY, size=size)
        try:
            self.pdf.write_html(fragment, **HTML_OPTIONS)
        except Exception:  # whatever fpdf2 fails on is written as text
            self.pdf = None
            return False
        return True


class _Text(HTMLParser):
    """Plain text of HTML, a line per block: for a text fpdf2 cannot lay out."""

    BLOCKS = {"p", "li", "br", "h2", "h3", "h4", "h5", "h6", "tr", "div", "pre", "blockquote"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        self.parts.append(data)

    def text(self) -> str:
        return "\n".join(" ".join(line.split()) for line in "".join(self.parts).splitlines() if line.strip())


def _plain(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser.text()


# A corrected passage's link to its footnote on the page (rules.derived.corrections, through
# rules.builds.booklet): in the PDF, its number linked to the footnote, without the erratum's
# title the page has for screen readers.
_ERRATUM_REF = re.compile(
    r'<a class="erratum-ref" href="([^"]*)"[^>]*>(<sup>\d+</sup>)<span class="visually-hidden">.*?</span></a>'
)


def _erratum_marks_as_numbers(html: str) -> str:
    return _ERRATUM_REF.sub(r'<a href="\1">\2</a>', html) if 'class="erratum-ref"' in html else html


_FRAGMENT_LINK = re.compile(r'href="#([^"]+)"')
_ID = re.compile(r' id="([^"]+)"')


def _entry_places(entry) -> set[str]:
    """The names of an entry's place in the booklet: its anchor and the rule numbers in
    its text (``rules.shared.anchors``; in the PDF, where the entry starts)."""
    return {entry.anchor, *_ID.findall(entry.body_html)} if ' id="' in entry.body_html else {entry.anchor}


def _linked_places(booklet) -> frozenset[str]:
    """The places of the booklet some text of it links to ("#2.1a", "#entry-x", "#fn-3",
    a letter): a named destination each in the PDF. Only those: every entry's would
    make the PDF larger for nothing."""
    texts = [
        html for entry in booklet.entries
        for html in (entry.body_html, *(note.erratum.corrected_html for note in entry.footnotes))
    ]  # fmt: skip
    wanted = {unquote(unescape(name)) for html in texts if 'href="#' in html for name in _FRAGMENT_LINK.findall(html)}
    if not wanted:
        return frozenset()
    places = {part.anchor for part in booklet.parts} if booklet.show_part_titles else set()
    for entry in booklet.entries:
        places |= _entry_places(entry)
        places.update(f"fn-{note.number}" for note in entry.footnotes)
    return frozenset(places & wanted)


def render_pdf(booklet, *, game_name: str, language: str, site_url: str, online_path: str) -> bytes:
    """The booklet as PDF bytes; the labels in the active UI language. ``site_url`` is
    the site's address without a trailing slash ("https://rules.example.org"),
    ``online_path`` the site-relative path of the HTML booklet; nothing else in the PDF
    names an address."""
    from django.utils import translation

    ui_language = translation.get_language()
    online = site_url + online_path
    anchors = _linked_places(booklet)
    trial = _Trial()
    pdf = _new_pdf()
    pdf.set_margins(18, 18, 18)
    pdf.set_auto_page_break(True, margin=20)
    pdf.set_title(f"{booklet.title} · {game_name}")
    pdf.set_lang(language)
    pdf.set_creator("rulesite")
    pdf.set_creation_date(booklet.updated_at or datetime(2000, 1, 1, tzinfo=UTC))

    def html(fragment: str, size: float = BODY_SIZE) -> None:
        pdf.set_font(FAMILY, size=size)
        fragment = absolute_links_at(str(for_ui_language(fragment, language, ui_language)), site_url)
        fragment = for_fpdf(fragment, anchors=anchors, page_url=online)
        fragment = _SPACED.sub(r'<\1 line-height="1.3"\2', fragment)  # fpdf2's own is 1.0
        if trial.lays_out(fragment, size):
            pdf.write_html(fragment, **HTML_OPTIONS)
        else:  # a text fpdf2 cannot lay out (a table in a table) is written as plain text
            pdf.multi_cell(0, size * 0.5, _plain(fragment), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.set_font(FAMILY, size=BODY_SIZE)

    def place(names, page: int, y: float) -> None:
        """Each of ``names`` a link names is where what was written from ``page`` and
        ``y`` starts (the next page's top if it moved there)."""
        if pdf.page != page:
            page, y = pdf.page, pdf.t_margin
        for name in names & anchors:
            pdf.set_link(name=name, page=page, y=y)

    def heading(text: str, level: int, outline_level: int, size: float | None = None) -> None:
        size = size or HEADING_SIZES[min(level, 6)]
        pdf.start_section(text, level=outline_level, strict=False)
        pdf.ln(2)
        pdf.set_font(FAMILY, "B", size)
        pdf.multi_cell(0, size * 0.5, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(1)
        pdf.set_font(FAMILY, size=BODY_SIZE)

    # -- the title page
    pdf.add_page()
    pdf.set_y(80)
    pdf.set_font(FAMILY, size=14)
    pdf.set_text_color(*MUTED)
    pdf.multi_cell(0, 8, game_name, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(0, 0, 0)
    pdf.set_font(FAMILY, "B", 26)
    pdf.multi_cell(0, 13, booklet.title, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(6)
    pdf.set_font(FAMILY, size=11)
    for source in booklet.sources:
        line = source.title + (f", {source.version}" if source.version else "")
        line += f" · {source.attribution}" if source.attribution else ""
        pdf.multi_cell(0, 6, line, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(4)
    pdf.set_font(FAMILY, size=10)
    pdf.set_text_color(*MUTED)
    facts = []
    if booklet.updated_at:
        facts.append(_("As of %(date)s") % {"date": formats.date_format(booklet.updated_at, "DATE_FORMAT")})
    count = len(booklet.entries)
    facts.append(ngettext("%(counter)s entry", "%(counter)s entries", count) % {"counter": count})
    if booklet.footnote_count:
        facts.append(
            ngettext("%(counter)s erratum", "%(counter)s errata", booklet.footnote_count)
            % {"counter": booklet.footnote_count}
        )
    pdf.multi_cell(0, 6, " · ".join(facts), align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.multi_cell(0, 6, f"{_('Read online:')} {online}", align="C", link=online, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(0, 0, 0)

    # -- the contents, filled in with page numbers when the document is complete
    def contents(pdf: FPDF, outline) -> None:
        pdf.set_xy(pdf.l_margin, pdf.t_margin)
        pdf.set_font(FAMILY, "B", HEADING_SIZES[2])
        pdf.multi_cell(0, 9, _("Contents"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(2)
        pdf.set_font(FAMILY, size=9.5)
        _contents(pdf, outline)

    pdf.add_page()
    pdf.insert_toc_placeholder(contents, pages=1, allow_extra_pages=True)

    # -- the entries
    pdf.set_font(FAMILY, size=BODY_SIZE)
    top_level = 1 if booklet.show_part_titles else 0
    for part in booklet.parts:
        if booklet.show_part_titles:
            if booklet.kind == "rules" and pdf.get_y() > pdf.t_margin + 1:
                pdf.add_page()
            page, y = pdf.page, pdf.get_y()
            heading(part.title, 2, 0, size=17)
            place({part.anchor}, page, y)
        for entry in part.entries:
            marks = "".join(_superscript(note.number) for note in entry.footnotes)
            title = f"{entry.number}. {entry.title}" if entry.number else entry.title
            page, y = pdf.page, pdf.get_y()
            heading(title + marks, entry.level, top_level + entry.depth)
            if anchors:
                place(_entry_places(entry), page, y)
            if entry.aliases:
                pdf.set_font(FAMILY, "I", 9.5)
                pdf.set_text_color(*MUTED)
                also_called = f"{_('Also called:')} {', '.join(map(str, entry.aliases))}"
                pdf.multi_cell(0, 5, also_called, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
                pdf.set_text_color(0, 0, 0)
            if entry.body_html:
                html(_erratum_marks_as_numbers(entry.body_html))
            if entry.footnotes:
                pdf.ln(1)
                pdf.set_draw_color(180, 180, 180)
                pdf.line(pdf.l_margin, pdf.get_y(), pdf.l_margin + 50, pdf.get_y())
                pdf.ln(1.5)
                pdf.set_font(FAMILY, "B", 8.5)
                pdf.multi_cell(0, 5, _("Errata"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
                for note in entry.footnotes:
                    erratum = note.erratum
                    if anchors:
                        place({f"fn-{note.number}"}, pdf.page, pdf.get_y())
                    # The corrected text: fpdf2 draws a word diff's strike-through past its end.
                    html(
                        f"<p><b>{note.number}. {_escape(erratum.title)}</b> ({_escape(erratum.get_kind_display())})</p>"
                        f"{erratum.corrected_html}",
                        size=9,
                    )
            pdf.ln(2)
    return bytes(pdf.output())


def _contents(pdf: FPDF, outline) -> None:
    """Each outline entry with dot leaders and its page number, linked to its page.

    (fpdf2's ``TableOfContents`` grows its leaders a dot at a time, measuring each: most
    of the time of a 600-entry glossary.)"""
    height = pdf.font_size * 1.35
    dot = pdf.get_string_width(".")
    for item in outline:
        if item.page_number <= pdf.toc_placeholder.start_page:
            continue
        link = pdf.add_link(page=item.page_number)
        label = pdf.pages[item.page_number].get_label()
        indent = item.level * 6
        label_width = pdf.get_string_width(label) + 1
        room = pdf.epw - indent - label_width - 2
        pdf.set_x(pdf.l_margin + indent)
        width = pdf.get_string_width(item.name)
        if width <= room:
            pdf.cell(width, height, item.name, link=link)
            pdf.cell(room - width + 2, height, "." * max(int((room - width - 1) / dot), 0), align="R", link=link)
        else:  # a long title wraps; its page number on its last line
            pdf.multi_cell(room, height, item.name, new_x=XPos.RIGHT, new_y=YPos.LAST, link=link)
            pdf.set_x(pdf.l_margin + pdf.epw - label_width)
        pdf.cell(label_width, height, label, align="R", link=link, new_x=XPos.LMARGIN, new_y=YPos.NEXT)


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _superscript(number: int) -> str:
    return str(number).translate(_SUPERSCRIPT)


def _escape(text: str) -> str:
    from html import escape

    return escape(str(text))
