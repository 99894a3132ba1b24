"""Readable word diffs with a guaranteed bound on their cost.

Every diff the site shows goes through ``word_diff_html``: an erratum's "what the
printed rule said → what it says now", a history version, the import preview, a
release's change list, a translation's outdated original, and a player's suggestion
(whose text a stranger controls). So its cost must be bounded whatever the texts are.

``difflib.SequenceMatcher``, used before, is not: on a proposal of one short word
repeated thousands of times its matching blocks search is super-linear (a 4,000-
character proposal took a minute, 50,000 characters did not finish in five), and a
handful of such requests held every worker.

The algorithm (``bounded_opcodes``) is Myers' O((N+M)·D) difference algorithm in its
linear-space form (the middle-snake bisection, as in Google's diff-match-patch), over
token ids: a word and a run of blank space are tokens, so an edit never splits a word.
It counts its own work (each diagonal visited and each token compared along a snake)
and gives up past ``WORK_LIMIT``, deterministically, whatever the machine's load
(a deadline would give different diffs of the same texts under load). Past the limit,
a coarser diff: the same algorithm over *lines*, each changed run of lines diffed by
words within what is left of a second budget; past that too, the texts' common start
and end are kept and the rest shown replaced whole. The worst case is therefore about
three budgets and a few linear passes: about 0.2 s of one core here for any pair of
texts up to the site's size limits (``bench/worst_case.py`` measures it), where an
ordinary edit costs microseconds. The result is always a correct diff: deleting what
``<del>`` marks and keeping what ``<ins>`` marks gives the new text; only its
minimality is given up on adversarial input.

Why not a library: difflib has no bound; diff-match-patch bounds by a wall-clock
deadline only (see above) and diffs characters (words through a private-use-character
trick); rapidfuzz's alignment keeps an N×M bit matrix (memory quadratic in the
texts). The algorithm is small, and ``tests/test_diffing.py`` checks it against
difflib's minimal diffs and the reconstruction property on generated texts.
"""

import re
from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_TOKENS = re.compile(r"\s+|[^\s]+")
_LINES = re.compile(r"[^\n]*\n|[^\n]+")

#: Units of work (a diagonal visited, a token compared along a snake) one diff may
#: spend before it falls back to a coarser one; about 0.07 s of CPU here.
WORK_LIMIT = 400_000


class TooCostly(Exception):
    """The diff would cost more than its budget."""


