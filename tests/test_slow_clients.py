"""Slow clients do not take the site down: gunicorn with the repository's gunicorn.conf.py
(2 gthread workers) keeps answering readers while connections trickle their request
heads a byte a second, first 4 of them (the reported attack: 40 s without an answer on
2 sync workers), then 16.

Not a timed test: each reader's page must come within a generous READ_TIMEOUT, where
with sync workers it would wait until the tricklers stopped (tried once with
``options=("--worker-class", "sync", "--threads", "1")``: every read of the first round
timed out; gunicorn runs "sync" with more than one thread as gthread).
"""

import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.processes import PYTHON, run_command, start_gunicorn, stop, tail, throwaway_database

READ_TIMEOUT = 10  # seconds for one reader's page: pages answer in milliseconds here
READS = 5  # pages read while the tricklers trickle, one after the other
SETTLE = 2.5  # seconds for the tricklers to connect and be read from before the reads

CONTENT = r"""
import django
django.setup()
from rules.content.models import Entry, Game
from rules.content.querysets import Status
game = Game.objects.create(slug="slow-game", name="Slow Game")
Entry.objects.create(game=game, language="en", title="Patience", body="Wait for your turn.", status=Status.PUBLISHED)
"""
PAGE = "/en/games/slow-game/rules/patience/"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with throwaway_database(tmp_path_factory.mktemp("slow")) as (_database, env):
        run_command([PYTHON, "-c", CONTENT], env)
        yield env


@pytest.fixture
def server(site, tmp_path):
    server = start_gunicorn("slow", site, tmp_path / "gunicorn.log", workers=2)
    try:
        server.wait_until_up(time.monotonic() + 30)
        yield server
    finally:
        stop(server.process, sig=signal.SIGINT)


class Trickler(threading.Thread):
    """A connection that sends a request head one byte a second and never finishes it."""

    def __init__(self, port: int, done: threading.Event):
        super().__init__(daemon=True)
        self.port, self.done = port, done
        self.sent = 0
        self.connected = threading.Event()

    def run(self):
        head = b"GET " + PAGE.encode() + b" HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"z" * 1000
        with socket.create_connection(("127.0.0.1", self.port), timeout=READ_TIMEOUT) as sock:
            self.connected.set()
            for byte in head:
                if self.done.is_set():
                    return
                try:
                    sock.sendall(bytes([byte]))
                except OSError:  # the server closed it: fine, and not the point here
                    return
                self.sent += 1
                self.done.wait(1)


def read_pages(server) -> list[str]:
    """READS page loads, each on a new connection; what went wrong with each."""
    problems = []
    for _ in range(READS):
        started = time.monotonic()
        try:
            response = server.get(PAGE, timeout=READ_TIMEOUT)
        except OSError as error:
            problems.append(f"no answer within {READ_TIMEOUT} s ({error!r})")
            continue
        if response.status != 200 or "Wait for your turn." not in response.text:
            problems.append(f"{response.status} after {time.monotonic() - started:.1f} s")
    return problems


def test_readers_are_answered_while_connections_trickle_their_requests(server):
    done = threading.Event()
    tricklers: list[Trickler] = []
    try:
        for count in (4, 16):
            while len(tricklers) < count:
                trickler = Trickler(server.port, done)
                trickler.start()
                tricklers.append(trickler)
            assert all(t.connected.wait(READ_TIMEOUT) for t in tricklers)
            time.sleep(SETTLE)  # each has sent its first bytes: read from by a thread
            assert read_pages(server) == [], f"with {count} slow connections:\n" + tail(server.log)
            # Still trickling: they held what they hold throughout the reads.
            assert all(t.is_alive() and t.sent >= 2 for t in tricklers), [t.sent for t in tricklers]
    finally:
        done.set()
        for trickler in tricklers:
            trickler.join(5)
    assert "Traceback" not in server.log.read_text(errors="replace")


def connections_per_worker(server) -> list[int]:
    """How many established connections to ``server``'s port each worker process holds
    (from /proc: the workers' socket descriptors against the kernel's TCP table)."""
    established = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == server.port and fields[3] == "01":
                established.add(fields[9])
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    counts = []
    for pid in children:
        links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir() if fd.is_symlink()]
        counts.append(sum(link.removeprefix("socket:[").removesuffix("]") in established for link in links))
    return sorted(counts, reverse=True)


def test_with_a_socket_per_worker_kept_alive_connections_are_spread_over_the_workers(site, tmp_path):
    """With ``GUNICORN_REUSE_PORT=1`` (gunicorn.conf.py), sixteen clients that connect at
    once and keep their connections (a proxy's pool) are served by both workers, not all
    by the one that won the race to accept: so the server has both cores. (With the
    default shared socket the same check failed in 2 runs of 3.)"""
    server = start_gunicorn("spread", {**site, "GUNICORN_REUSE_PORT": "1"}, tmp_path / "gunicorn.log", workers=2)
    try:
        server.wait_until_up(time.monotonic() + 30)
        sockets = [socket.create_connection(("127.0.0.1", server.port), timeout=READ_TIMEOUT) for _ in range(16)]
        try:
            for sock in sockets:
                sock.sendall(b"GET " + PAGE.encode() + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
            for sock in sockets:
                assert sock.recv(64).startswith(b"HTTP/1.1 200"), "answered, and kept alive"
            counts = connections_per_worker(server)
            assert len(counts) == 2 and min(counts) > 0, f"connections per worker: {counts}"
        finally:
            for sock in sockets:
                sock.close()
    finally:
        stop(server.process, sig=signal.SIGINT)
