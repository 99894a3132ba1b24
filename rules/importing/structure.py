"""Lines to blocks: headings, paragraphs, list items, numbered rules, cross-reference lines.

Hard line wraps are joined here. Whether a document is hard-wrapped (PDF text) or has one
line per paragraph (web text) is measured, not assumed: in a wrapped text many lines end
mid-sentence and the next one starts in lower case.

The rules, in the order they are tried for each line (plain text):

* a cross-reference line ("See also: …", "Siehe auch: …", "Zie ook …") is a block of its
  own and may wrap onto the next line (it ends with a comma or a conjunction, or the
  next line starts in lower case);
* "Q:"/"F:"/"Frage:"/"P:"/"Pytanie:"/"V:"/"Vraag:" opens a question heading (its text
  runs on to its "?"); "A:"/"Antwort:"/"O:"/"Odpowiedź:"/"Antwoord:" right after a
  question opens its answer (the prefixes go; the words are in MARKERS);
* a bullet (•, –, ▪, -, *, a lone "x" from a lost bullet font, …) is a list item, nested
  by its indentation;
* a numbered line ("7. Combat", "2.3 Setting Up", "601.2a To cast a spell, …") is a
  numbered *heading* when it reads as one (short, no sentence punctuation, the next
  line is body and not a sibling number), a list item when it is short and follows a
  line ending in ":", and otherwise a numbered paragraph (a rule);
* a line that continues the current block is joined to it (see ``_continues``): across a
  page break too, where cleaning left a blank line, when the block stopped mid-sentence;
* after a line ending in ":", short lines without sentence punctuation are list items,
  not headings ("Reserves", "Upkeep", "Pilot");
* a heading is a short line without sentence punctuation that starts with a capital,
  stands after a finished block and is followed by body text (not by a line going on in
  lower case); a line ending in "?" is a question heading (one sentence, up to
  QUESTION_MAX characters); a heading that ends in a connector ("Spielzone des") takes
  the next line too;
* anything else is a paragraph. A paragraph that is one question of its own, followed
  by its answer (a question wrapped over lines), is made a question heading afterwards.

Before that, alphabet dividers ("A", "B") and a table of contents (a "Contents" heading
and the lines after it that come again later, or that end in dot leaders and a page
number) are dropped. A block ends, in wrapped text, where a line ends a sentence and the
next word would have fitted on it.

Hyphenation (``join_point``): a word broken at a line-end hyphen is rejoined or keeps its
hyphen by the document's own spelling of it elsewhere (``Evidence``), then the word list,
then a language rule (``hyphen_decision``). Only the end of the previous line is read,
so joining is linear however long a block grows.

Markdown (``markdown=True``): ATX and setext headings carry their level, "-", "*", "+"
and "1." lists nest by indentation, fenced code, tables and block quotes are kept
verbatim, and all text is kept as Markdown (``Block.markdown``), not escaped.

``outline`` then says which heading stands under which (Markdown levels, numbers, or in
plain text: a heading directly followed by another heading is its parent).
"""

import re
from dataclasses import dataclass, field

from .cleaning import Line
from .crossrefs import (
    FINAL_CONJUNCTIONS,
    document_separator,
    name_heads,
    match_cross_reference_line,
    match_redirect_line,
    normalise_title,
    parse_labels,
    split_trailing_cross_reference,
    title_names,
)
from .vocabulary import zipf

# The words the importer looks for, per language, in one place (cross-reference phrases
# are in crossrefs.PHRASES). All languages are tried on every document: FAQs mix them.
#   question / answer: prefixes of FAQ lines ("Q: …", "A: …"), before a colon;
#   errata / clarifications: headings of sections whose items are errata;
#   questions: headings of a plain FAQ section (they group questions, name no topic);
#   contents: a table of contents, dropped.
# fmt: off
MARKERS = {
    "en": {
        "question": ["q", "question"],
        "answer": ["a", "answer"],
        "errata": ["errata", "erratum", "corrections", "correction", "card errata", "rulebook errata"],
        "clarifications": ["clarifications", "clarification", "rules clarifications"],
        "questions": ["faq", "faqs", "frequently asked questions", "questions", "questions and answers", "q&a", "rules questions"],
        "contents": ["contents", "table of contents"],
    },
    "de": {
        "question": ["f", "frage"],
        "answer": ["a", "antwort"],
        "errata": ["errata", "erratum", "korrekturen", "korrektur", "berichtigungen"],
        "clarifications": ["klarstellungen", "klarstellung", "regelklarstellungen", "präzisierungen"],
        "questions": ["faq", "fragen", "häufig gestellte fragen", "häufige fragen", "fragen und antworten", "regelfragen"],
        "contents": ["inhalt", "inhaltsverzeichnis"],
    },
    "pl": {
        "question": ["p", "pytanie"],
        "answer": ["o", "odpowiedź"],
        "errata": ["errata", "erraty", "korekty", "errata i korekty", "poprawki", "sprostowania"],
        "clarifications": ["wyjaśnienia", "wyjaśnienia zasad", "doprecyzowania"],
        "questions": ["faq", "pytania", "pytania i odpowiedzi", "najczęściej zadawane pytania", "często zadawane pytania"],
        "contents": ["spis treści"],
    },
    "nl": {
        "question": ["v", "vraag"],
        "answer": ["a", "antwoord"],
        "errata": ["errata", "erratum", "correcties", "verbeteringen"],
        "clarifications": ["verduidelijkingen", "verduidelijking", "toelichtingen"],
        "questions": ["faq", "vragen", "veelgestelde vragen", "vragen en antwoorden"],
        "contents": ["inhoud", "inhoudsopgave"],
    },
    "fr": {
        "question": ["q", "question"],
        "answer": ["r", "réponse"],
        "errata": ["errata", "erratum", "correctifs", "corrections"],
        "clarifications": ["clarifications", "précisions"],
        "questions": ["faq", "questions", "foire aux questions", "questions fréquentes"],
        "contents": ["sommaire", "table des matières"],
    },
    "es": {
        "question": ["p", "pregunta"],
        "answer": ["r", "respuesta"],
        "errata": ["erratas", "fe de erratas", "correcciones"],
        "clarifications": ["aclaraciones"],
        "questions": ["preguntas frecuentes", "preguntas"],
        "contents": ["índice", "contenido"],
    },
}
# fmt: on
SECTION_KINDS = ("errata", "clarifications", "questions", "contents")  # in order of precedence

