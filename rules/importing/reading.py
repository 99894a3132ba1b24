"""Bytes to text: detect the format and encoding, refuse what is not a document.

``read_document(data, language, filename)`` is the importer's only entry point for
uploaded bytes. It returns a ``Document`` (text plus format) or raises ImportRulesError
with a message a moderator can act on. No other exception escapes, whatever the bytes.

Order of decisions
------------------
1. Empty or whitespace only: "the document is empty".
2. Known binary formats, recognised by their magic bytes (PNG, JPEG, GIF, ZIP, that is
   .docx or .odt, gzip, old MS Office, RTF). The error names what the file looks like.
3. PDF: ``%PDF-`` within the first 1024 bytes (the PDF specification allows some junk
   before the header). The text comes from ``pdf.extract_pdf_text``.
4. Otherwise the bytes are text in some encoding (see below). NUL bytes or a high share
   of control characters mean "binary, not text".
5. The decoded text is JSON if it starts with ``{``. It must then be a rulesite export
   (``"format": "rulesite-export"``). It is Markdown if the file name ends in .md or
   .markdown, or if it has at least two ATX heading lines (``# `` … ``###### ``).
   Anything else is plain text.

Encodings
---------
A BOM decides: UTF-8, UTF-16 or UTF-32. UTF-16 without a BOM is recognised by its NUL
bytes in alternate positions. Otherwise, UTF-8 that decodes strictly is taken without
further checks. Legacy single-byte text almost never happens to be valid UTF-8, so this
is safe, and a 6 MB UTF-8 file costs one decode and no word lookups.

Text that is not UTF-8 is harder, because the legacy encodings cannot be told apart by
validity. ISO-8859-2 decodes every byte. Windows-1252 and Windows-1250 decode nearly
every byte. The same Polish bytes give "Świątynia" in Windows-1250, "\\x8cwištynia" in
ISO-8859-2 and "Œwi¹tynia" in Windows-1252: all of them "valid", only one of them right.
Windows-1250 and ISO-8859-2 differ in exactly the letters ą ś ź Ą Ś Ź. So the candidates
(Windows-1250, Windows-1252, ISO-8859-2) are judged by what a reader would judge by.
Which decoding turns the most words into real, common words of the document's language
(``vocabulary.zipf``)? Each word scores its Zipf frequency, not just a yes or no,
because wordfreq's lists contain frequent mojibake as well ("siê" for "się"), though
much rarer than the real word. A word with a symbol inside ("by³", "MÃ¼nchen") counts
against its candidate, and so does each C1 control character (U+0080–U+009F, which a
real text never contains) and each replacement character. Only words with non-ASCII
letters can tell the candidates apart, so only they are scored: a sample of at most a
few thousand distinct ones, taken from the bytes once and decoded by each candidate. If
even the best candidate makes few of them real words, the moderator may have chosen the
wrong language, and the words of every language the vocabulary knows count. A tie (no
telling words) goes to the encoding usual for the language: Windows-1250 for Polish,
Windows-1252 otherwise.

Mixed files (lines in UTF-8 and lines in a legacy encoding, as when a paragraph in
Windows-1250 was pasted into a UTF-8 file) are read line by line, never as a whole in
one encoding: that would turn every line of the other encoding into mojibake
("ZaĹĽĂłĹ‚Ä‡" for "Zażółć"). The legacy encoding is chosen as above, from the words
of the lines that are not UTF-8 only. Each line is then read in UTF-8 when it is valid
UTF-8, unless its legacy reading makes more real words (legacy text can happen to be
valid UTF-8: Windows-1250 "STÓŁ" is the UTF-8 bytes of "STӣ"); a line that is not
valid UTF-8 is read in the legacy encoding, or with its valid UTF-8 runs kept as UTF-8
when that makes more real words (a line that mixes both). When a document has lines of
both kinds, every line read in the minority encoding is reported as a repair with its
line number, what a single encoding would have made of it and what it became, so a
moderator can check it. A file with no UTF-8 line is a legacy file: nothing to report
(and one with no UTF-8 byte sequence at all is decoded at once, not line by line).

Every line must decode cleanly, with no C1 control and no replacement character.
Otherwise the error names the first line with a byte no candidate can read. Guessing
in silence would put garbage into published entries.

Mojibake already in the text
----------------------------
Text that was valid UTF-8 once and was then read in the wrong encoding and saved again
is valid UTF-8 full of "Ã©" and "Ĺ‚". ftfy recognises those sequences (UTF-8 read as
Windows-1250, Windows-1252, Latin-1 and others) and undoes them; it was made for this
and is conservative: real text in any of the site's languages is left alone (tested
byte for byte). Each line it changes is reported as a repair with its line number.
A line ftfy can only partly repair (it would hold a replacement character) is refused,
naming the line. The canonical JSON is exempt: it holds stored texts exactly, and an
export must import back byte for byte.

Normalisation
-------------
``\\r\\n`` and ``\\r`` (and vertical tab, U+2028, U+2029) become ``\\n``. A form feed
becomes a line of its own (``"\\n\\f\\n"``), the same shape as a PDF page break, so
cleaning treats a text file's pages like a PDF's. Other C0 control characters are
dropped: they are invisible, and some databases refuse NUL. The text is NFC-normalised,
so that "ą" is one code point however it was typed. Private-use characters (PDF
ligature glyphs) are kept for cleaning to repair.
"""

