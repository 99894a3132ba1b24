"""Validation: the whole export, before anything is written.

``load`` reads the JSON text; ``validate`` checks the file's structure and every field
against ``format.SECTIONS`` and returns the ``Plan`` of what to import;
``check_references`` checks, inside the import's transaction and before any write,
that every parent, source and affected or related entry will exist. Every error is an
``Invalid`` naming the item and the field; ``line_of`` finds its line in the text.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from json.decoder import scanstring

from django.core.exceptions import ValidationError

from ...content.models import Entry, Game
from ...shared.languages import CONTENT_LANGUAGE_CODES
from ...shared.text import strings_in, unstorable_character
from ..errors import ImportRulesError
from ..options import ImportOptions
from ..rows import ParentLoop, parents_first
from .format import FORMAT, GAME_CHECKS, SECTIONS, TOP_LEVEL_KEYS, VERSION, Section


def load(text: str):
    """The JSON value of an export's text (a BOM before it is allowed)."""
    try:
        return json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as error:
        raise ImportRulesError(
            f"not valid JSON: {error.msg} (column {error.colno})", line=error.lineno
        ) from None
    except RecursionError:
        raise ImportRulesError("not valid JSON: nested too deeply") from None


class Invalid(Exception):
    def __init__(self, message: str, path: tuple = ()):
        self.message = message
        self.path = path
        super().__init__(message)


@dataclass
class Item:
    section: Section
    index: int
    language: str
    key: str
    values: dict  # model field → cleaned value, for the fields the item has (no references)
    # parent/source → (language, key) or None; affects/related_entries → [(language, slug)]
    refs: dict
    label: str  # how errors name it: entries[12] (slug "draw-step")

    @property
    def ident(self) -> tuple[str, str]:
        return (self.language, self.key)

    def path(self, *rest) -> tuple:
        return (self.section.name, self.index, *rest)


@dataclass
class Plan:
    game: dict  # cleaned game values
    scope: set[str] | None  # the imported languages; None: all of them
    items: dict[str, list[Item]]  # section name → the items being imported
    skipped: Counter = field(default_factory=Counter)  # language → items left out

    def in_scope(self, language: str) -> bool:
        return self.scope is None or language in self.scope

    def keys(self, section: str) -> set[tuple[str, str]]:
        return {item.ident for item in self.items[section]}


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _clean_value(model, name: str, check: str, value, path: tuple):
    """Check one field's JSON value and return the model value (references as keys)."""

    def fail(expected: str):
        raise Invalid(f"{name} must be {expected}, not {_json_type(value)}", path)

    def validators(cleaned):
        try:
            model._meta.get_field(name).run_validators(cleaned)
        except ValidationError as error:
            shown = json.dumps(cleaned, ensure_ascii=False)
            raise Invalid(f"{name} {shown}: {' '.join(error.messages)}", path) from None
        return cleaned

    if check == "language":
        if not isinstance(value, str):
            fail("a language code")
        if value not in CONTENT_LANGUAGE_CODES:
            raise Invalid(
                f"unknown language {value!r}; use one of {', '.join(CONTENT_LANGUAGE_CODES)}", path
            )
        return value
    if check in ("slug", "name"):
        if not isinstance(value, str):
            fail("a string")
        if not value.strip():
            raise Invalid(f"{name} is empty", path)
        return validators(value)
    if check == "text":
        if not isinstance(value, str):
            fail("a string")
        return validators(value)
    if check == "choice":
        if not isinstance(value, str):
            fail("a string")
        allowed = [str(choice) for choice, _label in model._meta.get_field(name).flatchoices]
        if value not in allowed:
            raise Invalid(f"unknown {name} {value!r}; use one of {', '.join(allowed)}", path)
        return value
    if check == "bool":
        if not isinstance(value, bool):
            fail("true or false")
        return value
    if check in ("order", "optional_int"):
        if value is None and check == "optional_int":
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            fail("a whole number" if check == "order" else "a whole number or null")
        if value < 0:
            raise Invalid(f"{name} must not be negative", path)
        return validators(value)
    if check == "strings":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            fail("an array of strings")
        return value
    if check == "names":
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            fail('an object of strings, e.g. {"de": "…"}')
        return value
    if check == "date":
        if value is None:
            return None
        if not isinstance(value, str):
            fail("a date (YYYY-MM-DD) or null")
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise Invalid(f"{name} {value!r} is not a date (YYYY-MM-DD)", path) from None
    if check == "uuid":
        if not isinstance(value, str):
            fail("a UUID string")
        try:
            return uuid.UUID(value)
        except ValueError:
            raise Invalid(f"{name} {value!r} is not a UUID", path) from None
    raise AssertionError(check)  # pragma: no cover


