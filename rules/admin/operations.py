"""What the admin's front page warns about in how the site runs (not its content):
built files missing from the storage for more than a few minutes
(``rules.builds.upkeep``), and no background worker seen for a while
(``rules.jobs.heartbeat``). Two small queries; nothing when all is well."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..builds.upkeep import MISSING_WARNING, long_missing
from ..jobs.heartbeat import silent_for


def warnings() -> list[str]:
    found = []
    missing = long_missing()
    if missing:
        found.append(
            ngettext(
                "%(count)d built file (booklet, sitemap or bulk file) has been missing from the storage for more "
                "than %(minutes)d minutes: readers are told it is being prepared. Is the worker running, and can "
                "it write to the storage?",
                "%(count)d built files (booklets, sitemaps or bulk files) have been missing from the storage for "
                "more than %(minutes)d minutes: readers are told they are being prepared. Is the worker running, "
                "and can it write to the storage?",
                missing,
            )
            % {"count": missing, "minutes": MISSING_WARNING.total_seconds() // 60}
        )
    quiet = silent_for()
    if quiet is not None:
        found.append(
            _(
                "No background worker has been seen for %(minutes)d minutes (manage.py db_worker): booklets, "
                "sitemaps, bulk files, imports and semantic search wait until one runs."
            )
            % {"minutes": quiet.total_seconds() // 60}
        )
    return found
