"""Text columns read as the UTF-8 bytes the database holds, for stored bodies that are
sent as they are.

A stored JSON body (``rules.derived.stored_json``) is written once and sent many times,
and what a response sends is bytes. Read as ``str`` it is decoded from UTF-8 into
Python's text (two or four bytes a character as soon as one is beyond Latin-1, as most
of the site's languages' texts are), joined and searched in that form, and encoded back
to the same bytes. For the API list of 50 that was 0.43 ms of a request's 2 ms on
PostgreSQL (a loop of 200 reading 50 of the demo's entries, 2026-12-04).

- **SQLite**: ``AsStoredBytes`` casts the column ``AS BLOB``, which hands over the
  text's own bytes (the database's encoding, UTF-8) without copying them into another
  form.
- **PostgreSQL**: a cast to ``bytea`` would travel as hex (twice the bytes, and the
  server's CPU to make them), so the column stays ``text`` and the cursor loads text as
  the bytes that arrived (``read_text_as_bytes``): Django sets the client encoding to
  UTF-8. Only for a cursor of one query whose text columns are all meant as bytes.
"""

from django.db.models import BinaryField, Func
from psycopg.adapt import Loader


class AsStoredBytes(Func):
    """``expression`` (text) read as its UTF-8 bytes; on PostgreSQL only with a cursor
    made ready by ``read_text_as_bytes``."""

    template = "%(expressions)s"
    output_field = BinaryField()

    def as_sqlite(self, compiler, connection, **extra_context):
        return super().as_sql(compiler, connection, template="CAST(%(expressions)s AS BLOB)", **extra_context)


class _TextAsBytes(Loader):
    def load(self, data) -> bytes:
        return bytes(data)


def read_text_as_bytes(cursor) -> None:
    """Make ``cursor`` (Django's, about to run one query) give its text columns as bytes."""
    if cursor.db.vendor == "postgresql":
        cursor.cursor.adapters.register_loader("text", _TextAsBytes)
