"""Real servers a test starts for itself, each on a free loopback port and stopped after:
an S3-speaking object store (moto's standalone ``moto_server``), Redis, and a streaming
replica of the PostgreSQL server the suite runs on.

Where one cannot be had here (not installed, not PostgreSQL), the test is skipped with
the reason, unless CI asked for it (``RULESITE_REQUIRE_S3``, ``RULESITE_REQUIRE_REDIS``,
``RULESITE_REQUIRE_REPLICA`` = 1): then it fails, so CI never passes by skipping.
"""

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.processes import START_TIMEOUT, TIMEOUT, free_port, stop, tail


def unavailable(requirement: str, reason: str):
    """Skip with ``reason``, or fail when ``RULESITE_REQUIRE_<requirement>=1``."""
    if os.environ.get(f"RULESITE_REQUIRE_{requirement}") == "1":
        pytest.fail(f"RULESITE_REQUIRE_{requirement}=1 but {reason}")
    pytest.skip(reason)


# --- S3 ----------------------------------------------------------------------------------

S3_KEYS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_S3_REGION_NAME": "us-east-1"}


class S3Server:
    """A moto_server process: an S3 endpoint over real HTTP, one bucket made."""

    def __init__(self, endpoint: str, bucket: str, process: subprocess.Popen):
        self.endpoint, self.bucket, self.process = endpoint, bucket, process

    @property
    def environ(self) -> dict[str, str]:
        """The variables a rulesite process reads to keep its built files there."""
        return {**S3_KEYS, "AWS_S3_ENDPOINT_URL": self.endpoint, "DJANGO_BUILT_FILES_URL": f"s3://{self.bucket}/built"}

    def client(self):
        import boto3

        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id="testing", aws_secret_access_key="testing",
        )  # fmt: skip

    def keys(self) -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def moto_server_executable() -> str:
    executable = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
    missing = None
    if not Path(executable).exists():
        missing = "moto's standalone S3 server is not installed (pip install 'moto[server]')"
    else:
        try:
            import boto3  # noqa: F401
            import storages  # noqa: F401
        except ImportError:
            missing = "django-storages or boto3 is not installed (pip install -e .)"
    if missing:
        unavailable("S3", f"{missing}: the tests of built files on S3 are skipped")
    return executable


@contextmanager
def s3_server(directory: Path, bucket: str = "rulesite-built"):
    executable = moto_server_executable()
    port = free_port()
    log = directory / "moto.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [executable, "-H", "127.0.0.1", "-p", str(port)], stdout=output, stderr=subprocess.STDOUT,
            env={**os.environ, **S3_KEYS},
        )  # fmt: skip
    server = S3Server(f"http://127.0.0.1:{port}", bucket, process)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                server.client().create_bucket(Bucket=bucket)
                break
            except Exception:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("moto_server did not start:\n" + tail(log))
                time.sleep(0.1)
        yield server
    finally:
        stop(process)


# --- Redis -------------------------------------------------------------------------------


class RedisServer:
    def __init__(self, executable: str, port: int, directory: Path):
        self.executable, self.port, self.directory = executable, port, directory
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process = None

    def start(self) -> None:
        import redis

        log = self.directory / "redis.log"
        with open(log, "ab") as output:
            self.process = subprocess.Popen(
                [self.executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--daemonize", "no", "--dir", str(self.directory)],
                stdout=output, stderr=subprocess.STDOUT,
            )  # fmt: skip
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=TIMEOUT)
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        pytest.fail("redis-server did not start:\n" + tail(log))
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@contextmanager
def redis_server(directory: Path):
    executable = shutil.which("redis-server")
    if executable is None:
        unavailable("REDIS", "no redis-server on PATH (apt-get install -y redis-server)")
    server = RedisServer(executable, free_port(), directory)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# --- a streaming replica of PostgreSQL ------------------------------------------------------

PG_BIN = Path("/usr/lib/postgresql/15/bin")