import codecs
import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import ftfy
from ftfy.badness import is_bad

from .errors import ImportRulesError
from .report import Repair
from .vocabulary import KNOWN_LANGUAGES, zipf

FORMATS = ("text", "markdown", "pdf", "json")
MARKDOWN_SUFFIXES = (".md", ".markdown")
JSON_FORMAT = "rulesite-export"


@dataclass
class Document:
    text: str  # decoded, NFC, "\n" line ends; page breaks are lines holding only "\f"
    format: str  # text | markdown | pdf | json
    # Lines read in another encoding than the rest, and mojibake undone (module docstring).
    repairs: list[Repair] = field(default_factory=list)


def read_document(data: bytes, language: str, filename: str | None = None) -> Document:
    """Detect what ``data`` is and return its text. Raises ImportRulesError otherwise.

    ``language`` is the document's content language ("en", "de", "pl", "nl" ...). It is
    used only to choose among legacy encodings. ``filename``, if given, marks Markdown
    (.md, .markdown) and lets a file named .pdf or .json be checked against its content.
    """
    data = _as_bytes(data)
    name = (filename or "").strip().lower()
    _refuse_empty(data)
    _refuse_known_binary(data)
    if is_pdf(data):
        from .pdf import extract_pdf_text

        return Document(normalise(extract_pdf_text(data)), "pdf")
    if name.endswith(".pdf"):
        raise ImportRulesError(
            "the file is named .pdf but is not a PDF (it has no %PDF- header): "
            "it may be a web page saved under the wrong name, or an incomplete download"
        )

    text, repairs = decode_text_reporting(data, language)
    if text.lstrip().startswith("{"):
        text = normalise(text)
        check_rulesite_json(text)
        return Document(text, "json", repairs)
    # Not JSON: undo mojibake already in the text (the JSON holds stored texts exactly).
    text = normalise(_undo_mojibake(text, repairs))
    if not text.strip():
        raise ImportRulesError("the document is empty")
    if name.endswith(".json"):
        raise ImportRulesError(
            "the file is named .json but is not a JSON object (it does not start with {)"
        )
    if name.endswith(MARKDOWN_SUFFIXES) or looks_like_markdown(text):
        return Document(text, "markdown", repairs)
    return Document(text, "text", repairs)


def decode(data: bytes, language: str = "en") -> str:
    """Bytes of a text document to normalised text (no PDF, no format detection)."""
    data = _as_bytes(data)
    _refuse_empty(data)
    _refuse_known_binary(data)
    if is_pdf(data):
        raise ImportRulesError("the document is a PDF; use read_document() to extract its text")
    text, repairs = decode_text_reporting(data, language)
    text = normalise(_undo_mojibake(text, repairs))
    if not text.strip():
        raise ImportRulesError("the document is empty")
    return text


