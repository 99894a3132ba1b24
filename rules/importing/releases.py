"""What a new version of a source changed, and the release that records it.

``changes_of`` lists, after the rows are written (or planned, in a dry run), exactly
what changed, item by item, judged by identity (numbered rules were matched by
``identity``, everything else by its slug): ``added``, ``changed`` (with a word diff),
``renumbered`` (the same text under a new number) and ``removed``. Nothing else is a
change: an unchanged item is not listed, however the import's bookkeeping touched it
(its source, its order, a numbered title that follows its number).

``record`` stores the list as a release of the source (``rules.content.releases``) when
the import names a version (``--source-version``): a new label is a new release; the
latest release's own label again adds to it (a corrected file of the same version), so
what the release lists is always "from the version before to this one". An older
release cannot be imported into: the releases after it were read against it.
"""

from django.utils import timezone

from ..content.journal import unit_of_work
from ..content.releases import Release, ReleaseChange
from ..shared.diffing import word_diff_html
from .errors import ImportRulesError
from .identity import text_of
from .options import SourceInfo
from .report import ChangeLine

TYPES = ("entry", "erratum", "question")


def state(type_: str, obj) -> tuple[str, str, str]:
    """A row as a release remembers it: (number, title, text)."""
    if type_ == "entry":
        return (obj.number, obj.title, obj.body)
    if type_ == "erratum":
        return ("", obj.title, obj.corrected_text)
    return ("", obj.question, obj.answer)


def _same_title(before: tuple[str, str, str], after: tuple[str, str, str]) -> bool:
    """The titles are the same, or differ only in the number a numbered rule's title ends
    with ("Combat 7.3a" → "Combat 7.4a": that is the renumbering, not a new title)."""
    (number_b, title_b, _), (number_a, title_a, _) = before, after
    if title_b == title_a:
        return True
    return bool(
        number_b
        and number_a
        and title_b.endswith(number_b)
        and title_a.endswith(number_a)
        and title_b[: -len(number_b)] == title_a[: -len(number_a)]
    )


def classify(before: tuple[str, str, str], after: tuple[str, str, str]) -> str | None:
    """``changed``, ``renumbered`` or None (unchanged) for a row that was and still is."""
    same_text = _text(before) == _text(after)
    if not same_text or not _same_title(before, after):
        return ReleaseChange.Kind.CHANGED
    if before[0] != after[0]:
        return ReleaseChange.Kind.RENUMBERED
    return None


def _text(state: tuple[str, str, str]) -> str:
    """What a change is judged on and its diff shows: the text, or a heading's title."""
    return text_of(state[2], state[1])


def _diff(before: tuple[str, str, str], after: tuple[str, str, str]) -> str:
    return str(word_diff_html(_text(before), _text(after)))


def _line(type_: str, change: str, obj, after, before=None) -> ChangeLine:
    line = ChangeLine(type_, change, after[0], after[1], slug=getattr(obj, "slug", ""), item_id=obj.pk, text=after[2])
    if before is not None:
        line.previous_number, line.previous_title, line.previous_text = before
        if change == ReleaseChange.Kind.CHANGED:
            line.diff_html = _diff(before, after)
    return line


def changes_of(rows: dict, before: dict[int, tuple], removed: list[tuple[str, object, int]]) -> list[ChangeLine]:
    """The change list of an import: its rows in document order (``before``: each stored
    row's state as it was read, by ``id``), then what it pruned (``removed``)."""
    lines: list[ChangeLine] = []
    for type_ in TYPES:
        for row in rows.get(type_, ()):
            after = state(type_, row.obj)
            was = before.get(id(row.obj))
            if was is None or (row.outcome is not None and row.outcome.action == "created"):
                lines.append(_line(type_, ReleaseChange.Kind.ADDED, row.obj, after))
                continue
            change = classify(was, after)
            if change is not None:
                lines.append(_line(type_, change, row.obj, after, was))
    for type_, obj, pk in removed:
        was = state(type_, obj)
        line = _line(type_, ReleaseChange.Kind.REMOVED, obj, was, was)
        line.item_id = pk
        lines.append(line)
    return lines


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
            change = classify(before, (line.number, line.title, line.text))
        if change is None:
            gone.append(old.pk)
            continue
        old.change, old.number, old.title, old.slug = change, line.number, line.title, line.slug
        changed = change == ReleaseChange.Kind.CHANGED
        old.diff_html = _diff(before, (line.number, line.title, line.text)) if changed else ""
        updated.append(old)
    ReleaseChange.objects.bulk_create(new, batch_size=500)
    ReleaseChange.objects.bulk_update(updated, ["change", "number", "title", "slug", "diff_html"], batch_size=500)
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
        previous_number=line.previous_number[:32],
        previous_title=line.previous_title[:300],
        previous_text=line.previous_text,
        diff_html=line.diff_html,
    )
