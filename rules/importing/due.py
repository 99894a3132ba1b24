"""Upcoming releases whose day has come: imported for real (``rules.importing.upcoming``).

Run by the background worker at the start of a release's effective date
(``rules.jobs.releases``) and by ``manage.py apply_releases``; applying twice is
harmless (an applied release is no longer upcoming).
"""

import logging
from dataclasses import replace
from datetime import date

from django.db import transaction
from django.utils import timezone

from ..content.releases import Release, ReleaseChange
from .pipeline import import_document
from .upcoming import stored_import

logger = logging.getLogger(__name__)


def apply_due(today: date | None = None) -> list[Release]:
    """Import every upcoming release whose effective date has come, oldest first; the
    releases applied. One that fails stays upcoming (logged) and is tried again next
    time; the others go on."""
    today = today or timezone.localdate()
    applied = []
    due = Release.objects.upcoming().filter(effective_on__lte=today).select_related("source").order_by(
        "effective_on", "sequence"
    )
    for release in due:
        try:
            apply_release(release)
        except Exception:
            logger.exception("upcoming release %s %s could not be applied", release.source, release.version)
            continue
        applied.append(release)
    return applied


def apply_release(release: Release, *, status: str | None = None, user=None):
    """Import a release that is not applied yet, now: all or nothing (a large document
    too); the plan gives way to what the import does, and the release is the site's text
    once it is written. ``status``: of the items it creates (publishing a held release:
    published), else what the upload chose. The import's report."""
    options, filename = stored_import(release)
    if status is not None:
        options = replace(options, status=status)
    if user is not None:
        options = replace(options, user=user)
    if options.source.effective_on is None or options.source.effective_on > timezone.localdate():
        options = replace(options, source=replace(options.source, effective_on=timezone.localdate()))
    with transaction.atomic():
        ReleaseChange.objects.filter(release=release).delete()
        return import_document(bytes(release.pending_document), options, filename)
