"""Where built files are kept: Django's ``STORAGES["builtfiles"]``, one for every node and
worker (``DJANGO_BUILT_FILES_URL``: a directory, or an S3 bucket through django-storages).

Besides Django's storage API (``save``, ``delete``), serving needs two things that API
lacks, done here for both kinds of storage:

- ``open_part``: the bytes from ``start`` for ``length`` bytes, opened now and read as
  they are sent (a directory: the file, seeked; S3: one ranged ``GetObject`` whose body
  is streamed, never the whole object read into memory or a temporary file first, as
  django-storages' ``open`` does). A name the storage lacks is ``FileNotFoundError``.
- ``presigned_url``: a time-limited address of the object on the storage itself, with
  the response headers S3 is to send (``DJANGO_BUILT_FILES_REDIRECT``); None where the
  storage has none (a directory).

And ``stored_names``: every name the storage holds, for the worker's periodic check of
missing files (``rules.builds.upkeep``): one listing per kind, not a request per file.
"""

from django.core.files.storage import storages

STORAGE = "builtfiles"


def _storage_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OSError]
    try:
        from botocore.exceptions import BotoCoreError, ClientError

        errors += [BotoCoreError, ClientError]
    except ImportError:  # without django-storages' S3 extra: a directory only
        pass
    return tuple(errors)


# What a storage that cannot be reached raises (S3 down, a share unmounted): a reader then
# gets "being prepared", with a warning logged, never a 500 (``serving``).
STORAGE_ERRORS = _storage_errors()


def storage():
    return storages[STORAGE]


def _s3(backend) -> bool:
    return hasattr(backend, "bucket_name") and hasattr(backend, "connection")


def _key(backend, name: str) -> str:
    from storages.utils import clean_name

    return backend._normalize_name(clean_name(name))


class _S3Body:
    """A ranged GetObject's body as a file-like handle for ``serving``: read and close."""

    def __init__(self, body):
        self.body = body

    def read(self, size: int = -1) -> bytes:
        return self.body.read(None if size < 0 else size)

    def seek(self, offset: int) -> None:  # the range was asked of S3: already there
        pass

    def close(self) -> None:
        self.body.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_part(name: str, start: int, length: int, size: int):
    """A handle positioned at ``start`` of stored ``name`` (``size`` bytes), to read
    ``length`` bytes from; ``FileNotFoundError`` when the storage does not hold it."""
    backend = storage()
    if not _s3(backend):
        handle = backend.open(name, "rb")
        handle.seek(start)
        return handle
    from botocore.exceptions import ClientError

    arguments = {"Bucket": backend.bucket_name, "Key": _key(backend, name)}
    if length and (start, length) != (0, size):
        arguments["Range"] = f"bytes={start}-{start + length - 1}"
    try:
        answer = backend.connection.meta.client.get_object(**arguments)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
            raise FileNotFoundError(name) from error
        raise
    return _S3Body(answer["Body"])


def presigned_url(name: str, **headers: str) -> str | None:
    """A presigned GET of ``name`` on the storage (S3), with ``headers`` the response
    overrides S3 takes (``ResponseContentType``, ``ResponseContentDisposition``,
    ``ResponseContentEncoding``, ``ResponseCacheControl``); None for a directory."""
    backend = storage()
    if not _s3(backend):
        return None
    from django.conf import settings

    return backend.connection.meta.client.generate_presigned_url(
        "get_object",
        Params={"Bucket": backend.bucket_name, "Key": _key(backend, name), **headers},
        ExpiresIn=settings.BUILT_FILES_REDIRECT_SECONDS,
    )


def stored_names(folders) -> set[str]:
    """Every name the storage holds in ``folders`` (the kinds' folders)."""
    backend = storage()
    names = set()
    for folder in folders:
        try:
            _dirs, files = backend.listdir(folder)
        except FileNotFoundError:  # a directory not made yet: nothing built of that kind
            continue
        names.update(f"{folder}/{file}" for file in files)
    return names


def reachable() -> str:
    """Where built files are kept, after checking it answers (``/readyz``): one
    ``HeadBucket`` for S3, the directory made if missing; an exception when it does not."""
    backend = storage()
    if _s3(backend):
        backend.connection.meta.client.head_bucket(Bucket=backend.bucket_name)
        return f"s3://{backend.bucket_name}/{backend.location}"
    from pathlib import Path

    location = Path(backend.location)
    location.mkdir(parents=True, exist_ok=True)
    return str(location)