TERMINAL = ".!?:;"
QUESTION_MAX = (
    1000  # a question heading is one sentence ending in "?"; the writer shortens long ones
)
CLOSERS = "\"'”’»)]*_"
ELLIPSIS = ("...", "…")
# fmt: off
CONNECTORS = {
    "and", "or", "of", "the", "a", "an", "from", "in", "on", "to", "for", "with", "by", "at",
    "und", "oder", "des", "der", "die", "das", "dem", "den", "im", "von", "zu", "zum", "zur", "mit", "auf",
    "i", "oraz", "lub", "w", "z", "na", "do", "od",
    "en", "van", "het", "de", "een", "op", "met", "voor",
    "et", "ou", "le", "la", "les", "du", "y", "o", "el", "los", "las",
}
# fmt: on
# Words after "Spieler- " that show the hyphen is an elided compound ("Spieler- und Begegnungskarten").
# fmt: off
HYPHEN_CONJUNCTIONS = {"und", "oder", "bzw", "sowie", "and", "or", "en", "of", "i", "oraz", "lub", "albo", "et", "ou", "y", "o"}
# fmt: on

_UPPER = "A-ZÀ-ÞĄĆĘŁŃÓŚŹŻ"
BULLET = re.compile(
    rf"^(?P<indent>\s*)(?:[•·▪◦‣∙●○■□➢►▸▹◆◇❖✓✔→–—*+\-\uf0b7\uf0a7\uf076\uf0d8\uf0fc]"
    rf"|x(?=\s+[\"“„'‘(\[{_UPPER}0-9])|(?<=\s)o(?=\s+[\"“„'‘(\[{_UPPER}0-9]))\s+(?P<text>\S.*)$"
)
NUMBERED = re.compile(
    r"^(?P<number>\d{1,3}(?:\.\d{1,3})+[a-z]?|\d{1,3}[a-z]?(?=[.)]))[.)]?\s+(?P<text>\S.*)$"
)
# Markdown
ATX = re.compile(r"^ {0,3}(?P<hashes>#{1,6})(?:\s+(?P<text>.*?))?\s*#*\s*$")
SETEXT = re.compile(r"^ {0,3}(?P<char>=+|-+)\s*$")
MD_LIST = re.compile(
    r"^(?P<indent>\s*)(?:(?P<mark>[-*+])|(?P<number>\d{1,3})[.)])\s+(?P<text>\S.*)$"
)
MD_FENCE = re.compile(r"^\s*(```|~~~)")
MD_RULE = re.compile(r"^ {0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$")
MD_BOLD_LINE = re.compile(r"^(?:\*\*|__)(?P<text>[^*_].*?)(?:\*\*|__):?$")
MD_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
RULE_LINE = re.compile(r"^[-=_*~·•.\s]{3,}$")  # a separator line of dashes, rules or dots


def _alternation(key: str) -> str:
    words = sorted({w for words in MARKERS.values() for w in words[key]}, key=len, reverse=True)
    return "|".join(re.escape(w) for w in words)


_MD_WRAP = r"[*_]{0,2}"
QUESTION_PREFIX = re.compile(
    rf"^{_MD_WRAP}(?:{_alternation('question')})(?:(?:\s?\d{{1,3}})?{_MD_WRAP}\s?:|\s?\d{{1,3}}{_MD_WRAP}\s?[.)])"
    rf"{_MD_WRAP}\s+(?P<text>\S.*)$",
    re.IGNORECASE,
)
ANSWER_PREFIX = re.compile(
    rf"^{_MD_WRAP}(?:{_alternation('answer')}){_MD_WRAP}\s?:{_MD_WRAP}\s+(?P<text>\S.*)$",
    re.IGNORECASE,
)
_INLINE_ANSWER = re.compile(
    rf"(?<=\?)\s+{_MD_WRAP}(?:{_alternation('answer')}){_MD_WRAP}\s?:{_MD_WRAP}\s+", re.IGNORECASE
)
_SINGLE_LETTER = re.compile(rf"^[{_UPPER}](?:\s*[-–]\s*[{_UPPER}])?$")
_TWO_SENTENCES = re.compile(rf"[.!?]\s+[{_UPPER}]")
_WORD_END = re.compile(r"([^\W\d_]+)$")
_WORD_START = re.compile(r"[^\W\d_]+(-[^\W\d_]+)?")
_WORDS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_PAGE_TAIL = re.compile(r"[\s.·…_\-]*\d{1,4}$")
_LEADER = re.compile(r"(?:[.·…_]\s*){3,}\d{1,4}$|\S\s{3,}\d{1,4}$")  # "Combat ........ 12"


@dataclass
class Block:
    type: str  # heading | paragraph | bullet | numbered | crossref
    text: str
    line: int
    # bullets: nesting depth 0, 1, 2 …; headings: the Markdown level (1–6), or 0 in plain
    # text until ``outline`` gives the depth it inferred (1 = top).
    level: int = 0
    number: str = ""  # numbered paragraphs and headings ("7", "2.3", "601.2a"); ordered list items
    labels: list[str] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)  # crossref: label → the page it names
    redirect: bool = False  # crossref: a redirect-only line ("See "X".") right under a heading
    last_raw: str = ""  # the last physical line, to judge whether the block goes on
    markdown: bool = False  # the text is Markdown already: keep its markup, do not escape it
    question: bool = False  # heading: a FAQ question (ends in "?" or had a "Q:" prefix, now gone)
    answer: bool = False  # paragraph: had an "A:" prefix (now gone)
    ordered: bool = False  # bullet: an item of a numbered list ("1." after a colon, or Markdown)
    section: str = ""  # heading: errata | clarifications | questions (see MARKERS)
    indent: int = 0  # leading spaces of the first line
    _tail: list[str] = field(default_factory=list, repr=False, compare=False)

    def append(self, text: str, language: str, evidence: "Evidence | None" = None) -> None:
        """Join a wrapped line. Only the end of the previous line is looked at."""
        text = text.strip()
        previous = self._tail[-1] if self._tail else self.text
        cut, glue = join_point(previous, text, language, evidence)
        if cut:
            previous = previous[:-cut]
            if self._tail:
                self._tail[-1] = previous
            else:
                self.text = previous
        self._tail.append(glue + text)
        self.last_raw = text

    def finish(self) -> None:
        if self._tail:
            self.text = self.text + "".join(self._tail)
            self._tail = []

    @property
    def lines(self) -> int:
        return 1 + len(self._tail)


