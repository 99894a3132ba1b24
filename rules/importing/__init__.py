"""The import pipeline: read → clean → split into items → write.

One pipeline serves the management commands, the demo loader and (later) the admin
upload. Nothing here imports views or serializers.
"""

from .errors import ImportRulesError
from .pipeline import ImportOptions, ImportReport, import_document, parse_document

__all__ = ["ImportOptions", "ImportReport", "ImportRulesError", "import_document", "parse_document"]
