"""Lines to blocks: headings, paragraphs, list items, numbered rules, cross-reference lines.

Hard line wraps are joined as the lines are read (``wraps`` says how).

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

Markdown (``markdown=True``): ATX and setext headings carry their level, "-", "*", "+"
and "1." lists nest by indentation, fenced code, tables and block quotes are kept
verbatim, and all text is kept as Markdown (``Block.markdown``), not escaped.

The words and patterns are in ``markers``. Which heading stands under which is the next
step, ``outline``.
"""

import re
from dataclasses import dataclass, field

from ..cleaning import Line
from ..crossrefs import (
    FINAL_CONJUNCTIONS,
    document_separator,
    match_cross_reference_line,
    match_list_opener,
    match_redirect_line,
    name_heads,
    normalise_title,
    parse_labels,
    split_trailing_cross_reference,
    strip_section,
    title_names,
)
from .markers import (
    ANSWER_PREFIX,
    ATX,
    BULLET,
    CLOSERS,
    CONNECTORS,
    ELLIPSIS,
    INLINE_ANSWER,
    MD_BOLD_LINE,
    MD_COMMENT,
    MD_FENCE,
    MD_LIST,
    MD_RULE,
    NUMBERED,
    QUESTION_MAX,
    QUESTION_PREFIX,
    RULE_LINE,
    SECTION_PHRASES,
    SETEXT,
    TWO_SENTENCES,
    ends_sentence,
    is_index_letter,
    is_next_sibling,
    section_kind,
)
from .wraps import Evidence, join_point, measure

_PAGE_TAIL = re.compile(r"[\s.·…_\-]*\d{1,4}$")
# A line whose first word starts a "contents" phrase: the few worth normalising.
_CONTENTS_WORDS = sorted({re.escape(phrase.split()[0]) for phrase in SECTION_PHRASES["contents"]})
_MAY_NAME_CONTENTS = re.compile(rf"^[\W_]*(?:{'|'.join(_CONTENTS_WORDS)})", re.IGNORECASE)
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


def _ends_mid_phrase(text: str) -> bool:
    """The line stops where a sentence cannot: after a comma, a hyphen or a connector."""
    stripped = text.rstrip()
    if stripped.endswith((",", "-", "(", "„", "“", "/")):
        return not stripped.endswith((" -", "--"))
    words = stripped.split()
    return bool(words) and words[-1].lower() in CONNECTORS


# -- Building blocks ----------------------------------------------------------------------