# -- Joining wrapped lines and hyphenation ---------------------------------------------


class Evidence:
    """The document's own words: which spelling of a word broken at a hyphen it uses."""

    def __init__(self, lines: list[Line]):
        # a line's final "-" goes: the broken word's head is no evidence of a compound
        text = "\n".join(line.text.rstrip().removesuffix("-") for line in lines).lower()
        words = set(_WORDS.findall(text))
        compounds = {word for word in words if "-" in word}
        for compound in compounds:
            words.update(compound.split("-"))
        self.words = words
        self.compounds = compounds

    def has_word(self, word: str) -> bool:
        if word in self.words:
            return True
        # Inflection: "Begegnungskarte" is evidenced by "Begegnungskarten".
        return any(word + ending in self.words for ending in ("s", "n", "en", "e", "es", "er")) or (
            len(word) > 5
            and any(
                word.endswith(e) and word[: -len(e)] in self.words for e in ("s", "n", "en", "e")
            )
        )

    def has_compound(self, compound: str) -> bool:
        return compound in self.compounds or any(
            compound + e in self.compounds for e in ("s", "n", "en", "e")
        )


def join_wrapped(left: str, right: str, language: str, evidence: Evidence | None = None) -> str:
    """Join a hard-wrapped line; rejoin a word hyphenated across the break.

    Only the end of ``left`` is looked at, so joining stays linear on long blocks.
    """
    right = right.strip()
    cut, glue = join_point(left[-80:], right, language, evidence)
    return (left[:-cut] if cut else left) + glue + right


def join_point(
    left: str, right: str, language: str, evidence: Evidence | None = None
) -> tuple[int, str]:
    """How to join ``right`` after ``left``: (characters to drop from left's end, glue).

    A word broken at a hyphen ("Begegnungs-" + "karte", "con-" + "trol") is rejoined; a
    real hyphenated word keeps its hyphen and gets no space ("well-" + "known",
    "Marvel-" + "Helden"); "Spieler-" + "und …" keeps hyphen and space.
    """
    left = left.rstrip()
    if not left.endswith("-") or left.endswith((" -", "--")):
        return 0, " "
    right_word = _WORD_START.match(right)
    head_match = _WORD_END.search(left[-60:-1])
    if left[-2:-1].isdigit() and right[:1].isdigit():
        return 0, ""  # "2-" + "3 players"
    if not head_match or not right_word:
        return 0, ""
    head = head_match.group(1)
    tail = right_word.group(0)
    if tail.lower() in HYPHEN_CONJUNCTIONS:
        return 0, " "  # "Spieler- und Begegnungskarten", "vuur- en waterwaarden"
    if right_word.group(1):
        return 0, ""  # "Nicht-" + "im-Spiel-Zone": the continuation is itself a compound
    return (1, "") if hyphen_decision(head, tail, language, evidence) else (0, "")


def hyphen_decision(head: str, tail: str, language: str, evidence: Evidence | None = None) -> bool:
    """True: the hyphen is a line-end hyphenation (drop it); False: a real hyphen.

    Evidence from the document first (the joined word, or the hyphenated form, used
    elsewhere in it), then the word list, then a language rule: in German, Dutch and
    Polish a lower-case continuation is a hyphenation, an upper-case one a compound.
    """
    if tail[:1].isupper() and not (head.isupper() and tail.isupper()):
        return False  # "Marvel-Helden", "Nicht-Identitätskarte", "X-Men"
    if len(head) == 1:
        return False  # "E-", "x-" + …: a letter, not a syllable
    joined = (head + tail).lower()
    hyphenated = f"{head}-{tail}".lower()
    if evidence is not None:
        joined_seen, hyphenated_seen = evidence.has_word(joined), evidence.has_compound(hyphenated)
        if joined_seen != hyphenated_seen:
            return joined_seen
    lang = language if language in ("en", "de", "pl", "nl", "fr", "es", "it") else "en"
    z_joined = zipf(joined, lang)
    if lang in ("de", "nl", "pl"):
        if z_joined > 0:
            return True
        if (
            lang == "nl"
            and head[-1:].lower() in "aeiou"
            and (head[-1] + tail[:1]).lower() in _DUTCH_VOWEL_CLASH
        ):
            return False  # "zee-egel", "auto-ongeluk": the hyphen keeps the vowels apart
        return True
    z_head, z_tail = zipf(head.lower(), lang), zipf(tail.lower(), lang)
    if z_joined > 0 and (z_joined >= 1 and z_joined >= min(z_head, z_tail) - 2):
        return True  # "con-trol", "any-one", "there-fore"
    if z_head >= 2.5 and z_tail >= 2.5 and len(head) > 1 and len(tail) > 1:
        return False  # "well-known", "two-player", "face-down"
    return True  # a fragment of a word the list does not know: "mar-shaling"


# fmt: off
_DUTCH_VOWEL_CLASH = {"aa", "ae", "ai", "au", "ee", "ei", "eu", "ie", "oo", "oe", "oi", "ou", "ui", "uu", "ea", "eo", "ia", "io", "oa"}
# fmt: on


def ends_sentence(text: str) -> bool:
    stripped = text.rstrip().rstrip(CLOSERS)
    return bool(stripped) and stripped[-1] in TERMINAL


def _ends_mid_phrase(text: str) -> bool:
    """The line stops where a sentence cannot: after a comma, a hyphen or a connector."""
    stripped = text.rstrip()
    if stripped.endswith((",", "-", "(", "„", "“", "/")):
        return not stripped.endswith((" -", "--"))
    words = stripped.split()
    return bool(words) and words[-1].lower() in CONNECTORS


