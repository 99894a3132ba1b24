"""Players' suggestions: submitted from the public pages, decided by moderators.

The one service both sides use: the player's pages (``rules.pages.suggestions``) call
``submit`` and ``withdraw``; the moderators' queue calls ``accept``, ``reject``,
``mark_duplicate`` and ``block``. Each checks its own preconditions and raises
``SuggestionError`` (a message for the person) rather than trusting its caller.

Decisions:

- **What is edited.** One mapping, ``TEXT_FIELDS``: an entry's ``body``, an erratum's
  ``corrected_text``, a FAQ question's ``answer``. Nothing else of an item can be
  suggested (a title, a number, see-also labels are a comment for the moderator).
- **Only published items** can be the target of a new suggestion (``submit`` refuses
  the rest with ``NotPublished``; the pages answer 404 before).
- **Only text the public saw.** The form sends back ``seen_version``, the history
  version it was prefilled from, and the player's status page shows that version's text
  as the old side of its diff. It comes from the client, and history ids are
  sequential: ``text_at`` takes it only when it is a version of this item that was
  published (its status published at that version), else the text and version now. So
  counting down through ids reads no draft, no text in review, no other item's text.
- **No proposal is a proposal equal to the text.** The form is prefilled with the
  current text; sent back unchanged (line endings and surrounding blank space aside)
  it is stored as no proposal, a comment only.
- **Diffs are computed once, when a suggestion is submitted**, and stored
  (``seen_to_proposal_diff``: what the player saw → their proposal, safe HTML with
  every piece escaped); the status page and the moderators' review page read it, so a
  view never runs the diff. It keeps ``DIFF_CONTEXT_WORDS`` unchanged words around each
  change, the same on both pages. (The review page's diffs against the item's text now
  are ``suggestion_queue``'s.) A repeat returned by "Merging" computes nothing.
- **Merging.** A second suggestion from the same address (or the same e-mail
  address) for the same item, of the same kind, with the same proposal (with no
  proposal: the same comment), while the first is open, is the first: ``submit``
  returns it (a double click, a reload, a bot repeating itself). From anyone else it
  is a suggestion of its own: returning the first one would hand its private status
  page, and its "Withdraw" button, to a stranger. ``same_as`` lists such twins for the
  moderators, who mark them duplicates.
- **Accepting is an edit like any other**, through the one write path: the item's text
  field is set and saved inside ``unit_of_work()`` with ``stamp(item, "suggestion #N
  …", moderator)``, so the history names the suggestion and the moderator, the journal
  records the change and the pipeline brings derived data (HTML, search, the public
  feed, cached pages) up to date before it commits. The item's row is locked first.
- **Never a blind overwrite.** When the item's text changed since the player saw it
  (``stale``), ``accept`` without an explicit ``text`` is refused with ``Stale``: the
  moderator merges by hand (a three-way view: seen, current, proposed) and accepts
  with the merged ``text``. "Changed" compares the text, not the version: a changed
  title or status does not make a suggestion stale.
- **A comment-only suggestion** (no proposal) accepted without ``text`` writes
  nothing: the moderator fixed the item otherwise, the decision is recorded.
- **Decisions are final**: only an open suggestion can be accepted, rejected, marked
  a duplicate or withdrawn. A rejection needs a reason (the player reads it).
- **Addresses** are never stored: ``address_hash`` is an HMAC-SHA256 of the client's
  address keyed with ``SECRET_KEY`` (a new secret key forgets every block). An IPv6
  address counts as its /64 network, which one household or server usually holds
  whole, so changing the last 64 bits escapes neither a limit nor a block.
- **Mail** goes out after the transaction commits (``suggestion_mail``), on submission
  and on every decision, if the player left an address; a failing mail server is
  logged and never undoes a submission or a decision.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from ..content.history import latest_version, lock, stamp
from ..content.journal import unit_of_work
from ..content.models import Entry, Erratum
from ..content.querysets import Status
from ..shared.addresses import address_key
from ..shared.capacity import Lane
from ..shared.diffing import word_diff_html
from ..shared.languages import ui_language_for
from . import suggestion_mail
from .models import BlockedAddress, Suggestion

TargetType = Suggestion.TargetType

#: The text a suggestion proposes to replace, per kind of item.
TEXT_FIELDS = {
    TargetType.ENTRY: "body",
    TargetType.ERRATUM: "corrected_text",
    TargetType.QUESTION: "answer",
}

ADDRESS_SALT = "rules.moderation.suggestions.address"

#: Unchanged words kept on each side of a change in a stored diff.
DIFF_CONTEXT_WORDS = 20

#: The word diffs of strangers' texts (a preview, a suggestion being sent): each bounded
#: (rules.shared.diffing: about 0.1 s at worst), one at a time per process and one
#: waiting up to two seconds; any more is ``Busy`` at once (rules.shared.capacity), so a
#: flood of previews holds two threads of a process, never all sixteen, and readers keep
#: the rest. A player then reads "busy, try again in a moment", with their text kept.
STRANGERS_DIFFS = Lane("suggestion diffs", size=1, queue=1, wait=2.0, retry_after=5)


class SuggestionError(Exception):
    """A refused action, with a message for the person who tried it."""


class NotPublished(SuggestionError):
    """The item is not published (or gone): no new suggestion for it."""


class Blocked(SuggestionError):
    """The address is blocked."""


class Stale(SuggestionError):
    """The item's text changed since the player saw it: accept with an explicit text."""


