"""The whole import: text in, a report out; written in one transaction, or in batches whose
new public items readers see only once the last one commits (``rows``, "Transactions")."""

from dataclasses import dataclass, replace

from ..content.models import Entry
from ..shared.languages import CONTENT_LANGUAGE_CODES
from .canonical import import_canonical
from .cleaning import clean
from .crossrefs import normalise_title
from .errors import ImportRulesError
from .options import ImportOptions, SourceInfo
from .reading import read_document
from .report import ImportReport, Repair, Warning
from .splitting import KINDS, ParsedItem, detect_kind, split_items
from .structure import build_blocks, is_index_letter
from .titles import DEFAULT as DEFAULT_NUMBERED_TITLE
from .titles import problem as numbered_title_problem
from .upcoming import is_held, is_upcoming, keep
from .writing import source_pattern, write_items

__all__ = [
    "ImportOptions",
    "ImportReport",
    "Parsed",
    "SourceInfo",
    "import_document",
    "parse_document",
]


@dataclass
class Parsed:
    detected_kind: str
    items: list[ParsedItem]
    repairs: list[Repair]
    warnings: list[Warning]


def parse_document(
    text: str,
    options: ImportOptions,
    *,
    markdown: bool = False,
    known: frozenset[str] | set[str] = frozenset(),
) -> Parsed:
    """``known``: the normalised titles and aliases of the game's stored entries in this
    language, which cross-reference labels may name (``stored_names``)."""
    if options.kind not in (*KINDS, "auto"):
        raise ImportRulesError(
            f"unknown kind {options.kind!r}; use one of {', '.join((*KINDS, 'auto'))}"
        )
    if not text.strip():
        raise ImportRulesError("the document is empty")
    cleaned = clean(text, options.language)
    blocks = build_blocks(cleaned.lines, options.language, markdown=markdown, known=known)
    if not blocks:
        raise ImportRulesError(
            "no rules text found after cleaning (only page furniture or website text)"
        )
    kind = detect_kind(blocks) if options.kind == "auto" else options.kind
    repairs = list(cleaned.repairs)
    items = split_items(
        blocks,
        kind,
        overrides=options.overrides,
        leading_fragment_title=options.leading_fragment_title,
        numbered_title=options.numbered_title or DEFAULT_NUMBERED_TITLE,
        repairs=repairs,
    )
    warnings = list(cleaned.warnings)
    for item in items:
        if item.is_fragment:
            warnings.append(
                Warning(
                    item.line, f"text before the first heading kept as a fragment: {item.title!r}"
                )
            )
    warnings.extend(_after_the_last_entry(blocks, kind, items))
    return Parsed(kind, items, repairs, warnings)


def _after_the_last_entry(blocks, kind: str, items) -> list[Warning]:
    """Text after a glossary's last entry: kept, and reported with its line.

    A glossary entry closes with its "See also" line. Text after the last entry's closing
    line (a closing remark, a credit line, a stray letter) belongs to no entry. It is kept
    at the end of the last entry's body, so nothing is lost, and each of its blocks is
    reported as a warning with its line for a moderator to move or delete.
    """
    if kind != "glossary" or not items:
        return []
    last_heading = max((i for i, block in enumerate(blocks) if block.type == "heading"), default=-1)
    closing = max(
        (i for i, block in enumerate(blocks) if block.type == "crossref" and i > last_heading),
        default=None,
    )
    title = items[-1].title
    if closing is None:
        # No closing lines to tell by; but a lone letter at the very end is no divider
        # (structure keeps it): say where it went.
        last = blocks[-1] if blocks else None
        if last is not None and last.type == "paragraph" and is_index_letter(last.text):
            return [
                Warning(
                    last.line,
                    f"a lone {last.text.strip()!r} after the last entry, "
                    f"kept at the end of {title!r}",
                )
            ]
        return []
    return [
        Warning(
            block.line,
            f"text after the last entry's closing cross-reference line, kept at the end of "
            f"{title!r}: {_shorten(block.text)!r}; move or delete it if it does not belong there",
        )
        for block in blocks[closing + 1 :]
    ]


def _shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def stored_names(game: str, language: str) -> frozenset[str]:
    """Titles and aliases of the game's entries in ``language`` already in the database,
    normalised as cross-reference labels are compared (one query; empty for a new game)."""
    names: set[str] = set()
    for title, aliases in Entry.objects.filter(game__slug=game, language=language).values_list(
        "title", "aliases"
    ):
        names.add(normalise_title(title))
        names.update(normalise_title(alias) for alias in aliases or () if isinstance(alias, str))
    return frozenset(names)


def import_document(
    data: bytes | str, options: ImportOptions, filename: str | None = None
) -> ImportReport:
    """Read, parse and write one document. Raises ImportRulesError for input it cannot read.

    ``data`` is a file's bytes (format and encoding detected) or pasted text. A canonical
    JSON export is imported as it is, without the text pipeline.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if (is_upcoming(options) or is_held(options)) and not options.dry_run:
        # A version that takes effect later, or waits for review: planned now, imported
        # on its day or when a moderator publishes it (rules.importing.upcoming).
        report = import_document(data, replace(options, dry_run=True), filename)
        keep(report, options, data, filename)
        return report
    if options.progress is not None:
        options.progress("reading")
    document = read_document(data, options.language, filename)
    if document.format == "json":
        report = import_canonical(document.text, options)
        report.repairs[:0] = document.repairs
        return report
    if options.language not in CONTENT_LANGUAGE_CODES:
        raise ImportRulesError(
            f"say which language the document is in (one of {', '.join(CONTENT_LANGUAGE_CODES)})"
            if not options.language
            else f"unknown language {options.language!r}; "
            f"use one of {', '.join(CONTENT_LANGUAGE_CODES)}"
        )
    if len(options.page) > 32:
        raise ImportRulesError(
            f"the page {options.page[:40]!r}… is too long (32 characters at most)"
        )
    if options.numbered_title and (problem := numbered_title_problem(options.numbered_title)):
        raise ImportRulesError(problem)
    if options.progress is not None:
        options.progress("parsing")
    # The source's titles for numbered rules, and the pattern this import uses (``titles``).
    previous = source_pattern(options)
    options = replace(options, numbered_title=options.numbered_title or previous or DEFAULT_NUMBERED_TITLE)
    parsed = parse_document(
        document.text,
        options,
        markdown=document.format == "markdown",
        known=stored_names(options.game, options.language),
    )
    report = ImportReport(
        parsed.detected_kind,
        parsed.items,
        repairs=[*document.repairs, *parsed.repairs],
        warnings=parsed.warnings,
        dry_run=options.dry_run,
        input_format=document.format,
    )
    write_items(parsed.items, options, report, previous_pattern=previous or DEFAULT_NUMBERED_TITLE)
    return report
