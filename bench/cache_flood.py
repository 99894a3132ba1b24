"""Benchmark: what a flood of made-up request variants costs the shared cache (Redis).

    .venv/bin/python bench/cache_flood.py [--requests 400] [--redis-port 6390]

Builds the site as bench/serve.py does, starts its own redis-server on a free loopback
port (no persistence, ``maxmemory 256mb``, ``allkeys-lru``: the manual's advice) and
gunicorn with ``DJANGO_CACHE_URL`` pointing at it, then sends --requests requests of
each kind a client can vary freely, and prints Redis's memory and keys after each:

- an entry page with ``?x=N`` (a parameter no view reads: the same cached page),
- an entry page with ``Host: localhost:N`` (a port the server does not listen on),
- the API's entry list with ``?utm=N&page_size=5`` (dropped before the view),
- a search page with ``?q=wordN`` (a parameter the view reads: stored up to
  ``DJANGO_CACHE_MAX_VARIANTS`` per content version, then answered without storing),
- ``Accept-Encoding`` and ``Accept`` headers of N shapes (one key per representation).

Loopback only, bounded by --requests (at most 5,000 of each kind).
"""

import argparse
import http.client
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--entries", type=int, default=200)
    args = parser.parse_args()
    args.database_url, args.keep = None, False
    if not 1 <= args.requests <= 5000:
        parser.error("--requests must be between 1 and 5000")
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        print("redis-server not found (apt-get install redis-server)", file=sys.stderr)
        return 2

    import redis
    import serve

    workdir = Path(tempfile.mkdtemp(prefix="rulesite-flood-"))
    port = serve.free_port()
    server = subprocess.Popen(
        [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--maxmemory", "256mb", "--maxmemory-policy", "allkeys-lru"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        client = redis.Redis(port=port)
        for _ in range(50):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        site = serve.build_site(args, workdir)
        env = {**site.env, "DJANGO_DEBUG": "0", "DJANGO_SECURE_SSL_REDIRECT": "0",
               "DJANGO_CACHE_URL": f"redis://127.0.0.1:{port}/0"}  # fmt: skip
        gunicorn = Path(sys.executable).parent / "gunicorn"
        entry = site.paths["entry"]
        floods = {
            "entry page ?x=N": lambda n: (f"{entry}?x={n}", {}),
            "entry page Host: localhost:N": lambda n: (entry, {"Host": f"localhost:{1024 + n}"}),
            "API list ?utm=N": lambda n: (f"/api/v1/entries/?utm={n}&page_size=5", {}),
            "search ?q=wordN": lambda n: (f"/en/search/?q=word{n}", {}),
            "Accept-Encoding of N shapes": lambda n: (entry, {"Accept-Encoding": f"gzip;q=0.{n % 9 + 1}, x{n}"}),
            "API Accept of N shapes": lambda n: ("/api/v1/games/", {"Accept": f"application/json; x={n}"}),
        }
        with serve.serving(gunicorn, env, workdir / "gunicorn.log") as base_url:
            server_port = int(base_url.rsplit(":", 1)[1])
            client.flushall()
            print(f"\nredis before: {memory(client)}")
            for name, make in floods.items():
                statuses: dict = {}
                started = time.perf_counter()
                for n in range(args.requests):
                    path, headers = make(n)
                    status = get(server_port, path, {"Host": "localhost", "Accept-Encoding": "gzip", **headers})
                    statuses[status] = statuses.get(status, 0) + 1
                print(
                    f"{args.requests} × {name:<30} {time.perf_counter() - started:5.1f} s, "
                    f"statuses {statuses}; redis now {memory(client)}"
                )
        return 0
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


def memory(client) -> str:
    return f"{client.info('memory')['used_memory_human']} in {client.dbsize()} keys"


def get(port: int, path: str, headers: dict) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


if __name__ == "__main__":
    sys.exit(main())