# --- not a document ------------------------------------------------------------------

# Magic bytes → what to tell the moderator.
_IMAGE = "not a text document: import the document's text or PDF instead"
SIGNATURES = [
    (b"\x89PNG\r\n\x1a\n", f"a PNG image, {_IMAGE}"),
    (b"\xff\xd8\xff", f"a JPEG image, {_IMAGE}"),
    (b"GIF87a", f"a GIF image, {_IMAGE}"),
    (b"GIF89a", f"a GIF image, {_IMAGE}"),
    (b"PK\x03\x04", "a ZIP archive, e.g. a .docx or .odt: save it as text or PDF first"),
    (b"PK\x05\x06", "a ZIP archive, e.g. a .docx or .odt: save it as text or PDF first"),
    (b"\x1f\x8b", "a gzip-compressed file: unpack it first"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an old Microsoft Office file (e.g. a .doc): save it as text or PDF first",
    ),
    (b"{\\rtf", "an RTF document: save it as plain text or PDF first"),
]
# C0 controls that never occur in text (tab, line feed, vertical tab, form feed and
# carriage return do), and DEL.
BINARY_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])
BINARY_SHARE = 0.05  # of the first 8 KB
SNIFF = 8192


def _as_bytes(data) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    raise ImportRulesError(f"the document must be bytes or text, not {type(data).__name__}")


def _refuse_empty(data: bytes) -> None:
    if not data.strip():
        raise ImportRulesError("the document is empty")


def _refuse_known_binary(data: bytes) -> None:
    head = data[:64].lstrip()  # text formats (RTF) may follow whitespace; binary ones don't
    for magic, what in SIGNATURES:
        if data.startswith(magic) or (magic.isascii() and head.startswith(magic)):
            raise ImportRulesError(f"the document is {what}")


def is_pdf(data: bytes) -> bool:
    return b"%PDF-" in data[:1024]


def _refuse_binary_bytes(data: bytes) -> None:
    """NUL bytes anywhere, or many control bytes near the start: not a text file."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ImportRulesError(
            "the document is binary, not text (it contains NUL bytes)", line=_line_of(data, nul)
        )
    head = data[:SNIFF]
    controls = len(head) - len(head.translate(None, BINARY_CONTROLS))
    if controls > BINARY_SHARE * len(head):
        raise ImportRulesError(
            f"the document is binary, not text ({controls} of its first {len(head)} bytes "
            "are control characters)"
        )


def _refuse_binary_text(text: str) -> None:
    """The same test on decoded text (for UTF-16/32, where the bytes hold NULs by design)."""
    head = text[:SNIFF]
    controls = sum(
        1 for ch in head if (ch < " " and ch not in "\t\n\v\f\r") or "\x7f" <= ch <= "\x9f"
    )
    if "\x00" in text or controls > BINARY_SHARE * len(head):
        raise ImportRulesError(
            "the document is binary, not text (it decodes to control characters)"
        )


def _line_of(data: bytes, offset: int) -> int:
    """1-based line of a byte offset; \\r\\n, \\r and \\n each end a line."""
    before = data[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


# --- encodings -----------------------------------------------------------------------

BOMS = [  # longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "utf-32", "UTF-32"),
    (b"\x00\x00\xfe\xff", "utf-32", "UTF-32"),
    (b"\xef\xbb\xbf", "utf-8-sig", "UTF-8"),
    (b"\xff\xfe", "utf-16", "UTF-16"),
    (b"\xfe\xff", "utf-16", "UTF-16"),
]
LEGACY = {"cp1250": "Windows-1250", "cp1252": "Windows-1252", "iso-8859-2": "ISO-8859-2"}
PREFERENCE = {  # tie-breaks: the encoding a Windows user in that language would produce
    "pl": ["cp1250", "iso-8859-2", "cp1252"],
}
DEFAULT_PREFERENCE = ["cp1252", "cp1250", "iso-8859-2"]
# A run of letters and non-ASCII bytes that holds at least one non-ASCII byte: the only
# words whose decoding differs between candidates.
TELLING_TOKEN = re.compile(rb"[A-Za-z\x80-\xff]*[\x80-\xff][A-Za-z\x80-\xff]*")
BAD = re.compile("[\x80-\x9f\ufffd]")  # C1 controls and the replacement character
SAMPLE_WORDS = 3000  # distinct tokens
SAMPLE_OCCURRENCES = 30_000
SAMPLE_TOKEN_LENGTH = 64  # bytes; longer runs are not words
# In Zipf units: a real word scores 3 (rare) to 7 (very common).
BAD_PENALTY = 3.0  # per C1 control or replacement character
UNREAL_PENALTY = 1.0  # per non-ASCII word that is no word: "GrÃ¼ÃŸe" is UTF-8 read as cp1252
MIN_REAL_SHARE = 0.3


def decode_text(data: bytes, language: str) -> str:
    """Decode a text file's bytes; raises ImportRulesError when no encoding reads it."""
    return decode_text_reporting(data, language)[0]


