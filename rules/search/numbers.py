"""Rule numbers as queries: "10", "rule 10", "regel 10", "601.2a", "§ 7.3".

A player quoting a number wants the rule with that number, and, when a release
renumbered the rules, the rule that had it before (an old citation, a printed card that
says "see 7.3a"): ``rules.content.releases`` keeps every renumbering. The search service
asks ``asked(query)`` first; a number it gets is looked up (``documents``) before the
words are searched, and those rules lead the results, the current one first, then each
former holder, which the page and the API show with "was 10 until v2".

Decisions:

- **Only a query that is a number, or a word for "rule" and a number**: a number inside
  a question ("can I move 10 spaces?") is a word like the others. The words are the
  content languages' for rule, section, article, number (``WORDS``), typed with or
  without their accents, a period or "#"; nothing else is read as a number query.
- **Compared as written** (case aside): numbers are labels ("601.2a"), not amounts, so
  "10" does not find "10.1" (a prefix would find every rule of a section).
- **No correction**: "rule" and "regel" are not misspellings of "rules" (the issue's
  "Did you mean **rules 10**?").
"""

import re
import unicodedata
from dataclasses import dataclass

from .normalize import fold

# "rule", "section", "article", "number" and their short forms in the content languages.
WORDS = frozenset(
    fold(word)
    for word in (
        "rule rules section sec art article n no nr number num "  # en (and the shared abbreviations)
        "regel regeln abschnitt artikel nummer punkt "  # de, nl
        "règle règles numéro "  # fr
        "regla reglas sección artículo número núm "  # es
        "reguła reguły zasada zasady punkt numer "  # pl
        "sectie "  # nl
        "regola regole sezione articolo numero punto"  # it
    ).split()
)
_NUMBER = re.compile(r"\d{1,4}(?:\.\d{1,4})*[a-z]?")
_QUERY = re.compile(r"^(?:(?P<word>[^\W\d_]+)[.°º]?\s*)?[#§]?\s*(?P<number>[0-9][0-9a-z.]*?)\.?$")


def asked(query: str) -> str | None:
    """The rule number the query asks for ("rule 10" → "10"), or None when it is not a
    number query."""
    text = " ".join(unicodedata.normalize("NFKC", query or "").casefold().split())
    if len(text) > 40:
        return None
    found = _QUERY.match(text)
    if found is None or not _NUMBER.fullmatch(found.group("number")):
        return None
    word = found.group("word")
    if word is not None and fold(word) not in WORDS:
        return None
    return found.group("number")


@dataclass(frozen=True)
class Former:
    """A rule that had the number asked for until ``version`` renumbered it."""

    number: str  # the number it had ("10")
    version: str  # the release that gave it another ("v2")


def documents(number: str, scope) -> tuple[list[int], dict[int, Former]]:
    """The search documents of the entries numbered ``number`` within ``scope``
    (``backends.Scope``), then those of the entries that had it until a release
    renumbered them (document id → ``Former``), each once, in that order."""
    from ..content.releases import ReleaseChange, number_spellings, took
    from .models import SearchDocument

    rows = SearchDocument.objects.filter(item_type="entry", number__in=number_spellings(number))
    if scope.game_id is not None:
        rows = rows.filter(game_id=scope.game_id)
    if scope.language is not None:
        rows = rows.filter(language=scope.language)
    if scope.item_type not in (None, "entry"):
        return [], {}
    current = list(rows.order_by("game_id", "language", "pk").values_list("pk", flat=True)[:50])
    changes = took(number).select_related("release").order_by("-release__sequence", "-pk")
    if scope.game_id is not None:
        changes = changes.filter(release__source__game_id=scope.game_id)
    if scope.language is not None:
        changes = changes.filter(release__source__language=scope.language)
    latest: dict[int, ReleaseChange] = {}
    for change in changes[:50]:
        latest.setdefault(change.item_id, change)
    by_item = dict(
        SearchDocument.objects.filter(item_type="entry", item_id__in=latest).values_list("item_id", "pk")
    )
    formers = {
        by_item[item_id]: Former(change.previous_number, change.release.version)
        for item_id, change in latest.items()
        if item_id in by_item and by_item[item_id] not in current
    }
    return current, formers
