"""The whole import: text in, a report out; writes in one transaction or not at all."""

from dataclasses import dataclass, field

from .cleaning import Repair, Warning, clean
from .errors import ImportRulesError
from .reading import decode
from .splitting import KINDS, ParsedItem, SectionOverride, detect_kind, split_items
from .structure import build_blocks


@dataclass
class SourceInfo:
    title: str
    kind: str = "rules_reference"
    version: str = ""
    official: bool = True
    url: str = ""
    attribution: str = ""


@dataclass
class ImportOptions:
    game: str  # slug
    language: str
    kind: str = "auto"  # glossary | rulebook | faq | auto
    source: SourceInfo | None = None
    page: str = ""
    status: str = "published"  # for items the import creates; existing items keep theirs
    game_name: str | None = None
    game_details: dict = field(default_factory=dict)
    overrides: dict[str, SectionOverride] = field(default_factory=dict)
    leading_fragment_title: str | None = None
    numbered_title: str = "{parent} {number}"
    dry_run: bool = False


@dataclass
class Parsed:
    detected_kind: str
    items: list[ParsedItem]
    repairs: list[Repair]
    warnings: list[Warning]


@dataclass
class ImportReport:
    detected_kind: str
    items: list[ParsedItem]
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    dry_run: bool = False

    def summary(self) -> str:
        return (
            f"{len(self.items)} items ({self.detected_kind}): {len(self.created)} created, "
            f"{len(self.updated)} updated, {len(self.unchanged)} unchanged; "
            f"{len(self.repairs)} repairs, {len(self.warnings)} warnings"
            + (" (dry run: nothing written)" if self.dry_run else "")
        )


def parse_document(text: str, options: ImportOptions) -> Parsed:
    if options.kind not in (*KINDS, "auto"):
        raise ImportRulesError(f"unknown kind {options.kind!r}; use one of {', '.join((*KINDS, 'auto'))}")
    if not text.strip():
        raise ImportRulesError("the document is empty")
    cleaned = clean(text, options.language)
    blocks = build_blocks(cleaned.lines, options.language)
    if not blocks:
        raise ImportRulesError("no rules text found after cleaning (only page furniture or website text)")
    kind = detect_kind(blocks) if options.kind == "auto" else options.kind
    repairs = list(cleaned.repairs)
    items = split_items(
        blocks,
        kind,
        overrides=options.overrides,
        leading_fragment_title=options.leading_fragment_title,
        numbered_title=options.numbered_title,
        repairs=repairs,
    )
    warnings = list(cleaned.warnings)
    for item in items:
        if item.is_fragment:
            warnings.append(Warning(item.line, f"text before the first heading kept as a fragment: {item.title!r}"))
    return Parsed(kind, items, repairs, warnings)


def import_document(data: bytes | str, options: ImportOptions) -> ImportReport:
    """Parse and write one document. Raises ImportRulesError for input it cannot read."""
    from .writing import write_items

    text = decode(data) if isinstance(data, bytes) else data
    parsed = parse_document(text, options)
    report = ImportReport(
        parsed.detected_kind, parsed.items, repairs=parsed.repairs, warnings=parsed.warnings, dry_run=options.dry_run
    )
    write_items(parsed.items, options, report)
    return report
