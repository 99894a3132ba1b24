"""Search tests, and the query sets the quality test and ``bench/search_quality.py`` share.

A query set is a tab-separated file, one query a line::

    language<TAB>game<TAB>query<TAB>expected

where ``expected`` is ``title:<text the expected result's title contains>`` (compared
case-insensitively) or ``number:<its number>`` (compared exactly), or several such
acceptable answers separated by `` || `` (a question a moderator would accept either
entry for: ``title:Hand Limit || title:Discard Phase``). Lines starting with
``#`` and blank lines are skipped; a line that is not in this shape is an error naming
the file and line, never silently dropped.
"""

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUERY_FILES = (HERE / "demo-queries.tsv", HERE / "more-queries.tsv")
EXPECTATION_KINDS = ("title", "number")


@dataclass(frozen=True)
class QueryCase:
    file: str  # the file's name, e.g. demo-queries.tsv
    line: int
    language: str
    game: str
    query: str
    kind: str  # title | number (of the first acceptable answer)
    expected: str
    alternatives: tuple[tuple[str, str], ...] = ()  # every acceptable (kind, expected)

    @property
    def expectation(self) -> str:
        return " || ".join(f"{kind}:{expected}" for kind, expected in self.answers)

    @property
    def answers(self) -> tuple[tuple[str, str], ...]:
        return self.alternatives or ((self.kind, self.expected),)

    def matches(self, hit) -> bool:
        """Whether a search Hit is an acceptable answer."""
        for kind, expected in self.answers:
            if kind == "number" and (hit.number or "").strip() == expected:
                return True
            if kind == "title" and expected.casefold() in (hit.title or "").casefold():
                return True
        return False

    def rank(self, hits) -> int | None:
        """The 1-based position of the first hit that is the expected item, or None."""
        for position, hit in enumerate(hits, start=1):
            if self.matches(hit):
                return position
        return None


class QueryFileError(ValueError):
    pass


def read_queries(path: Path) -> list[QueryCase]:
    cases = []
    text = Path(path).read_text(encoding="utf-8-sig")  # tolerate a BOM from an editor
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [field.strip() for field in line.split("\t")]
        while len(fields) > 4 and fields[-1] == "":  # trailing tabs
            fields.pop()
        where = f"{Path(path).name}:{number}"
        if len(fields) != 4:
            raise QueryFileError(f"{where}: expected 4 tab-separated fields, got {len(fields)}: {raw!r}")
        language, game, query, expectation = fields
        answers = []
        for one in expectation.split("||"):
            kind, sep, expected = one.partition(":")
            kind, expected = kind.strip().lower(), expected.strip()
            if not sep or kind not in EXPECTATION_KINDS or not expected:
                raise QueryFileError(f"{where}: expected 'title:<text>' or 'number:<n>', got {one.strip()!r}")
            answers.append((kind, expected))
        if not language or not query:
            raise QueryFileError(f"{where}: the language and the query must not be empty: {raw!r}")
        kind, expected = answers[0]
        cases.append(QueryCase(Path(path).name, number, language, game, query, kind, expected, tuple(answers)))
    return cases


def all_queries() -> list[QueryCase]:
    return [case for path in QUERY_FILES for case in read_queries(path)]
