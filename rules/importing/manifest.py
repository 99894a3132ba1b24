"""Manifests: a TOML file that says, for each document, what it is and how to read it."""

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import ImportRulesError
from .options import ImportOptions, SectionOverride, SourceInfo

GAME_FIELDS = {"localized_names", "publisher", "year", "bgg_id"}


@dataclass
class ManifestDocument:
    path: Path
    options: ImportOptions


def read_manifest(path: Path) -> list[ManifestDocument]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ImportRulesError(f"cannot read manifest {path.name}: {error}") from error
    games = data.get("games", {})
    documents = []
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
                numbered_title=doc.get("numbered_title", "{parent} {number}"),
            )
            documents.append(ManifestDocument(path.parent / doc["file"], options))
        except (KeyError, TypeError) as error:
            raise ImportRulesError(
                f"manifest {path.name}, document {number}: missing or bad field {error}"
            ) from error
    return documents