def build_blocks(
    lines: list[Line],
    language: str,
    *,
    markdown: bool = False,
    known: frozenset[str] | set[str] = frozenset(),
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
        if block.type not in ("bullet", "numbered", "paragraph") or block.text.startswith(
            ("```", "~~~", "|", ">")
        ):
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
        self.related: int | None = None  # under a "Related topics" line: the labels read so far
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
            if self.related is not None:
                if self._related_label(raw, stripped, line.number, position):
                    self.blank_before = False
                    continue
                self.related = None
            if match_list_opener(stripped) and self.next_text(position):
                # "Related topics" / "Zie ook" / "**Voir aussi**" alone: the lines under it
                # are labels of the entry it closes, not an entry of their own
                self.related = 0
                self.block_ended, self.list_context, self.open_question = True, "", False
                self.blank_before = False
                continue
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

    def _related_label(self, raw: str, stripped: str, number: int, position: int) -> bool:
        """A line of the list under a "Related topics" line: a bullet, or a short line of
        labels ("Field", "Bribe, Fence"); False where the list has ended (a blank line
        before a line that is no bullet, or the next entry's title: a line followed by
        its text)."""
        item = BULLET.match(raw) or (MD_LIST.match(raw) if self.markdown else None)
        if item is not None and not (item.groupdict().get("number")):
            text = item.group("text").strip()
        else:
            if self.blank_before and self.related:
                return False
            if match_cross_reference_line(stripped) is not None or match_list_opener(stripped):
                return False
            text = stripped
            candidate = (_plain_title(text) if self.markdown else text).rstrip(".").rstrip()
            if not candidate or not _looks_like_heading(candidate, self.heading_max):
                return False
            following = self.lines[position + 1].text.strip() if position + 1 < len(self.lines) else ""
            if following and not (
                BULLET.match(following)
                or match_cross_reference_line(following) is not None
                or _looks_like_heading(following, self.heading_max)
            ):
                return False  # a title with its text under it: the next entry
        self.add(Block("crossref", text, number, last_raw=stripped, markdown=self.markdown))
        self.related = (self.related or 0) + 1
        self.block_ended, self.list_context = True, ""
        return True

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
            ordered = item.group("number") is not None
            if ordered:
                continuing = self.current is not None and self.current.type == "bullet" and self.current.ordered
                if not (self.list_context or continuing or indent):
                    return False  # a numbered rule: read as plain text
            text = item.group("text").strip()
            self.add(
                Block(
                    "bullet",
                    text,
                    number,
                    level=indent,
                    number=item.group("number") or "",
                    ordered=ordered,
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
            target = match_redirect_line(stripped, self.language)
            if target is not None and match_cross_reference_line(stripped) is None:
                self.add(
                    Block("crossref", target, number, last_raw=stripped, markdown=md, redirect=True)
                )
                self.list_context, self.block_ended = "", True
                return
        elif current is not None and (self.block_ended or self.blank_before):
            # "See Guard in the Patrols section." on a line of its own after the text: a
            # cross-reference when what it names reads as titles
            target = match_redirect_line(stripped, self.language)
            if (
                target is not None
                and match_cross_reference_line(stripped) is None
                and _reads_as_titles(target, self.language)
            ):
                self.add(Block("crossref", target, number, last_raw=stripped, markdown=md))
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
            answer = INLINE_ANSWER.search(text)
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
            current is not None and current.ordered and is_next_sibling(current.number, label)
        )
        if in_list and label.isdigit() and len(text) <= 100 and not TWO_SENTENCES.search(text):
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
            and _opening(text).isupper()
            and not TWO_SENTENCES.search(core[:-1])
        ):
            question = True
        elif self._looks_like_heading(text):
            question = False
        else:
            return False
        following = self.next_text(position)
        if not following:
            return False
        if following[:1].islower() and not question and match_redirect_line(following, self.language) is None:
            return False  # the line starts a sentence that goes on ("voir X" redirects)
        next_number = NUMBERED.match(following)
        if number_of and next_number and not question:
            # "2. Combat" above "3. Scoring" is a list (or a table of contents); above
            # "2.1 …" or "201. …" it is a section
            return not is_next_sibling(number_of, next_number.group("number"))
        return True


def _opening(text: str) -> str:
    """The first letter of a line past opening quotes, brackets, emphasis and Spanish
    opening marks ("¿Puedo …?", "¡Atención!"): what says whether it starts a sentence."""
    return text.lstrip("\"'“„‘«(*_¿¡")[:1]


def _looks_like_heading(text: str, max_length: int) -> bool:
    if len(text) > max_length or len(text.split()) > 12:
        return False
    first = _opening(text)
    if not (first.isupper() or first.isdigit()):
        return False
    if text.endswith("-") or TWO_SENTENCES.search(text):
        return False
    core = text.rstrip(CLOSERS + " ")
    if core.endswith(ELLIPSIS) or core.endswith("?"):
        return True
    return bool(core) and core[-1] not in ".,;:!"


def _reads_as_titles(label: str, language: str) -> bool:
    """ "Guard", "„Vorrat“", "Patrol Route and Noise": what a see-line names reads as
    titles (quoted, or every word capitalised but small connecting words), not as a
    sentence ("Figure 3 for an example of a full round")."""
    core = strip_section(label, language).strip().rstrip(".").strip()
    if core[:1] in "\"“„«‘'" :
        return True
    words = core.split()
    return bool(words) and all(
        word[:1].isupper() or word[:1].isdigit() or word.casefold() in CONNECTORS for word in words
    )


def _plain_title(text: str) -> str:
    """A Markdown heading's text as a plain title: no emphasis, links as their text."""
    text = re.sub(
        r"\[\[([^\[\]|]+?)(?:\|([^\[\]]+?))?\]\]", lambda m: m.group(2) or m.group(1), text
    )
    text = re.sub(r"\[([^\[\]]+)\]\([^()]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    return text.strip().rstrip("#").strip()


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
            or not _opening(text).isupper()
            or TWO_SENTENCES.search(core[:-1])
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


def _drop_index_letters(lines: list[Line]) -> list[Line]:
    """Alphabet dividers of a glossary ("A", "B", "C–D" on a line of their own). A letter
    with no text after it divides nothing: it is kept (and reported by the pipeline). A
    letter followed by text of its own, its definition ("X" / "The current tide, from 1 to
    6.", "B" / "See "Board"."), is a one-letter term, not a divider: a divider is followed
    by the next entry's title, or by another letter."""
    texts = [line.text.strip() for line in lines]
    filled = [i for i, text in enumerate(texts) if text]
    following = {index: filled[n + 1] if n + 1 < len(filled) else None for n, index in enumerate(filled)}
    last = filled[-1] if filled else -1

    def divider(index: int) -> bool:
        if index == last or not is_index_letter(texts[index]):
            return False
        after = following[index]
        if after is None:
            return True
        text = texts[after]
        if is_index_letter(text):
            return True
        if match_redirect_line(text) is not None or match_cross_reference_line(text) is not None:
            return False  # "B" / "See also: Board": the letter's own text
        return _looks_like_heading(text, 90)

    return [line for i, line in enumerate(lines) if not divider(i)]


def _drop_contents(lines: list[Line]) -> list[Line]:
    """A table of contents: a "Contents" heading and the lines after it that reappear
    later in the document (as headings), page numbers and dot leaders aside."""
    contents = SECTION_PHRASES["contents"]
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if _MAY_NAME_CONTENTS.match(line.text)
            and normalise_title(line.text.strip("#*_ :")) in contents
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

