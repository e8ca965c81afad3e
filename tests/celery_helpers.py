"""A real Celery worker (and beat) for tests: no eager mode, no mocks.

The worker runs in a thread of the test process (``celery.contrib.testing``) on
the project's app and the Redis broker of ``REDIS_URL``; its tasks use the test
database (pytest-django renamed it in the shared settings), so tests using it
must be transactional.  Every task's thread closes its database connections when
the task ends, so nothing holds the test database open afterwards.

``celery beat`` runs as a real subprocess (``python -m celery -A config beat``).
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import signals
from celery.contrib.testing.worker import start_worker
from django.db import connections
from rest_framework.test import APIClient

from config.celery import app
from tests.server_support import REDIS_URL, Gunicorn, ServerProcess, service_env  # noqa: F401 (service_env: its old home)


requires_redis = pytest.mark.skipif(
    not REDIS_URL.startswith("redis"), reason="needs a Redis broker (REDIS_URL), as `make test` sets"
)


def use_redis_broker() -> None:
    """Make the app publish to and consume from ``REDIS_URL`` (a test that patched the
    broker URLs may have left another one behind), with fresh connection pools."""
    conf = app.conf
    if conf.broker_url != REDIS_URL or conf.broker_write_url != REDIS_URL or conf.broker_read_url != REDIS_URL:
        conf.broker_url = REDIS_URL
        conf.broker_write_url = conf.broker_read_url = None  # i.e. broker_url
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def redis_broker():
    use_redis_broker()
    yield REDIS_URL


class TaskLog:
    """Every task the in-process worker ran: (name, args, retval, state)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.done: list[tuple[str, tuple, object, str]] = []
        self.failures: list[tuple[str, tuple, BaseException]] = []

    def on_postrun(self, sender=None, task=None, args=None, retval=None, state=None, **kw):
        with self.lock:
            self.done.append((task.name, tuple(args or ()), retval, state))

    def on_failure(self, sender=None, exception=None, args=None, **kw):
        with self.lock:
            self.failures.append((sender.name, tuple(args or ()), exception))

    def runs(self, name: str, args: tuple | None = None) -> list[tuple]:
        """The runs of the task ``name`` whose arguments begin with ``args`` (a bot step
        may carry its owner's slot after the game and version: games.botqueue)."""
        with self.lock:
            return [d for d in self.done
                    if d[0].endswith(name) and (args is None or d[1][:len(args)] == tuple(args))]


def _close_connections(**kwargs):
    # runs in the thread that ran the task: leave no connection to the test database.
    # Not in the test's own thread (a task run eagerly, ``apply()``, by any later test:
    # the receiver stays connected), whose connection holds the test's transaction
    if threading.current_thread() is not threading.main_thread():
        connections.close_all()


class Worker:
    """``start()`` / ``stop()`` an in-process worker; ``log`` records every task."""

    def __init__(self, pool: str = "threads", concurrency: int = 4):
        self.pool, self.concurrency = pool, concurrency
        self.log = TaskLog()
        self._cm = None
        self.controller = None
        signals.task_postrun.connect(self.log.on_postrun, weak=False)
        signals.task_failure.connect(self.log.on_failure, weak=False)
        signals.task_postrun.connect(_close_connections, weak=False)

    @property
    def running(self) -> bool:
        return self._cm is not None

    def start(self) -> "Worker":
        assert self._cm is None, "already running"
        self._cm = start_worker(
            app, pool=self.pool, concurrency=self.concurrency, perform_ping_check=False,
            loglevel="WARNING", shutdown_timeout=30,
        )
        self.controller = self._cm.__enter__()
        return self

    def stop(self) -> None:
        """Stop consuming, then wait for the tasks already running.

        ``start_worker`` stops its worker with a cold shutdown, and the thread pool
        has no way to end a running thread: a task started just before would go on
        inside the test's teardown, its open transaction deadlocking with the
        database flush (its DELETEs; a TRUNCATE before).  Its executor is shut down
        here, waiting for the running tasks and cancelling the ones not started."""
        if self._cm is not None:
            cm, self._cm = self._cm, None
            pool = getattr(self.controller, "pool", None)
            cm.__exit__(None, None, None)
            executor = getattr(pool, "executor", None)
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self.stop()
        signals.task_postrun.disconnect(self.log.on_postrun)
        signals.task_failure.disconnect(self.log.on_failure)


