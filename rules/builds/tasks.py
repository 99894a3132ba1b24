"""Building files in the background: ``build_file`` (a task of Django's tasks API on the
``default`` queue, whose worker runs nothing else: ``rules.jobs``), ``request_build``
(asks for it once per file and content version) and ``found_missing`` (a file its record
says is stored but the storage lacks: built again)."""

import gzip
import hashlib
import logging
import traceback

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone, translation
from django_tasks import task

from ..content import version as content_version
from ..shared.database import brief_write, is_database_busy
from ..shared.queues import BUILDS
from .kinds import KINDS
from .models import BuiltFile
from .storage import storage

logger = logging.getLogger(__name__)

GZIP_LEVEL = 9  # once per build, read many times


def request_build(file: BuiltFile, token: int) -> bool:
    """Ask for ``file`` to be brought up to date with content version ``token``: one
    task per file and version, whoever asks first. A reader's request asks on the side
    and never waits long for it (``brief_write``): if the database is busy, the next
    reader asks again. Whether a build was asked for now."""
    try:
        with brief_write():
            asked = BuiltFile.objects.filter(pk=file.pk).exclude(requested_token=token).update(requested_token=token)
            if asked:
                build_file.enqueue(file.pk)
    except Exception as error:
        if not is_database_busy(error):
            raise
        logger.info("database busy: the build of %s is asked for by a later request", file)
        return False
    return bool(asked)


def found_missing(file: BuiltFile, how: str, missing: str = "") -> bool:
    """``file``'s record names bytes the storage does not hold (lost, deleted, a storage
    switched): forget them, so readers get "being prepared" rather than an error, note
    since when it is missing (the admin's front page warns after a few minutes) and have
    the worker build it again. ``how`` says who found it and ``missing`` which name it
    missed (default: the file's), for the log. Only the first to
    find it does so (the record still names what was found missing); whether it did."""
    try:
        with brief_write():
            forgotten = (
                BuiltFile.objects.filter(pk=file.pk, name=file.name, gzip_name=file.gzip_name)
                .exclude(name="")
                .update(
                    name="", size=0, sha256="", gzip_name="", gzip_size=0, gzip_sha256="",
                    missing_since=Coalesce(F("missing_since"), timezone.now()),
                )
            )  # fmt: skip
            if forgotten:
                build_file.enqueue(file.pk)
    except Exception as error:
        if not is_database_busy(error):
            raise
        logger.info("database busy: %s, missing from the storage, is built again later", file)
        return False
    if forgotten:
        logger.warning(
            "built file %s (%s) is missing from the storage (found by %s): building it again",
            file, missing or file.name, how,
        )  # fmt: skip
    return bool(forgotten)


@task(queue_name=BUILDS)  # readers wait: never behind an import or a run of vectors
def build_file(file_id: int) -> str:
    """Make the file again if what it is made from changed since it was last built;
    else only note that it is up to date. What it did, for the task's result."""
    file = BuiltFile.objects.select_related("game").filter(pk=file_id).first()
    if file is None:
        return "gone"
    kind = KINDS[file.kind]
    version = content_version.current()  # before reading: a later write asks again
    try:
        with translation.override(file.ui_language or None):
            gathered = kind.gather(file)
            fingerprint = kind.fingerprint(file, gathered)
            if gathered is not None and fingerprint == file.fingerprint and file.is_stored:
                BuiltFile.objects.filter(pk=file.pk).update(checked_token=version.token, error="", withdrawn=False)
                return "unchanged"
            cursor = getattr(gathered, "cursor", None)  # a bulk data file's place in the change feed
            data = kind.render(file, gathered) if gathered is not None else None
    except Exception:
        BuiltFile.objects.filter(pk=file.pk).update(error=traceback.format_exc()[-4000:])
        logger.exception("building %s failed", file)
        raise
    if data is None:  # nothing to show any more (every entry unpublished): keep no file
        _replace(file, {"name": "", "size": 0, "sha256": "", "gzip_name": "", "gzip_size": 0, "gzip_sha256": "",
                        "cursor": None}, fingerprint, version.token)  # fmt: skip
        return "empty"
    _replace(file, {**_store(file, data, kind), "cursor": cursor}, fingerprint, version.token)
    return "built"


def _store(file: BuiltFile, data: bytes, kind) -> dict:
    """Write the bytes (and a gzip copy of text) under names of their own: a reader
    streaming the previous version keeps reading it until it is removed."""
    digest = hashlib.sha256(data).hexdigest()
    base = f"{file.kind}/{file.pk}-{digest[:16]}"
    fields = {"name": storage().save(f"{base}.{kind.extension}", ContentFile(data)), "size": len(data),
              "sha256": digest, "gzip_name": "", "gzip_size": 0, "gzip_sha256": ""}
    if kind.compress:
        packed = gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)
        fields.update(
            gzip_name=storage().save(f"{base}.{kind.extension}.gz", ContentFile(packed)),
            gzip_size=len(packed),
            gzip_sha256=hashlib.sha256(packed).hexdigest(),
        )
    return fields


def _replace(file: BuiltFile, fields: dict, fingerprint: str, token: int) -> None:
    old = [name for name in (file.name, file.gzip_name) if name and name not in fields.values()]
    with transaction.atomic():
        BuiltFile.objects.filter(pk=file.pk).update(
            **fields, fingerprint=fingerprint, checked_token=token, built_at=timezone.now(), error="", withdrawn=False,
            missing_since=None,
        )
        transaction.on_commit(lambda: [storage().delete(name) for name in old])


def withdraw(changes) -> None:
    """A journal listener (``rules.content.journal.on_flush``): the files of a game and
    language in which a published item was unpublished or deleted are no longer served
    as last built (``BuiltFile.withdrawn``): readers get "being prepared" until the
    worker has made them again without it."""
    from ..content.journal import Change

    gone = {Change.Action.UNPUBLISHED, Change.Action.DELETED}
    items = {Change.Kind.ENTRY, Change.Kind.ERRATUM, Change.Kind.QUESTION}
    scopes = {
        (recorded.change.game_id, recorded.change.language)
        for recorded in changes
        if recorded.change.action in gone and recorded.kind in items
    }
    for game_id, language in scopes:
        BuiltFile.objects.filter(game_id=game_id, language=language, withdrawn=False).update(withdrawn=True)
    if scopes:  # and the files of every game (the API's bulk file of everything)
        BuiltFile.objects.filter(game__isnull=True, withdrawn=False).update(withdrawn=True)
