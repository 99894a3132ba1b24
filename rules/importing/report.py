"""What an import tells its reader: repairs, warnings and one outcome per row.

Every stage adds to the same report: reading and cleaning list their repairs, cleaning,
splitting and writing their warnings, the row writer (``rows``) one ``Outcome`` per item
it created, changed, left alone or deleted. Both importers, the text pipeline and the
canonical JSON one, hand back an ``ImportReport``; the management command prints it
and the admin shows it as the dry-run preview. This module imports nothing of the
importer, so every stage may use it.
"""

from dataclasses import dataclass, field


@dataclass
class Repair:
    """Something the importer changed in the text, for a moderator to check."""

    original: str
    replacement: str
    line: int | None = None
    note: str = ""


@dataclass
class Warning:
    """Something a moderator should look at (kept, not refused)."""

    line: int | None
    message: str


@dataclass
class Outcome:
    """What the import did (or, in a dry run, would do) to one item."""

    type: str  # game | source | entry | erratum | question
    title: str
    action: str  # created | updated | unchanged | archived (removed, kept) | deleted
    slug: str = ""
    # For "updated": field name → (before, after), both as text, for a reviewer's diff.
    changes: dict[str, tuple[str, str]] = field(default_factory=dict)
    text: str = ""  # for "created": its text (body, corrected text, answer), for the preview


@dataclass
class ChangeLine:
    """What a new version did to one rule, erratum or question, judged by identity
    (``rules.importing.releases``): reworded, retitled, renumbered, added or removed.
    Unchanged items are not listed; nor is what only an import's bookkeeping touched
    (its source, order, a title its number made)."""

    type: str  # entry | erratum | question
    change: str  # reworded | retitled | renumbered | added | removed
    number: str
    title: str
    slug: str = ""
    item_id: int | None = None  # none in a dry run's new rows
    text: str = ""  # the text after ("" for "removed": its last text is previous_text)
    previous_number: str = ""
    previous_title: str = ""
    previous_slug: str = ""
    previous_text: str = ""
    diff_html: str = ""  # "reworded": the word diff of the texts
    # Its title is the source's pattern made from its number, before and after: a new
    # title is part of its renumbering, not a re-title (rules.importing.titles).
    title_follows: bool = False
    title_changed: bool = False  # re-titled, whatever its kind (a reworded rule may be too)
    successor: "ChangeLine | None" = None  # "removed": the line its text went to, if any


@dataclass
class ImportReport:
    detected_kind: str
    items: list  # the parsed items of a text document (splitting.ParsedItem); none for JSON
    outcomes: list[Outcome] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    dry_run: bool = False
    input_format: str = "text"  # text | markdown | pdf | json
    changes: list[ChangeLine] = field(default_factory=list)  # what changed, by identity
    release: str = ""  # the release of the source this import made or added to
    scheduled_for: object = None  # an upcoming release: the day it takes effect (a date)
    held: bool = False  # a version held for review: nothing written until it is published

    def _titles(self, action: str) -> list[str]:
        return [outcome.title for outcome in self.outcomes if outcome.action == action]

    @property
    def created(self) -> list[str]:
        return self._titles("created")

    @property
    def updated(self) -> list[str]:
        return self._titles("updated")

    @property
    def unchanged(self) -> list[str]:
        return self._titles("unchanged")

    @property
    def deleted(self) -> list[str]:
        return self._titles("deleted")

    @property
    def archived(self) -> list[str]:
        return self._titles("archived")

    def summary(self) -> str:
        deleted = f", {len(self.deleted)} deleted" if self.deleted else ""
        deleted += f", {len(self.archived)} archived" if self.archived else ""
        # The items the document holds: parsed ones, or (a JSON export) its rows.
        count = len(self.items) or len([o for o in self.outcomes if o.action not in ("deleted", "archived")])
        return (
            f"{count} items ({self.detected_kind}): {len(self.created)} created, "
            f"{len(self.updated)} updated, {len(self.unchanged)} unchanged{deleted}; "
            f"{len(self.repairs)} repairs, {len(self.warnings)} warnings"
            + (
                f" (upcoming: takes effect on {self.scheduled_for.isoformat()}; nothing changes before)"
                if self.scheduled_for
                else " (held for review: nothing changes until the release is published)"
                if self.held
                else " (dry run: nothing written)"
                if self.dry_run
                else ""
            )
        )
