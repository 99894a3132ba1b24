"""Releases not applied yet: a version whose effective date is ahead waits for its day,
and one held for review waits for a moderator.

Publishers announce a new version weeks before it applies (tournament rules, a reprint
"effective from 1 March"). Imported with an effective date after today, a version
changes nothing on the site yet: the import is planned as a dry run, and the release
(``rules.content.releases``) is stored *upcoming*, with that plan as its change list
(pages and the API show it, marked upcoming) and with the document and the import's
options. On its effective date the background worker imports it for real
(``rules.importing.due``; the caller enqueues ``rules.jobs.releases.apply_due_releases`` to run
at the start of that day, and ``manage.py apply_releases`` does the same for a site
without a worker): nobody has to press anything at midnight, and the change list
becomes what the import then actually did (the plan is made again against the text of
that day, so edits made meanwhile count).

Decisions:

- **Held for review** (``ImportOptions.hold``, the admin upload's default for a version):
  the same, but without a date: it waits for a moderator to publish the release on its
  review page (``rules.admin.releases``), which imports it with its new items
  published; nothing on the site changes before, a published entry's text included.
  The worker never applies a held release.
- Importing the same upcoming label again replaces its document and plan (a corrected
  file); with an effective date of today or earlier it applies at once.
- A new game cannot have an upcoming first version (there is nothing to keep showing
  until then); a new source can: it is created, empty, and shows its upcoming release.
- Options a manifest gives per section (overrides) are not kept: an upcoming release
  is a document imported by the command or the admin.
- Upcoming releases are applied in their order (an earlier one first), each against
  the text the one before left.
"""

from dataclasses import asdict
from datetime import date

from django.contrib.auth import get_user_model
from django.utils import timezone

from ..content.journal import unit_of_work
from ..content.models import Game, Source
from ..content.releases import Release, ReleaseChange
from .errors import ImportRulesError
from .options import ImportOptions, SourceInfo
from .releases import change_rows
from .report import ImportReport


def is_upcoming(options: ImportOptions) -> bool:
    """Whether this import is a version that takes effect after today."""
    info = options.source
    return bool(
        info is not None and info.version and info.effective_on and info.effective_on > timezone.localdate()
    )


def is_held(options: ImportOptions) -> bool:
    """Whether this import is a version held for a moderator's review (no future date)."""
    info = options.source
    return bool(info is not None and info.version and options.hold and not is_upcoming(options))


def keep(report: ImportReport, options: ImportOptions, data: bytes, filename: str | None) -> Release:
    """Store the planned import (``report``, a dry run) as the upcoming release, with its
    document and options for the day it applies."""
    info = options.source
    game = Game.objects.filter(slug=options.game).first()
    if game is None:
        raise ImportRulesError(
            f"unknown game {options.game!r}: a new game's first version takes effect when it is imported "
            "(leave out the effective date, or give today's)"
        )
    with unit_of_work():
        source, _created = Source.objects.get_or_create(
            game=game,
            language=options.language,
            title=info.title,
            defaults={
                "kind": info.kind, "official": info.official, "url": info.url, "attribution": info.attribution,
            },  # fmt: skip
        )
        release = Release.objects.filter(source=source, version=info.version).first()
        if release is not None and not release.pending:
            raise ImportRulesError(
                f"{source.title!r} {info.version!r} is already the site's text; a new version needs a new label"
            )
        if release is None:
            release = Release(source=source, version=info.version, sequence=Release.objects.next_sequence(source))
        release.published_on = info.published_on or timezone.localdate()
        release.effective_on = info.effective_on or (None if is_held(options) else release.published_on)
        release.notes = info.notes
        release.pending = True
        release.held = is_held(options)
        release.pending_document = data
        release.pending_options = _stored_options(options, filename)
        release.save()
        ReleaseChange.objects.filter(release=release).delete()
        ReleaseChange.objects.bulk_create(change_rows(release, report.changes), batch_size=500)
    report.release = info.version
    if is_held(options):
        report.held = True
    else:
        report.scheduled_for = info.effective_on
    return release


def _stored_options(options: ImportOptions, filename: str | None) -> dict:
    """The import's options as JSON, for the day it applies (``stored_import`` reads them)."""
    info = asdict(options.source)
    for name in ("published_on", "effective_on"):
        info[name] = info[name].isoformat() if info[name] else None
    return {
        "game": options.game,
        "language": options.language,
        "kind": options.kind,
        "page": options.page,
        "status": options.status,
        "prune": options.prune,
        "removal": options.removal,
        "numbered_title": options.numbered_title,
        "leading_fragment_title": options.leading_fragment_title,
        "user": getattr(options.user, "pk", None),
        "filename": filename,
        "source": info,
    }


def stored_import(release: Release) -> tuple[ImportOptions, str | None]:
    """The options and file name ``_stored_options`` kept with a pending release."""
    stored = release.pending_options
    info = dict(stored["source"])
    for name in ("published_on", "effective_on"):
        info[name] = date.fromisoformat(info[name]) if info[name] else None
    user = get_user_model().objects.filter(pk=stored["user"]).first() if stored.get("user") else None
    options = ImportOptions(
        game=stored["game"],
        language=stored["language"],
        kind=stored["kind"],
        source=SourceInfo(**info),
        page=stored["page"],
        status=stored["status"],
        prune=stored["prune"],
        removal=stored.get("removal", "delete"),  # kept before removals were archived: deleted
        numbered_title=stored["numbered_title"],
        leading_fragment_title=stored["leading_fragment_title"],
        user=user,
    )
    return options, stored.get("filename")
