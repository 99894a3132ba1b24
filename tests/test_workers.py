"""A long task never holds up the others: one worker per queue (rules/jobs/__init__.py).

Real processes on a throwaway database (a SQLite file, or a fresh PostgreSQL database
when the suite runs on PostgreSQL): a moderator's large import is queued first, with the
highest priority, then a reader's sitemap; ``manage.py run_workers``, as ``make run`` and
production start the workers, builds the sitemap while the import is still running (one
worker for everything ran the import first and kept the sitemap waiting for it). Both
complete, and SIGTERM stops every worker.
"""

import json
import signal
import subprocess
import time

from tests.processes import PYTHON, ROOT, run_command, stop, tail, throwaway_database

IMPORTED_ENTRIES = 4000  # an import of several seconds, even on a fast machine
WAIT = 300  # seconds for the import to finish on a slow, shared machine

SETUP = r"""
import json, sys
import django
django.setup()
from django.contrib.auth import get_user_model
from rules.builds.models import BuiltFile
from rules.builds.tasks import request_build
from rules.content import version
from rules.content.models import Entry, Game
from rules.content.querysets import Status
from rules.jobs.models import ImportJob
from rules.jobs.tasks import run_import

count = int(sys.argv[1])
user = get_user_model().objects.create_superuser("editor", "editor@example.org", "a long pass phrase")
game = Game.objects.create(slug="klein", name="Klein")
for n in range(3):
    Entry.objects.create(game=game, language="de", title=f"Eintrag {n}", body="Text.", status=Status.PUBLISHED)
document = "\n".join(
    f"Begriff {n:05d}\nDie Regel {n} sagt, wann ein Spieler handeln darf.\nSiehe auch: Begriff {(n + 1) % count:05d}\n"
    for n in range(count)
)
job = ImportJob(user=user, state=ImportJob.State.IMPORTING, values={
    "game": "gross", "game_name": "Gross", "language": "de", "kind": "glossary", "source_title": "Glossar",
    "page": "", "prune": False, "status": "published", "hold": False, "source_version": "",
    "effective_date": "", "ui_language": "de",
})
job.document = document.encode()
job.save()
run_import.enqueue(job.pk)  # first, and a moderator's priority
sitemap = BuiltFile.objects.for_request(BuiltFile.Kind.SITEMAP, game=game, language="de")
assert request_build(sitemap, version.current().token)
print(json.dumps({"job": job.pk, "sitemap": sitemap.pk}))
"""


def test_a_sitemap_is_built_while_a_long_import_runs_and_both_complete(tmp_path):
    with throwaway_database(tmp_path) as (db, env):
        env = {**env, "RULESITE_SEMANTIC": "off"}  # no model to load: the two queues at hand
        ids = json.loads(run_command([PYTHON, "-c", SETUP, str(IMPORTED_ENTRIES)], env).strip().splitlines()[-1])
        log = tmp_path / "workers.log"
        workers = subprocess.Popen(
            [PYTHON, "manage.py", "run_workers", "--interval", "0.2"], cwd=ROOT, env=env,
            stdout=open(log, "wb"), stderr=subprocess.STDOUT,  # noqa: SIM115
        )  # fmt: skip
        try:
            built_while = None
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                state, started = db.execute(
                    [("SELECT state, started_at FROM rules_importjob WHERE id = ?", (ids["job"],))]
                )[0]
                built = db.execute([("SELECT built_at FROM rules_builtfile WHERE id = ?", (ids["sitemap"],))])[0][0]
                if built is not None and built_while is None:
                    built_while = (state, started is not None)
                if built is not None and state != "importing":
                    break
                time.sleep(0.1)
            # The import was not done: one worker for both (the import first, a moderator's
            # priority) built the sitemap only after it. Whether the imports' worker had
            # already claimed the job depends on which process the machine started first.
            assert built_while is not None and built_while[0] == "importing", (built_while, tail(log))
            assert state == "done", (state, tail(log))
            entries = db.execute(
                [("SELECT COUNT(*) FROM rules_entry JOIN rules_game ON rules_game.id = rules_entry.game_id "
                  "WHERE rules_game.slug = ? AND rules_entry.status = 'published'", ("gross",))]
            )[0][0]  # fmt: skip
            assert entries == IMPORTED_ENTRIES

            # Each queue's worker (the project's db_worker) says it is alive (rules.jobs.heartbeat).
            beats = db.execute([("SELECT worker_id FROM rules_workerbeat", ())])
            assert sorted(worker.split("-")[0] for (worker,) in beats) == ["default", "embeddings", "imports"]

            workers.send_signal(signal.SIGTERM)
            assert workers.wait(timeout=60) == 0, tail(log)
            assert "db_worker --queue-name imports" in log.read_text()
        finally:
            stop(workers)
