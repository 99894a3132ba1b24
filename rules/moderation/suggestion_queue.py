"""The moderators' queue of players' suggestions: what the admin lists and shows, and
the few decisions it adds to the service (``rules.moderation.suggestions``).

The admin views (``rules.admin.suggestions``) stay thin: they check who may see and
act, read forms and render; the queries, the diffs and the guarded accept live here.

Decisions:

- **Scoped like every worklist**: by a queryset of games (``permissions.editable_games``)
  and the kinds of item the moderator may edit (entries, errata, FAQ answers).
- **A fixed number of queries** for a page of the queue: the suggestions, then their
  items in one query per kind of item (``with_targets``), never one per row.
- **No overwrite of a text the moderator has not seen.** The review page shows the
  item's current text; the form that applies a moderator's text carries a digest of
  it (``digest``). ``accept_reviewed`` locks the suggestion and the item (in the
  service's order: suggestion, then item) and refuses with ``ChangedMeanwhile`` when
  the item's text is no longer the one the moderator merged against, so a colleague's
  newer edit is never silently dropped, whichever button was pressed. Accepting
  without a text goes to the service, which refuses a stale suggestion (``Stale``).
- **A comment only** (no proposal) is accepted as "done": the item's current text is
  kept (the moderator fixed it otherwise, or applies a text with "Edit then accept").
- **Diffs are read, not computed, on a view.** The player's change (what they saw →
  their proposal) is stored by ``suggestions.submit``. The diffs against the item's
  text *now* (what changed since the player saw it, the text now → the proposal: the
  review page of an open suggestion, three-way when stale) depend on a text that
  changes, so they are stored on the suggestion *keyed by the text they were computed
  from*: ``diffed_text_sha256`` is the SHA-256 of that exact text. The review page
  reuses them while the text is the same and computes them again, once, when it is not
  (``current_diffs``): at most once per (suggestion, current text), however often the
  page is viewed, and nothing at all while the text is exactly the one the player saw
  (the stored diff is then the one). Stored on the row, not in the cache: an evicted
  cache, or none (``dummy://``), would compute on every view again. Only the latest
  text's pair is kept (a text that comes back after another is computed again; edits
  are rarer than views). Written with an ``update()`` of those fields alone: a view
  never touches ``updated_at`` nor races a decision's save; two moderators computing
  at once write the same thing. Decided suggestions show the stored change only.
- **Rejection reasons** are a few canned ones plus free text; the canned part is
  stored in the player's language (they read it on the status page and in the mail),
  the free text as the moderator wrote it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

from django.conf import settings
from django.db.models import QuerySet
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from ..content.history import lock
from ..content.journal import unit_of_work
from ..content.models import Entry, Erratum
from . import suggestions
from .models import BlockedAddress, Suggestion
from .worklists import question_model

TargetType = Suggestion.TargetType
Status = Suggestion.Status

# The canned reasons for a rejection: (code, label). "other" needs the free text.
OTHER = "other"
REJECTION_REASONS = [
    ("correct", pgettext_lazy("rejection reason", "Already correct")),
    ("not_an_error", pgettext_lazy("rejection reason", "Not a rules error")),
    ("duplicate", pgettext_lazy("rejection reason", "Duplicate")),
    ("source", pgettext_lazy("rejection reason", "Needs a source")),
    (OTHER, pgettext_lazy("rejection reason", "Other")),
]
REASON_MAX_LENGTH = 2_000


class ChangedMeanwhile(suggestions.SuggestionError):
    """The item's text changed after the moderator loaded the review page."""


def model_for(target_type: str):
    """The model of a kind of item (``rules`` reaches faq's Question through a relation)."""
    return {TargetType.ENTRY: Entry, TargetType.ERRATUM: Erratum, TargetType.QUESTION: question_model()}[
        TargetType(target_type)
    ]


# --- the queue --------------------------------------------------------------------------


# The diffs a suggestion stores: its review page reads them, the queue's list never does.
STORED_DIFFS = ("seen_to_proposal_diff", "seen_to_current_diff", "current_to_proposal_diff")