def decode_text_reporting(data: bytes, language: str) -> tuple[str, list[Repair]]:
    """``decode_text``, with a repair for each line read in another encoding than the
    rest of a mixed file. The text is not yet normalised (line ends as in the file)."""
    for bom, codec, label in BOMS:
        if data.startswith(bom):
            return _decode_unicode(data, codec, label), []
    utf16 = _utf16_without_bom(data)
    if utf16:
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError:
            pass
        else:
            _refuse_binary_text(text)
            return text, []

    _refuse_binary_bytes(data)
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        return _decode_legacy(data, language)


def _decode_unicode(data: bytes, codec: str, label: str) -> str:
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as error:
        line = _unicode_line(error, codec)
        raise ImportRulesError(
            f"the document starts with a {label} byte-order mark but is not valid {label}: "
            f"re-save it as UTF-8",
            line=line,
        ) from error
    if codec == "utf-8-sig":
        _refuse_binary_bytes(data)
    else:
        _refuse_binary_text(text)
    return text


def _unicode_line(error: UnicodeDecodeError, codec: str) -> int:
    prefix = error.object[: error.start]  # what the codec saw, which for utf-8-sig lacks the BOM
    unit = {"utf-16": 2, "utf-32": 4}.get(codec, 1)
    prefix = prefix[: len(prefix) - len(prefix) % unit]
    text = prefix.decode(codec, errors="replace")
    return text.count("\n") + text.count("\r") - text.count("\r\n") + 1


def _utf16_without_bom(data: bytes) -> str | None:
    """"utf-16-le"/"utf-16-be" when NUL bytes fill every other position, as in Latin text."""
    head = data[: SNIFF - SNIFF % 2]
    if len(head) < 4 or len(data) % 2:
        return None
    even, odd = head[0::2], head[1::2]
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul > 0.3 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.3 and odd_nul < 0.05:
        return "utf-16-be"
    return None