def measure(lines: list[Line]) -> tuple[int, bool]:
    """The wrap width and whether the text is wrapped.

    The width is the 90th percentile of the lengths of lines that certainly wrapped (they
    stop mid-sentence and the next line goes on in lower case), or of all lines when
    there are too few of those: long list items that were never wrapped do not count.
    """
    texts = [line.text.strip() for line in lines if line.text.strip()]
    if not texts:
        return 0, False
    wrapped_lengths = sorted(
        len(a)
        for a, b in zip(texts, texts[1:], strict=False)
        if not ends_sentence(a) and b[:1].islower()
    )
    wrapped = len(wrapped_lengths) >= max(2, 0.15 * len(texts))
    lengths = wrapped_lengths if len(wrapped_lengths) >= 5 else sorted(len(text) for text in texts)
    return lengths[int(0.9 * (len(lengths) - 1))], wrapped


# -- Section headings ---------------------------------------------------------------------

_SECTION_PHRASES = {
    kind: {w for words in MARKERS.values() for w in words[kind]} for kind in SECTION_KINDS
}
_SECTION_WORDS = {
    kind: {w for w in _SECTION_PHRASES[kind] if " " not in w}
    for kind in ("errata", "clarifications")
}
_SECTION_JOINERS = re.compile(r"\s+(?:and|&|und|i|oraz|en|et|y|/)\s+|\s*[/,]\s*")


def section_kind(title: str) -> str:
    """ "errata", "clarifications", "questions" or "contents" for a section heading, else ""."""
    text = re.sub(r"^\d+(?:\.\d+)*[.)]?\s+", "", title.strip())
    text = normalise_title(text.rstrip(":").strip("*_# "))
    if not text or text.endswith("?") or len(text) > 60:
        return ""
    for kind in SECTION_KINDS:
        if text in _SECTION_PHRASES[kind]:
            return kind
    parts = [part for part in _SECTION_JOINERS.split(text) if part]
    if len(parts) >= 2:
        kinds = [
            next((k for k in SECTION_KINDS if part in _SECTION_PHRASES[k]), "") for part in parts
        ]
        if all(kinds):
            return next(k for k in SECTION_KINDS if k in kinds)
    words = re.findall(r"[^\W\d_]+", text)
    if len(words) <= 4:
        for kind in ("errata", "clarifications"):
            if any(word in _SECTION_WORDS[kind] for word in words):
                return kind
    return ""


_DOCUMENT_WORDS = {
    w
    for kind in ("errata", "clarifications", "questions")
    for w in _SECTION_PHRASES[kind]
    if " " not in w and len(w) > 3 or w == "faq"
}


def names_a_faq(title: str) -> bool:
    """A title like "Kosmiczna Flota – FAQ i errata": it names the document, not a ruling."""
    return any(word in _DOCUMENT_WORDS for word in re.findall(r"[^\W\d_]+", title.casefold()))


# -- Building blocks ----------------------------------------------------------------------


def build_blocks(
    lines: list[Line], language: str, *, markdown: bool = False, known: frozenset[str] | set[str] = frozenset()
) -> list[Block]:
    """``known``: normalised titles and aliases of the game's entries already stored, which
    cross-reference labels may name besides the document's own headings."""
    lines = _drop_contents(_drop_index_letters(lines))
    width, wrapped = measure(lines)
    heading_max = min(90, max(40, int(0.75 * width))) if wrapped else 90
    evidence = Evidence(lines) if any(line.text.rstrip().endswith("-") for line in lines) else None
    builder = _Builder(lines, language, width, wrapped, heading_max, evidence, markdown)
    blocks = builder.run()
    for block in blocks:
        block.finish()
    blocks = _promote_questions(blocks, heading_max)
    blocks = _split_trailing_cross_references(blocks)
    names = set(known)
    for block in blocks:
        if block.type == "heading":
            names.update(normalise_title(name) for name in title_names(block.text))
    separator = document_separator([b.text for b in blocks if b.type == "crossref"])
    heads = name_heads(names, language)
    for block in blocks:
        if block.type == "crossref":
            labels = parse_labels(block.text, names, language, separator, heads)
            block.labels = [label for label, _ in labels]
            block.pages = {label: page for label, page in labels if page}
        elif block.type == "heading":
            block.section = "" if block.question else section_kind(block.text)
    _normalise_levels(blocks)
    return blocks


def _split_trailing_cross_references(blocks: list[Block]) -> list[Block]:
    """ "- The order can be changed. See also: Deck." → the bullet and a cross-reference
    line after it (bullets, numbered steps and paragraphs alike)."""
    out: list[Block] = []
    for block in blocks:
        out.append(block)
        if block.type not in ("bullet", "numbered", "paragraph") or block.text.startswith(("```", "~~~", "|", ">")):
            continue
        found = split_trailing_cross_reference(block.text)
        if found is not None:
            block.text, labels = found
            out.append(Block("crossref", labels, block.line, markdown=block.markdown))
    return out


