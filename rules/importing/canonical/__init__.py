"""The canonical JSON export of a game and its import, one module per concern.

``format`` (the file's shape, documented there; the fields and their checks) →
``export`` (content → deterministic JSON) and ``validation`` (JSON → a checked plan) →
``writing`` (the plan → rows for ``rules.importing.rows``, the writer the text import
uses too). ``import_document`` sends JSON input here.
"""

from .export import export_game
from .format import (
    CHANGE_REASON,
    ENTRY_FIELDS,
    ERRATUM_FIELDS,
    FORMAT,
    GAME_FIELDS,
    NOT_EXPORTED,
    QUESTION_FIELDS,
    SOURCE_FIELDS,
    VERSION,
)
from .writing import import_canonical

__all__ = [
    "CHANGE_REASON",
    "ENTRY_FIELDS",
    "ERRATUM_FIELDS",
    "FORMAT",
    "GAME_FIELDS",
    "NOT_EXPORTED",
    "QUESTION_FIELDS",
    "SOURCE_FIELDS",
    "VERSION",
    "export_game",
    "import_canonical",
]
