"""Upcoming releases whose day has come: imported for real (``rules.importing.upcoming``).

Run by the background worker at the start of a release's effective date
(``rules.jobs.releases``) and by ``manage.py apply_releases``; applying twice is
harmless (an applied release is no longer upcoming).
"""

import logging
from dataclasses import replace
from datetime import date

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ..content.releases import Release, ReleaseChange
from .options import ImportOptions, SourceInfo
from .pipeline import import_document

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
    options, filename = _options(release)
    if status is not None:
        options = replace(options, status=status)
    if user is not None:
        options = replace(options, user=user)
    if options.source.effective_on is None or options.source.effective_on > timezone.localdate():
        options = replace(options, source=replace(options.source, effective_on=timezone.localdate()))
    with transaction.atomic():
        ReleaseChange.objects.filter(release=release).delete()
        return import_document(bytes(release.pending_document), options, filename)


def _options(release: Release) -> tuple[ImportOptions, str | None]:
    stored = release.pending_options
    info = dict(stored["source"])
    for name in ("published_on", "effective_on"):
        info[name] = date.fromisoformat(info[name]) if info[name] else None
    info["effective_on"] = release.effective_on  # it is due (or published): not upcoming any more
    user = get_user_model().objects.filter(pk=stored["user"]).first() if stored.get("user") else None
    options = ImportOptions(
        game=stored["game"],
        language=stored["language"],
        kind=stored["kind"],
        source=replace(SourceInfo(title=info.pop("title")), **info),
        page=stored["page"],
        status=stored["status"],
        prune=stored["prune"],
        numbered_title=stored["numbered_title"],
        leading_fragment_title=stored["leading_fragment_title"],
        user=user,
    )
    return options, stored.get("filename")
