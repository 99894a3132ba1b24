"""What the caller asks of an import: the game, the language, the source and how to write.

The management commands, the admin's upload, the demo loader and the manifest fill
these in; both importers read them. Like ``report``, this module imports nothing of the
importer.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date


@dataclass
class SourceInfo:
    title: str
    kind: str = "rules_reference"
    version: str = ""
    official: bool = True
    url: str = ""
    attribution: str = ""
    # A version label makes the import a release of the source (``rules.importing.releases``):
    # it records exactly what this version changed, with these dates and notes.
    published_on: date | None = None
    effective_on: date | None = None
    notes: str = ""
    # An existing source of that title keeps its details unless this is set (a manifest
    # is the source's description; a command line or upload only names it).
    update_existing: bool = False


@dataclass
class SectionOverride:
    """Per-section instructions from a manifest: "this section is an erratum"."""

    type: str | None = None  # entry | erratum | question
    aliases: list[str] = field(default_factory=list)
    affects: list[str] = field(default_factory=list)
    title: str | None = None
    erratum_kind: str | None = None


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
    # How numbered rules without a title of their own are titled (``titles``): None keeps
    # the source's own pattern (``Source.numbered_title``, else read from its rules' titles,
    # else ``titles.DEFAULT``); a pattern given here becomes the source's.
    numbered_title: str | None = None
    dry_run: bool = False
    # A version held for review (the admin upload's default): planned now and kept with
    # its release, imported when a moderator publishes the release
    # (``rules.importing.upcoming``). Only with a version; a future effective date wins.
    hold: bool = False
    # Remove this source's items (same game and language) that the document no longer has:
    # archive them (``removal="archive"``, the default: kept with their history, their old
    # addresses answer 410 Gone naming the release) or delete them for good ("delete").
    prune: bool = False
    removal: str = "archive"
    user: object | None = None  # recorded as the author of the history versions
    # Told of each stage and batch (stage, done, total): the admin's progress page.
    progress: Callable[[str, int, int], None] | None = None
