"""Bytes to text: detect the format and encoding, refuse what is not a document."""

import unicodedata
from dataclasses import dataclass

from .errors import ImportRulesError


@dataclass
class Document:
    text: str  # decoded, NFC, "\n" line ends; PDF pages separated by "\f"
    format: str  # text | markdown | pdf | json


def read_document(data: bytes, language: str, filename: str | None = None) -> Document:
    """Detect what ``data`` is and return its text. Raises ImportRulesError otherwise."""
    return Document(decode(data), "text")

# Tried in order after UTF-8. cp1250 (Central European, Polish) before cp1252 (Western):
# a Polish text decodes "validly" as cp1252 too, but into letters Polish does not use.
FALLBACK_ENCODINGS = ["cp1250", "cp1252", "iso-8859-2"]
_POLISH_MARKERS = set("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ")


def decode(data: bytes) -> str:
    if not data or not data.strip():
        raise ImportRulesError("the document is empty")
    if b"\x00" in data[:4096]:
        raise ImportRulesError("the document is binary, not text (it contains NUL bytes)")
    if data.startswith(b"%PDF"):
        raise ImportRulesError("the document is a PDF; extract its text first")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        text = _decode_legacy(data, error)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def _decode_legacy(data: bytes, utf8_error: UnicodeDecodeError) -> str:
    decoded = {}
    for encoding in FALLBACK_ENCODINGS:
        try:
            decoded[encoding] = data.decode(encoding)
        except UnicodeDecodeError:
            continue
    if not decoded:
        line = data[: utf8_error.start].count(b"\n") + 1
        raise ImportRulesError("the document is neither UTF-8 nor a known legacy encoding", line=line)
    # A Central European decoding that yields Polish letters wins; otherwise Western.
    central = decoded.get("cp1250") or decoded.get("iso-8859-2")
    if central and any(ch in _POLISH_MARKERS for ch in central):
        return central
    return decoded.get("cp1252") or next(iter(decoded.values()))
