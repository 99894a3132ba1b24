"""scripts/mirror.py against a live gunicorn (SQLite, and PostgreSQL when the suite runs
there) with the background worker: a mirror made from a bulk file and kept by the
change feed equals a fresh crawl of every list, after writes of every kind made by other
processes, and never holds a draft's text."""

import json
import subprocess
import time
import urllib.request

from tests.processes import PYTHON, ROOT, free_port, run_command, start_gunicorn, stop, throwaway_database

LISTS = {"game": "games", "source": "sources", "entry": "entries", "erratum": "errata", "question": "faq"}

SETUP = """
from rules.content.models import Game, Entry, Erratum, Source
from faq.models import Question
game = Game.objects.create(slug="mond", name="Mond")
other = Game.objects.create(slug="sonne", name="Sonne")
source = Source.objects.create(game=game, language="de", title="Regeln", kind="rules_reference")
zug = Entry.objects.create(game=game, language="de", title="Zug", body="Siehe [[Karte]].", status="published",
                           source=source)
Entry.objects.create(game=game, language="de", title="Karte", body="Eine Karte.", status="published")
Entry.objects.create(game=game, language="de", title="Entwurf", body="GEHEIM eins", status="draft")
Entry.objects.create(game=other, language="en", title="Ray", body="Light.", status="published")
erratum = Erratum.objects.create(game=game, language="de", title="Fix", corrected_text="Neu.", status="published")
erratum.affects.set([zug])
question = Question.objects.create(game=game, language="de", question="Wann?", answer="Jetzt.", status="published")
question.related_entries.set([zug])
"""

WRITES = """
from rules.content.models import Game, Entry, Erratum, Source
from faq.models import Question
game = Game.objects.get(slug="mond")
zug = Entry.objects.get(game=game, title="Zug")
zug.title = "Spielzug"; zug.save()
karte = Entry.objects.get(game=game, title="Karte"); karte.status = "archived"; karte.save()
Entry.objects.get(title="Ray").delete()
draft = Entry.objects.get(title="Entwurf"); draft.body = "GEHEIM zwei"; draft.save()
Entry.objects.create(game=game, language="de", title="Neu", body="Siehe [[Spielzug]].", status="published")
Entry.objects.create(game=game, language="en", title="Move", body="Moves.", status="published",
                     translation_key=zug.translation_key, translation_of=zug)
Question.objects.get(question="Wann?").delete()
source = Source.objects.get(title="Regeln"); source.title = "Regeln 2"; source.save()
game.slug = "mondbasis"; game.save()
"""


# Random writes of every kind (tests/api/test_change_feed.py's), by another process.
RANDOM_WRITES = """
import random
from rules.content.models import Game
from tests.api.test_change_feed import OPERATIONS, write
rng = random.Random({seed})
game = Game.objects.exclude(slug="sonne").get()  # renamed by some rounds
secrets = {{}}
for _ in range(10):
    write(rng.choice(OPERATIONS), rng, Game.objects.get(pk=game.pk), secrets)
print(sorted(secrets))
"""


def crawl(base: str) -> dict:
    """Every item of every list, keyed as the mirror keys them."""
    items = {}
    for kind, name in LISTS.items():
        url = f"{base}/api/v1/{name}/?page_size=100"
        while url:
            with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - loopback test server
                page = json.loads(response.read())
            for item in page["results"]:
                items[f"game:{item['slug']}" if kind == "game" else f"{kind}:{item['id']}"] = item
            url = page["next"]
    return items


def mirror(base: str, path, *args: str) -> str:
    result = subprocess.run(
        [PYTHON, "scripts/mirror.py", base, str(path), *args], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_mirror_kept_by_a_bulk_file_and_the_change_feed_equals_a_crawl(tmp_path):
    with throwaway_database(tmp_path) as (_database, env):
        port = free_port()
        # The site's address, as the bulk files (made without a request) write their URLs.
        env = {**env, "DJANGO_SITE_URL": f"http://127.0.0.1:{port}"}
        manage = [PYTHON, "manage.py"]
        run_command([*manage, "shell", "-c", SETUP], env)
        server = start_gunicorn("mirror", env, tmp_path / "gunicorn.log", port=port)
        worker = subprocess.Popen(
            [*manage, "db_worker", "--queue-name", "*", "--interval", "0.2"], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "worker.log", "wb"),  # noqa: SIM115
        )  # fmt: skip
        try:
            server.wait_until_up(time.monotonic() + 30)
            base = f"http://127.0.0.1:{server.port}"
            everything, one_game = tmp_path / "all.json", tmp_path / "mond-de.json"
            assert "full copy" in mirror(base, everything)
            mirror(base, one_game, "--game", "mond", "--language", "de")
            assert json.loads(everything.read_text())["items"] == crawl(base)

            run_command([*manage, "shell", "-c", WRITES], env)
            (tmp_path / "import.txt").write_text("Zone\nEin Bereich.\n\nKrater\nEin Loch.\n", encoding="utf-8")
            run_command(
                [*manage, "import_rules", str(tmp_path / "import.txt"), "--game", "mondbasis", "--language", "de",
                 "--kind", "glossary", "--source-title", "Glossar", "--status", "published", "--prune"], env,
            )  # fmt: skip

            assert "changes" in mirror(base, everything)
            kept = json.loads(everything.read_text())["items"]
            fresh = crawl(base)
            assert kept == fresh
            assert "GEHEIM" not in everything.read_text()
            # The one-game mirror followed its game's rename and holds exactly its German items.
            mirror(base, one_game, "--game", "mond", "--language", "de")
            single = json.loads(one_game.read_text())
            assert single["game"] == "mondbasis"
            german = {
                key: item for key, item in fresh.items()
                if key == "game:mondbasis" or (item.get("game") == "mondbasis" and item.get("language") == "de")
            }  # fmt: skip
            assert single["items"] == german

            # Rounds of random writes of every kind; the mirror stays a crawl's equal and
            # never holds a draft's text (what is still a draft at the end).
            secrets = []
            for seed in (1, 2, 3):
                made = run_command([*manage, "shell", "-c", RANDOM_WRITES.format(seed=seed)], env)
                secrets += eval(made.strip().splitlines()[-1])  # noqa: S307 - our own printed list
                mirror(base, everything)
                assert json.loads(everything.read_text())["items"] == crawl(base), f"after round {seed}"
            text = everything.read_text()
            public = json.dumps(crawl(base))
            assert not [secret for secret in secrets if secret in text and secret not in public]
        finally:
            stop(worker, server.process)