def queue(
    games: QuerySet,
    *,
    target_types,
    status: str | None = Status.OPEN,
    game_id: int | None = None,
    language: str | None = None,
    kind: str | None = None,
) -> QuerySet:
    """The suggestions a moderator of ``games`` may review, newest first (``status``
    None: every status)."""
    rows = (
        Suggestion.objects.filter(game__in=games, target_type__in=list(target_types))
        .select_related("game")
        .defer(*STORED_DIFFS)  # up to twice a 50,000-character proposal each; the list shows none
    )
    if status:
        rows = rows.filter(status=status)
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    if language:
        rows = rows.filter(language=language)
    if kind:
        rows = rows.filter(kind=kind)
    return rows.order_by("-created_at", "-pk")


def open_count(games: QuerySet, *, target_types) -> int:
    """How many open suggestions wait for the moderator (one query)."""
    if not target_types:
        return 0
    return queue(games, target_types=target_types).count()


@dataclass
class QueueRow:
    suggestion: Suggestion
    target: object | None  # None: the item was deleted

    @property
    def stale(self) -> bool:
        """The item's text changed since the player saw it (or the item is gone)."""
        return self.target is None or not suggestions.same_text(
            suggestions.text_of(self.target), self.suggestion.seen_text
        )


def with_targets(rows) -> list[QueueRow]:
    """Each suggestion with its item, in one query per kind of item."""
    rows = list(rows)
    wanted: dict[str, set[int]] = {}
    for suggestion in rows:
        wanted.setdefault(suggestion.target_type, set()).add(suggestion.target_id)
    found = {
        target_type: model_for(target_type)._default_manager.select_related("game").in_bulk(ids)
        for target_type, ids in wanted.items()
    }
    return [QueueRow(s, found[s.target_type].get(s.target_id)) for s in rows]


# --- one suggestion ---------------------------------------------------------------------