def _decode_legacy(data: bytes, language: str) -> tuple[str, list[Repair]]:
    """Text that is not UTF-8 throughout, read line by line (module docstring)."""
    if not UTF8_SEQUENCE.search(data):
        # No UTF-8 sequence anywhere, so no line is UTF-8: a legacy file, read at once.
        codec, _ = _legacy_codec(data, language)
        text = data.decode(codec, errors="replace")
        bad = BAD.search(text)
        if bad is None:
            return text, []
        line = _line_of(data, bad.start())  # single-byte encodings: character = byte offset
        raw = data.splitlines()[line - 1]
        raise ImportRulesError(_unreadable(codec, _first_unreadable(raw, codec)), line=line)
    lines = data.splitlines(keepends=True)  # \n, \r and \r\n, as _line_of counts them
    utf8: dict[int, str] = {}  # index → text, for lines with non-ASCII bytes
    not_utf8: list[int] = []
    for index, raw in enumerate(lines):
        if raw.isascii():
            continue
        try:
            utf8[index] = raw.decode("utf-8")
        except UnicodeDecodeError:
            not_utf8.append(index)

    codec, languages = _legacy_codec(b"".join(lines[index] for index in not_utf8), language)
    chosen: dict[int, tuple[str, str]] = {}  # index → (text, "utf-8" | codec)
    for index, text in utf8.items():
        legacy = lines[index].decode(codec, errors="replace")
        # Legacy text that happens to be valid UTF-8 reads better in its legacy encoding;
        # real UTF-8 read that way is mojibake, which ftfy's heuristics recognise.
        better = _line_score(legacy, languages) > _line_score(text, languages)
        plausible = not BAD.search(legacy) and not is_bad(legacy)
        chosen[index] = (legacy, codec) if better and plausible else (text, "utf-8")
    for index in not_utf8:
        raw = lines[index]
        legacy = raw.decode(codec, errors="replace")
        both = raw.decode("utf-8", errors=_FALLBACK[codec]) if UTF8_SEQUENCE.search(raw) else legacy
        if both != legacy and _line_score(both, languages) > _line_score(legacy, languages):
            chosen[index] = (both, "both")  # valid UTF-8 runs kept, the rest legacy
        else:
            chosen[index] = (legacy, codec)
        if BAD.search(chosen[index][0]) is not None:
            raise ImportRulesError(
                _unreadable(codec, _first_unreadable(raw, codec)), line=index + 1
            )

    read_as = Counter(how for _, how in chosen.values())
    repairs = []
    if read_as["utf-8"] or read_as["both"]:  # a mixed file: report each line of the minority
        majority = "utf-8" if read_as["utf-8"] >= read_as[codec] else codec
        notes = {
            codec: f"line not in UTF-8 like the rest of the file: read as {LEGACY[codec]}",
            "utf-8": f"line in UTF-8 in a {LEGACY[codec]} file: read as UTF-8",
            "both": f"line partly in UTF-8, partly in {LEGACY[codec]}: each part read as such",
        }
        for index in sorted(chosen):
            text, how = chosen[index]
            if how != majority:
                single = "utf-8" if majority == "utf-8" else codec
                repairs.append(
                    Repair(
                        _without_line_end(lines[index].decode(single, errors="replace")),
                        _without_line_end(text),
                        line=index + 1,
                        note=notes[how],
                    )
                )
    text = "".join(
        chosen[index][0] if index in chosen else raw.decode("ascii")
        for index, raw in enumerate(lines)
    )
    return text, repairs


# A valid UTF-8 multi-byte sequence: a line without one reads the same in "UTF-8 where
# valid, else legacy" as in the legacy encoding alone.
UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)


def _legacy_codec(sample_bytes: bytes, language: str) -> tuple[str, list[str]]:
    """The legacy encoding the words of ``sample_bytes`` are in, and the languages
    whose words decided it."""
    sample = _telling_tokens(sample_bytes)
    order = PREFERENCE.get(language, DEFAULT_PREFERENCE)
    best, conclusive = _best(sample, order, [language])
    if conclusive:
        return best, [language]
    # Hardly any telling word is a word of the stated language: perhaps the moderator
    # chose the wrong language. Count words of any language the vocabulary knows.
    best, _ = _best(sample, order, KNOWN_LANGUAGES)
    return best, KNOWN_LANGUAGES


def _fallback_handler(codec: str):
    def handler(error: UnicodeDecodeError):
        return error.object[error.start : error.end].decode(codec, errors="replace"), error.end

    return handler


# "utf-8 where valid, else the legacy codec" as a decoding error handler, per codec.
_FALLBACK = {}
for _codec in LEGACY:
    _FALLBACK[_codec] = f"rulesite-utf8-else-{_codec}"
    codecs.register_error(_FALLBACK[_codec], _fallback_handler(_codec))


def _unreadable(codec: str, byte: int) -> str:
    return (
        "the document is not UTF-8, and no other encoding the importer knows "
        f"({', '.join(LEGACY.values())}) reads this line cleanly: in the closest, "
        f"{LEGACY[codec]}, the byte 0x{byte:02X} is not a character. Re-save the file as UTF-8"
    )