def _refuse_unstorable(name: str, value, path: tuple) -> None:
    """Refuse a NUL, a control character or a lone surrogate anywhere in a field's value
    (strings, and the strings inside its arrays and objects): ``rules.shared.text.UNSTORABLE``.
    PostgreSQL would refuse the row with a raw error, SQLite would store it."""
    for text in strings_in(value):
        found = unstorable_character(text)
        if found is not None:
            offset, what = found
            raise Invalid(
                f"{name} contains {what} at character {offset + 1}: remove it (no text needs "
                "it, and the database cannot store it)",
                path,
            )


def _clean_ref(value, language: str, key: str, path: tuple, name: str) -> tuple[str, str]:
    """A reference: a slug/title in the item's language, or {"language": …, key: …}."""
    if isinstance(value, str):
        ref_language, ref_key = language, value
    elif isinstance(value, dict) and set(value) == {"language", key}:
        ref_language, ref_key = value["language"], value[key]
        if ref_language not in CONTENT_LANGUAGE_CODES:
            raise Invalid(f"{name}: unknown language {ref_language!r}", path)
    else:
        what = "an entry slug" if key == "slug" else "a source title"
        raise Invalid(
            f'{name} must be {what} or {{"language": …, "{key}": …}}, not {_json_type(value)}', path
        )
    if not isinstance(ref_key, str) or not ref_key:
        raise Invalid(f"{name}: the {key} must be a non-empty string", path)
    return (ref_language, ref_key)


def _check_object(value, allowed, required, path: tuple, what: str) -> None:
    if not isinstance(value, dict):
        raise Invalid(f"{what} must be an object, not {_json_type(value)}", path)
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise Invalid(
            f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"the fields are {', '.join(allowed)}",
            path + (unknown[0],),
        )
    missing = [name for name in allowed if name in required and name not in value]
    if missing:
        raise Invalid(
            f"missing required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}", path
        )


def _item_label(section: Section, index: int, raw) -> str:
    label = f"{section.name}[{index}]"
    if isinstance(raw, dict) and isinstance(raw.get(section.key), str):
        label += f" ({section.key} {json.dumps(raw[section.key], ensure_ascii=False)})"
    return label


def _clean_item(section: Section, index: int, raw) -> Item:
    path = (section.name, index)
    _check_object(raw, section.fields, section.required, path, "each item")
    language = _clean_value(
        section.model, "language", "language", raw["language"], path + ("language",)
    )
    values, refs = {}, {}
    for name, check in section.fields.items():
        if name not in raw:
            continue
        value, where = raw[name], path + (name,)
        _refuse_unstorable(name, value, where)
        if check == "entry_ref":
            refs[name] = None if value is None else _clean_ref(value, language, "slug", where, name)
        elif check == "source_ref":
            refs[name] = (
                None if value is None else _clean_ref(value, language, "title", where, name)
            )
        elif check == "entry_refs":
            if not isinstance(value, list):
                raise Invalid(
                    f"{name} must be an array of entry slugs, not {_json_type(value)}", where
                )
            refs[name] = [_clean_ref(v, language, "slug", where, name) for v in value]
        else:
            values[name] = _clean_value(section.model, name, check, value, where)
    return Item(section, index, language, values[section.key], values, refs, "")


def validate(payload, options: ImportOptions) -> Plan:
    """Check the file's structure and content; return what to import. Raises Invalid."""
    _check_object(payload, TOP_LEVEL_KEYS, {"format", "version", "game"}, (), "the export")
    if payload["format"] != FORMAT:
        raise Invalid(
            f'not a rulesite export: "format" is {json.dumps(payload["format"])}, not "{FORMAT}"',
            ("format",),
        )
    if payload["version"] != VERSION or isinstance(payload["version"], bool):
        raise Invalid(
            f"unsupported export version {json.dumps(payload['version'])}; "
            f"this site reads version {VERSION}",
            ("version",),
        )
    export_language = payload.get("language")
    if export_language is not None:
        _clean_value(Entry, "language", "language", export_language, ("language",))

    game_raw = payload["game"]
    try:
        _check_object(game_raw, GAME_CHECKS, {"slug", "name"}, ("game",), "the game")
        for name in GAME_CHECKS:
            if name in game_raw:
                _refuse_unstorable(name, game_raw[name], ("game", name))
        game = {
            name: _clean_value(Game, name, check, game_raw[name], ("game", name))
            for name, check in GAME_CHECKS.items()
            if name in game_raw
        }
    except Invalid as error:
        raise Invalid(f"game: {error.message}", error.path) from None
    if options.game and options.game != game["slug"]:
        raise Invalid(
            f'the export is of game "{game["slug"]}", not "{options.game}"; '
            f"import it with --game {game['slug']} or export the right game",
            ("game", "slug"),
        )

    wanted = options.language or None
    if wanted is not None:
        if wanted not in CONTENT_LANGUAGE_CODES:
            raise ImportRulesError(
                f"unknown language {wanted!r}; use one of {', '.join(CONTENT_LANGUAGE_CODES)}"
            )
        if export_language is not None and export_language != wanted:
            raise Invalid(
                f'the export holds only "{export_language}" content; nothing in it is "{wanted}"',
                ("language",),
            )
        scope = {wanted}
    else:
        scope = {export_language} if export_language else None

    plan = Plan(game, scope, {name: [] for name in SECTIONS})
    for name, section in SECTIONS.items():
        rows = payload.get(name, [])
        if not isinstance(rows, list):
            raise Invalid(f'"{name}" must be an array, not {_json_type(rows)}', (name,))
        seen: dict[tuple[str, str], int] = {}
        for index, raw in enumerate(rows):
            label = _item_label(section, index, raw)
            try:
                item = _clean_item(section, index, raw)
            except Invalid as error:
                raise Invalid(f"{label}: {error.message}", error.path) from None
            item.label = label
            if export_language is not None and item.language != export_language:
                raise Invalid(
                    f'{label}: language "{item.language}" in an export of '
                    f'"{export_language}" content only',
                    item.path("language"),
                )
            if item.ident in seen:
                raise Invalid(
                    f"{label}: {section.name}[{seen[item.ident]}] has the same language "
                    f"and {section.key}",
                    item.path(section.key),
                )
            seen[item.ident] = index
            if plan.in_scope(item.language):
                plan.items[name].append(item)
            else:
                plan.skipped[item.language] += 1
    return plan


