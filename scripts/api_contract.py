"""The API contract, checked against a live server: schemathesis over /api/v1/schema/.

    .venv/bin/python scripts/api_contract.py [--database-url URL] [--max-examples 100]
        [--seed 7] [--workers 1] [--keep] [-- EXTRA st run ARGUMENTS]

Builds a throwaway database (a SQLite file in a temporary directory, or the *empty*
database at --database-url, e.g. a fresh PostgreSQL database), migrates it, imports the
demo content (``load_demo``) and collects the static files into a temporary directory
(bench/benchdb.py does the Django part, as for the benchmarks). Then it starts gunicorn
(bench/serve.py's ``serving``: the repository's gunicorn.conf.py, as production runs it,
on a free loopback port) with production settings (DEBUG off, a secret key,
``DJANGO_ALLOWED_HOSTS=127.0.0.1``; only the HTTPS redirect is off, so plain http works),
and runs

    st --config-file scripts/schemathesis.toml run http://127.0.0.1:PORT/api/v1/schema/ \
        --checks all --max-examples N --seed S

against it: every operation of the published OpenAPI schema, with generated valid and
invalid requests, checked for server errors, undocumented status codes, responses that
violate the schema, invalid requests accepted and valid requests refused. The run is
bounded (N examples per operation and phase, a fixed seed: the same requests every run)
so it takes a few minutes on two cores. The configuration file adds one expected status
to two checks: the server's 414 for a request line over 8190 bytes, documented on every
operation, which generated requests can reach whatever the schema's bounds.

Exits with schemathesis's exit code (0: no failure), after stopping gunicorn and
removing the temporary directory (unless --keep). Needs the ``test`` extra (schemathesis).
"""

import argparse
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

SCHEMA_PATH = "/api/v1/schema/"
# Which statuses the checks expect: the server's documented 414 added (see the file).
CONFIG_FILE = ROOT / "scripts" / "schemathesis.toml"


def main() -> int:
    args = parse_args()
    bin_dir = Path(sys.executable).parent
    st, gunicorn = bin_dir / "st", bin_dir / "gunicorn"
    needs = {st: "the test extra: pip install -e '.[test]'", gunicorn: "make install"}
    for tool, extra in needs.items():
        if not tool.exists():
            print(f"{tool.name} not found beside {sys.executable} ({extra})", file=sys.stderr)
            return 2
    # Ctrl-C and SIGTERM unwind through the finally blocks (gunicorn stopped, files removed).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-contract-"))
    try:
        env = build_site(args.database_url, workdir)
        from serve import server_shape, serving  # bench/serve.py: gunicorn in its own process group

        log = workdir / "gunicorn.log"
        print(f"gunicorn: {server_shape(env)} on 127.0.0.1, DEBUG off")
        with serving(gunicorn, env, log) as base_url:
            print(f"serving on {base_url}")
            code = run_schemathesis(st, base_url + SCHEMA_PATH, args, workdir)
            print("stopping gunicorn")
        if code != 0:
            print(f"\ngunicorn's log (last lines):\n{tail(log)}")
        print(f"\nschemathesis exit code: {code} ({'no failures' if code == 0 else 'FAILED'})")
        return code
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--database-url", help="an empty database to fill (default: a SQLite file)")
    add("--max-examples", type=int, default=100, help="per operation and phase (100)")
    add("--seed", type=int, default=7, help="schemathesis's random seed (7)")
    # One worker: with two threads, hypothesis describing a strategy's lambda (ast.parse)
    # now and then crashed CPython 3.11's AST constructor ("recursion depth mismatch"),
    # a failure of the tool, not of the API, that would fail CI at random.
    add("--workers", type=int, default=1, help="concurrent schemathesis workers (1)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("extra", nargs="*", help="more `st run` arguments, after --")
    return parser.parse_args()


def build_site(database_url: str | None, workdir: Path) -> dict[str, str]:
    """Migrate, load the demo, collect static files; the gunicorn environment."""
    static_root = workdir / "static"
    os.environ["DJANGO_STATIC_ROOT"] = str(static_root)
    os.environ.pop("DJANGO_CACHE_URL", None)  # the default per-process cache, as deployed
    url = database_url or f"sqlite:///{workdir}/contract.sqlite3"
    print(f"database: {re.sub(r':[^:/@]*@', ':***@', url)}")  # no password shown

    from benchdb import setup_django

    started = time.perf_counter()
    print("migrate ...")
    setup_django(url)  # production settings, DEBUG off; migrates
    from django.core.management import call_command

    print("load_demo ...")
    call_command("load_demo", stdout=io.StringIO())
    print("build_files --bulk ...")  # the API's bulk data files, as a deploy makes them
    call_command("build_files", "--bulk", stdout=io.StringIO())
    print(f"collectstatic into {static_root} ...")
    call_command("collectstatic", interactive=False, verbosity=0)
    print(f"database ready in {time.perf_counter() - started:.1f} s")
    from django.db import connections

    connections.close_all()
    env = dict(os.environ)
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=os.environ.get("DJANGO_SECRET_KEY") or "api-contract-not-secret",
        DJANGO_SECURE_SSL_REDIRECT="0",  # plain http on the loopback
        DJANGO_SECURE_COOKIES="0",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        # Thousands of requests from one address: the schema is checked here, the rate
        # limit by tests/api/test_throttling.py (its 429 is documented on every operation).
        DJANGO_API_RATE="off",
    )
    return env


def run_schemathesis(st: Path, schema_url: str, args: argparse.Namespace, workdir: Path) -> int:
    command = [
        str(st), "--config-file", str(CONFIG_FILE), "run", schema_url,
        "--checks", "all",
        "--max-examples", str(args.max_examples),
        "--seed", str(args.seed),
        "--workers", str(args.workers),
        "--request-timeout", "30",
        "--generation-database", "none",  # the same requests every run, nothing stored
        *args.extra,
    ]  # fmt: skip
    print("$ " + " ".join(command), flush=True)
    started = time.perf_counter()
    # In the temporary directory: any report schemathesis writes goes away with it.
    done = subprocess.run(command, cwd=workdir, env={**os.environ, "NO_COLOR": "1"})
    print(f"schemathesis took {time.perf_counter() - started:.0f} s")
    return done.returncode


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(main())
