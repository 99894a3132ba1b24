"""Export a game's content as canonical JSON (see ``rules.importing.canonical``).

    python manage.py export_rules --game SLUG [--language LANG] [--output PATH]

The file re-imports with ``import_rules PATH --game SLUG --language LANG``; exporting,
importing into an empty database and exporting again gives the same bytes.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.content.models import Game
from rules.importing.canonical import export_game
from rules.shared.languages import CONTENT_LANGUAGE_CODES


class Command(BaseCommand):
    help = "Write a game's sources, entries, errata and FAQ questions as canonical JSON (UTF-8)."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument("--language", help="Export only this content language (default: all of them).")
        parser.add_argument("--output", "-o", help="Write to this file instead of standard output.")

    def handle(self, *args, **options):
        slug, language = options["game"], options["language"]
        game = Game.objects.filter(slug=slug).first()
        if game is None:
            known = sorted(Game.objects.values_list("slug", flat=True))
            games = f"the games are: {', '.join(known)}" if known else "there are no games"
            raise CommandError(f"unknown game {slug!r}; {games}")
        if language is not None:
            if language not in CONTENT_LANGUAGE_CODES:
                raise CommandError(
                    f"unknown language {language!r}; use one of {', '.join(CONTENT_LANGUAGE_CODES)}"
                )
            present = _languages(game)
            if language not in present:
                has = f"it has {', '.join(present)}" if present else "it has no content yet"
                raise CommandError(f"game {slug!r} has no content in {language!r}; {has}")

        data = export_game(game, language).encode("utf-8")
        if options["output"] and options["output"] != "-":
            path = Path(options["output"])
            try:
                path.write_bytes(data)
            except OSError as error:
                raise CommandError(f"cannot write {path}: {error.strerror}") from error
            self.stderr.write(f"wrote {path} ({len(data)} bytes)")
            return
        stream = getattr(self.stdout, "_out", None)
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            # The terminal's encoding must not matter: write the UTF-8 bytes as they are.
            stream.flush()
            buffer.write(data)
            buffer.flush()
        else:
            self.stdout.write(data.decode("utf-8"), ending="")


def _languages(game: Game) -> list[str]:
    languages = set()
    for relation in ("sources", "entries", "errata", "faq_questions"):
        languages.update(getattr(game, relation).values_list("language", flat=True).order_by().distinct())
    return sorted(languages)