def check_references(plan: Plan, existing, prune: bool) -> None:
    """Every parent, source and affected/related entry exists once the import is done;
    ``existing``: the game's rows in the database (``writing.Existing``)."""

    def survives(section: str, key: tuple[str, str]) -> bool:
        # A row only in the database survives unless prune deletes it.
        return key in existing.rows(section) and not (prune and plan.in_scope(key[0]))

    def check(item: Item, name: str, section: str, ref: tuple[str, str]) -> None:
        if ref in imported[section] or survives(section, ref):
            return
        what = "entry" if section == "entries" else "source"
        key_name = "slug" if section == "entries" else "title"
        shown = f'{what} {key_name} "{ref[1]}"' + (
            "" if ref[0] == item.language else f' (language "{ref[0]}")'
        )
        if not plan.in_scope(ref[0]):
            where = f'the import leaves out "{ref[0]}" and the database has no such {what}'
        elif prune and ref in existing.rows(section):
            where = "it is not in the export, so pruning would delete it"
        else:
            where = "it is neither in the export nor in the database"
        raise Invalid(f"{item.label}: {name}: no {shown}; {where}", item.path(name))

    imported = {name: plan.keys(name) for name in ("entries", "sources")}
    for section in ("entries", "errata", "questions"):
        for item in plan.items[section]:
            for name, ref in item.refs.items():
                if name == "source":
                    if ref is not None:
                        check(item, name, "sources", ref)
                elif name == "parent":
                    if ref is not None:
                        check(item, name, "entries", ref)
                else:
                    for one in ref:
                        check(item, name, "entries", one)
    _refuse_parent_loops(plan.items["entries"])


def _refuse_parent_loops(items: list[Item]) -> None:
    """A chain of parents within the file may not come back to where it started."""
    by_key = {item.ident: item for item in items}

    def parent_of(item: Item) -> Item | None:
        parent = item.refs.get("parent")
        return by_key.get(parent) if parent else None

    try:
        parents_first(items, parent_of)
    except ParentLoop as loop:
        current = loop.chain[-1]
        raise Invalid(
            f"{current.label}: parent: the parent chain loops: "
            + " → ".join(f'"{link.key}"' for link in loop.chain),
            current.path("parent"),
        ) from None


# ---------------------------------------------------------------------------------------
# Error positions: the line of an item or field in the JSON text
# ---------------------------------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _position(text: str, path: tuple) -> int | None:
    """The offset in ``text`` of the value at ``path`` (keys and indices), if found."""
    try:
        index = _SPACE.match(text, 0).end()
        for step in path:
            opening = "{" if isinstance(step, str) else "["
            if text[index] != opening:
                return None
            index += 1
            count = 0
            while True:
                index = _SPACE.match(text, index).end()
                if text[index] in "}]":
                    return None
                if isinstance(step, str):
                    key, index = scanstring(text, index + 1)
                    index = _SPACE.match(text, index).end()
                    if text[index] != ":":
                        return None
                    index = _SPACE.match(text, index + 1).end()
                    if key == step:
                        break
                elif count == step:
                    break
                _value, index = _DECODER.raw_decode(text, index)
                index = _SPACE.match(text, index).end()
                if text[index] == ",":
                    index += 1
                count += 1
        return index
    except (ValueError, IndexError):
        return None


def line_of(text: str, path: tuple) -> int | None:
    # The deepest part of the path that can be found: a field, else its item.
    while path:
        offset = _position(text, path)
        if offset is not None:
            return text.count("\n", 0, offset) + 1
        path = path[:-1]
    return None
