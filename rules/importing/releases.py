"""What a new version of a source changed, and the release that records it.

``changes_of`` lists, after the rows are written (or planned, in a dry run), exactly
what changed, item by item, judged by identity (numbered rules were matched by
``identity``, everything else by its slug), one kind per item (``classify``):
``reworded`` (its text; with a word diff), ``retitled`` (its title, beyond the number a
numbered title holds), ``renumbered`` (the same text under a new number), ``added`` and
``removed``. Nothing else is a change: an unchanged item is not listed, however the
import's bookkeeping touched it (its source, its order, a title the source's pattern
made from its number, ``titles``). Each line keeps what changed: the number, title and
address before, and the text after (an added rule's text is its whole change). A
removed item names the item of the same version its text went to, when one it added or
reworded is most like it (``SUCCESSOR_SIMILARITY``).

``record`` stores the list as a release of the source (``rules.content.releases``) when
the import names a version (``--source-version``): a new label is a new release; the
latest release's own label again adds to it (a corrected file of the same version), so
what the release lists is always "from the version before to this one". An older
release cannot be imported into: the releases after it were read against it. A source
that has items but no release yet (imported before it had versions) first gets its
release "as first imported" (``initial_release``), so it can be read as it was then.
"""

import difflib

from django.utils import timezone

from ..content.journal import unit_of_work
from ..content.releases import Release, ReleaseChange, initial_release
from ..shared.diffing import word_diff_html
from .errors import ImportRulesError
from .identity import text_of, words_of
from .options import SourceInfo
from .report import ChangeLine

TYPES = ("entry", "erratum", "question")
# How alike (word similarity, ``identity.similarity``) a removed item's text and an item
# the same version added or reworded must be for the removed one's readers to be sent
# there: half its words in the same order (a rule merged into another, or moved and
# rewritten) and not two rules that share a game's common words (0.1 to 0.4).
SUCCESSOR_SIMILARITY = 0.5


def state(type_: str, obj) -> tuple[str, str, str]:
    """A row as a release remembers it: (number, title, text)."""
    if type_ == "entry":
        return (obj.number, obj.title, obj.body)
    if type_ == "erratum":
        return ("", obj.title, obj.corrected_text)
    return ("", obj.question, obj.answer)


def same_title(before: tuple[str, str, str], after: tuple[str, str, str]) -> bool:
    """The titles are the same, or differ only in the number a numbered rule's title holds
    ("Combat 7.3a" → "Combat 7.4a", "Regel 7" → "Regel 8": that is the renumbering, not a
    new title)."""
    (number_b, title_b, _), (number_a, title_a, _) = before, after
    if title_b == title_a:
        return True
    return bool(
        number_b
        and number_a
        and number_b in title_b
        and number_a in title_a
        and title_b.replace(number_b, "\x00", 1) == title_a.replace(number_a, "\x00", 1)
    )


def title_changed(before: tuple[str, str, str], after: tuple[str, str, str], title_follows: bool = False) -> bool:
    """Whether the item has a new title. ``title_follows``: its title is the source's
    pattern made from its number and section both before and after; a new number then
    explains a new title (a rule moved into another section is renumbered, not
    re-titled), but under the same number a new title is its section's new name."""
    if same_title(before, after):
        return False
    return not (title_follows and before[0] != after[0])


def classify(before: tuple[str, str, str], after: tuple[str, str, str], title_follows: bool = False) -> str | None:
    """The kind of change of a row that was and still is, or None (unchanged). A heading
    (no text of its own on either side) is judged on its title: a new name is a re-title."""
    heading = not before[2] and not after[2]
    if not heading and _text(before) != _text(after):
        return ReleaseChange.Kind.REWORDED
    if title_changed(before, after, title_follows):
        return ReleaseChange.Kind.RETITLED
    if before[0] != after[0]:
        return ReleaseChange.Kind.RENUMBERED
    return None


def _text(state: tuple[str, str, str]) -> str:
    """What a change is judged on and its diff shows: the text, or a heading's title."""
    return text_of(state[2], state[1])


def _diff(before: tuple[str, str, str], after: tuple[str, str, str]) -> str:
    return str(word_diff_html(_text(before), _text(after)))