class _Budget:
    __slots__ = ("left",)

    def __init__(self, units: int):
        self.left = units

    def spend(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise TooCostly


class PageBudget:
    """The work several diffs shown together may spend in all (a history page of 100
    versions of a long text: 100 bounded diffs are still 100 × 0.2 s). Each diff gets at
    most ``WORK_LIMIT`` of what is left; once it is spent, the rest are coarse (the texts'
    common start and end, the middle replaced), which costs a linear pass."""

    def __init__(self, units: int):
        self.left = units


def bounded_opcodes(a: Sequence, b: Sequence, limit: int = WORK_LIMIT) -> list[tuple[str, int, int, int, int]]:
    """``difflib``-style opcodes (``equal``, ``delete``, ``insert``, ``replace`` with
    ``a[i1:i2]``, ``b[j1:j2]``) of a shortest edit script turning ``a`` into ``b``;
    raises ``TooCostly`` when that would cost more than ``limit`` units of work."""
    return _opcodes(_matches(a, b, _Budget(limit)), len(a), len(b))


def _matches(a: Sequence, b: Sequence, budget: _Budget) -> list[tuple[int, int, int]]:
    """The matching runs ``(i, j, size)`` of a shortest edit script, in order."""
    ids: dict = {}
    a = [ids.setdefault(token, len(ids)) for token in a]
    b = [ids.setdefault(token, len(ids)) for token in b]
    budget.spend(len(a) + len(b))
    matches: list[tuple[int, int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        a_lo, a_hi, b_lo, b_hi = stack.pop()
        start = a_lo
        while a_lo < a_hi and b_lo < b_hi and a[a_lo] == b[b_lo]:
            a_lo += 1
            b_lo += 1
        if a_lo > start:
            matches.append((start, b_lo - (a_lo - start), a_lo - start))
        end = a_hi
        while a_hi > a_lo and b_hi > b_lo and a[a_hi - 1] == b[b_hi - 1]:
            a_hi -= 1
            b_hi -= 1
        if end > a_hi:
            matches.append((a_hi, b_hi, end - a_hi))
        budget.spend(a_lo - start + end - a_hi + 1)
        if a_lo == a_hi or b_lo == b_hi:
            continue
        split = _split_point(a, b, a_lo, a_hi, b_lo, b_hi, budget)
        if split is None:
            continue  # nothing in common: all of it is replaced
        x, y = split
        stack.append((a_lo, x, b_lo, y))
        stack.append((x, a_hi, y, b_hi))
    matches.sort()
    return matches


def _split_point(a, b, a_lo, a_hi, b_lo, b_hi, budget: _Budget) -> tuple[int, int] | None:
    """A point on a shortest path through ``a[a_lo:a_hi]`` × ``b[b_lo:b_hi]`` where the
    forward and the backward search meet (Myers' middle snake), so both halves can be
    solved apart; None when the two share no token (the searches meet only past the
    last round). The caller stripped what they share at both ends."""
    n, m = a_hi - a_lo, b_hi - b_lo
    max_d = (n + m + 1) // 2
    offset = max_d
    size = 2 * max_d + 2
    forward = [-1] * size
    backward = [-1] * size
    forward[offset + 1] = 0
    backward[offset + 1] = 0
    delta = n - m
    odd = delta % 2 != 0
    k1_start = k1_end = k2_start = k2_end = 0
    budget.spend(size // 32)  # filled in C: a few nanoseconds a slot
    for d in range(max_d):
        for k1 in range(-d + k1_start, d + 1 - k1_end, 2):
            i = offset + k1
            if k1 == -d or (k1 != d and forward[i - 1] < forward[i + 1]):
                x1 = forward[i + 1]
            else:
                x1 = forward[i - 1] + 1
            y1 = x1 - k1
            x0 = x1
            while x1 < n and y1 < m and a[a_lo + x1] == b[b_lo + y1]:
                x1 += 1
                y1 += 1
            budget.spend(x1 - x0 + 1)
            forward[i] = x1
            if x1 > n:
                k1_end += 2  # ran off the right of the grid
            elif y1 > m:
                k1_start += 2  # ran off the bottom
            elif odd:
                j = offset + delta - k1
                if 0 <= j < size and backward[j] != -1 and x1 >= n - backward[j]:
                    return a_lo + x1, b_lo + y1
        for k2 in range(-d + k2_start, d + 1 - k2_end, 2):
            i = offset + k2
            if k2 == -d or (k2 != d and backward[i - 1] < backward[i + 1]):
                x2 = backward[i + 1]
            else:
                x2 = backward[i - 1] + 1
            y2 = x2 - k2
            x0 = x2
            while x2 < n and y2 < m and a[a_hi - x2 - 1] == b[b_hi - y2 - 1]:
                x2 += 1
                y2 += 1
            budget.spend(x2 - x0 + 1)
            backward[i] = x2
            if x2 > n:
                k2_end += 2  # ran off the left
            elif y2 > m:
                k2_start += 2  # ran off the top
            elif not odd:
                j = offset + delta - k2
                if 0 <= j < size and forward[j] != -1:
                    x1 = forward[j]
                    y1 = x1 - (j - offset)
                    if x1 >= n - x2:
                        return a_lo + x1, b_lo + y1
    return None


def _opcodes(matches: list[tuple[int, int, int]], n: int, m: int) -> list[tuple[str, int, int, int, int]]:
    """Matching runs → ``difflib``'s opcodes (adjacent runs joined)."""
    joined: list[list[int]] = []
    for i, j, size in matches:
        if joined and joined[-1][0] + joined[-1][2] == i and joined[-1][1] + joined[-1][2] == j:
            joined[-1][2] += size
        else:
            joined.append([i, j, size])
    codes = []
    i = j = 0
    for mi, mj, size in [*joined, [n, m, 0]]:
        if i < mi and j < mj:
            codes.append(("replace", i, mi, j, mj))
        elif i < mi:
            codes.append(("delete", i, mi, j, j))
        elif j < mj:
            codes.append(("insert", i, i, j, mj))
        if size:
            codes.append(("equal", mi, mi + size, mj, mj + size))
        i, j = mi + size, mj + size
    return codes


# --- word diffs -----------------------------------------------------------------------

Segment = tuple[str, list[str], list[str]]


def word_segments(original: str, corrected: str, page: PageBudget | None = None) -> list[Segment]:
    """The texts' diff as ``(op, old tokens, new tokens)`` runs, op one of ``equal``,
    ``delete``, ``insert``, ``replace``: by words; past the budget by lines, each changed
    run of lines by words while a second budget lasts; past that, what the texts share
    at each end and the rest replaced whole (module docstring).

    Words are compared, blank space is not: it separates them. Compared as tokens of
    their own, blanks are the cheapest matches there are, and a shortest diff happily
    keeps five spaces "unchanged" across a rewritten sentence instead of the two words
    the sentences share. A blank between two unchanged words that changed (a line
    break become a space) is shown changed on its own. ``page``: a budget shared with
    the other diffs of a page (``PageBudget``)."""
    for attempt in (_by_words, _by_lines):
        limit = WORK_LIMIT if page is None else min(WORK_LIMIT, page.left)
        budget = _Budget(limit)
        try:
            return attempt(original, corrected, budget)
        except TooCostly:
            pass
        finally:
            if page is not None:
                page.left -= limit - max(budget.left, 0)
    return _replaced_whole(_TOKENS.findall(original), _TOKENS.findall(corrected))


def _split_words(text: str) -> tuple[str, list[str], list[str]]:
    """The blank before the first word, the words, and the blank after each ("" at the end)."""
    parts = _TOKENS.findall(text)
    lead = parts.pop(0) if parts and parts[0].isspace() else ""
    words, blanks = parts[0::2], parts[1::2]
    return lead, words, blanks + [""] * (len(words) - len(blanks))


def _by_words(original: str, corrected: str, budget: _Budget) -> list[Segment]:
    lead_a, words_a, blanks_a = _split_words(original)
    lead_b, words_b, blanks_b = _split_words(corrected)
    segments: list[Segment] = [_blank_segment(lead_a, lead_b)]
    for op, i1, i2, j1, j2 in _opcodes(_matches(words_a, words_b, budget), len(words_a), len(words_b)):
        if op == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                segments.append(("equal", [words_a[i]], [words_b[j]]))
                segments.append(_blank_segment(blanks_a[i], blanks_b[j]))
        else:
            old = [token for i in range(i1, i2) for token in (words_a[i], blanks_a[i]) if token]
            new = [token for j in range(j1, j2) for token in (words_b[j], blanks_b[j]) if token]
            segments.append(("replace", old, new))
    return _tidied(segments)


def _blank_segment(a: str, b: str) -> Segment:
    if a == b:
        return ("equal", [a] if a else [], [b] if b else [])
    return ("replace", [a] if a else [], [b] if b else [])


def _tidied(segments: list[Segment]) -> list[Segment]:
    """Adjacent changes joined (a blank between two changes with them); what a change's
    two sides share at the start and the end moved out to the unchanged text around it;
    empty runs dropped; each change named ``delete``, ``insert`` or ``replace``."""
    merged: list[list] = []
    for op, old, new in segments:
        if not old and not new:
            continue
        if op != "equal" and merged and merged[-1][0] != "equal":
            merged[-1][1] += old
            merged[-1][2] += new
        elif (
            op != "equal"
            and len(merged) >= 2
            and merged[-2][0] != "equal"
            and all(token.isspace() for token in merged[-1][1])
        ):
            blank = merged.pop()
            merged[-1][1] += blank[1] + old
            merged[-1][2] += blank[2] + new
        else:
            merged.append([op, list(old), list(new)])
    out: list[list] = []
    for op, old, new in merged:
        if op == "equal":
            if out and out[-1][0] == "equal":
                out[-1][1] += old
                out[-1][2] += new
            else:
                out.append([op, old, new])
            continue
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-tail - 1] == new[-tail - 1]:
            tail += 1
        if head:
            if out and out[-1][0] == "equal":
                out[-1][1] += old[:head]
                out[-1][2] += new[:head]
            else:
                out.append(["equal", old[:head], new[:head]])
        middle_old, middle_new = old[head : len(old) - tail], new[head : len(new) - tail]
        if middle_old or middle_new:
            kind = "replace" if middle_old and middle_new else "delete" if middle_old else "insert"
            out.append([kind, middle_old, middle_new])
        if tail:
            out.append(["equal", old[len(old) - tail :], new[len(new) - tail :]])
    return [(op, old, new) for op, old, new in out]


def _by_lines(original: str, corrected: str, budget: _Budget) -> list[Segment]:
    old_lines, new_lines = _LINES.findall(original), _LINES.findall(corrected)
    segments: list[Segment] = []
    for op, i1, i2, j1, j2 in _opcodes(_matches(old_lines, new_lines, budget), len(old_lines), len(new_lines)):
        old, new = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        if op != "replace":
            segments.append((op, _TOKENS.findall(old), _TOKENS.findall(new)))
            continue
        try:  # a changed run of lines, by words, from what is left of the budget
            part = _Budget(budget.left)
            segments.extend(_by_words(old, new, part))
            budget.left = part.left
        except TooCostly:
            budget.left = 0
            segments.extend(_replaced_whole(_TOKENS.findall(old), _TOKENS.findall(new)))
    return _tidied(segments)


def _replaced_whole(a: list[str], b: list[str]) -> list[Segment]:
    """What the token lists share at the start and the end, and the middle replaced."""
    return _tidied([("replace", a, b)])


def word_diff_html(
    original: str, corrected: str, context: int | None = None, page: PageBudget | None = None
) -> SafeString:
    """``<del>`` for removed words, ``<ins>`` for added ones; everything escaped.

    With ``context`` (in words), a long unchanged stretch keeps only that many words on
    each side of a change and shows "…" for the rest, so a one-word edit in a long body
    reads as one line (the history and the import preview); without it the whole text
    is shown (an erratum's diff on the public page). The cost is bounded whatever the
    texts (module docstring), and with ``page`` shared with the page's other diffs.
    """
    segments = word_segments(original, corrected, page)
    out = []
    for index, (op, old, new) in enumerate(segments):
        if op == "equal":
            out.append(escape(_shortened(old, context, first=index == 0, last=index == len(segments) - 1)))
            continue
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(''.join(old))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(''.join(new))}</ins>")
    return mark_safe("".join(out))  # noqa: S308 - every piece is escaped above


def _shortened(tokens: list[str], context: int | None, first: bool, last: bool) -> str:
    """An unchanged run of tokens, cut to ``context`` words next to each change."""
    keep = None if context is None else context * 2  # tokens: each word has its space
    if keep is None or len(tokens) <= keep * 2 + 2:
        return "".join(tokens)
    head = [] if first else tokens[:keep]
    tail = [] if last else tokens[-keep:]
    return "".join(head).rstrip() + " … " + "".join(tail).lstrip()