class _Builder:
    def __init__(self, lines, language, width, wrapped, heading_max, evidence, markdown):
        self.lines = lines
        self.language = language
        self.width = width
        self.wrapped = wrapped
        self.heading_max = heading_max
        self.evidence = evidence
        self.markdown = markdown
        # In Markdown with real headings, only marked-up lines are headings.
        self.md_headings = markdown and any(
            ATX.match(line.text) or (SETEXT.match(line.text) and "=" in line.text) for line in lines
        )
        self.blocks: list[Block] = []
        self.current: Block | None = None
        self.block_ended = True  # the previous physical line closed its block
        self.blank_before = True  # a blank line (or the start) came before this line
        self.list_context = (
            ""  # "implicit": short lines are items (after ":"); "marked": a bullet list
        )
        self.open_question = False  # a "Q:" heading that may run on over several lines
        self.position = 0

    # the next non-blank line's text, without copying the list
    def next_text(self, position: int) -> str:
        lines = self.lines
        for index in range(position + 1, min(position + 6, len(lines))):
            text = lines[index].text.strip()
            if text:
                return text
        return ""

    def add(self, block: Block) -> Block:
        self.blocks.append(block)
        self.current = block
        return block

    def run(self) -> list[Block]:
        fence: Block | None = None
        for position, line in enumerate(self.lines):
            raw = line.text.replace("\f", "")
            stripped = raw.strip()
            if fence is not None:  # inside a fenced code block: verbatim
                fence._tail.append("\n" + raw)
                if MD_FENCE.match(raw):
                    fence = None
                    self.current, self.block_ended = None, True
                continue
            if not stripped:
                self.blank_before = True
                self.open_question = False
                continue
            self.position = position
            if self.markdown:
                if MD_FENCE.match(raw):
                    fence = self.add(
                        Block(
                            "paragraph", raw.strip(), line.number, markdown=True, last_raw=stripped
                        )
                    )
                    continue
                if self._markdown_line(raw, stripped, line.number, position):
                    self.blank_before = False
                    continue
            self._line(raw, stripped, line.number, position)
            self.blank_before = False
        return self.blocks

    # -- Markdown-only lines; False when the line is to be read as plain text
    def _markdown_line(self, raw: str, stripped: str, number: int, position: int) -> bool:
        if MD_COMMENT.match(raw):
            return True
        atx = ATX.match(raw)
        if atx:
            if _plain_title(atx.group("text") or ""):
                self._heading(atx.group("text"), number, level=len(atx.group("hashes")))
            return True
        setext = SETEXT.match(raw)
        current = self.current
        if (
            setext
            and current is not None
            and current.type == "paragraph"
            and current.lines == 1
            and not self.blank_before
        ):
            if "=" in setext.group("char") or len(setext.group("char")) >= 2:
                self.blocks.pop()
                self._heading(
                    current.text, current.line, level=1 if "=" in setext.group("char") else 2
                )
                return True
        if MD_RULE.match(raw):
            self.current, self.block_ended = None, True
            return True
        if stripped.startswith("|") or stripped.startswith(">"):
            # tables and block quotes: kept line by line, verbatim
            if (
                current is not None
                and current.markdown
                and current.type == "paragraph"
                and not self.blank_before
                and current.text[:1] == stripped[:1]
            ):
                current._tail.append("\n" + stripped)
                current.last_raw = stripped
            else:
                self.add(Block("paragraph", stripped, number, markdown=True, last_raw=stripped))
            self.block_ended = True
            return True
        bold = MD_BOLD_LINE.match(stripped)
        if bold and len(stripped) <= 120 and self.blank_before:
            inner = bold.group("text").strip()
            if not ends_sentence(inner) or inner.endswith("?"):
                if self.next_text(position) and match_cross_reference_line(stripped) is None:
                    self._heading(inner, number, level=0)
                    return True
        item = MD_LIST.match(raw)
        if item and match_cross_reference_line(stripped) is None:
            indent = len(item.group("indent").expandtabs(4))
            if item.group("number") is not None:
                text = item.group("text").strip()
                continuing = (
                    self.current is not None
                    and self.current.type in ("bullet",)
                    and self.current.ordered
                )
                if self.list_context or continuing or indent:
                    self.add(
                        Block(
                            "bullet",
                            text,
                            number,
                            level=indent,
                            number=item.group("number"),
                            ordered=True,
                            markdown=True,
                            last_raw=text,
                            indent=indent,
                        )
                    )
                    self.list_context = "marked"
                    self.block_ended = True
                    return True
                return False  # a numbered rule: read as plain text
            text = item.group("text").strip()
            self.add(
                Block(
                    "bullet",
                    text,
                    number,
                    level=indent,
                    markdown=True,
                    last_raw=text,
                    indent=indent,
                )
            )
            self.list_context = "marked"
            self.block_ended = True
            return True
        current = self.current
        if (
            current is not None
            and current.type == "bullet"
            and current.markdown
            and not self.blank_before
        ):
            # a list item's continuation (indented, or "lazy")
            if match_cross_reference_line(stripped) is None and not QUESTION_PREFIX.match(stripped):
                current.append(stripped, self.language, self.evidence)
                return True
        if self.md_headings:
            # No heading guessing: a line is a paragraph, a continuation or a special line.
            if (
                current is not None
                and current.type in ("paragraph", "numbered")
                and not self.blank_before
                and current.markdown
                and current.text[:1] not in "|>"
            ):
                if (
                    match_cross_reference_line(stripped) is None
                    and not QUESTION_PREFIX.match(stripped)
                    and not ANSWER_PREFIX.match(stripped)
                ):
                    current.append(stripped, self.language, self.evidence)
                    return True
        return False

    def _heading(
        self,
        text: str,
        number: int,
        *,
        level: int = 0,
        heading_number: str = "",
        question: bool = False,
    ) -> Block:
        text = _plain_title(text) if self.markdown else text.strip()
        if not heading_number:
            numbered = NUMBERED.match(text)
            if numbered and self.markdown:
                heading_number, text = numbered.group("number"), numbered.group("text").strip()
        prefixed = QUESTION_PREFIX.match(text)
        if prefixed:
            text, question = prefixed.group("text").strip(), True
        question = question or text.rstrip(CLOSERS + " ").endswith("?")
        block = Block(
            "heading",
            text,
            number,
            level=level,
            number=heading_number,
            question=question,
            last_raw=text,
            markdown=False,
        )
        self.add(block)
        self.block_ended = True
        self.list_context = ""
        return block

    # -- one line of plain text (or Markdown read as such)
    def _line(self, raw: str, stripped: str, number: int, position: int) -> None:
        current = self.current
        md = self.markdown

        if RULE_LINE.match(stripped):
            self.current, self.block_ended, self.list_context = None, True, ""
            return

        if current is not None and current.type == "heading" and not current.question:
            target = match_redirect_line(stripped)
            if target is not None and match_cross_reference_line(stripped) is None:
                self.add(Block("crossref", target, number, last_raw=stripped, markdown=md, redirect=True))
                self.list_context, self.block_ended = "", True
                return

        labels = match_cross_reference_line(stripped)
        if labels is not None and not (
            current is not None
            and current.type == "crossref"
            and not self.blank_before
            and stripped[:1].islower()
        ):
            self.add(Block("crossref", labels, number, last_raw=stripped, markdown=md))
            self.list_context = ""
            self.open_question = False
            self.block_ended = not self._crossref_goes_on(stripped, position)
            return

        question = QUESTION_PREFIX.match(stripped)
        if question:
            text = question.group("text").strip()
            answer = _INLINE_ANSWER.search(text)
            heading = self._heading(
                text[: answer.start()] if answer else text, number, question=True
            )
            self.open_question = answer is None and not heading.text.rstrip(CLOSERS + " ").endswith(
                "?"
            )
            if answer:
                self.add(
                    Block(
                        "paragraph",
                        text[answer.end() :].strip(),
                        number,
                        answer=True,
                        markdown=md,
                        last_raw=stripped,
                    )
                )
                self.block_ended = ends_sentence(stripped)
            return

        answer = ANSWER_PREFIX.match(stripped)
        if answer and current is not None and current.type == "heading" and current.question:
            text = answer.group("text").strip()
            self.add(Block("paragraph", text, number, answer=True, markdown=md, last_raw=text))
            self.open_question = False
            self._after_text_block()
            return

        if (
            self.open_question
            and current is not None
            and current.type == "heading"
            and not self.blank_before
        ):
            current.text = f"{current.text} {stripped}"  # a question running on over lines
            current.last_raw = stripped
            self.open_question = not stripped.rstrip(CLOSERS + " ").endswith("?")
            return
        self.open_question = False

        if (
            current is not None
            and current.type == "crossref"
            and not self.block_ended
            and (not self.blank_before or stripped[:1].islower())
        ):
            current.append(stripped, self.language, self.evidence)
            self.block_ended = not self._crossref_goes_on(stripped, position)
            return

        bullet = BULLET.match(raw)
        if bullet and not (md and stripped[:1] in "*_" and stripped[1:2] in "*_"):
            indent = len(bullet.group("indent").expandtabs(4))
            text = bullet.group("text").strip()
            self.add(
                Block(
                    "bullet", text, number, level=indent, last_raw=text, markdown=md, indent=indent
                )
            )
            self.list_context = "marked"
            self._after_text_block()
            return

        numbered = NUMBERED.match(stripped)
        if numbered and not self._continues(current, stripped, numbered=True):
            self._numbered(numbered, stripped, number, position)
            return

        if (
            current is not None
            and current.type == "heading"
            and self._heading_goes_on(current, stripped, position)
        ):
            current.text = f"{current.text} {stripped}"
            current.last_raw = stripped
            return

        if current is not None and self._continues(current, stripped):
            current.append(stripped, self.language, self.evidence)
            self._after_text_block()
            return

        if (
            self.list_context == "implicit"
            and len(stripped) <= 40
            and not ends_sentence(stripped)
            and not stripped.endswith("-")
        ):
            self.add(Block("bullet", stripped, number, last_raw=stripped, markdown=md))
            self._after_text_block(keep_list=True)
            return

        if (
            not (md and self.md_headings)
            and (self.block_ended or self.blank_before)
            and self._is_heading(stripped, position)
        ):
            self._heading(stripped, number)
            return

        self.add(
            Block(
                "paragraph",
                stripped,
                number,
                last_raw=stripped,
                markdown=md,
                indent=len(raw) - len(raw.lstrip()),
            )
        )
        self.list_context = ""
        self._after_text_block()

    def _numbered(self, match: re.Match, stripped: str, number: int, position: int) -> None:
        text = match.group("text").strip()
        label = match.group("number")
        md = self.markdown
        current = self.current
        in_list = self.list_context == "implicit" or (
            current is not None and current.ordered and _is_next_sibling(current.number, label)
        )
        if in_list and label.isdigit() and len(text) <= 100 and not _TWO_SENTENCES.search(text):
            self.add(
                Block(
                    "bullet", text, number, number=label, ordered=True, last_raw=text, markdown=md
                )
            )
            self.list_context = "marked"
            self._after_text_block()
            return
        if (
            self.list_context != "implicit"
            and not (md and self.md_headings)
            and (self.block_ended or self.blank_before)
            and self._is_heading(text, position, number_of=label)
        ):
            self._heading(text, number, heading_number=label)
            return
        self.add(Block("numbered", text, number, number=label, last_raw=text, markdown=md))
        self.list_context = ""
        self._after_text_block()

    def _after_text_block(self, keep_list: bool = False) -> None:
        """Update the list context and whether the block ended with the line just read."""
        current = self.current
        assert current is not None
        last = current.last_raw
        if last.rstrip().rstrip(CLOSERS).endswith(":") and current.type in (
            "paragraph",
            "bullet",
            "numbered",
        ):
            self.list_context = "implicit"  # short lines after "…:" are list items
        elif current.type == "bullet":
            if not keep_list and self.list_context != "implicit":
                self.list_context = "marked"
        elif not keep_list:
            self.list_context = ""
        short = len(last) < 0.6 * self.width
        if ends_sentence(last):
            # In wrapped text a sentence that ends a line ends the paragraph only if the
            # next word would have fitted on the line.
            self.block_ended = (
                not self.wrapped
                or len(last) < 0.75 * self.width
                or (
                    len(last) + 1 + len(self.next_text(self.position).split(" ", 1)[0])
                    <= self.width
                )
            )
        elif _ends_mid_phrase(last):
            self.block_ended = False
        elif current.type in ("bullet", "heading"):
            self.block_ended = not self.wrapped or short
        else:
            self.block_ended = self.wrapped and len(last) < 0.5 * self.width

    def _continues(self, current: Block | None, text: str, numbered: bool = False) -> bool:
        """Whether ``text`` continues the current block rather than starting one."""
        if current is None or current.type in ("heading", "crossref"):
            return False
        if (
            current.markdown
            and current.text[:1] in "|>"
            or (current.type == "paragraph" and current.text.startswith(("```", "~~~")))
        ):
            return False
        last = current.last_raw
        if numbered:
            # "1.5 times …" after a line that stops mid-sentence is not a new rule
            return (
                not self.blank_before
                and not ends_sentence(last)
                and (_ends_mid_phrase(last) or (self.wrapped and not self.block_ended))
            )
        first = text[:1]
        if self.blank_before:
            # Across a page break (cleaning leaves a blank line): only a block that stopped
            # mid-sentence goes on, and only if the next line cannot start a block itself.
            if current.type not in ("paragraph", "bullet", "numbered") or ends_sentence(last):
                return False
            if first.islower() or _ends_mid_phrase(last):
                return True
            return (
                self.wrapped
                and len(last) >= 0.6 * self.width
                and not self._looks_like_heading(text)
            )
        if (
            last.endswith("-")
            and not last.endswith(" -")
            or (first.islower() and not ends_sentence(last))
        ):
            return True
        if self.list_context == "implicit" and len(text) <= 40 and not ends_sentence(text):
            if current.type == "bullet" or last.rstrip().rstrip(CLOSERS).endswith(":"):
                return False  # the next item of a list without bullets
        if _ends_mid_phrase(last) and not ends_sentence(last):
            return True
        return self.wrapped and not self.block_ended

    def _crossref_goes_on(self, last_line: str, position: int) -> bool:
        """A cross-reference line wraps when it ends with a comma, a conjunction or mid-label,
        or the next line starts in lower case."""
        stripped = last_line.rstrip()
        if stripped.endswith((",", ";")):
            return True
        words = stripped.split()
        if (
            words
            and words[-1].islower()
            and (words[-1] in CONNECTORS or words[-1] in FINAL_CONJUNCTIONS)
        ):
            return True  # "… In Play and Out of" / "Play, Marshal"
        if position + 1 >= len(self.lines) or not self.lines[position + 1].text.strip():
            return False  # a blank line ends it
        following = self.lines[position + 1].text.strip()
        if following[:1].islower():
            return True
        # "Related: Interrupts, Nested" / "Ability Sequences, Passing and" / "Priority": the
        # next line goes on with the list if it holds separators and no body text follows it
        if (
            ("," in following or ";" in following)
            and not ends_sentence(following)
            and match_cross_reference_line(following) is None
        ):
            after = self.next_text(position + 1)
            return (
                not after
                or _looks_like_heading(after, self.heading_max)
                or match_cross_reference_line(after) is not None
            )
        return False

    def _heading_goes_on(self, heading: Block, text: str, position: int) -> bool:
        """A heading wrapped after a connector ("Spielzone des" / "Schurken")."""
        if self.blank_before or heading.question or heading.level or heading.markdown:
            return False
        words = heading.last_raw.split()
        if not words or words[-1].lower() not in CONNECTORS or words[-1][:1].isupper():
            return False
        return (
            len(heading.text) + len(text) <= 120
            and not ends_sentence(text)
            and len(text.split()) <= 8
        )

    def _looks_like_heading(self, text: str, max_length: int | None = None) -> bool:
        return _looks_like_heading(text, max_length or self.heading_max)

    def _is_heading(self, text: str, position: int, number_of: str = "") -> bool:
        core = text.rstrip(CLOSERS + " ")
        if (
            core.endswith("?")
            and len(text) <= QUESTION_MAX
            and text[:1].isupper()
            and not _TWO_SENTENCES.search(core[:-1])
        ):
            question = True
        elif self._looks_like_heading(text):
            question = False
        else:
            return False
        following = self.next_text(position)
        if not following:
            return False
        if following[:1].islower() and not question and match_redirect_line(following) is None:
            return False  # the line starts a sentence that goes on ("voir X" redirects)
        next_number = NUMBERED.match(following)
        if number_of and next_number and not question:
            # "2. Combat" above "3. Scoring" is a list (or a table of contents); above
            # "2.1 …" or "201. …" it is a section
            return not _is_next_sibling(number_of, next_number.group("number"))
        return True