class NotOpen(SuggestionError):
    """The suggestion was decided or withdrawn already."""


# --- items ------------------------------------------------------------------------------


def _model(target_type: str):
    if target_type == TargetType.ENTRY:
        return Entry
    if target_type == TargetType.ERRATUM:
        return Erratum
    if target_type == TargetType.QUESTION:
        from faq.models import Question  # FAQ answers are content like the rest (pyproject.toml)

        return Question
    raise ValueError(f"Not a kind of item a suggestion is about: {target_type!r}")


def target_type_of(target) -> str:
    """The item's ``TargetType``: "entry", "erratum" or "question"."""
    for target_type in TargetType.values:
        if isinstance(target, _model(target_type)):
            return target_type
    raise ValueError(f"Suggestions are not about {type(target).__name__} rows.")


def text_field(target_type: str) -> str:
    return TEXT_FIELDS[TargetType(target_type)]


def text_of(target) -> str:
    """The item's editable text (Markdown): what a proposal replaces."""
    return getattr(target, text_field(target_type_of(target))) or ""


def published_targets(target_type: str, game_slug: str, slug: str) -> list:
    """The published items of ``target_type`` with ``slug`` in the game, one per language,
    with their game (for the pages: they choose the language)."""
    model = _model(target_type)
    return list(
        model.objects.published().filter(game__slug=game_slug, slug=slug).select_related("game").order_by("language")
    )


def text_at(target, version_id: int | None) -> tuple[str, int | None]:
    """The item's text as its history version ``version_id`` had it, and that version,
    if that version was published; the text and version now otherwise (see "Only text
    the public saw")."""
    record = target.history.filter(history_id=version_id, status=Status.PUBLISHED).first() if version_id else None
    if record is None:
        version = latest_version(target)
        return text_of(target), version.history_id if version is not None else None
    return getattr(record, text_field(target_type_of(target))) or "", record.history_id


def preview_diff(target, proposal: str):
    """What the form's preview shows: the word diff from the item's text now to the
    proposal (safe HTML), None for an empty proposal."""
    if not (proposal or "").strip():
        return None
    with STRANGERS_DIFFS.held():
        return word_diff_html(text_of(target), proposal)


def stored_diff(suggestion: Suggestion, field: str = "seen_to_proposal_diff") -> SafeString | None:
    """A diff the suggestion stores (see "Diffs are computed once"), as the safe HTML it
    was made as; None when there is none."""
    html = getattr(suggestion, field)
    return mark_safe(html) if html else None  # noqa: S308 - made by word_diff_html, every piece escaped


def diff(old: str, new: str) -> str:
    """The word diff the suggestions store (``DIFF_CONTEXT_WORDS`` of context)."""
    return str(word_diff_html(old, new, context=DIFF_CONTEXT_WORDS))


def target_of(suggestion: Suggestion):
    """The item the suggestion is about, whatever its status now; None when deleted."""
    model = _model(suggestion.target_type)
    return model._default_manager.select_related("game").filter(pk=suggestion.target_id).first()


def public_url(target) -> str:
    """The page that shows the item, in the UI of the item's language."""
    if isinstance(target, Entry):
        return target.canonical_url()
    with translation.override(ui_language_for(target.language)):
        return target.get_absolute_url()


def same_text(a: str, b: str) -> bool:
    """Whether two texts are the same but for line endings and surrounding blank space."""
    return _normalized(a) == _normalized(b)


def _normalized(text: str) -> str:
    return (text or "").replace("\r\n", "\n").replace("\r", "\n").strip()


