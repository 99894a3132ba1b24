"""A search document → the passages its vectors are made of (``rules.search.semantic``).

A passage is a window of the document's plain text (``SearchDocument.body_text``: an
entry's text, an erratum's corrected and original text, a FAQ answer) with the title in
front ("Title: window text"; a FAQ question is its title), so every window says what it
is about. Rules say one thing a sentence or two, and a player's question is about one of
them: a window is consecutive sentences (a line of a list counts as one) of at most
``WINDOW_WORDS`` words, and the next window starts with the last sentence of the one
before, so a rule stated across two sentences is whole in one window. A sentence longer
than ``MAX_WORDS`` is cut between words. A document has at most ``MAX_PASSAGES``
windows: text past them (about 1,000 words on) has no vector, and is found by the
full-text search only.

Measured (``bench/question_search.py``, hit@3 of the semantic part alone / fused with
the words): chunks of up to 200 words, as before, 0.78 / 0.80 on hard-dev, 0.92 / 0.94
on dev, 0.93 / 0.93 on eval-a+b; windows of 60 words overlapping by a sentence 0.84 /
0.86, 0.96 / 0.96, 0.94 / 0.93. Windows of 30 or 40 words, 80 words, no overlap, two
sentences of overlap, or the first chunk kept beside the windows were no better on
hard-dev (0.79–0.86 / 0.80–0.85) and no better elsewhere.

Everything here is plain text work, the same whatever the embedder, so a passage's
hash (``text_hash``) says whether its stored vector is still the one of its text.
"""

import hashlib
import re

WINDOW_WORDS = 60
OVERLAP = 1  # sentences a window shares with the one before
MAX_WORDS = 200  # a sentence longer than this is cut between words
MAX_PASSAGES = 24
_SENTENCE_END = re.compile(r"(?<=[.!?…:;])\s+")


def passages(title: str, body_text: str) -> list[str]:
    """The document's passages, in order: one at least (the title alone for an empty
    text), at most ``MAX_PASSAGES``."""
    title = " ".join(title.split())
    found = [text for _start, text in windows(body_text)]
    if not found:
        return [title]
    separator = " " if title[-1:] in ".?!:;…" else ": "
    return [f"{title}{separator}{text}" if title else text for text in found]


def windows(body_text: str, limit: int = MAX_PASSAGES) -> list[tuple[int, str]]:
    """The text's windows, at most ``limit`` (``MAX_PASSAGES``): (where its first sentence
    starts in ``body_text``, its text), passage for passage (``passages`` puts the title
    in front). Sentences are read only as far as the windows asked for reach."""
    source = _sentences(body_text)
    sentences: list[tuple[int, str, int]] = []

    def has(index: int) -> bool:
        while len(sentences) <= index:
            following = next(source, None)
            if following is None:
                return False
            sentences.append(following)
        return True

    out: list[tuple[int, str]] = []
    at = 0
    while has(at) and len(out) < min(limit, MAX_PASSAGES):
        end, size = at, 0
        while has(end) and (end == at or size + sentences[end][2] <= WINDOW_WORDS):
            size += sentences[end][2]
            end += 1
        out.append((sentences[at][0], " ".join(text for _start, text, _words in sentences[at:end])))
        if not has(end):
            break
        at = max(at + 1, end - OVERLAP)
    return out


def text_hash(passage: str) -> str:
    """What a stored vector was made from: 32 hex digits of BLAKE2b."""
    return hashlib.blake2b(passage.encode(), digest_size=16).hexdigest()


def _sentences(text: str):
    """(offset, sentence with its spaces made single, words) of each sentence of each
    line; a sentence longer than ``MAX_WORDS`` in runs of that many words."""
    offset = 0
    for line in text.split("\n"):
        start = offset
        offset += len(line) + 1
        cuts = [0, *(match.end() for match in _SENTENCE_END.finditer(line)), len(line)]
        for begin, finish in zip(cuts, cuts[1:], strict=False):
            words = line[begin:finish].split()
            lead = len(line[begin:finish]) - len(line[begin:finish].lstrip())
            for index in range(0, len(words), MAX_WORDS):
                run = words[index : index + MAX_WORDS]
                yield start + begin + lead, " ".join(run), len(run)