class Replica:
    """A hot standby of the suite's PostgreSQL server, made by ``pg_basebackup`` and
    started with ``pg_ctl`` on a free port, applying the primary's commits
    ``delay`` seconds late (``recovery_min_apply_delay``): a replica that lags."""

    def __init__(self, directory: Path, port: int, delay: float, primary: dict):
        self.directory, self.port, self.delay, self.primary = directory, port, delay, primary

    def url(self, database: str) -> str:
        p = self.primary
        return f"postgres://{p['user']}:{p['password']}@127.0.0.1:{self.port}/{database}"

    def _as_postgres(self, *command: str, **kwargs) -> subprocess.CompletedProcess:
        if os.geteuid() != 0:  # the postgres user itself
            return subprocess.run(command, capture_output=True, text=True, cwd=self.directory, **kwargs)
        return subprocess.run(["runuser", "-u", "postgres", "--", *command], capture_output=True, text=True,
                              cwd=self.directory, **kwargs)  # fmt: skip

    def start(self) -> None:
        p = self.primary
        data = self.directory / "data"
        conninfo = f"host={p['host']} port={p['port']} user={p['user']} password={p['password']}"
        made = self._as_postgres(
            str(PG_BIN / "pg_basebackup"), "-d", conninfo, "-D", str(data), "-X", "stream", "-R", "-c", "fast",
            timeout=300,
        )  # fmt: skip
        if made.returncode != 0:
            unavailable("REPLICA", f"pg_basebackup failed: {made.stderr.strip()[-500:]}")
        (data / "postgresql.conf").write_text(
            f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.directory}'\n"
            f"hot_standby = on\nrecovery_min_apply_delay = '{int(self.delay * 1000)}ms'\n"
            f"max_connections = 100\nshared_buffers = 32MB\nfsync = off\nhba_file = '{data / 'pg_hba.conf'}'\n"
            f"ident_file = '{data / 'pg_ident.conf'}'\nlogging_collector = off\n"
        )
        (data / "pg_hba.conf").write_text("host all all 127.0.0.1/32 scram-sha-256\n")
        (data / "pg_ident.conf").write_text("")
        started = self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(self.directory / "replica.log"), "-w", "-t", "60",
            "start", timeout=90,
        )  # fmt: skip
        if started.returncode != 0:
            pytest.fail(f"the replica did not start: {started.stderr}\n" + tail(self.directory / "replica.log"))

    def stop(self) -> None:
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate", "stop",
                          timeout=60)  # fmt: skip


@contextmanager
def postgres_replica(delay: float):
    """A lagging streaming replica of ``DATABASE_URL``'s server (PostgreSQL 15 here, as
    root or as the postgres user), removed afterwards."""
    import tempfile
    import urllib.parse

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):  # the SQLite suite: CI runs it in the PostgreSQL one
        pytest.skip("the suite does not run on PostgreSQL (DATABASE_URL): no replica to make")
    if not (PG_BIN / "pg_ctl").exists() or not (PG_BIN / "pg_basebackup").exists():
        unavailable("REPLICA", f"PostgreSQL 15's server programs are not in {PG_BIN}")
    if os.geteuid() != 0 and Path.home().owner() != "postgres":
        unavailable("REPLICA", "making a replica needs root (to run pg_ctl as postgres) or the postgres user")
    parts = urllib.parse.urlsplit(url)
    primary = {
        "host": parts.hostname or "127.0.0.1", "port": parts.port or 5432,
        "user": urllib.parse.unquote(parts.username or ""), "password": urllib.parse.unquote(parts.password or ""),
    }  # fmt: skip
    # Not under pytest's own temporary directory, which the postgres user cannot enter.
    directory = Path(tempfile.mkdtemp(prefix="rulesite-replica-"))
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    replica = Replica(directory, free_port(), delay, primary)
    try:
        replica.start()
        yield replica
    finally:
        replica.stop()
        shutil.rmtree(directory, ignore_errors=True)