def _line(type_: str, change: str, obj, after, before=None, slug_before: str = "") -> ChangeLine:
    slug = getattr(obj, "slug", "")
    line = ChangeLine(type_, change, after[0], after[1], slug=slug, item_id=obj.pk, text=after[2])
    if before is not None:
        line.previous_number, line.previous_title, line.previous_text = before
        line.previous_slug = slug_before or slug
        if change == ReleaseChange.Kind.REWORDED:
            line.diff_html = _diff(before, after)
    if change == ReleaseChange.Kind.REMOVED:
        line.text = ""
    return line


def changes_of(
    rows: dict,
    before: dict[int, tuple],
    removed: list[tuple[str, object, int]],
    *,
    slugs: dict[int, str] | None = None,
    title_follows: set[int] = frozenset(),
    revived: set[int] = frozenset(),
) -> list[ChangeLine]:
    """The change list of an import: its rows in document order (``before``: each stored
    row's state as it was read, ``slugs`` its slug then, both by ``id``; ``title_follows``:
    the ``id`` of each row whose title the pattern made from its number, ``classify``;
    ``revived``: rows a removal had archived that are back, added again), then what it
    removed (``removed``), each with its successor."""
    slugs = slugs or {}
    lines: list[ChangeLine] = []
    for type_ in TYPES:
        for row in rows.get(type_, ()):
            after = state(type_, row.obj)
            was = before.get(id(row.obj))
            created = row.outcome is not None and row.outcome.action == "created"
            if was is None or created or id(row.obj) in revived:
                lines.append(_line(type_, ReleaseChange.Kind.ADDED, row.obj, after))
                continue
            follows = id(row.obj) in title_follows
            change = classify(was, after, follows)
            if change is not None:
                line = _line(type_, change, row.obj, after, was, slugs.get(id(row.obj), ""))
                line.title_follows = follows
                line.title_changed = title_changed(was, after, follows)
                lines.append(line)
    gone = []
    for type_, obj, pk in removed:
        was = state(type_, obj)
        line = _line(type_, ReleaseChange.Kind.REMOVED, obj, was, was)
        line.item_id = pk
        gone.append(line)
    _successors(gone, lines)
    return lines + gone


def _successors(removed: list[ChangeLine], lines: list[ChangeLine]) -> None:
    """Each removed line's successor: the added or reworded line of its type whose text is
    most like its last text, at ``SUCCESSOR_SIMILARITY`` or more, over the words
    ``identity`` compares (difflib's cheap upper bounds first, the removed text indexed
    once: a version removing 50 of 10,000 rules compares them in milliseconds)."""
    candidates = [
        (line, words_of(text_of(line.text, line.title)))
        for line in lines
        if line.change in (ReleaseChange.Kind.ADDED, ReleaseChange.Kind.REWORDED)
    ]
    matcher = difflib.SequenceMatcher(autojunk=False)
    for line in removed:
        if not line.previous_text.strip():
            continue
        matcher.set_seq2(words_of(text_of(line.previous_text, line.previous_title)))
        best, score = None, SUCCESSOR_SIMILARITY
        for candidate, words in candidates:
            if candidate.type != line.type:
                continue
            matcher.set_seq1(words)
            if matcher.real_quick_ratio() < score or matcher.quick_ratio() < score:
                continue
            similar = matcher.ratio()
            if similar >= score:
                best, score = candidate, similar
        if best is not None:
            line.successor = best


def check(source, info: SourceInfo) -> None:
    """Refuse an import into a release that is not the source's latest applied one
    (before anything is written). An upcoming release may be imported into: that is how
    it takes effect (``rules.importing.upcoming``)."""
    if source is None or source.pk is None or not info.version:
        return
    existing = source.releases.for_reading().filter(version=info.version).first()
    if existing is None or existing.pending:
        return
    latest = source.releases.for_reading().applied().order_by("-sequence").first()
    if existing != latest:
        raise ImportRulesError(
            f"{source.title!r} {info.version!r} is an earlier release (the latest is {latest.version!r}); "
            "a new version needs a new label"
        )


def begin(writer, source, info: SourceInfo, version_before: str = "") -> Release | None:
    """Before a version is written: a source that has items but no release yet gets its
    release "as first imported" (``rules.content.releases.initial_release``), the state
    the new version's changes are read against, labelled with the version the source had
    (``version_before``, read before a manifest updated it). Nothing in a dry run."""
    if writer.plan_only or source is None or source.pk is None or not info.version:
        return None
    if source.releases.exists() or not (
        source.entries.exists() or source.errata.exists() or source.faq_questions.exists()
    ):
        return None
    with unit_of_work():
        return initial_release(source, label=version_before)


