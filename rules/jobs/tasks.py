"""Previewing and importing a moderator's document in the background.

``preview_import`` runs the importer as a dry run (which writes nothing) and keeps its
report on the job; ``run_import`` imports for real, the history naming the moderator.
Both tell the job where they are (``Progress``), at most twice a second, so the admin's
page shows it. Both run on the ``imports`` queue (``rules.jobs``: a worker of its own, so
a long import keeps no booklet waiting), before any release whose day has come. A
document the importer refuses ends the job as failed, with the importer's words and
line; the same values always give the same options, so the import does what the
preview showed (or says what differs).
"""

import logging
import time
from datetime import date

from django.contrib.auth import get_user_model
from django.utils import timezone, translation
from django.utils.translation import gettext_noop
from django_tasks import task

from ..content.models import Source
from ..content.releases import KINDS, count_by_kind
from ..importing import ImportOptions, ImportRulesError, import_document
from ..importing.pipeline import SourceInfo
from ..shared.queues import IMPORTS
from . import releases
from .models import ImportJob

logger = logging.getLogger(__name__)

MODERATOR_PRIORITY = 10  # a moderator is waiting: before a release whose day has come
# A new source's kind, from the document's kind (an existing source keeps its own).
SOURCE_KIND = {"rulebook": Source.Kind.RULEBOOK, "faq": Source.Kind.FAQ}
STAGES = {
    "reading": gettext_noop("Reading the document"),
    "parsing": gettext_noop("Finding entries, rules and cross-references"),
    "planning": gettext_noop("Comparing with what is stored"),
    "writing": gettext_noop("Writing"),
    "linking": gettext_noop("Linking cross-references and updating pages"),
}


def build_options(values: dict, *, dry_run: bool, user=None, progress=None) -> ImportOptions:
    """The importer's options from a job's values: the same values always give the same
    options, so the import does what its preview showed."""
    existing = Source.objects.filter(
        game__slug=values["game"], language=values["language"], title=values["source_title"]
    ).first()
    # A version named in the upload makes the import a release of the source
    # (rules.importing.releases); without one, the source keeps the version it has.
    version = values.get("source_version") or ""
    effective = date.fromisoformat(values["effective_date"]) if values.get("effective_date") else None
    if existing:  # keep what the source already says about itself
        source = SourceInfo(
            title=existing.title,
            kind=existing.kind,
            version=version,
            official=existing.official,
            url=existing.url,
            attribution=existing.attribution,
            effective_on=effective,
        )
    else:
        kind = SOURCE_KIND.get(values["kind"], Source.Kind.RULES_REFERENCE)
        source = SourceInfo(title=values["source_title"], kind=kind, version=version, effective_on=effective)
    return ImportOptions(
        game=values["game"],
        game_name=values["game_name"],
        language=values["language"],
        kind=values["kind"],
        source=source,
        page=values["page"],
        prune=values["prune"],
        # A job kept before removals were archived deleted them.
        removal=values.get("removal", "delete"),
        status=values.get("status", "draft"),
        hold=values.get("hold", False),
        # "" or absent: the source's own pattern (rules.importing.titles)
        numbered_title=values.get("numbered_title") or None,
        dry_run=dry_run,
        user=user,  # the history versions name the moderator who imported
        progress=progress,
    )


class Progress:
    """Writes a job's stage and rows done, at most every ``interval`` seconds (and each
    new stage at once). Called between the import's transactions, so each write is
    committed and seen by the admin's page at once."""

    def __init__(self, job: ImportJob, interval: float = 0.5):
        self.job, self.interval, self.last, self.stage = job, interval, 0.0, None

    def __call__(self, stage: str, done: int = 0, total: int = 0) -> None:
        now = time.monotonic()
        if stage == self.stage and now - self.last < self.interval and done < total:
            return
        self.stage, self.last = stage, now
        ImportJob.objects.filter(pk=self.job.pk).update(stage=stage, done=done, total=total, updated_at=timezone.now())


CHANGES_KEPT = 1000  # change lines a job keeps per kind, for its page


def report_data(report) -> dict:
    """An ImportReport as JSON, for the job page (``rules.admin.importing``)."""
    return {
        "detected_kind": report.detected_kind,
        "input_format": report.input_format,
        "outcomes": [
            [outcome.type, outcome.title, outcome.action, outcome.slug, outcome.changes, outcome.text]
            for outcome in report.outcomes
        ],
        "repairs": [[r.original, r.replacement, r.line, r.note] for r in report.repairs],
        "warnings": [[w.line, w.message] for w in report.warnings],
        "release": report.release,
        "upcoming": report.scheduled_for.isoformat() if report.scheduled_for else None,
        "held": report.held,
        # What changed by identity (rules.importing.releases), the first CHANGES_KEPT of
        # each kind (a first release of 10,000 rules lists every one as added) and counts.
        # Each line as the page shows it: what changed in it, an added item's text too.
        "changes": [
            {
                "type": line.type,
                "change": line.change,
                "number": line.number,
                "previous_number": line.previous_number,
                "title": line.title,
                "previous_title": line.previous_title,
                "title_changed": line.title_changed,
                "slug": line.slug,
                "previous_slug": line.previous_slug,
                "diff": line.diff_html,
                "text": line.text if line.change == "added" else "",
            }
            for kind in KINDS
            for line in [line for line in report.changes if line.change == kind][:CHANGES_KEPT]
        ],
        "change_counts": count_by_kind(report.changes),
    }


def _run(job_id: int, *, expected: str, dry_run: bool) -> str:
    job = ImportJob.objects.filter(pk=job_id, state=expected).first()
    if job is None:
        return "gone"  # cancelled, or run already
    ImportJob.objects.filter(pk=job.pk).update(started_at=timezone.now(), stage="reading", done=0, total=0)
    user = get_user_model().objects.filter(pk=job.user_id).first()
    options = build_options(job.values, dry_run=dry_run, user=user, progress=Progress(job))
    try:
        with translation.override(job.values.get("ui_language") or None):  # its warnings are the moderator's
            report = import_document(job.document, options, filename=job.filename or None)
    except ImportRulesError as error:
        ImportJob.objects.filter(pk=job.pk).update(
            state=ImportJob.State.FAILED, error=error.message, result={"line": error.line}, data=b""
        )
        return "refused"
    except Exception:
        logger.exception("import job %s failed", job.pk)
        ImportJob.objects.filter(pk=job.pk).update(
            state=ImportJob.State.FAILED,
            error=gettext_noop("The import stopped on an unexpected error; see the server's log."),
        )
        raise
    if dry_run:
        ImportJob.objects.filter(pk=job.pk).update(state=ImportJob.State.PREVIEWED, preview=report_data(report))
    else:
        ImportJob.objects.filter(pk=job.pk).update(state=ImportJob.State.DONE, result=report_data(report), data=b"")
        if report.scheduled_for:  # an upcoming release: applied at the start of its day
            releases.schedule(report.scheduled_for)
    return "previewed" if dry_run else "imported"


@task(priority=MODERATOR_PRIORITY, queue_name=IMPORTS)
def preview_import(job_id: int) -> str:
    return _run(job_id, expected=ImportJob.State.PREVIEWING, dry_run=True)


@task(priority=MODERATOR_PRIORITY, queue_name=IMPORTS)
def run_import(job_id: int) -> str:
    return _run(job_id, expected=ImportJob.State.IMPORTING, dry_run=False)
