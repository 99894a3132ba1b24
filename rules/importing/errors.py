class ImportRulesError(Exception):
    """Input the importer cannot read; names the problem and, where it applies, the line."""

    def __init__(self, message: str, line: int | None = None):
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)