def stale(suggestion: Suggestion) -> bool:
    """Whether the item's text changed since the player saw it (or the item is gone)."""
    target = target_of(suggestion)
    return target is None or not same_text(text_of(target), suggestion.seen_text)


def same_as(suggestion: Suggestion):
    """The other open suggestions for the same item of the same kind and proposal."""
    twins = Suggestion.objects.filter(
        target_type=suggestion.target_type,
        target_id=suggestion.target_id,
        kind=suggestion.kind,
        proposal=suggestion.proposal,
        status=Suggestion.Status.OPEN,
    ).exclude(pk=suggestion.pk)
    return twins if suggestion.proposal else twins.filter(comment=suggestion.comment)


# --- addresses --------------------------------------------------------------------------


def address_hash(address: str) -> str:
    """The stored form of a client address (see the module docstring); "" for none."""
    if not address:
        return ""
    return salted_hmac(ADDRESS_SALT, address_key(address), algorithm="sha256").hexdigest()


def is_blocked(address: str) -> bool:
    """Whether suggestions from the client ``address`` are refused."""
    digest = address_hash(address)
    return bool(digest) and BlockedAddress.objects.filter(address_hash=digest).exists()


def block(address_hash: str, user, note: str = "") -> BlockedAddress:
    """Refuse further suggestions from the address with this hash (a suggestion's
    ``address_hash``). Blocking twice keeps the first block."""
    if not address_hash:
        raise SuggestionError(_("This suggestion has no address to block."))
    blocked, _created = BlockedAddress.objects.get_or_create(
        address_hash=address_hash, defaults={"created_by": user, "note": note[:300]}
    )
    return blocked


def unblock(address_hash: str) -> None:
    BlockedAddress.objects.filter(address_hash=address_hash).delete()


# --- the player's side ------------------------------------------------------------------


def submit(
    target,
    *,
    kind: str,
    comment: str,
    proposal: str = "",
    email: str = "",
    address: str = "",
    seen_text: str | None = None,
    seen_version: int | None = None,
    ui_language: str = "",
) -> Suggestion:
    """Store a player's suggestion for a published item (or return the same one, open,
    from the same player: see "Merging"). ``seen_text``/``seen_version`` default to the
    item's text and version now. Raises ``NotPublished``, ``Blocked``, or Django's
    ``ValidationError`` for a field over its limit or an invalid e-mail address."""
    target_type = target_type_of(target)
    if target.pk is None or target.status != Status.PUBLISHED:
        raise NotPublished(_("This item is not published."))
    digest = address_hash(address)
    if digest and BlockedAddress.objects.filter(address_hash=digest).exists():
        raise Blocked(_("Suggestions cannot be sent from here."))
    current = getattr(target, TEXT_FIELDS[target_type]) or ""
    if seen_text is None:
        seen_text = current
    if seen_version is None:
        version = latest_version(target)
        seen_version = version.history_id if version is not None else None
    proposal = (proposal or "").replace("\r\n", "\n")
    if same_text(proposal, seen_text):
        proposal = ""
    suggestion = Suggestion(
        target_type=target_type,
        target_id=target.pk,
        game_id=target.game_id,
        language=target.language,
        kind=kind,
        comment=(comment or "").replace("\r\n", "\n").strip(),
        proposal=proposal,
        seen_text=seen_text,
        seen_version=seen_version,
        email=(email or "").strip(),
        ui_language=ui_language,
        address_hash=digest,
    )
    suggestion.full_clean(exclude=["token"])
    existing = _same_from_same_player(suggestion)
    if existing is not None:  # a repeat computes no diff
        return _repeated(existing, suggestion)
    # Outside the transaction: a diff never holds SQLite's write lock.
    with STRANGERS_DIFFS.held():  # Busy when other strangers' diffs hold it (before any write)
        seen_to_proposal = diff(seen_text, proposal) if proposal else ""
    with transaction.atomic():
        existing = _same_from_same_player(suggestion)  # sent meanwhile, by another tab
        if existing is not None:
            return _repeated(existing, suggestion)
        suggestion.seen_to_proposal_diff = seen_to_proposal
        suggestion.save()
        transaction.on_commit(lambda: _notify(suggestion, suggestion_mail.SUBMITTED))
    return suggestion


def _repeated(existing: Suggestion, suggestion: Suggestion) -> Suggestion:
    """The open suggestion ``suggestion`` repeats, given its e-mail address if it had none."""
    if suggestion.email and not existing.email:
        existing.email = suggestion.email
        existing.save(update_fields=["email", "updated_at"])
    return existing


