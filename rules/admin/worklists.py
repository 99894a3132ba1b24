"""Placeholder: filled in by the issue 5 work on this concern."""


def worklist_urls(site) -> list:
    return []