@pytest.fixture
def worker(settings, monkeypatch):
    """A real worker (not started: call ``worker.start()``); bots think 0 s."""
    monkeypatch.setenv("CELERY_SKIP_CHECKS", "1")  # no Django system checks at every start
    use_redis_broker()
    settings.UNO_BOT_THINK_SECONDS = 0
    settings.UNO_HARD_BUDGET_MS = 5
    w = Worker()
    try:
        yield w
    finally:
        w.close()
        connections.close_all()
    assert not w.log.failures, f"tasks failed: {w.log.failures}"


def server_process(argv: list[str], log_path: Path, **settings: object) -> ServerProcess:
    """``python -m <argv>`` in the repository with service_env(**settings), its output in
    ``log_path``: a :class:`tests.server_support.ServerProcess` (the one way to run a
    process of the project; used as a context manager, stopped at the end)."""
    return ServerProcess(argv, log_path, **settings)


@contextmanager
def celery_beat(tmp_path: Path, sweep_seconds: float, **settings: object):
    """A real ``celery -A config beat`` subprocess that sends the sweeper every
    ``sweep_seconds`` to the broker of the tests; ``.log()`` is its output (also once
    it has stopped)."""
    argv = ["celery", "-A", "config", "beat", "--loglevel", "INFO",
            "-s", str(tmp_path / "celerybeat-schedule"), "--pidfile", str(tmp_path / "beat.pid")]
    with ServerProcess(argv, tmp_path / "beat.log", UNO_SWEEP_SECONDS=sweep_seconds, **settings) as proc:
        yield proc


@pytest.fixture
def worker_with_beat(worker, tmp_path):
    """The ``worker`` started, and ``celery beat`` beside it sending the sweeper every
    second, as under `make run`: the sweeper revives a bot step whose task was lost."""
    worker.start()
    with celery_beat(tmp_path, sweep_seconds=1):
        yield worker


@contextmanager
def celery_worker(tmp_path: Path, name: str = "w1", concurrency: int = 2, **settings: object):
    """A real ``celery -A config worker`` subprocess (the pool the settings choose:
    prefork on Redis, threads on the filesystem broker) on the tests' database and
    broker; ``.log()`` is its output so far."""
    argv = ["celery", "-A", "config", "worker", "--loglevel", "INFO", "--concurrency", str(concurrency),
            "--hostname", f"{name}-{os.getpid()}@%h", "--without-mingle", "--without-gossip"]
    with ServerProcess(argv, tmp_path / f"worker-{name}.log", **settings) as proc:
        yield proc


def child_pids(pid: int) -> list[int]:
    """The direct child processes of ``pid`` (a prefork worker's pool processes)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except FileNotFoundError:
        return []


def queued_tasks(queue: str = "celery") -> list[tuple[str, tuple]]:
    """The tasks waiting in the broker's queue (no worker running): (name, args)."""
    import ast
    import json

    import redis

    raw = redis.Redis.from_url(REDIS_URL).lrange(queue, 0, -1)
    headers = [json.loads(m)["headers"] for m in reversed(raw)]  # oldest first
    return [(h["task"].rsplit(".", 1)[-1], ast.literal_eval(h["argsrepr"])) for h in headers]


def wait_for(predicate, timeout: float, interval: float = 0.02, message: str = ""):
    """Poll ``predicate`` until it returns something truthy (returned) or fail."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout} s: {message or predicate}")
        time.sleep(interval)


def client_for(token: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return c


@contextmanager
def gunicorn_server(tmp_path: Path, workers: int = 2, **settings: object):
    """The real web server, ready (``tests.server_support.Gunicorn`` with ``workers``
    processes and more ``settings``); yields its base URL.  (Kept for the tests that
    import it: ``with Gunicorn(log, workers, **settings) as server`` is the same.)"""
    with Gunicorn(tmp_path / "gunicorn.log", workers=workers, **settings) as server:
        yield server.url
