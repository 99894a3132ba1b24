"""Placeholder: filled in by the issue 5 work on this concern."""


class GameScopedAdmin:
    pass