def _first_unreadable(raw: bytes, codec: str) -> int:
    for byte in raw:
        if BAD.search(bytes([byte]).decode(codec, errors="replace")):
            return byte
    return raw[0]


def _without_line_end(text: str) -> str:
    return text.rstrip("\r\n")


def _line_score(text: str, languages: list[str]) -> float:
    """How much a decoded line reads like the language: see ``_score``."""
    score = -BAD_PENALTY * len(BAD.findall(text))
    for word in (piece for chunk in text.split() for piece in _pieces(chunk)):
        if len(word) < 2 or word.isascii():
            continue
        frequency = _frequency(word, languages)
        score += frequency if frequency > 0 else -UNREAL_PENALTY
    return score


def _telling_tokens(data: bytes) -> Counter:
    """Up to SAMPLE_WORDS distinct tokens with non-ASCII bytes, with their counts.

    Taken from the start of the document, and at most SAMPLE_OCCURRENCES of them, so that
    a large file costs no more than a small one.
    """
    tokens: Counter = Counter()
    for seen, match in enumerate(TELLING_TOKEN.finditer(data)):
        token = match.group()
        if seen >= SAMPLE_OCCURRENCES or (token not in tokens and len(tokens) >= SAMPLE_WORDS):
            break
        if len(token) <= SAMPLE_TOKEN_LENGTH:
            tokens[token] += 1
    return tokens


def _best(sample: Counter, order: list[str], languages: list[str]) -> tuple[str, bool]:
    """The best-scoring codec (ties go to the earlier in ``order``) and whether it is
    conclusive. It is not when the sample has telling words but even the best decoding
    makes fewer than MIN_REAL_SHARE of them real words: the scores then say little.
    """
    scores = {codec: _score(sample, codec, languages) for codec in order}
    best = max(order, key=lambda codec: (scores[codec][0], -order.index(codec)))
    _, real, words = scores[best]
    return best, not (words >= 5 and real < MIN_REAL_SHARE * words)


def _score(sample: Counter, codec: str, languages: list[str]) -> tuple[float, int, int]:
    """(score, real words, words with non-ASCII characters), counting occurrences.

    Each token is decoded and split at punctuation and spaces. A piece of two or more
    characters with a non-ASCII one is a word. It scores its Zipf frequency if it is all
    letters and the vocabulary knows it. Frequency, not a yes/no, because wordfreq's
    lists hold common mojibake too: "siê" (się read as Windows-1252) has Zipf 3.6, "się"
    has 7. A symbol inside a word ("by³" for "był", "MÃ¼nchen" for "München") makes it
    unreal: minus UNREAL_PENALTY. Each C1 control or replacement character costs
    BAD_PENALTY.
    """
    score, real_total, word_total = 0.0, 0, 0
    for token, count in sample.items():
        text = token.decode(codec, errors="replace")
        token_score = -BAD_PENALTY * len(BAD.findall(text))
        for word in _pieces(text):
            if len(word) < 2 or word.isascii():
                continue
            frequency = _frequency(word, languages)
            word_total += count
            if frequency > 0:
                real_total += count
                token_score += frequency
            else:
                token_score -= UNREAL_PENALTY
        score += count * token_score
    return score, real_total, word_total


def _pieces(text: str) -> list[str]:
    pieces, current = [], []
    for char in text:
        if unicodedata.category(char)[0] in "PZ":
            if current:
                pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        pieces.append("".join(current))
    return pieces


def _frequency(word: str, languages: list[str]) -> float:
    if not word.isalpha():
        return 0.0
    word = word.lower()
    return max(zipf(word, language) for language in languages)
# --- mojibake already in the text -------------------------------------------------------

LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def _mojibake_shapes() -> list[re.Pattern]:
    """What UTF-8 read in a single-byte encoding must contain: the character of a lead
    byte followed by that of a continuation byte, in one of the encodings ftfy undoes
    (one pattern per encoding). A necessary condition only (ftfy's heuristics then
    decide), but ten simple regex scans cost less than a tenth of ftfy's on clean text.
    """
    import ftfy.bad_codecs  # noqa: F401 - registers the "sloppy-windows-…" codecs
    from ftfy.chardata import CHARMAP_ENCODINGS

    def chars(encoding: str, first: int, last: int) -> str:
        decoded = bytes(range(first, last + 1)).decode(encoding, errors="ignore")
        return re.escape("".join(sorted(set(decoded))))

    return [
        re.compile(f"[{chars(encoding, 0xC2, 0xF4)}][{chars(encoding, 0x80, 0xBF)}]")
        for encoding in CHARMAP_ENCODINGS
    ]


MOJIBAKE_SHAPES = _mojibake_shapes()


def _may_be_mojibake(text: str) -> bool:
    return any(shape.search(text) for shape in MOJIBAKE_SHAPES)


def _undo_mojibake(text: str, repairs: list[Repair]) -> str:
    """Undo UTF-8 that was once read in a legacy encoding, line by line, with ftfy;
    each changed line is reported (module docstring). Clean text costs one regex scan."""
    if text.isascii() or not _may_be_mojibake(text):
        return text
    out = []
    for number, match in enumerate(LINE.finditer(text), start=1):
        line = match.group()
        if not line:
            break
        if not line.isascii() and _may_be_mojibake(line) and is_bad(line):
            body = _without_line_end(line)
            fixed = ftfy.fix_encoding(body)
            if fixed != body:
                if "\ufffd" in fixed and "\ufffd" not in body:
                    raise ImportRulesError(
                        "this line holds mojibake (text in UTF-8 once read in another "
                        "encoding) that cannot be fully undone: retype it or take it from "
                        "the original document",
                        line=number,
                    )
                repairs.append(
                    Repair(
                        body,
                        fixed,
                        line=number,
                        note="mojibake: UTF-8 once read in another encoding, undone",
                    )
                )
                line = fixed + line[len(body) :]
        out.append(line)
    return "".join(out)


# --- normalisation -------------------------------------------------------------------

LINE_BREAKS = re.compile("\r\n|[\r\v\u2028\u2029]")
# Controls, and lone surrogates (a PDF may hold them).
DROPPED_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f\ud800-\udfff]")


def normalise(text: str) -> str:
    """\\n line ends, each form feed on a line of its own, no stray C0 controls, NFC."""
    text = LINE_BREAKS.sub("\n", text)
    text = DROPPED_CONTROLS.sub("", text)
    if "\f" in text:
        text = _form_feed_lines(text)
    return unicodedata.normalize("NFC", text)


def _form_feed_lines(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        if "\f" not in line or line == "\f":
            lines.append(line)
            continue
        parts = line.split("\f")
        for index, part in enumerate(parts):
            if index:
                lines.append("\f")
            if part.strip():
                lines.append(part)
    return "\n".join(lines)


# --- formats -------------------------------------------------------------------------

ATX_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)


def looks_like_markdown(text: str) -> bool:
    """At least two ATX heading lines ("# Title", "## Section" ...)."""
    matches = ATX_HEADING.finditer(text)
    return next(matches, None) is not None and next(matches, None) is not None


def check_rulesite_json(text: str) -> dict:
    """Parse JSON; it must be an object with "format": "rulesite-export"."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ImportRulesError(
            f"the document starts with {{ but is not valid JSON: {error.msg} "
            f"(column {error.colno})",
            line=error.lineno,
        ) from error
    except RecursionError as error:
        raise ImportRulesError("the document is JSON nested too deeply to read") from error
    if not isinstance(value, dict) or value.get("format") != JSON_FORMAT:
        found = value.get("format") if isinstance(value, dict) else None
        detail = f' (its "format" is {json.dumps(found)[:60]})' if found is not None else ""
        raise ImportRulesError(
            "the document is JSON but not a rulesite export: a rulesite export has "
            f'"format": "{JSON_FORMAT}"{detail}'
        )
    return value