def _same_from_same_player(suggestion: Suggestion) -> Suggestion | None:
    """The open suggestion this one repeats, from the same address or e-mail address."""
    player = Q(pk__in=[])
    if suggestion.address_hash:
        player |= Q(address_hash=suggestion.address_hash)
    if suggestion.email:
        player |= Q(email__iexact=suggestion.email)
    return same_as(suggestion).filter(player).order_by("pk").first()


def withdraw(suggestion: Suggestion) -> Suggestion:
    """The player takes an open suggestion back (no mail: they are on its page)."""
    with transaction.atomic():
        suggestion = _locked_open(suggestion)
        suggestion.status = Suggestion.Status.WITHDRAWN
        suggestion.decided_at = timezone.now()
        suggestion.save(update_fields=["status", "decided_at", "updated_at"])
    return suggestion


# --- the moderators' side ---------------------------------------------------------------


def accept(suggestion: Suggestion, user, text: str | None = None) -> Suggestion:
    """Accept: the item's text becomes ``text``, or the proposal, as one edit by ``user``
    whose history reason names the suggestion. Raises ``Stale`` when the item's text
    changed since the player saw it and no ``text`` is given, ``NotOpen``, and
    ``SuggestionError`` when the item is gone."""
    with unit_of_work():
        suggestion = _locked_open(suggestion)
        target = target_of(suggestion)
        if target is None:
            raise SuggestionError(_("The item this suggestion is about was deleted."))
        lock(target)
        target.refresh_from_db()
        field = TEXT_FIELDS[suggestion.target_type]
        current = getattr(target, field) or ""
        if text is None:
            if not same_text(current, suggestion.seen_text):
                raise Stale(
                    _(
                        "The text changed since this suggestion was made. "
                        "Compare the three versions and accept with the merged text."
                    )
                )
            new_text = suggestion.proposal
        else:
            new_text = text.replace("\r\n", "\n")
        if new_text and not same_text(new_text, current):
            edited = " (edited)" if text is not None and not same_text(text, suggestion.proposal) else ""
            stamp(target, f"suggestion #{suggestion.pk} accepted{edited}", user)
            setattr(target, field, new_text)
            target.save()
        _decide(suggestion, Suggestion.Status.ACCEPTED, user)
    return suggestion


def reject(suggestion: Suggestion, user, reason: str) -> Suggestion:
    """Reject with a reason the player reads on the status page (and in the mail)."""
    reason = (reason or "").strip()
    if not reason:
        raise SuggestionError(_("Give the player a reason."))
    with transaction.atomic():
        suggestion = _locked_open(suggestion)
        suggestion.reason = reason
        _decide(suggestion, Suggestion.Status.REJECTED, user)
    return suggestion


def mark_duplicate(suggestion: Suggestion, user, of: Suggestion) -> Suggestion:
    """Close ``suggestion`` as a duplicate of ``of`` (of the one ``of`` duplicates, if
    it is a duplicate itself): a suggestion of the same game, not itself."""
    while of.duplicate_of_id is not None and of.status == Suggestion.Status.DUPLICATE:
        of = of.duplicate_of
    if of.pk == suggestion.pk:
        raise SuggestionError(_("A suggestion cannot duplicate itself."))
    if of.game_id != suggestion.game_id:
        raise SuggestionError(_("Only a suggestion for the same game can be the original."))
    with transaction.atomic():
        suggestion = _locked_open(suggestion)
        suggestion.duplicate_of = of
        _decide(suggestion, Suggestion.Status.DUPLICATE, user)
    return suggestion


def _locked_open(suggestion: Suggestion) -> Suggestion:
    """The suggestion's row, locked until the transaction ends, if it is still open."""
    fresh = Suggestion.objects.select_for_update().filter(pk=suggestion.pk).first()
    if fresh is None or not fresh.is_open:
        raise NotOpen(_("This suggestion was already decided or withdrawn."))
    return fresh


def _decide(suggestion: Suggestion, status: str, user) -> None:
    suggestion.status = status
    suggestion.decided_at = timezone.now()
    suggestion.decided_by = user
    suggestion.save()
    transaction.on_commit(lambda: _notify(suggestion, suggestion_mail.DECIDED))


def _notify(suggestion: Suggestion, event: str) -> None:
    if not suggestion.email:
        return
    target = target_of(suggestion)
    title = str(target) if target is not None else _("(deleted)")
    suggestion_mail.notify(suggestion, event, title, public_url(target) if target is not None else "")