def _looks_like_heading(text: str, max_length: int) -> bool:
    if len(text) > max_length or len(text.split()) > 12:
        return False
    first = text.lstrip("\"'“„‘«(*_")[:1]
    if not (first.isupper() or first.isdigit()):
        return False
    if text.endswith("-") or _TWO_SENTENCES.search(text):
        return False
    core = text.rstrip(CLOSERS + " ")
    if core.endswith(ELLIPSIS) or core.endswith("?"):
        return True
    return bool(core) and core[-1] not in ".,;:!"


def _plain_title(text: str) -> str:
    """A Markdown heading's text as a plain title: no emphasis, links as their text."""
    text = re.sub(
        r"\[\[([^\[\]|]+?)(?:\|([^\[\]]+?))?\]\]", lambda m: m.group(2) or m.group(1), text
    )
    text = re.sub(r"\[([^\[\]]+)\]\([^()]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    return text.strip().rstrip("#").strip()


def _is_number_prefix(parent: str, child: str) -> bool:
    """ "601" → "601.2" → "601.2a"; "2" → "2.3"; "1.2" → "1.2.3"; and "6" → "601" (a
    chapter's three-digit rules, as in comprehensive rules)."""
    return bool(parent) and parent in number_ancestors(child)


def number_ancestors(number: str) -> list[str]:
    """The numbers a rule number stands under, nearest first: 601.2a → [601.2, 601, 6]."""
    out = []
    current = number
    while current:
        if current[-1:].isalpha():
            current = current.rstrip("abcdefghijklmnopqrstuvwxyz")
        elif "." in current:
            current = current.rsplit(".", 1)[0]
        elif current.isdigit() and len(current) == 3:
            current = current[0]  # "601" is in chapter "6"
        else:
            break
        if current:
            out.append(current)
    return out


def _is_next_sibling(number: str, following: str) -> bool:
    """ "1" → "2", "2.3" → "2.4", "601.2a" → "601.2b": the next item of the same list."""
    if (
        following.count(".") != number.count(".")
        or following[-1:].isalpha() != number[-1:].isalpha()
    ):
        return False
    up, following_up = number_ancestors(number)[:1], number_ancestors(following)[:1]
    if up != following_up:
        return False
    if number.isdigit() and following.isdigit():
        return 0 < int(following) - int(number) <= 2
    return following != number


def _promote_questions(blocks: list[Block], heading_max: int) -> list[Block]:
    """A paragraph that is one question of its own, followed by its answer, is a question
    heading (a question too long for one line was wrapped)."""
    for index, block in enumerate(blocks):
        if block.type != "paragraph" or block.answer or block.markdown and block.text[:1] in "|>`~":
            continue
        text = block.text.strip()
        core = text.rstrip(CLOSERS + " ")
        if (
            not core.endswith("?")
            or len(text) > QUESTION_MAX
            or not text[:1].isupper()
            or _TWO_SENTENCES.search(core[:-1])
        ):
            continue
        previous = blocks[index - 1] if index else None
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if following is None or following.type in ("heading", "crossref"):
            continue
        if (
            previous is not None
            and previous.type in ("paragraph", "bullet", "numbered")
            and previous.last_raw.rstrip().endswith(":")
        ):
            continue
        if previous is not None and previous.type == "heading" and previous.question:
            continue
        if block.markdown:
            block.text = _plain_title(block.text)
        block.type, block.question, block.markdown = "heading", True, False
    return blocks


def is_index_letter(text: str) -> bool:
    """An alphabet divider of a glossary: "A", "B", "C–D" on a line of its own."""
    return _SINGLE_LETTER.match(text.strip()) is not None


def _drop_index_letters(lines: list[Line]) -> list[Line]:
    """Alphabet dividers of a glossary ("A", "B", "C–D" on a line of their own). A letter
    with no text after it divides nothing: it is kept (and reported by the pipeline)."""
    last = max((i for i, line in enumerate(lines) if line.text.strip()), default=-1)
    return [line for i, line in enumerate(lines) if i == last or not is_index_letter(line.text)]


def _drop_contents(lines: list[Line]) -> list[Line]:
    """A table of contents: a "Contents" heading and the lines after it that reappear
    later in the document (as headings), page numbers and dot leaders aside."""
    contents = _SECTION_PHRASES["contents"]
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if line.text.strip() and normalise_title(line.text.strip("#*_ :")) in contents
        ),
        None,
    )
    if start is None:
        return lines

    def key(text: str) -> str:
        return normalise_title(_PAGE_TAIL.sub("", text.strip().lstrip("#*-• ")))

    later: dict[str, int] = {}
    for index, line in enumerate(lines):
        if line.text.strip():
            later[key(line.text)] = index
    end = start + 1
    dropped = 0
    while end < len(lines):
        text = lines[end].text.strip()
        if text and later.get(key(text), -1) <= end and not _LEADER.search(text):
            break
        dropped += bool(text)
        end += 1
    if dropped < 2:
        return lines
    return lines[:start] + lines[end:]


