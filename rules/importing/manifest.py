"""Manifests: a TOML file that says, for each document, what it is and how to read it.

A document may be a translation of others listed before it in the same manifest:

- ``translation_of``: the file of the original document, or a list of files when the
  translation gathers the entries of several (each an earlier ``[[document]]`` of the
  same game, in another language, so it is imported first);
- ``[document.translations]``: each entry the translation yields, by its title, mapped
  to the title of its original in those documents (``"Reaktionen" = "Reactions"``).

The table names every entry the translation yields, never matched by order or by
likeness: a document that gains, loses or reorders an entry is then an error, not a
wrong link. This module reads and checks what the manifest alone can tell (files,
games, languages, the table's shape); the loader (``load_demo``) checks the titles
against what the import yielded and links each pair through ``rules.moderation``.
"""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ImportRulesError
from .options import ImportOptions, SectionOverride, SourceInfo

GAME_FIELDS = {"localized_names", "publisher", "year", "bgg_id"}


@dataclass
class ManifestDocument:
    path: Path
    options: ImportOptions
    # The files of the documents this one translates (earlier in the manifest), and
    # translated title → original title for every entry it yields; both empty if none.
    translation_of: list[str] = field(default_factory=list)
    translations: dict[str, str] = field(default_factory=dict)


def read_manifest(path: Path) -> list[ManifestDocument]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ImportRulesError(f"cannot read manifest {path.name}: {error}") from error
    games = data.get("games", {})
    documents: list[ManifestDocument] = []
    for number, doc in enumerate(data.get("document", []), start=1):
        try:
            game_slug = doc["game"]
            game = games.get(game_slug, {})
            source = doc.get("source")
            overrides = {
                section["title"]: SectionOverride(
                    type=section.get("type"),
                    aliases=section.get("aliases", []),
                    affects=section.get("affects", []),
                    title=section.get("new_title"),
                    erratum_kind=section.get("erratum_kind"),
                )
                for section in doc.get("section", [])
            }
            options = ImportOptions(
                game=game_slug,
                language=doc["language"],
                kind=doc.get("kind", "auto"),
                source=SourceInfo(**source, update_existing=True) if source else None,
                page=str(doc.get("page", "")),
                status=doc.get("status", "published"),
                game_name=game.get("name"),
                game_details={k: v for k, v in game.items() if k in GAME_FIELDS},
                overrides=overrides,
                leading_fragment_title=doc.get("leading_fragment_title"),
                numbered_title=doc.get("numbered_title"),
            )
            document = ManifestDocument(path.parent / doc["file"], options)
            document.translation_of, document.translations = _translation(doc, documents)
            documents.append(document)
        except (KeyError, TypeError, ValueError) as error:
            raise ImportRulesError(
                f"manifest {path.name}, document {number}: missing or bad field {error}"
            ) from error
    return documents


def _translation(doc: dict, earlier: list[ManifestDocument]) -> tuple[list[str], dict[str, str]]:
    """``translation_of`` as a list of files, and the title table, checked against the
    documents before this one (``ValueError`` naming the field for anything amiss)."""
    originals = doc.get("translation_of", [])
    table = doc.get("translations", {})
    if isinstance(originals, str):
        originals = [originals]
    if not isinstance(originals, list) or not all(isinstance(name, str) for name in originals):
        raise ValueError("'translation_of': a file name or a list of file names")
    if not isinstance(table, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in table.items()
    ):
        raise ValueError("'translations': a table of translated title = original title")
    if not originals:
        if table:
            raise ValueError("'translations' without 'translation_of'")
        return [], {}
    if not table:
        raise ValueError("'translation_of' without a [document.translations] table")
    by_file = {document.path.name: document.options for document in earlier}
    for name in originals:
        original = by_file.get(name)
        if original is None:
            raise ValueError(f"'translation_of': {name!r} is no earlier document of the manifest")
        if original.game != doc["game"] or original.language == doc["language"]:
            raise ValueError(f"'translation_of': {name!r} must be of the same game in another language")
    repeated = sorted({title for title in table.values() if list(table.values()).count(title) > 1})
    if repeated:
        raise ValueError(f"'translations': the original {repeated[0]!r} is named twice")
    return list(originals), dict(table)
