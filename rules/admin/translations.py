"""Placeholder: filled in by the issue 5 work on this concern."""


class TranslationsAdmin:
    pass
