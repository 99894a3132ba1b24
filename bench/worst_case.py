"""Worst-case benchmark: every request a stranger can make, at its worst.

    .venv/bin/python bench/worst_case.py [--entries 619] [--repeat 3] [--only SUBSTRING]
        [--database-url URL] [--cache-url redis://…] [--timeout 30] [--keep]

The rule it gives evidence for: every request a stranger can make has a bounded cost
(CPU, memory, time), enforced by limits in code (input sizes, work caps, timeouts).
For each public page, API endpoint and form it sends the slowest inputs we know of, at
and beyond the limits the code declares (read from the code, not copied), and prints
the worst times. The target: no row over 1 s on the machine it runs on.

What it builds: the site of bench/serve.py (``serve.build_site``: migrations, the demo
content, a generated glossary of --entries entries imported as a published game with
errata and FAQ questions) in a throwaway SQLite file, or the *empty* database at
--database-url. Then, through the project's own importer and models:

- two more versions of the generated glossary's source, "1.1" (every body changed: a
  release of about --entries changes) and "1.2";
- one entry ("the 50,000-character entry") whose body is a word repeated up to 50,000
  characters, saved through the ORM before and after version 1.2 (which puts its 1.1
  text back), so its history page diffs three pairs of versions with a 50,000-character
  side, and ``?as_of=1.1`` shows it as version 1.1 had it (rendered from Markdown on
  every such request);
- a superuser for the admin rows.

Then it starts gunicorn with the repository's gunicorn.conf.py and production settings
(``serve.serving``), the response cache as --cache-url says (default: the per-process
memory cache), ``DJANGO_TRUSTED_PROXY_COUNT=1`` and ``DJANGO_NUM_PROXIES=1``, asks once
for the files built in the background (booklet pages, sitemaps, bulk data) and builds
them with ``manage.py build_files --bulk``; the booklet PDFs are left unbuilt (no worker
runs during the measurements), so they answer 503 "being prepared", which is recorded.

What it sends: every row's request --repeat times, each over a new connection to
127.0.0.1 with http.client, anonymous unless the row is an admin page (a superuser's
session, logged in through the admin's login form as tests/processes.py's AdminSession
does), ``Accept-Encoding: gzip`` as browsers send. The response cache would hide a
page's cost, so every attempt is a page the cache has not seen: each is sent with a
``Host`` of its own (``w<n>.worst.test``; the server's ``DJANGO_ALLOWED_HOSTS`` gets
``.worst.test``). A new *port* would not do: rulesite/hosts.py drops a port the server
is not listening on, so the cache key has one host per name, and only the allowed names
are names. Production pins one host (``DJANGO_SITE_URL``), where a stranger's worst is
the first request after a content change: what these rows measure, with the site's
other caches (search vocabulary, prepared queries) warm.

Every attempt also carries an ``X-Forwarded-For`` address of its own, as a botnet's
would: the suggestion limits count per address (5 sends in 10 minutes) and per item (20
an hour, per worker process with the default cache); a refusal is a 429, printed as
such (a cheap answer, which counts as fine). Forms are filled as a browser does: the
form is fetched (untimed), its hidden fields and CSRF cookie sent back with ``Origin``
and ``Referer`` of the site; a real send waits for the form's minimum fill time first.

A request that gets no answer within --timeout seconds (30: gunicorn's own worker
timeout) counts as a timeout; one whose connection is dropped (a worker that crashed)
as "dropped". Either is sent once only, and the server is then started again and warmed
before the next row: a thread still working on a timed-out request, or a worker booting
cold, would slow the rows after it.

The table: one line per row (area, endpoint, input), its HTTP status (every status seen
over the attempts), the median and the maximum of the attempts' times in milliseconds,
from sending the request to reading the last byte of the response, and the response's
bytes as sent (compressed when the server compressed it). ``OVER`` marks a row whose
maximum is over 1 s; ``5xx`` one answered with a server error other than the 503 of a
file being built. The summary gives the rows, the worst, and how many were over 1 s;
the exit status is 1 when any row is over 1 s or answered an unexpected 5xx (the
server log's exceptions are printed), 2 when the benchmark could not run.

Keep the machine otherwise idle (2 worker processes and this client share its cores):
the load average is printed before and after. ``--only`` takes a substring of the rows'
area, endpoint or input (case-insensitive): ``--only suggest``, ``--only "api search"``.
"""

import argparse
import base64
import contextlib
import gzip
import html.parser
import http.client
import http.cookies
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

OVER_MS = 1000  # the target: no row over this
ADMIN_USER, ADMIN_PASSWORD = "worst-case-admin", "worst-case-admin-password"
HOST_DOMAIN = "worst.test"  # w<n>.worst.test: a Host the response cache has not seen
BIG_WORD = "rule"  # the 50,000-character entry's word (one the generated texts use too)
VERSIONS = ("1.1", "1.2")  # the generated glossary's source versions made here
FIRST_RELEASE = "first-import"  # its release as first imported, before VERSIONS
# A built file being made answers 503 "being prepared": expected without a worker.
PREPARING = 503
# A row that depends on another's answer, which did not come (no request is made).
NOT_SENT, NO_JOB = "not sent", "no job"
SKIPPED = (NOT_SENT, NO_JOB)


# --- Running ---------------------------------------------------------------------------


