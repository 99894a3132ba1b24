"""The import pipeline: read → clean → split into items → write.

One pipeline serves the management commands, the demo loader and (later) the admin
upload. Nothing here imports views or serializers.
"""

from .errors import ImportRulesError
from .options import ImportOptions
from .pipeline import import_document, parse_document
from .report import ImportReport

__all__ = ["ImportOptions", "ImportReport", "ImportRulesError", "import_document", "parse_document"]