def record(writer, source, info: SourceInfo, lines: list[ChangeLine]) -> Release | None:
    """Store the change list as the release ``info.version`` of ``source`` (module
    docstring); the report names it. Nothing in a dry run."""
    writer.report.release = info.version
    if writer.plan_only:
        return None
    with unit_of_work():
        release = Release.objects.filter(source=source, version=info.version).first()
        if release is None:
            published = info.published_on or timezone.localdate()
            release = Release.objects.create(
                source=source,
                sequence=Release.objects.next_sequence(source),
                version=info.version,
                published_on=published,
                effective_on=info.effective_on or published,
                notes=info.notes,
            )
        else:
            wanted = {name: getattr(info, name) for name in ("published_on", "effective_on", "notes")}
            wanted = {name: value for name, value in wanted.items() if value}
            if release.pending:  # an upcoming or held release imported for real: the site's text now
                wanted.update(pending=False, held=False, pending_document=None, pending_options={})
            changed = [name for name, value in wanted.items() if getattr(release, name) != value]
            if changed:  # an unchanged re-import writes nothing (and invalidates no cache)
                for name in changed:
                    setattr(release, name, wanted[name])
                release.save(update_fields=changed)
        _merge(release, lines)
        if source.version != info.version:
            source.version = info.version
            source.save(update_fields=["version", "updated_at"])
    return release


def _merge(release: Release, lines: list[ChangeLine]) -> None:
    """Add ``lines`` to the release's change list: an item it already lists keeps the state
    it had before the release, and its change is judged again from there."""
    existing = {(c.item_type, c.item_id): c for c in release.changes.all()}
    order = max((c.order for c in existing.values()), default=-1) + 1
    new, updated, gone = [], [], []
    for line in lines:
        old = existing.get((line.type, line.item_id))
        if old is None:
            new.append(_row(release, line, order))
            order += 1
            continue
        before = (old.previous_number, old.previous_title, old.previous_text)
        if old.change == ReleaseChange.Kind.ADDED:
            change = None if line.change == ReleaseChange.Kind.REMOVED else ReleaseChange.Kind.ADDED
        elif line.change == ReleaseChange.Kind.REMOVED:
            change = ReleaseChange.Kind.REMOVED
        else:
            change = classify(before, (line.number, line.title, line.text), line.title_follows)
        if change is None:
            gone.append(old.pk)
            continue
        old.change, old.number, old.title, old.slug = change, line.number, line.title, line.slug
        old.title_changed = change != ReleaseChange.Kind.ADDED and (
            line.title_changed or title_changed(before, (line.number, line.title, ""), line.title_follows)
        )
        old.text = line.text if change != ReleaseChange.Kind.REMOVED else ""
        old.successor_id = line.successor.item_id if line.successor is not None else None
        reworded = change == ReleaseChange.Kind.REWORDED
        old.diff_html = _diff(before, (line.number, line.title, line.text)) if reworded else ""
        updated.append(old)
    ReleaseChange.objects.bulk_create(new, batch_size=500)
    ReleaseChange.objects.bulk_update(
        updated, ["change", "number", "title", "slug", "text", "successor_id", "title_changed", "diff_html"],
        batch_size=500,
    )
    ReleaseChange.objects.filter(pk__in=gone).delete()


def change_rows(release: Release, lines: list[ChangeLine]) -> list[ReleaseChange]:
    """The change list as rows of ``release`` (an upcoming release's plan: a new item has
    no id yet)."""
    return [_row(release, line, order) for order, line in enumerate(lines)]


def _row(release: Release, line: ChangeLine, order: int) -> ReleaseChange:
    return ReleaseChange(
        release=release,
        item_type=line.type,
        item_id=line.item_id,
        change=line.change,
        order=order,
        number=line.number[:32],
        title=line.title[:300],
        slug=line.slug[:200],
        text=line.text,
        previous_number=line.previous_number[:32],
        previous_title=line.previous_title[:300],
        previous_slug=line.previous_slug[:200],
        previous_text=line.previous_text,
        title_changed=line.title_changed,
        diff_html=line.diff_html,
        successor_id=line.successor.item_id if line.successor is not None else None,
    )