def main() -> int:
    args = parse_args()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists():
        print(f"gunicorn not found beside {sys.executable} (run `make install`)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    import serve

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-worst-"))
    try:
        try:
            os.environ["DJANGO_BUILT_FILES_ROOT"] = str(workdir / "built")
            site = serve.build_site(args, workdir)
            targets = prepare_content(args)
            env = server_env(site.env, workdir, args)
        except Exception:
            traceback.print_exc()
            return 2
        server = Server(gunicorn, env, workdir)
        print(
            f"\ngunicorn: {serve.server_shape(env)}; DJANGO_CACHE_URL {args.cache_url or 'unset (per process)'}"
            f"\nload average before: {serve.load_average()}"
        )
        try:
            client = Client(server.start(), args.timeout)
            prebuild(client, targets, env)
            bench = Bench(client, targets, args, server)
            rows = [row for row in bench.rows() if selected(row, args.only)]
            if not rows:
                print(f"no row matches --only {args.only!r}", file=sys.stderr)
                return 2
            bench.run(rows)
        except Exception:
            traceback.print_exc()
            if server.logs:
                print("\nserver log:\n" + serve.tail(server.logs[-1], 30), file=sys.stderr)
            return 2
        finally:
            server.stop()
        print(f"load average after: {serve.load_average()}")
        return report(rows, server.logs, args)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--entries", type=int, default=619, help="entries of the generated game (619)")
    add("--repeat", type=int, default=3, help="attempts per row: the table gives their median and max (3)")
    add("--only", help="run only the rows whose area, endpoint or input contains this (case-insensitive)")
    add("--database-url", help="an empty database to fill (default: a SQLite file)")
    add("--cache-url", help="the server's DJANGO_CACHE_URL, e.g. redis://127.0.0.1:6379/0")
    add("--timeout", type=float, default=30, help="seconds one request may take before it counts as a timeout (30)")
    add("--keep", action="store_true", help="keep the temporary directory (database, logs, built files)")
    args = parser.parse_args()
    if args.entries < 10:
        parser.error("--entries must be at least 10")
    if not 1 <= args.repeat <= 20:
        parser.error("--repeat must be between 1 and 20")
    return args


def selected(row: "Row", only: str | None) -> bool:
    return not only or only.casefold() in f"{row.area} {row.endpoint} {row.input}".casefold()


def server_env(base: dict[str, str], workdir: Path, args) -> dict[str, str]:
    env = {**base, "DJANGO_DEBUG": "0", "DJANGO_SECURE_SSL_REDIRECT": "0", "DJANGO_SECURE_COOKIES": "0"}
    env.pop("DJANGO_CACHE_URL", None)
    if args.cache_url:
        env["DJANGO_CACHE_URL"] = args.cache_url
    hosts = [host for host in env.get("DJANGO_ALLOWED_HOSTS", "").split(",") if host]
    env["DJANGO_ALLOWED_HOSTS"] = ",".join([*hosts, f".{HOST_DOMAIN}"])
    # One trusted proxy: the client is the last X-Forwarded-For address (a botnet's many).
    env.update(DJANGO_TRUSTED_PROXY_COUNT="1", DJANGO_NUM_PROXIES="1")
    env["DJANGO_BUILT_FILES_ROOT"] = str(workdir / "built")
    return env


class Server:
    """gunicorn as ``serve.serving`` runs it, started again on demand: a request that
    timed out leaves a thread still working, and a crashed worker comes back cold, so
    either would slow the rows after it; the bench restarts the server (and warms it)
    before the next row. Each start logs to a file of its own."""

    def __init__(self, gunicorn: Path, env: dict[str, str], workdir: Path):
        self.gunicorn, self.env, self.workdir = gunicorn, env, workdir
        self.logs: list[Path] = []
        self.stack: contextlib.ExitStack | None = None
        self.base_url = ""

    def start(self) -> int:
        import serve

        log = self.workdir / f"gunicorn-{len(self.logs)}.log"
        self.logs.append(log)
        self.stack = contextlib.ExitStack()
        self.base_url = self.stack.enter_context(serve.serving(self.gunicorn, self.env, log))
        return int(self.base_url.rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.stack is not None:
            self.stack.close()
            self.stack = None


# --- The content ----------------------------------------------------------------------


@dataclass
class Targets:
    """What the rows ask for, found (or made) in the database before the server starts."""

    game: str  # the generated game's slug
    game_pk: int
    entry_path: str  # a generated entry's page
    entry_text: str
    big_path: str  # the 50,000-character entry's page
    big_pk: int
    big_text: str
    erratum_slug: str
    question_slug: str
    releases: list[int]  # the generated game's releases (1.1 with every entry changed, 1.2)
    demo_game: str  # a demo game, in another language
    compare_path: str  # an entry beside its translation
    numbered: tuple[str, str] | None  # (game slug, a rule number), if any game has numbers
    titles: list[str]
    words: list[str]  # the generated titles' longer words
    misspelt: list[str]  # those words, two letters swapped
    kind: str  # a suggestion kind
    limits: dict = field(default_factory=dict)  # the code's limits, by name


def prepare_content(args) -> Targets:
    """The versions, the 50,000-character entry and the superuser (see the docstring),
    and the targets; Django is set up by ``serve.build_site``."""
    import serve
    from django.contrib.auth import get_user_model
    from django.db import connections

    from faq.models import Question
    from rules.content.models import Entry, Erratum, Game
    from rules.content.releases import Release

    started = time.perf_counter()
    game = Game.objects.get(slug=serve.GAME_SLUG)
    entries = list(Entry.objects.filter(game=game, language="en").order_by("title"))
    big = entries[len(entries) // 2]
    big_text = fill(f"{BIG_WORD} ", limits()["proposal"])
    import_version(args.entries, VERSIONS[0])
    save_body(big.pk, big_text)
    import_version(args.entries, VERSIONS[1])  # the entry's 1.1 text again: a change of release 1.2
    save_body(big.pk, big_text)
    print(f"versions {', '.join(VERSIONS)} and the 50,000-character entry: {time.perf_counter() - started:.1f} s")
    get_user_model().objects.create_superuser(ADMIN_USER, "admin@example.org", ADMIN_PASSWORD)

    big = Entry.objects.get(pk=big.pk)
    entry = next(e for e in entries if e.pk != big.pk and len(e.body) > 300)
    entry = Entry.objects.get(pk=entry.pk)
    releases = list(Release.objects.filter(source__game=game).order_by("sequence").values_list("pk", flat=True))
    print(f"releases of {serve.GAME_SLUG}: {releases}")
    pair = translated_pair()
    numbered = (
        Entry.objects.published().exclude(number="").select_related("game").values_list("game__slug", "number").first()
    )
    titles = list(Entry.objects.filter(game=game).values_list("title", flat=True))
    words = serve.title_words(game)
    targets = Targets(
        game=game.slug,
        game_pk=game.pk,
        entry_path=entry.get_absolute_url(),
        entry_text=entry.body,
        big_path=big.get_absolute_url(),
        big_pk=big.pk,
        big_text=big.body,
        erratum_slug=Erratum.objects.filter(game=game).order_by("order").values_list("slug", flat=True)[0],
        question_slug=Question.objects.filter(game=game).order_by("order").values_list("slug", flat=True)[0],
        releases=releases,
        demo_game=pair[0] if pair else "marvel-champions",
        compare_path=pair[1] if pair else "",
        numbered=numbered,
        titles=titles,
        words=words,
        misspelt=[swapped(word) for word in words],
        kind=first_kind(),
        limits=limits(),
    )
    connections.close_all()
    return targets


def limits() -> dict:
    """The limits the code declares, read from it: the inputs go to them and past them."""
    from rules.admin.importing import PREVIEW_INLINE_BYTES, PREVIEW_INLINE_LINES
    from rules.admin.preview import MAX_PREVIEW_CHARS
    from rules.api.changes import MAX_LIMIT
    from rules.api.pagination import PageNumberPagination
    from rules.api.previews import MAX_BODY_BYTES, TERM_LENGTH
    from rules.api.search import MAX_SUGGEST_LIMIT
    from rules.moderation.models import COMMENT_MAX_LENGTH, PROPOSAL_MAX_LENGTH
    from rules.pages.suggestion_form import MIN_FILL_SECONDS
    from rules.search import MAX_QUERY_LENGTH
    from rules.search.previews import MAX_TERMS

    return {
        "query": MAX_QUERY_LENGTH,
        "suggest_limit": MAX_SUGGEST_LIMIT,
        "page_size": PageNumberPagination.max_page_size,
        "changes_limit": MAX_LIMIT,
        "terms": MAX_TERMS,
        "term": TERM_LENGTH,
        "lookup_body": MAX_BODY_BYTES,
        "proposal": PROPOSAL_MAX_LENGTH,
        "comment": COMMENT_MAX_LENGTH,
        "fill_seconds": MIN_FILL_SECONDS,
        "markdown_preview": MAX_PREVIEW_CHARS,
        "import_inline": PREVIEW_INLINE_BYTES,
        "import_inline_lines": PREVIEW_INLINE_LINES,
    }


def import_version(entries: int, version: str) -> None:
    """The generated glossary again as ``version`` of its source, every body changed
    (each sentence's full stop an exclamation mark): a release whose changes are every
    entry."""
    import serve
    from generate_glossary import glossary

    from rules.importing import ImportOptions, import_document
    from rules.importing.pipeline import SourceInfo

    text = re.sub(r"\.(?=\s)", "!", glossary(entries))
    options = ImportOptions(
        game=serve.GAME_SLUG,
        game_name=serve.GAME_NAME,
        language="en",
        kind="glossary",
        status="published",
        source=SourceInfo(title="Generated rules reference", version=version),
    )
    started = time.perf_counter()
    report = import_document(text, options)
    print(f"version {version}: {report.summary()} ({time.perf_counter() - started:.1f} s)")


def save_body(pk: int, body: str) -> None:
    """A moderator's edit through the model (history, derived HTML, search index)."""
    from rules.content.models import Entry

    started = time.perf_counter()
    entry = Entry.objects.get(pk=pk)
    entry.body = body
    entry.save()
    print(f"saved a {len(body):,}-character body through the ORM: {time.perf_counter() - started:.1f} s")


def translated_pair() -> tuple[str, str] | None:
    """(game slug, the compare page of an entry beside its translation)."""
    from django.utils import translation

    from rules.content.models import Entry

    seen: dict = {}
    for entry in Entry.objects.published().select_related("game").order_by("pk"):
        other = seen.get(entry.translation_key)
        if other is not None and other.language != entry.language:
            with translation.override("en"):
                path = f"/en/games/{other.game.slug}/rules/{other.slug}/compare/{entry.language}/"
            return other.game.slug, path
        seen.setdefault(entry.translation_key, entry)
    return None


def first_kind() -> str:
    from rules.moderation.models import Suggestion

    return Suggestion.Kind.choices[0][0]


def swapped(word: str) -> str:
    middle = len(word) // 2
    return word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]


def fill(unit: str, size: int) -> str:
    """``unit`` repeated to exactly ``size`` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def prebuild(client: "Client", targets: Targets, env: dict[str, str]) -> None:
    """Ask once for the files built in the background (which records them), then build
    them now, as the worker would: booklet pages, sitemaps, bulk data; not the PDFs."""
    paths = [
        f"/en/games/{targets.game}/print/glossary/",
        f"/en/games/{targets.demo_game}/print/glossary/",
        f"/sitemaps/{targets.game}/en.xml",
        "/api/v1/bulk/all.json",
        f"/api/v1/bulk/{targets.game}/en.json",
        "/api/v1/bulk/",
    ]
    for path in paths:
        client.get(path)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "manage.py", "build_files", "--bulk"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"build_files failed:\n{done.stdout}\n{done.stderr}")
    statuses = {path: client.get(path).status for path in paths}
    print(f"built files ({done.stdout.strip()}): {time.perf_counter() - started:.1f} s; {statuses}")


# --- HTTP -----------------------------------------------------------------------------


@dataclass
class Answer:
    status: int | str  # the HTTP status, or "timeout" / the error's name
    seconds: float
    size: int = 0  # body bytes as sent
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    cookies: dict = field(default_factory=dict)

    @property
    def answered(self) -> bool:
        """An HTTP answer (any status), not a timeout or a dropped connection."""
        return isinstance(self.status, int) or self.status in SKIPPED

    def text(self) -> str:
        body = self.body
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        return body.decode("utf-8", errors="replace")


class Client:
    """One request per new connection to 127.0.0.1, timed to the last byte."""

    def __init__(self, port: int, timeout: float):
        self.port, self.timeout = port, timeout
        self.counter = 0

    def fresh(self) -> tuple[str, str]:
        """A Host the response cache has not seen, and an address of its own."""
        self.counter += 1
        n = self.counter
        return f"w{n}.{HOST_DOMAIN}", f"198.18.{n // 250 % 250}.{n % 250 + 1}"

    def get(self, path: str, **kwargs) -> Answer:
        return self.request("GET", path, **kwargs)

    def request(
        self,
        method: str,
        path: str,
        *,
        host: str | None = None,
        address: str | None = None,
        headers: dict | None = None,
        body: bytes | None = None,
        cookies: dict | None = None,
    ) -> Answer:
        fresh_host, fresh_address = self.fresh()
        sent = {
            "Host": host or fresh_host,
            "X-Forwarded-For": address or fresh_address,
            "Accept-Encoding": "gzip",
            "Accept": "application/json" if path.startswith("/api/") else "text/html,*/*;q=0.8",
            "User-Agent": "rulesite-worst-case",
        }
        if cookies:
            sent["Cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
        sent.update(headers or {})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        started = time.perf_counter()
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            content = response.read()
            elapsed = time.perf_counter() - started
            jar = http.cookies.SimpleCookie()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    jar.load(value)
            return Answer(
                response.status,
                elapsed,
                len(content),
                {name.lower(): value for name, value in response.getheaders()},
                content,
                {name: morsel.value for name, morsel in jar.items()},
            )
        except TimeoutError:
            return Answer("timeout", time.perf_counter() - started)
        except (OSError, http.client.HTTPException):  # the worker died (RemoteDisconnected, reset)
            return Answer("dropped", time.perf_counter() - started)
        finally:
            connection.close()


class FormInputs(html.parser.HTMLParser):
    """Every <input>'s name and value of a page (the last of a name wins)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.values: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name") and attrs.get("type") in ("hidden", None, "text"):
            self.values[attrs["name"]] = attrs.get("value") or ""


def inputs(page: Answer) -> dict[str, str]:
    parser = FormInputs()
    parser.feed(page.text())
    return parser.values


@dataclass
class OpenForm:
    """A form as a browser holds it: where from, its hidden fields and cookies."""

    path: str
    host: str
    address: str
    fields: dict
    cookies: dict
    opened_at: float


def form_post(client: Client, form: OpenForm, data: dict, extra_cookies: dict | None = None) -> Answer:
    origin = f"http://{form.host}"
    return client.request(
        "POST",
        form.path,
        host=form.host,
        address=form.address,
        body=urlencode(data).encode(),
        cookies={**form.cookies, **(extra_cookies or {})},
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": origin,
            "Referer": origin + form.path,
        },
    )


# --- Inputs ---------------------------------------------------------------------------


def words_to(words: list[str], size: int, separator: str = " ") -> str:
    """As many of ``words`` (cycled) as fit in ``size`` characters."""
    out: list[str] = []
    length = 0
    for word in (words[i % len(words)] for i in range(size)):
        if length + len(word) + (len(separator) if out else 0) > size:
            break
        length += len(word) + (len(separator) if out else 0)
        out.append(word)
    return separator.join(out)


def search_inputs(t: Targets) -> list[tuple[str, str]]:
    """(label, q): at the query limit, past it, and the shapes that cost the most."""
    limit = t.limits["query"]
    words = t.words
    short = sorted({w for title in t.titles for w in title.lower().split() if 2 <= len(w) <= 4})
    question = "how does " + words_to(words[::7], limit - 40) + " work when it is not my turn?"
    return [
        ("a title word", words[len(words) // 3]),
        ("one letter", "a"),
        (f"title words, {limit} chars (the limit)", words_to(words[::3], limit)),
        (f"{limit + 1} chars (past the limit)", fill("rules ", limit + 1)),
        ("one word x500", " ".join([BIG_WORD] * 500)),
        (f"one word repeated to {limit} chars", fill(f"{BIG_WORD} ", limit).strip()),
        ("200 distinct words (past the limit)", " ".join(words[:200])),
        (f"distinct short words to {limit} chars", words_to(short, limit)),
        (f"misspelt words to {limit} chars", words_to(t.misspelt[::5], limit)),
        (f"question, {len(question[:limit])} chars", question[:limit]),
        (f"{limit} combining accents on one letter", "e" + "\u0301" * (limit - 1)),
        (f"{limit} accented letters", fill("ǘéżœ", limit)),
        (f"{limit} x U+FDFA (18 letters each in NFKD)", "\ufdfa" * limit),
        ("full-text syntax", fill('"a" OR b* -c NEAR(d,e) ', limit)),
        (f"{limit} NUL bytes", "\x00" * limit),
    ]


def markdown_bombs(size: int) -> list[tuple[str, str]]:
    """(label, text) of at most ``size`` characters: deep nesting, openers, emphasis.

    The deep nesting comes last: Python-Markdown fails on it with a RecursionError,
    which leaves the thread's cached parser (rules.shared.markdown) in a broken state,
    and a text rendered by that thread afterwards is parsed differently (and, for the
    bracket floods, quickly and wrongly); last, it cannot flatter the other rows."""
    levels = 500
    while levels * (levels + 1) // 2 + 7 * levels > size:  # one tab per level, "- item\n"
        levels -= 10
    return [
        ("repeated tokens", fill("rule ", size)),
        ("10,000 '>' quote markers", ">" * 10_000 + " quote\n"),
        ("5,000 '[[' link openers", "[[" * 5_000 + "x"),
        (f"{min(size, 50_000):,} '['", "[" * min(size, 50_000)),
        (f"'*a' x{min(size // 2, 25_000):,}", "*a" * min(size // 2, 25_000)),
        (f"'*a* ' x{min(size // 4, 12_500):,} (emphasis)", "*a* " * min(size // 4, 12_500)),
        (f"'[[Term]] ' x{size // 11:,} (links, as texts have them)", "[[Term]] " * (size // 11)),
        (f"list nested {levels} levels", "".join("\t" * level + "- item\n" for level in range(levels))),
        (f"'- ' x{min(size // 2 - 1, 25_000):,} (nested on one line)", "- " * min(size // 2 - 1, 25_000) + "x"),
    ]


# --- The rows -------------------------------------------------------------------------


@dataclass
class Row:
    area: str
    endpoint: str
    input: str
    attempt: Callable[[int], Answer]  # the timed request of attempt n (any set-up untimed, inside)
    prepare: Callable[[int], None] | None = None  # untimed, before any row runs (forms to send)
    expect: tuple = ()  # statuses that are the right answer even if 5xx (503: being prepared)
    answers: list[Answer] = field(default_factory=list)


class Bench:
    def __init__(self, client: Client, targets: Targets, args, server: Server):
        self.client, self.t, self.args, self.server = client, targets, args, server
        self.repeat = args.repeat
        self.forms: dict[tuple[str, int], OpenForm] = {}  # opened ahead for real sends
        self.sent: dict[str, list[str]] = {}  # label → status page paths of sends that went through
        self.jobs: dict[str, str] = {}  # import bomb → its job page
        self.admin: dict | None = None  # the superuser's cookies

    # Running

    def run(self, rows: list[Row]) -> None:
        self.warm()
        print(f"\n{len(rows)} rows, {self.repeat} attempts each (a fresh Host and address per attempt)")
        for row in rows:
            if row.prepare is not None:
                for n in range(self.repeat):
                    row.prepare(n)
        for number, row in enumerate(rows, 1):
            for n in range(self.repeat):
                answer = row.attempt(n)
                row.answers.append(answer)
                if not answer.answered:
                    break  # a timeout or a dropped connection: once is enough (and the server is restarted)
            print_row(row, number)
            if not all(answer.answered for answer in row.answers):
                self.restart()

    def restart(self) -> None:
        """A fresh server, warmed: see ``Server``."""
        self.server.stop()
        self.client.port = self.server.start()
        self.warm()
        print(f"{'':10} (gunicorn started again, and warmed, before the next row)", flush=True)

    def warm(self) -> None:
        """Both workers past their first requests (imports, URLconf, search vocabulary,
        the embedding model): 4 clients at once, a few rounds of a few pages."""
        t = self.t
        word = t.words[len(t.words) // 3]
        paths = ["/en/", f"/en/games/{t.game}/", t.entry_path, f"/en/search/?q={word}",
                 f"/api/v1/search/?q=how+does+{word}+work", "/api/v1/entries/?page_size=10"]  # fmt: skip
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda path: self.client.get(path), paths * 4))

    # Plain requests

    def get(self, path: str | Callable[[int], str], **kwargs) -> Callable[[int], Answer]:
        return lambda n: self.client.get(path(n) if callable(path) else path, **kwargs)

    def row(self, area, endpoint, label, path, expect=(), **kwargs) -> Row:
        return Row(area, endpoint, label, self.get(path, **kwargs), expect=expect)

    def rows(self) -> list[Row]:
        return [
            *self.page_rows(),
            *self.header_rows(),
            *self.search_rows(),
            *self.api_rows(),
            *self.preview_rows(),
            *self.suggestion_rows(),
            *self.admin_rows(),
        ]

    def page_rows(self) -> list[Row]:
        t, game = self.t, f"/en/games/{self.t.game}"
        release, last_release = (t.releases[0], t.releases[-1]) if t.releases else (0, 0)
        long_path = "/en/" + "x" * 8000 + "/"
        rows = [
            self.row("pages", "/", "redirect to a language", "/"),
            self.row("pages", "/en/", "home", "/en/"),
            self.row("pages", f"{game}/", f"the generated game ({len(t.titles)} entries)", f"{game}/"),
            self.row("pages", f"/en/games/{t.demo_game}/", "a demo game", f"/en/games/{t.demo_game}/"),
            self.row("pages", "entry page", "a generated entry", t.entry_path),
            self.row("pages", "entry page", "the 50,000-character entry", t.big_path),
            self.row(
                "pages",
                "entry page",
                f"?as_of={VERSIONS[0]} (its 50,000 chars, rendered)",
                f"{t.big_path}?as_of={VERSIONS[0]}",
            ),
            self.row("pages", "entry page", f"?as_of={VERSIONS[-1]} (current)", f"{t.big_path}?as_of={VERSIONS[-1]}"),
            self.row("pages", "entry page", "?as_of=2000-01-01 (a date)", f"{t.entry_path}?as_of=2000-01-01"),
            self.row("pages", "entry page", "?as_of=nope (invalid)", f"{t.entry_path}?as_of=nope"),
            self.row("pages", "entry page", "?as_of= 7,000 chars", f"{t.entry_path}?as_of={'9' * 7000}"),
            self.row("pages", "entry page", "?content=de (no such version)", f"{t.entry_path}?content=de"),
            self.row("pages", "entry page", "?content= 7,000 chars", f"{t.entry_path}?content={'x' * 7000}"),
            self.row(
                "pages",
                "entry page",
                "?as_of=&content= x300",
                t.entry_path + "?" + "&".join(["as_of=1.1&content=en"] * 300),
            ),
        ]
        # An entry between two releases: each side's text rendered and the word diff of
        # the two, for any pair a stranger names (from/to), so the pair with the most
        # change, the wrong way round, and labels that name nothing.
        between, widest = f"{t.big_path}releases/", f"from={FIRST_RELEASE}&to={VERSIONS[-1]}"
        rows += [
            self.row("pages", "entry releases", "a generated entry (the last two)", f"{t.entry_path}releases/"),
            self.row("pages", "entry releases", "the 50,000-character entry (the last two)", between),
            self.row("pages", "entry releases", "the 50,000-character entry, first to last", f"{between}?{widest}"),
            self.row("pages", "entry releases", "the same, the wrong way round",
                     f"{between}?from={VERSIONS[-1]}&to={FIRST_RELEASE}"),
            self.row("pages", "entry releases", "?from=nope (no such release)", f"{between}?from=nope"),
            self.row("pages", "entry releases", "?from= 7,000 chars", f"{between}?from={'9' * 7000}"),
            self.row("pages", "entry releases", "?from=&to=&content= x200",
                     f"{between}?" + "&".join([f"{widest}&content=en"] * 200)),
        ]  # fmt: skip
        # The installable app and the link-preview card: constant or built by the worker.
        rows += [
            self.row("offline", "/sw.js", "the service worker", "/sw.js"),
            self.row("offline", "/en/manifest.webmanifest", "the app's manifest", "/en/manifest.webmanifest"),
            self.row("offline", "/en/offline/", "the offline page", "/en/offline/"),
            self.row("offline", "/en/offline/", "?q= 7,000 chars, read by script", f"/en/offline/?q={'x' * 7000}"),
            self.row("print", f"{game}/card.png", "link-preview card (no worker: the site's card)", f"{game}/card.png"),
            self.row("print", "/en/games/<slug>/card.png", "no such game", f"/en/games/{'x' * 200}/card.png"),
        ]  # fmt: skip
        if t.compare_path:
            rows.append(self.row("pages", "entry compare", "an entry beside its translation", t.compare_path))
        rows += [
            self.row("pages", f"{game}/rules/", "contents", f"{game}/rules/"),
            self.row("pages", f"{game}/rules/", "?rule=7.3a (no such rule)", f"{game}/rules/?rule=7.3a"),
            self.row("pages", f"{game}/rules/", "?rule= 7,000 chars", f"{game}/rules/?rule={'9.' * 3500}"),
            self.row("pages", f"{game}/rules/", "?at= 7,000 chars", f"{game}/rules/?at={'a' * 7000}"),
            self.row(
                "pages",
                f"{game}/rules/",
                "?content=&at=&rule= x300",
                f"{game}/rules/?" + "&".join(["content=en&at=x&rule=1.1a"] * 300),
            ),
        ]
        if t.numbered:
            numbered_game, number = t.numbered
            rows.append(
                self.row(
                    "pages",
                    f"/en/games/{numbered_game}/rules/",
                    f"?rule={number} (a rule)",
                    f"/en/games/{numbered_game}/rules/?rule={quote(number)}",
                )
            )
        rows += [
            self.row("pages", f"{game}/faq/", "FAQ", f"{game}/faq/"),
            self.row("pages", f"{game}/errata/", "errata", f"{game}/errata/"),
            self.row("pages", f"{game}/releases/<id>/", f"release {FIRST_RELEASE} (every entry added)",
                     f"{game}/releases/{release}/"),
            self.row("pages", f"{game}/releases/<id>/", f"release {VERSIONS[-1]} (a 50,000-char change)",
                     f"{game}/releases/{last_release}/"),
            self.row("pages", f"{game}/releases/<id>/rules/", f"rules as of {FIRST_RELEASE}",
                     f"{game}/releases/{release}/rules/"),
            self.row("pages", f"{game}/releases/<id>/", "no such release (id 2^63)",
                     f"{game}/releases/{2**63}/"),
            self.row("feeds", "/en/feeds/changes/", "Atom, the site's changes", "/en/feeds/changes/"),
            self.row("feeds", f"{game}/feeds/changes/", "Atom", f"{game}/feeds/changes/"),
            self.row("feeds", f"{game}/feeds/errata/", "Atom", f"{game}/feeds/errata/"),
            self.row("feeds", f"{game}/feeds/releases/", "Atom", f"{game}/feeds/releases/"),
            self.row("sitemap", "/sitemap.xml", "index", "/sitemap.xml"),
            self.row("sitemap", "/sitemaps/pages.xml", "pages", "/sitemaps/pages.xml"),
            self.row("sitemap", "/sitemaps/pages.xml", "?p=99999999999", "/sitemaps/pages.xml?p=99999999999"),
            self.row("sitemap", f"/sitemaps/{t.game}/en.xml", "a game's entries (built file)",
                     f"/sitemaps/{t.game}/en.xml"),
            self.row("pages", "/robots.txt", "", "/robots.txt"),
            self.row("pages", "404", "8,000-character path", long_path),
            self.row("pages", "404", "8,000-character path, API", "/api/v1/" + "x" * 8000 + "/"),
            self.row("pages", "404", "2,000 path segments", "/en" + "/a" * 2000 + "/"),
            self.row("print", f"{game}/print/glossary/", "booklet page (built file)", f"{game}/print/glossary/"),
            self.row("print", f"{game}/print/rules/", "?source=1 (nothing to print)", f"{game}/print/rules/?source=1"),
            self.row("print", f"{game}/print/glossary.pdf", "PDF (no worker: being prepared)",
                     f"{game}/print/glossary.pdf", expect=(PREPARING,)),
            self.row("print", f"/en/games/{t.demo_game}/print/glossary.pdf", "PDF (no worker: being prepared)",
                     f"/en/games/{t.demo_game}/print/glossary.pdf", expect=(PREPARING,)),
        ]  # fmt: skip
        return rows

    def header_rows(self) -> list[Row]:
        """Request headers at the size gunicorn allows one (8190 bytes)."""
        t = self.t
        languages = ", ".join(f"x{i}-{i};q=0.{i % 9 + 1}" for i in range(1000))[:8000]
        etags = ", ".join(f'"{i:08x}"' for i in range(1000))[:8000]
        cookies = "; ".join(f"c{i}={i}" for i in range(1000))[:8000]
        media = ", ".join(f"application/x-{i}+json;q=0.{i % 9 + 1}" for i in range(1000))[:8000]
        return [
            self.row("headers", "/en/", "Accept-Language: 8,000 chars", "/en/", headers={"Accept-Language": languages}),
            self.row("headers", "/api/v1/entries/", "Accept-Language: 8,000 chars", "/api/v1/entries/?page_size=100",
                     headers={"Accept-Language": languages}),
            self.row("headers", "/api/v1/entries/", "Accept: 8,000 chars of media types", "/api/v1/entries/",
                     headers={"Accept": media}),
            self.row("headers", "entry page", "If-None-Match: 8,000 chars of ETags", t.entry_path,
                     headers={"If-None-Match": etags}),
            self.row("headers", "entry page", "Cookie: 8,000 chars", t.entry_path, headers={"Cookie": cookies}),
        ]  # fmt: skip

    def search_rows(self) -> list[Row]:
        t = self.t
        rows = []
        inputs_ = search_inputs(t)
        for label, q in inputs_:
            rows.append(self.row("search", "/en/search/?q=", label, f"/en/search/?{urlencode({'q': q})}"))
        for label, q in inputs_:
            query = urlencode({"q": q, "page_size": t.limits["page_size"]})
            rows.append(self.row("api search", "/api/v1/search/?q=&page_size=max", label, f"/api/v1/search/?{query}"))
        for label, q in inputs_:
            query = urlencode({"q": q, "limit": t.limits["suggest_limit"]})
            rows.append(
                self.row(
                    "api search", "/api/v1/search/suggest/?q=&limit=max", label, f"/api/v1/search/suggest/?{query}"
                )
            )
        word = t.words[len(t.words) // 3]
        many = "&".join(f"q={chr(ord('a') + i % 26)}" for i in range(1000))  # q=a&q=b&…, 1,000 of them
        nines = "9" * 4000
        every = {"q": word, "game": t.game, "language": "en", "type": "entry"}
        rows += [
            self.row("search", "/en/search/", "every filter, page 2, exact", "/en/search/?" + urlencode(
                {**every, "page": 2, "exact": 1})),
            self.row("search", "/en/search/", "misspelt words, exact (no correction)", "/en/search/?" + urlencode(
                {"q": words_to(t.misspelt[::5], t.limits["query"]), "exact": 1})),
            self.row("search", "/en/search/", "q= x1000 (repeated parameter)", f"/en/search/?{many}"),
            self.row("search", "/en/search/", "page=10^4000", f"/en/search/?q={word}&page={'9' * 4000}"),
            self.row("search", "/en/search/", "page=999999999", "/en/search/?q=a&page=999999999"),
            self.row("api search", "/api/v1/search/", "every filter, page_size max", "/api/v1/search/?" + urlencode(
                {**every, "page_size": 100})),
            self.row("api search", "/api/v1/search/", "q= x1000", f"/api/v1/search/?{many}"),
            self.row("api search", "/api/v1/search/", "one letter, page=last, page_size max",
                     "/api/v1/search/?q=a&page=last&page_size=100"),
            self.row("api search", "/api/v1/search/", "page=999999999", "/api/v1/search/?q=a&page=999999999"),
            self.row("api search", "/api/v1/search/", "page_size=10^4000", f"/api/v1/search/?q=a&page_size={nines}"),
            self.row("api search", "/api/v1/search/", "browsable API (Accept: text/html)",
                     "/api/v1/search/?" + urlencode({"q": word, "page_size": 100}), headers={"Accept": "text/html"}),
            self.row("api search", "/api/v1/search/suggest/", "q= x1000", f"/api/v1/search/suggest/?{many}"),
            self.row("api search", "/api/v1/search/suggest/", "limit=10^4000",
                     f"/api/v1/search/suggest/?q=a&limit={nines}"),
        ]  # fmt: skip
        return rows

    def api_rows(self) -> list[Row]:
        t = self.t
        every = urlencode({
            "game": t.game, "language": "en", "kind": "glossary", "slug": "s" * 200, "number": "1" * 32,
            "updated_after": "2000-01-01T00:00:00+00:00", "page_size": 100,
        })  # fmt: skip
        # Cursors as DRF makes them (base64 of "o=…&r=…&p=<position>"), with positions no
        # database column holds: they must be 400s, not 500s from the database.
        forged_id, forged_time, forged_long = (
            base64.b64encode(f"p={position}".encode()).decode() for position in ("abc", "2024-13-45", "9" * 5000)
        )
        entries = "/api/v1/entries/"
        html = {"Accept": "text/html"}
        many = "&".join(f"game={t.game}" for _ in range(7900 // len(f"game={t.game}&")))
        unknown = "&".join(f"x{i}=1" for i in range(99)) + "&page_size=100"
        rows = [
            self.row("api", "/api/v1/", "root", "/api/v1/"),
            self.row("api", "/api/v1/entries/", "page_size max", "/api/v1/entries/?page_size=100"),
            self.row("api", "/api/v1/entries/", "page=last, page_size max", "/api/v1/entries/?page=last&page_size=100"),
            self.row("api", "/api/v1/entries/", "every filter", f"/api/v1/entries/?{every}"),
            self.row("api", "/api/v1/entries/", f"game= x{many.count('&') + 1}", f"/api/v1/entries/?{many}"),
            self.row("api", "/api/v1/entries/", "99 unknown parameters", f"/api/v1/entries/?{unknown}"),
            self.row("api", "/api/v1/entries/", "ordering=id (cursor), page_size max",
                     "/api/v1/entries/?ordering=id&page_size=100"),
            self.row("api", "/api/v1/entries/", "ordering=updated_at, page_size max",
                     "/api/v1/entries/?ordering=updated_at&page_size=100"),
            self.row("api", "/api/v1/entries/", "forged cursor p=abc", f"{entries}?ordering=id&cursor={forged_id}"),
            self.row("api", "/api/v1/entries/", "forged cursor p=2024-13-45",
                     f"{entries}?ordering=updated_at&cursor={forged_time}"),
            self.row("api", "/api/v1/entries/", "forged cursor p=10^5000", f"{entries}?cursor={forged_long}"),
            self.row("api", "/api/v1/entries/", "browsable API, page_size max", "/api/v1/entries/?page_size=100",
                     headers={"Accept": "text/html"}),
            self.row("api", "/api/v1/entries/<id>/", "the 50,000-character entry", f"/api/v1/entries/{t.big_pk}/"),
            self.row("api", "/api/v1/entries/<id>/", "id 10^40", f"/api/v1/entries/{10**40}/"),
            self.row("api", "/api/v1/errata/", "page_size max", "/api/v1/errata/?page_size=100"),
            self.row("api", "/api/v1/faq/", "page_size max", "/api/v1/faq/?page_size=100"),
            self.row("api", "/api/v1/games/", "page_size max", "/api/v1/games/?page_size=100&language=en"),
            self.row("api", "/api/v1/sources/", "page_size max", "/api/v1/sources/?page_size=100"),
            self.row("api", "/api/v1/releases/", "page_size max", "/api/v1/releases/?page_size=100"),
            self.row("api", "/api/v1/changes/", "since=0", "/api/v1/changes/?since=0"),
            self.row("api", "/api/v1/changes/", f"since=0, limit max ({t.limits['changes_limit']})",
                     f"/api/v1/changes/?since=0&limit={t.limits['changes_limit']}"),
            self.row("api", "/api/v1/changes/", "limit=10^4000", f"/api/v1/changes/?since=0&limit={'9' * 4000}"),
            self.row("api", "/api/v1/changes/", "since=10^18 (beyond the newest)", f"/api/v1/changes/?since={10**18}"),
            self.row("api", "/api/v1/changes/", "since=10^4000", f"/api/v1/changes/?since={'9' * 4000}"),
            self.row("api", "/api/v1/bulk/", "the files", "/api/v1/bulk/"),
            self.row("api", "/api/v1/bulk/all.json", "whole file", "/api/v1/bulk/all.json"),
            self.row("api", "/api/v1/bulk/all.json", "Range: bytes=0-99", "/api/v1/bulk/all.json",
                     headers={"Range": "bytes=0-99"}),
            self.row("api", "/api/v1/bulk/all.json", "Range: bytes=-1", "/api/v1/bulk/all.json",
                     headers={"Range": "bytes=-1"}),
            self.row("api", "/api/v1/bulk/all.json", "Range: 1,000 ranges", "/api/v1/bulk/all.json",
                     headers={"Range": "bytes=" + ",".join(f"{i}-{i}" for i in range(0, 2000, 2))[:8000]}),
            self.row("api", "/api/v1/bulk/all.json", "Range: bytes=10^4000-", "/api/v1/bulk/all.json",
                     headers={"Range": f"bytes={'9' * 4000}-"}),
            self.row("api", f"/api/v1/bulk/{t.game}/en.json", "a game's file", f"/api/v1/bulk/{t.game}/en.json"),
            self.row("api", "/api/v1/schema/", "OpenAPI (YAML)", "/api/v1/schema/"),
            self.row("api", "/api/v1/schema/", "OpenAPI (JSON)", "/api/v1/schema/?format=json"),
            self.row("api", "/api/v1/docs/", "Swagger UI", "/api/v1/docs/", headers=html),
            self.row("api", "/api/v1/redoc/", "ReDoc", "/api/v1/redoc/", headers=html),
        ]  # fmt: skip
        return rows

    def preview_rows(self) -> list[Row]:
        t = self.t
        slug = t.entry_path.rstrip("/").rsplit("/", 1)[1]
        big_slug = t.big_path.rstrip("/").rsplit("/", 1)[1]
        terms, term_length = t.limits["terms"], t.limits["term"]
        titles = (t.titles * 2)[:terms]

        def lookup_get(values: list[str]) -> str:
            return "/api/v1/entries/lookup/?" + urlencode([("game", t.game), *(("term", v) for v in values)])

        # As long as the request line allows (8190 bytes): terms of what fits.
        fitting = (8000 - 60) // terms - len("&term=")
        long_terms = [fill(f"{w} ", min(fitting, term_length)) for w in t.words[:terms]]
        emoji = ["\U0001f600" * term_length for _ in range(terms)]  # 12 bytes each as JSON's \ud83d\ude00
        accents = [fill("ǘéżœ ", term_length) for _ in range(terms)]
        padded = json.dumps({"game": t.game, "terms": titles, "language": "en"})
        padded = padded[:-1] + " " * (t.limits["lookup_body"] - len(padded.encode())) + "}"
        over = padded[:-1] + "  }"
        rows = [
            self.row("previews", "/api/v1/entries/preview/", "an entry",
                     f"/api/v1/entries/preview/?game={t.game}&slug={slug}&language=en"),
            self.row("previews", "/api/v1/entries/preview/", "slug 200 chars, rule 32 chars (no such)",
                     f"/api/v1/entries/preview/?game={t.game}&slug={'s' * 200}&rule={'1' * 31}a"),
            self.row("previews", "/api/v1/entries/preview/", "the 50,000-character entry, ?rule=",
                     f"/api/v1/entries/preview/?game={t.game}&slug={big_slug}&rule=1.1a"),
            self.row("previews", "/api/v1/entries/lookup/ GET", f"{terms} titles", lookup_get(titles)),
            self.row("previews", "/api/v1/entries/lookup/ GET", f"{terms} terms of {len(long_terms[0])} chars",
                     lookup_get(long_terms)),
            self.row("previews", "/api/v1/entries/lookup/ GET", f"{terms + 1} terms (one too many)",
                     lookup_get((titles * 2)[: terms + 1])),
            self.post_json_row("POST", f"{terms} titles", {"game": t.game, "terms": titles, "language": "en"}),
            self.post_json_row("POST", f"{terms} terms of {term_length} emoji (JSON \\u escapes)",
                               {"game": t.game, "terms": emoji}),
            self.post_json_row("POST", f"{terms} terms of {term_length} accented letters",
                               {"game": t.game, "terms": accents}),
            self.post_json_row("POST", f"body of exactly {t.limits['lookup_body']:,} bytes", padded),
            self.post_json_row("POST", f"body of {len(over.encode()):,} bytes (past the limit)", over),
            self.post_json_row("POST", "10,000-deep JSON array", "[" * 10_000 + "]" * 10_000),
        ]  # fmt: skip
        return rows

    def post_json_row(self, method: str, label: str, payload) -> Row:
        body = (payload if isinstance(payload, str) else json.dumps(payload)).encode()

        def attempt(n: int) -> Answer:
            return self.client.request(
                method, "/api/v1/entries/lookup/", body=body, headers={"Content-Type": "application/json"}
            )

        return Row("previews", "/api/v1/entries/lookup/ POST", label, attempt)

    # The players' suggestion forms

    def suggestion_rows(self) -> list[Row]:
        t = self.t
        size = t.limits["proposal"]
        entry_form = t.entry_path + "suggest/"
        big_form = t.big_path + "suggest/"
        erratum_form = f"/en/games/{t.game}/errata/{t.erratum_slug}/suggest/"
        question_form = f"/en/games/{t.game}/faq/{t.question_slug}/suggest/"
        proposals = {
            f"'a ' x{size // 2:,}": fill("a ", size),
            f"two words alternating, {size:,} chars": fill("yes no ", size),
            f"{size:,} x 'x'": "x" * size,
            f"the entry's own text shuffled, {size:,} chars": shuffled(t.entry_text, size),
        }
        big_proposals = {
            f"'a ' x{size // 2:,}": fill("a ", size),
            "its text, every 10th word changed": every_tenth_changed(t.big_text),
            f"the generated entry's text shuffled, {size:,} chars": shuffled(t.entry_text, size),
        }
        rows = [
            Row("suggest", "<entry>/suggest/", "GET the form", self.get(entry_form)),
            Row("suggest", "<entry>/suggest/", "GET, the 50,000-character entry", self.get(big_form)),
        ]
        for label, proposal in proposals.items():
            rows.append(self.preview_row("<entry>/suggest/", entry_form, f"preview: {label}", proposal))
        for label, proposal in big_proposals.items():
            rows.append(
                self.preview_row("<entry>/suggest/", big_form, f"50,000-char entry, preview: {label}", proposal)
            )
        sends = {
            f"'a ' x{size // 2:,}": proposals[f"'a ' x{size // 2:,}"],
            "shuffled text": proposals[f"the entry's own text shuffled, {size:,} chars"],
        }
        for label, proposal in sends.items():
            rows.append(self.send_row("<entry>/suggest/", entry_form, label, proposal))
        rows.append(
            self.send_row(
                "<entry>/suggest/",
                big_form,
                "50,000-char entry, every 10th word changed",
                big_proposals["its text, every 10th word changed"],
            )
        )
        for form, name in ((erratum_form, "errata/<slug>/suggest/"), (question_form, "faq/<slug>/suggest/")):
            rows += [
                Row("suggest", name, "GET the form", self.get(form)),
                self.preview_row(name, form, f"preview: 'a ' x{size // 2:,}", fill("a ", size)),
                self.preview_row(name, form, "preview: shuffled text", shuffled(t.entry_text, size)),
                self.send_row(name, form, f"'a ' x{size // 2:,}", fill("a ", size)),
            ]
        for label in [
            *sends,
            "50,000-char entry, every 10th word changed",
            f"errata: 'a ' x{size // 2:,}",
            f"faq: 'a ' x{size // 2:,}",
        ]:
            rows.append(
                Row(
                    "suggest",
                    "/en/suggestions/<token>/",
                    f"status page: {label}",
                    lambda n, label=label: self.status_page(label, n),
                )
            )
        return rows

    def open_form(self, path: str) -> OpenForm:
        host, address = self.client.fresh()
        page = self.client.get(path, host=host, address=address)
        if page.status != 200:
            raise RuntimeError(f"the form {path} answers {page.status}")
        return OpenForm(path, host, address, inputs(page), page.cookies, time.monotonic())

    def form_data(self, form: OpenForm, proposal: str, action: str, comment: str) -> dict:
        fields = form.fields
        return {
            "csrfmiddlewaretoken": fields["csrfmiddlewaretoken"],
            "started": fields["started"],
            "seen_version": fields.get("seen_version", ""),
            "kind": self.t.kind,
            "comment": comment,
            "proposal": proposal,
            "email": "",
            "website": "",
            "action": action,
        }

    def preview_row(self, name: str, path: str, label: str, proposal: str) -> Row:
        def attempt(n: int) -> Answer:
            form = self.open_form(path)
            return form_post(self.client, form, self.form_data(form, proposal, "preview", "A typo."))

        return Row("suggest", f"{name} POST", label, attempt)

    def send_row(self, name: str, path: str, label: str, proposal: str) -> Row:
        """A real send: the form opened ahead (``prepare``), sent after its minimum fill
        time, with a comment of the longest length allowed; the status page it redirects
        to is kept for the status page rows."""
        key = label if name.startswith("<entry>") else f"{name.split('/')[0]}: {label}"
        comment = fill("The printed rule says otherwise. ", self.t.limits["comment"])

        def prepare(n: int) -> None:
            self.forms[key, n] = self.open_form(path)

        def attempt(n: int) -> Answer:
            form = self.forms.pop((key, n), None) or self.open_form(path)
            wait = form.opened_at + self.t.limits["fill_seconds"] + 1.1 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            answer = form_post(self.client, form, self.form_data(form, proposal, "send", comment))
            location = answer.headers.get("location", "")
            if answer.status == 302 and "/suggestions/" in location:
                self.sent.setdefault(key, []).append(urlsplit(location).path)
            return answer

        return Row("suggest", f"{name} POST", f"send: {label}", attempt, prepare=prepare)

    def status_page(self, key: str, n: int) -> Answer:
        paths = self.sent.get(key)
        if not paths:
            return Answer(NOT_SENT, 0.0)
        return self.client.get(paths[n % len(paths)])

    # The admin

    def admin_rows(self) -> list[Row]:
        t = self.t
        inline, lines = t.limits["import_inline"], t.limits["import_inline_lines"]
        rows = [
            self.admin_row("/admin/", "index", "/admin/"),
            self.admin_row("/admin/suggestions/", "the queue (open suggestions)", "/admin/suggestions/"),
            self.admin_row("/admin/suggestions/", "every status", "/admin/suggestions/?status=all"),
        ]
        size = t.limits["proposal"]
        for label in (f"'a ' x{size // 2:,}", "shuffled text", "50,000-char entry, every 10th word changed"):
            rows.append(
                Row(
                    "admin",
                    "/admin/suggestions/<id>/",
                    f"review: {label}",
                    lambda n, label=label: self.review_page(label, n),
                )
            )
        rows += [
            self.admin_row(
                "/admin/rules/entry/<id>/history/",
                "the 50,000-character entry",
                f"/admin/rules/entry/{t.big_pk}/history/",
            ),
            self.admin_row(
                "/admin/rules/entry/<id>/change/",
                "the 50,000-character entry",
                f"/admin/rules/entry/{t.big_pk}/change/",
            ),
            self.admin_row(
                "/admin/rules/entry/",
                f"search {t.limits['query']} chars",
                "/admin/rules/entry/?" + urlencode({"q": words_to(t.words, t.limits["query"])}),
            ),
            self.admin_row("/admin/rules/entry/import/", "the form", "/admin/rules/entry/import/"),
        ]
        documents = [
            (f"{inline // 1024} KiB of one repeated token", fill("rule ", inline)),
            (f"{inline // 1024} KiB, one word a line", fill("Rule\n", inline)),
            (f"{lines:,} lines, one word each (the most made inline)", "Rule\n" * lines),
            *((f"{label}, in an entry", "# Worst case\n\n## Bomb\n\n" + text)
              for label, text in markdown_bombs(inline - 40)[1:]),
        ]  # fmt: skip
        for label, text in documents:
            rows.append(
                Row(
                    "admin",
                    "/admin/rules/entry/import/ POST",
                    f"preview: {label}",
                    lambda n, label=label, text=text: self.import_preview(label, text, n),
                )
            )
            rows.append(
                Row(
                    "admin",
                    "/admin/rules/entry/import/<job>/",
                    f"preview page: {label}",
                    lambda n, label=label: self.job_page(label),
                )
            )
        for label, text in markdown_bombs(t.limits["markdown_preview"]):
            rows.append(
                Row(
                    "admin",
                    "/admin/rules/entry/preview/ POST",
                    f"Markdown preview: {label}",
                    lambda n, text=text: self.markdown_preview(text),
                )
            )
        return rows

    def admin_cookies(self) -> dict:
        if self.admin is None:
            from tests.processes import AdminSession

            session = AdminSession(self.server.base_url)
            session.log_in(ADMIN_USER, ADMIN_PASSWORD)
            jar = next(h.cookiejar for h in session.opener.handlers if hasattr(h, "cookiejar"))
            self.admin = {cookie.name: cookie.value for cookie in jar}
        return self.admin

    def admin_host(self) -> str:
        return f"127.0.0.1:{self.client.port}"

    def admin_get(self, path: str) -> Answer:
        return self.client.get(path, host=self.admin_host(), cookies=self.admin_cookies())

    def admin_row(self, endpoint: str, label: str, path: str) -> Row:
        return Row("admin", endpoint, label, lambda n: self.admin_get(path))

    def admin_post(self, path: str, data: dict) -> Answer:
        cookies = self.admin_cookies()
        form = OpenForm(path, self.admin_host(), "", {}, cookies, 0)
        return form_post(self.client, form, {"csrfmiddlewaretoken": cookies.get("csrftoken", ""), **data})

    def review_page(self, label: str, n: int) -> Answer:
        from rules.moderation.models import Suggestion

        paths = self.sent.get(label)
        if not paths:
            return Answer(NOT_SENT, 0.0)
        token = paths[n % len(paths)].rstrip("/").rsplit("/", 1)[1]
        pk = Suggestion.objects.filter(token=token).values_list("pk", flat=True).first()
        return self.admin_get(f"/admin/suggestions/{pk}/")

    def import_preview(self, label: str, text: str, n: int) -> Answer:
        data = {
            "text": text, "game": str(self.t.game_pk), "language": "en", "kind": "auto",
            "source_title": f"Worst case {n}", "status": "draft",
        }  # fmt: skip
        answer = self.admin_post("/admin/rules/entry/import/", data)
        if answer.status == 302:
            self.jobs[label] = urlsplit(answer.headers["location"]).path
        return answer

    def job_page(self, label: str) -> Answer:
        path = self.jobs.get(label)
        return self.admin_get(path) if path else Answer(NO_JOB, 0.0)

    def markdown_preview(self, text: str) -> Answer:
        data = {"game": str(self.t.game_pk), "language": "en", "title": "Worst case", "body": text}
        return self.admin_post("/admin/rules/entry/preview/", data)


def shuffled(text: str, size: int) -> str:
    """``text``'s words, shuffled, repeated up to ``size`` characters."""
    words = text.split()
    out: list[str] = []
    rng = random.Random(7)
    length = 0
    while True:
        rng.shuffle(words)
        for word in words:
            if length + len(word) + 1 > size:
                return " ".join(out)
            out.append(word)
            length += len(word) + 1


def every_tenth_changed(text: str) -> str:
    words = text.split(" ")
    return " ".join("ruling" if i % 10 == 0 else word for i, word in enumerate(words))[: len(text)]


# --- The report -----------------------------------------------------------------------

COLUMNS = f"{'area':<10} {'endpoint':<46} {'input':<52} {'status':>9} {'median ms':>10} {'max ms':>9} {'bytes':>9}"


def statuses(row: Row) -> str:
    return "/".join(str(status) for status in dict.fromkeys(answer.status for answer in row.answers))


def worst_ms(row: Row) -> float:
    return max(answer.seconds for answer in row.answers) * 1000


def over(row: Row) -> bool:
    return worst_ms(row) > OVER_MS or any(answer.status == "timeout" for answer in row.answers)


def server_error(row: Row) -> bool:
    """A 5xx other than the row's expected one, or no answer at all (a worker died)."""
    return any(
        (isinstance(answer.status, int) and answer.status >= 500 and answer.status not in row.expect)
        or answer.status == "dropped"
        for answer in row.answers
    )


def print_row(row: Row, number: int) -> None:
    if number == 1:
        print(COLUMNS)
        print("-" * len(COLUMNS))
    median = statistics.median(answer.seconds for answer in row.answers) * 1000
    size = max(answer.size for answer in row.answers)
    marks = " ".join(mark for mark, flag in (("OVER", over(row)), ("5xx", server_error(row))) if flag)
    print(
        f"{row.area:<10} {row.endpoint[:46]:<46} {row.input[:52]:<52} {statuses(row)[:9]:>9} "
        f"{median:10.1f} {worst_ms(row):9.1f} {size:9d} {marks}".rstrip(),
        flush=True,
    )


# What a server log says went wrong: Python's exceptions, and a worker's native crash.
LOG_PROBLEMS = re.compile(
    r"^[\w.]+(Error|Exception|DoesNotExist): .*$|^.*(malloc\(\)|double free|Segmentation fault"
    r"|was sent SIG\w+|Fatal Python error).*$",
    re.MULTILINE,
)


def report(rows: list[Row], logs: list[Path], args) -> int:
    worst = max(rows, key=worst_ms)
    slow = [row for row in rows if over(row)]
    failed = [row for row in rows if server_error(row)]
    print(f"\nsummary: {len(rows)} rows, {args.repeat} attempts each")
    print(f"  worst: {worst.area} {worst.endpoint} [{worst.input}] {worst_ms(worst):.0f} ms ({statuses(worst)})")
    print(f"  over {OVER_MS / 1000:g} s: {len(slow)}")
    for row in sorted(slow, key=worst_ms, reverse=True):
        print(f"    {worst_ms(row):8.0f} ms  {row.area} {row.endpoint} [{row.input}] ({statuses(row)})")
    print(f"  unexpected 5xx or no answer (a worker died): {len(failed)}")
    for row in failed:
        print(f"    {row.area} {row.endpoint} [{row.input}] ({statuses(row)})")
    refused = sum(1 for row in rows for answer in row.answers if answer.status == 429)
    if refused:
        print(f"  429 (a limit reached; cheap, fine): {refused} answers")
    problems = Counter(
        re.sub(r"^\[[^]]*\] \[\d+\] |\(pid:\d+\) ", "", found.group(0))[:160].strip()
        for log in logs
        for found in LOG_PROBLEMS.finditer(log.read_text(errors="replace"))
    )
    for line, count in problems.most_common(8):
        print(f"  server log, {count}x: {line}")
    return 1 if slow or failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted (gunicorn stopped, temporary directory handled)", file=sys.stderr)
        sys.exit(130)
