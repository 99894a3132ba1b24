"""PDF bytes to text, page by page, with pypdf.

Pages are joined as ``"\\n\\f\\n".join(pages)``: every page break is a line that holds
only a form feed. Cleaning relies on that line. It is how cleaning finds running headers
and footers (the lines at the top and bottom of each page) and knows that a paragraph
cut off at the bottom of one page goes on at the top of the next. Text files that
contain form feeds are normalised to the same shape in ``reading.py``.

The text is returned as pypdf extracts it. Private-use characters, which some fonts
use for ligature glyphs, are kept as they are, because cleaning
(``ligatures.repair_ligatures``) infers what they stand for from the whole document.
Dropping them here would lose that information.

Every failure becomes an ImportRulesError that says what is wrong: a password, damage
(with the page number when a single page fails), or no text layer at all (a scan).
pypdf's documentation warns that broken files can raise exceptions other than its own
(KeyError, IndexError, RecursionError ...). So any exception raised while reading counts
as "the PDF cannot be read", not as a bug. In its lenient mode pypdf does not raise for a
page whose content stream is damaged. It logs the problem and returns no text for that
page. So pypdf's log is watched while each page is extracted, and an empty page with a
logged problem is an error that names the page. Otherwise a page would go missing from
the import without anyone noticing. A page whose text comes out mostly as U+FFFD (fonts
without a Unicode map) is refused for the same reason.

Encryption: a PDF with only an owner password opens with the empty password. Decrypting
AES needs the optional ``cryptography`` package. If it is missing, the error says so.
"""

import io
import logging
import threading
from contextlib import contextmanager

from .errors import ImportRulesError

PAGE_BREAK = "\n\f\n"
# A page whose text is at least this share of U+FFFD has fonts without a Unicode map.
UNDECODABLE_SHARE = 0.3


def extract_pdf_text(data: bytes) -> str:
    """Return the text of every page, pages joined by a line holding only "\\f".

    Raises ImportRulesError if the PDF cannot be opened, needs a password, has a page that
    cannot be read, or has no text at all.
    """
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            _decrypt(reader)
        pages = list(reader.pages)
    except ImportRulesError:
        raise
    except DependencyError as error:
        raise _aes_error(error) from error
    except Exception as error:
        raise ImportRulesError(f"the PDF cannot be read: {_describe(error, data)}") from error
    if not pages:
        raise ImportRulesError("the PDF has no pages")

    texts = []
    for number, page in enumerate(pages, start=1):
        where = f"page {number} of {len(pages)}"
        try:
            with _pypdf_problems() as problems:
                text = page.extract_text() or ""
        except DependencyError as error:
            raise _aes_error(error) from error
        except Exception as error:
            raise ImportRulesError(
                f"the PDF cannot be read: {where} is damaged ({_describe(error, data)})"
            ) from error
        if not text.strip() and problems:
            # pypdf (strict=False) logs a damaged page and returns no text for it; a page
            # silently missing from the import would be worse than an error.
            raise ImportRulesError(f"the PDF cannot be read: {where} is damaged ({problems[0]})")
        visible = "".join(text.split())
        if len(visible) >= 10 and visible.count("\ufffd") >= UNDECODABLE_SHARE * len(visible):
            raise ImportRulesError(
                f"the PDF's text on {where} cannot be decoded (its fonts do not say which "
                "letters their glyphs are). Run text recognition (OCR) on it, or import a "
                "text version of the document"
            )
        texts.append(text.strip("\n"))

    if not any(text.strip() for text in texts):
        pages_hold = "its one page holds" if len(pages) == 1 else f"its {len(pages)} pages hold"
        raise ImportRulesError(
            f"the PDF has no text layer: {pages_hold} only images (probably a scan). Run text "
            "recognition (OCR) on it first, or import a text version of the document"
        )
    return PAGE_BREAK.join(texts)


class _Problems(logging.Handler):
    """Collects what pypdf logs (warnings and errors) in this thread."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            try:
                self.messages.append(record.getMessage())
            except Exception:
                self.messages.append(str(record.msg))


@contextmanager
def _pypdf_problems():
    handler = _Problems()
    logger = logging.getLogger("pypdf")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def _decrypt(reader) -> None:
    """Open an encrypted PDF with the empty password.

    Many published PDFs have only an owner password, which restricts printing or editing,
    and open for reading with the empty password.
    """
    from pypdf import PasswordType

    if reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise ImportRulesError(
            "the PDF is password-protected: open it with its password and save or print it "
            "as a PDF without one, then import that"
        )


def _aes_error(error: Exception) -> ImportRulesError:
    return ImportRulesError(
        "the PDF is encrypted with AES, and reading it needs the Python package "
        f"'cryptography', which is not installed ({error}). Ask an administrator to install "
        "it, or print the PDF to a new, unencrypted PDF and import that"
    )


def _describe(error: Exception, data: bytes) -> str:
    detail = str(error).strip() or type(error).__name__
    if isinstance(error, KeyError | IndexError | TypeError | AttributeError | ValueError):
        detail = f"its internal structure is broken ({type(error).__name__}: {detail})"
    if isinstance(error, RecursionError):
        detail = "its internal structure is nested too deeply or refers to itself"
    if b"%%EOF" not in data[-2048:]:
        return (
            "the file looks truncated (it does not end with %%EOF; was the download "
            f"complete?): {detail}"
        )
    return detail