def digest(text: str) -> str:
    """A fingerprint of a text as ``suggestions.same_text`` compares texts."""
    normalized = (text or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


@dataclass
class Review:
    """What the review page shows of one suggestion."""

    suggestion: Suggestion
    target: object | None
    current: str  # the item's text now ("" when it is gone)
    stale: bool
    same_as: list[Suggestion] = field(default_factory=list)
    duplicate_candidates: list[Suggestion] = field(default_factory=list)
    from_same_address: int = 0
    blocked: BlockedAddress | None = None

    @property
    def has_proposal(self) -> bool:
        return bool(self.suggestion.proposal)

    @property
    def current_digest(self) -> str:
        return digest(self.current)

    @cached_property
    def _current_diffs(self) -> CurrentDiffs:
        return current_diffs(self.suggestion, self.current)

    @property
    def proposal_diff(self):
        """The item's text now → the proposal (safe HTML, every piece escaped)."""
        return self._current_diffs.to_proposal

    @property
    def changed_since(self):
        """What the player saw → the text now: what changed since."""
        return self._current_diffs.since_seen

    @property
    def proposed_change(self):
        """What the player saw → what the player proposes: the player's own change (stored)."""
        return suggestions.stored_diff(self.suggestion)

    @property
    def prefill(self) -> str:
        """The "Edit then accept" text to start from: the proposal, or the text now."""
        return self.suggestion.proposal or self.current


@dataclass(frozen=True)
class CurrentDiffs:
    """The diffs against the item's text now (safe HTML; None: no proposal)."""

    since_seen: SafeString | None
    to_proposal: SafeString | None


def text_key(text: str) -> str:
    """What the stored diffs against a text are keyed by: the exact text's SHA-256."""
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


def current_diffs(suggestion: Suggestion, current: str) -> CurrentDiffs:
    """What changed since the player saw the text, and the text now → the proposal:
    stored, computed at most once per text (see "Diffs are read, not computed")."""
    if current == suggestion.seen_text:  # nothing changed: the player's change is the diff
        return CurrentDiffs(since_seen=None, to_proposal=suggestions.stored_diff(suggestion))
    key = text_key(current)
    if suggestion.diffed_text_sha256 != key:
        suggestion.diffed_text_sha256 = key
        suggestion.seen_to_current_diff = suggestions.diff(suggestion.seen_text, current)
        suggestion.current_to_proposal_diff = (
            suggestions.diff(current, suggestion.proposal) if suggestion.proposal else ""
        )
        Suggestion.objects.filter(pk=suggestion.pk).update(
            diffed_text_sha256=key,
            seen_to_current_diff=suggestion.seen_to_current_diff,
            current_to_proposal_diff=suggestion.current_to_proposal_diff,
        )
    return CurrentDiffs(
        since_seen=suggestions.stored_diff(suggestion, "seen_to_current_diff"),
        to_proposal=suggestions.stored_diff(suggestion, "current_to_proposal_diff"),
    )


def review(suggestion: Suggestion) -> Review:
    """The suggestion's item, its text now, whether it is stale, and the suggestions it
    may be a duplicate of (a handful of queries)."""
    target = suggestions.target_of(suggestion)
    current = suggestions.text_of(target) if target is not None else ""
    return Review(
        suggestion=suggestion,
        target=target,
        current=current,
        stale=target is None or not suggestions.same_text(current, suggestion.seen_text),
        same_as=list(suggestions.same_as(suggestion).order_by("pk")) if suggestion.is_open else [],
        duplicate_candidates=list(duplicate_candidates(suggestion)),
        from_same_address=(
            Suggestion.objects.filter(address_hash=suggestion.address_hash).exclude(pk=suggestion.pk).count()
            if suggestion.address_hash
            else 0
        ),
        blocked=(
            BlockedAddress.objects.filter(address_hash=suggestion.address_hash).select_related("created_by").first()
            if suggestion.address_hash
            else None
        ),
    )


def duplicate_candidates(suggestion: Suggestion) -> QuerySet:
    """What a suggestion can be marked a duplicate of: the open or accepted suggestions
    of the same item, oldest first."""
    return (
        Suggestion.objects.filter(
            target_type=suggestion.target_type,
            target_id=suggestion.target_id,
            game_id=suggestion.game_id,
            status__in=[Status.OPEN, Status.ACCEPTED],
        )
        .exclude(pk=suggestion.pk)
        .order_by("pk")
    )


# --- decisions --------------------------------------------------------------------------


def accept_reviewed(suggestion: Suggestion, user, text: str | None = None, based_on: str | None = None) -> Suggestion:
    """Accept from the review page: the proposal (``text`` None), or the moderator's
    ``text`` merged against the item's text whose ``digest`` is ``based_on``.

    Raises ``ChangedMeanwhile`` when the item's text is not that one any more, and
    whatever ``suggestions.accept`` raises (``Stale``, ``NotOpen``, ``SuggestionError``).
    """
    with unit_of_work():
        # The service's locking order: the suggestion's row, then the item's.
        Suggestion.objects.select_for_update().filter(pk=suggestion.pk).values_list("pk", flat=True).first()
        target = suggestions.target_of(suggestion)
        if target is not None:
            lock(target)
            current = suggestions.text_of(target)
            if text is not None and based_on is not None and digest(current) != based_on:
                raise ChangedMeanwhile(
                    _(
                        "Someone changed the text while you were reviewing this suggestion. "
                        "Compare again with the text as it is now; your text is kept below."
                    )
                )
            if text is None and not suggestion.proposal:
                text = current  # a comment only: the decision is recorded, the text kept
        return suggestions.accept(suggestion, user, text)


def rejection_reason(suggestion: Suggestion, code: str, message: str) -> str:
    """The reason the player reads: the canned one in their language, then the text."""
    message = (message or "").replace("\r\n", "\n").strip()
    labels = dict(REJECTION_REASONS)
    if code not in labels or code == OTHER:
        return message
    with translation.override(suggestion.ui_language or settings.LANGUAGE_CODE):
        canned = str(labels[code])
    return f"{canned}. {message}" if message else canned


def reject_with(suggestion: Suggestion, user, code: str, message: str = "") -> Suggestion:
    """Reject with a canned reason and/or the moderator's text (``suggestions.reject``)."""
    return suggestions.reject(suggestion, user, rejection_reason(suggestion, code, message))

