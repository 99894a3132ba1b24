"""Shared fixtures: a tiny factory for the rows most tests need."""

import pytest


@pytest.fixture(autouse=True)
def _clear_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
