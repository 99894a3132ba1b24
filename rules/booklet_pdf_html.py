"""Stored HTML made into HTML fpdf2 writes without failing, for the PDF booklets.

Decisions:

- **Code is in DejaVu Sans Mono**; a run of characters it lacks that DejaVu Sans has
  (★, ①) is wrapped in ``<font face="dejavu">`` inside code, so it is drawn, not missing.
"""

import re

from .pdf_fonts import MONO, SANS, missing

_CODE = re.compile(r"<(code|pre)>(.*?)</\1>", re.DOTALL)


def for_fpdf(html: str) -> str:
    """Stored (sanitised) HTML as fpdf2 writes it: see the module's decisions."""
    if "<code>" in html or "<pre>" in html:
        html = _CODE.sub(_code_in_fonts, html)
    return html


def _code_in_fonts(match: re.Match) -> str:
    """A code span or block with the runs of characters the code font lacks in the text font."""
    lacking = missing(MONO)
    body = match.group(2)
    if not lacking.search(body):
        return match.group(0)
    body = lacking.sub(lambda run: f'<font face="{SANS}">{run.group()}</font>', body)
    return f"<{match.group(1)}>{body}</{match.group(1)}>"
