"""Write parsed items: one transaction, idempotent, nothing deleted.

Items are matched to existing rows by slug within their game and language, so a
re-import of the same document changes nothing and a revised edition updates what
changed (each update is a new history version). Rows the document no longer contains
are left alone. A dry run does all the writing and rolls it back, so it reports exactly
what a real run would do.
"""

from django.db import transaction

from ..models import Entry, Erratum, Game, Source
from ..references import deferred_resolution
from ..text import normalize_label, slugify_title
from .cleaning import Warning
from .errors import ImportRulesError
from .splitting import ParsedItem


def write_items(items: list[ParsedItem], options, report) -> None:
    from faq.models import Question  # the importer writes FAQ questions too

    with transaction.atomic():
        with deferred_resolution():
            game = _game(options)
            source = _source(game, options)
            reason = f"import: {source.title if source else 'document'}"
            entries_by_title: dict[str, Entry] = {}
            errata_affects: list[tuple[Erratum, ParsedItem]] = []
            for order, item in enumerate(items):
                slug = slugify_title(item.title)
                if item.type == "entry":
                    parent = entries_by_title.get(normalize_label(item.parent)) if item.parent else None
                    if item.parent and parent is None:
                        parent = Entry.objects.filter(game=game, language=options.language, title=item.parent).first()
                    values = {
                        "title": item.title,
                        "aliases": item.aliases,
                        "kind": item.entry_kind,
                        "number": item.number,
                        "parent": parent,
                        "order": order,
                        "body": item.body,
                        "see_also": item.cross_references,
                        "source": source,
                        "page": options.page,
                        "is_fragment": item.is_fragment,
                    }
                    entry = _upsert(Entry, game, options, slug, values, reason, report, item.title)
                    entries_by_title[normalize_label(item.title)] = entry
                elif item.type == "erratum":
                    values = {
                        "title": item.title,
                        "corrected_text": item.body,
                        "kind": item.erratum_kind,
                        "source": source,
                        "page": options.page,
                        "order": order,
                    }
                    erratum = _upsert(Erratum, game, options, slug, values, reason, report, item.title)
                    errata_affects.append((erratum, item))
                elif item.type == "question":
                    values = {
                        "question": item.title,
                        "answer": item.body,
                        "source": source,
                        "page": options.page,
                        "order": order,
                    }
                    _upsert(Question, game, options, slug, values, reason, report, item.title)
                else:  # pragma: no cover - the splitter only makes the three types
                    raise ImportRulesError(f"unknown item type {item.type!r}", line=item.line)
            # After the loop: an erratum may affect an entry further down the document.
            for erratum, item in errata_affects:
                _set_affects(erratum, item, game, options, report)
        if options.dry_run:
            # Everything above ran for real, so the report is exact; now undo it.
            transaction.set_rollback(True)


def _game(options) -> Game:
    game = Game.objects.filter(slug=options.game).first()
    details = dict(options.game_details)
    if game is None:
        if not options.game_name:
            raise ImportRulesError(
                f"unknown game {options.game!r}: give its name (--game-name) to create it"
            )
        return Game.objects.create(slug=options.game, name=options.game_name, **details)
    wanted = {"name": options.game_name, **details} if options.game_name else details
    changed = {key: value for key, value in wanted.items() if getattr(game, key) != value}
    if changed:
        for key, value in changed.items():
            setattr(game, key, value)
        game.save()
    return game


def _source(game: Game, options) -> Source | None:
    info = options.source
    if info is None:
        return None
    values = {
        "kind": info.kind,
        "version": info.version,
        "official": info.official,
        "url": info.url,
        "attribution": info.attribution,
    }
    source, created = Source.objects.get_or_create(
        game=game, language=options.language, title=info.title, defaults=values
    )
    if not created and any(getattr(source, key) != value for key, value in values.items()):
        for key, value in values.items():
            setattr(source, key, value)
        source.save()
    return source


def _upsert(model, game, options, slug, values, reason, report, label):
    obj = model.objects.filter(game=game, language=options.language, slug=slug).first()
    if obj is None:
        obj = model(game=game, language=options.language, slug=slug, status=options.status, **values)
        obj._change_reason = reason
        obj.save()
        report.created.append(label)
        return obj
    changed = [key for key, value in values.items() if getattr(obj, key) != value]
    if not changed:
        report.unchanged.append(label)
        return obj
    for key in changed:
        setattr(obj, key, values[key])
    obj._change_reason = reason
    obj.save()
    report.updated.append(label)
    return obj


def _set_affects(erratum: Erratum, item: ParsedItem, game, options, report) -> None:
    if not item.affects:
        return
    wanted = {normalize_label(title): title for title in item.affects}
    entries = [
        entry
        for entry in Entry.objects.filter(game=game, language=options.language)
        if normalize_label(entry.title) in wanted or entry.lookup_keys & wanted.keys()
    ]
    found = {key for entry in entries for key in entry.lookup_keys}
    for key, title in wanted.items():
        if key not in found:
            report.warnings.append(Warning(item.line, f"erratum {item.title!r}: no entry {title!r} to mark as affected"))
    if {e.pk for e in erratum.affects.all()} != {e.pk for e in entries}:
        erratum.affects.set(entries)