# -- The outline: which heading stands under which ---------------------------------------


def heading_style(block: Block) -> str:
    """What makes headings of one level look alike in plain text."""
    if block.question:
        return "question"
    if block.number:
        return f"number{block.number.count('.') + 1 + (block.number[-1:].isalpha())}"
    letters = [c for c in block.text if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return "caps"
    return "title"


@dataclass
class _Open:
    index: int
    style: str
    number: str
    section: bool = False
    child_style: str | None = None


def outline(blocks: list[Block]) -> dict[int, int | None]:
    """For each heading (by block index), the index of the heading it stands under.

    Markdown levels decide when the document has them. In plain text a heading directly
    followed by another heading (no body between), or a section heading such as
    "Errata", is a *group*: the headings after it stand under it until one of its own
    level comes. Its level is recognised by style (ALL CAPS, Title, a number's depth):
    a heading like the group's own, where the group's children look different, is the
    group's sibling; a heading like the group's first child is another child; when all
    headings look alike, a heading that is itself a group starts a new group beside
    the old one, any other stays under it. Numbered headings stand under the heading
    whose number is a prefix of theirs (2.3 under 2).
    """
    parents: dict[int, int | None] = {}
    headings = [i for i, block in enumerate(blocks) if block.type == "heading"]
    if any(blocks[i].level for i in headings):
        stack: list[int] = []
        for i in headings:
            level = blocks[i].level or 7
            while stack and (blocks[stack[-1]].level or 7) >= level:
                stack.pop()
            parents[i] = stack[-1] if stack else None
            stack.append(i)
        return parents

    open_: list[_Open] = []
    for i in headings:
        block = blocks[i]
        style = heading_style(block)
        group = is_group(blocks, i)
        parent: _Open | None = None
        sibling_of: _Open | None = None
        if open_ and open_[-1].index == i - 1:
            parent = open_[-1]  # directly after a group heading: its first child
            if parent.child_style is None:
                parent.child_style = style
        else:
            while open_:
                top = open_[-1]
                if top.section and not block.section and not group and top.child_style is None:
                    parent = top  # under "Errata" (with an introduction of its own)
                    break
                if block.number:
                    if top.number:
                        if _is_number_prefix(top.number, block.number):
                            parent = top
                            break
                    elif top.child_style and top.child_style.startswith("number"):
                        parent = top
                        break
                elif group and style == top.style and not top.number:
                    open_.pop()  # a group beside the open one
                    parent = open_[-1] if open_ else None
                    break
                elif style == top.child_style:
                    parent = top
                    break
                elif style == top.style and not top.number:
                    sibling_of = open_.pop()  # the next heading of the group's own level
                    parent = open_[-1] if open_ else None
                    break
                open_.pop()
        if parent is not None:
            while open_ and open_[-1] is not parent:
                open_.pop()
        parents[i] = parent.index if parent else None
        if group:
            open_.append(_Open(i, style, block.number, section=bool(block.section)))
        elif sibling_of is not None and sibling_of.child_style not in (None, style):
            # "PLAYING THE GAME" with a body of its own, beside the group "SETUP": the
            # headings that look like SETUP's children are its children.
            open_.append(_Open(i, style, block.number, child_style=sibling_of.child_style))
    return parents


def is_group(blocks: list[Block], index: int) -> bool:
    """A heading with no body of its own (the next block is a heading), or a section
    heading ("Errata", "FAQ"): the headings after it stand under it."""
    block = blocks[index]
    if block.question:
        return False
    if block.section in ("errata", "clarifications", "questions"):
        return True
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return following is not None and following.type == "heading"


def has_body(blocks: list[Block], index: int) -> bool:
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return following is not None and following.type != "heading"


def _normalise_levels(blocks: list[Block]) -> None:
    """Indentation widths → nesting levels 0, 1, 2 … within each run of list items."""
    run: list[Block] = []
    for block in [*blocks, None]:
        if block is not None and block.type == "bullet":
            run.append(block)
            continue
        if run:
            indents = sorted({b.level for b in run})
            for b in run:
                b.level = indents.index(b.level)
            run = []
