"""The worker's periodic check that every built file its record says is stored is in the
storage (``check``): a file lost (a storage wiped or switched, an object deleted by
hand or by a lifecycle rule) is built again, not only when a reader next asks for it.

One listing of the storage per kind of file, then the records compared with it: the
records are read *before* the listing, so a file built meanwhile is never taken for
missing (its bytes were stored before its record named them); one replaced meanwhile
(its old name deleted) is not forgotten either, since ``tasks.found_missing`` acts only
while the record still names what was missing.
"""

from datetime import timedelta

from django.utils import timezone

from .models import BuiltFile
from .storage import stored_names
from .tasks import found_missing

MISSING_WARNING = timedelta(minutes=5)  # the admin's front page warns after this long


def check() -> int:
    """Ask for every stored file missing from the storage to be built again; how many."""
    records = list(BuiltFile.objects.exclude(name="").defer("error"))
    if not records:
        return 0
    names = stored_names({record.kind for record in records})
    lost = 0
    for record in records:
        gone = [name for name in (record.name, record.gzip_name) if name and name not in names]
        if gone:
            lost += found_missing(record, "the worker's check of the storage", ", ".join(gone))
    return lost


def long_missing() -> int:
    """How many files have been missing from the storage for more than ``MISSING_WARNING``
    (found missing and not built again since: no worker, or their builds fail)."""
    return BuiltFile.objects.filter(missing_since__lt=timezone.now() - MISSING_WARNING).count()
