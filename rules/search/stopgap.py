"""Search over published entries: one function the search page (and later the API) uses.

This first version ranks in Python over a game's or language's published entries, with
case and diacritics folded (``zdolnosci`` finds ``Zdolności``) and matches on word
prefixes (``Karten`` finds ``Karte``'s neighbours through the shared stem ``kart``).
Exact title or alias matches come first, then title words, then body text. It is the
seam where database full-text search (FTS5 / tsvector) plugs in.
"""

import re
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..models import Entry
from ..text import fold_diacritics

MAX_QUERY_LENGTH = 200
_WORD = re.compile(r"\w+")


@dataclass
class SearchHit:
    entry: Entry
    score: float
    snippet: SafeString


def query_terms(query: str) -> list[str]:
    """Folded search terms; each trimmed to a short stem so inflections still meet."""
    folded = fold_diacritics(query.replace("\x00", " ")[:MAX_QUERY_LENGTH])
    terms = [word for word in _WORD.findall(folded) if len(word) >= 2]
    return [term[: max(4, len(term) - 2)] if len(term) > 5 else term for term in terms][:10]


def search_entries(query: str, *, language: str | None = None, game=None, limit: int = 50) -> list[SearchHit]:
    terms = query_terms(query)
    if not terms:
        return []
    entries = Entry.objects.published().select_related("game")
    if language:
        entries = entries.for_language(language)
    if game is not None:
        entries = entries.for_game(game)
    phrase = " ".join(_WORD.findall(fold_diacritics(query[:MAX_QUERY_LENGTH])))
    hits = []
    for entry in entries:
        names = [fold_diacritics(name) for name in entry.names]
        title_words = set(_WORD.findall(" ".join(names)))
        body = fold_diacritics(entry.body)
        score = 0.0
        if phrase in names:
            score += 100
        title_matches = sum(1 for term in terms if any(word.startswith(term) for word in title_words))
        body_matches = sum(1 for term in terms if re.search(r"\b" + re.escape(term), body))
        if title_matches + body_matches == 0:
            continue
        score += 20 * title_matches + 5 * body_matches
        if title_matches + body_matches >= len(terms):
            score += 10
        hits.append(SearchHit(entry, score, highlight(entry.body, terms)))
    hits.sort(key=lambda hit: (-hit.score, fold_diacritics(hit.entry.title)))
    return hits[:limit]


def highlight(text: str, terms: list[str], width: int = 220) -> SafeString:
    """A snippet around the first match with every match wrapped in <mark>; escaped."""
    plain = re.sub(r"[*_`\\#>\[\]]", "", text)
    folded = fold_diacritics(plain)
    if len(folded) != len(plain):  # transliteration changed lengths: no safe offsets
        return mark_safe(escape(plain[:width]))  # noqa: S308 - escaped
    first = min((m.start() for t in terms for m in [re.search(r"\b" + re.escape(t), folded)] if m), default=0)
    start = max(0, first - width // 3)
    end = min(len(plain), start + width)
    spans = sorted(
        (m.start(), m.end())
        for t in terms
        for m in re.finditer(r"\b" + re.escape(t) + r"\w*", folded[start:end])
    )
    out, cursor = [], 0
    window = plain[start:end]
    for a, b in spans:
        if a < cursor:
            continue
        out.append(escape(window[cursor:a]))
        out.append(f"<mark>{escape(window[a:b])}</mark>")
        cursor = b
    out.append(escape(window[cursor:]))
    prefix = "… " if start > 0 else ""
    suffix = " …" if end < len(plain) else ""
    return mark_safe(prefix + "".join(out) + suffix)  # noqa: S308 - escaped piece by piece
