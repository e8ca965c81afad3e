"""Processes of the project for tests, started as production starts them, on the test
database (PostgreSQL or the SQLite file) and broker: :class:`ServerProcess` runs any
(``python -m celery -A config worker``, ``beat``), :class:`Gunicorn` the web server
(``gunicorn -c config/gunicorn.conf.py config.wsgi:application``) on a free port with the
settings of tests/server_settings.py (the project's, with a fast password hasher).  Tests
that use them must be transactional (``django_db(transaction=True)``): the server
commits, and must see what they commit.

A module's server: the ``gunicorn`` fixture (registered for every test by
tests/conftest.py), or :func:`served` in a fixture of its own.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
#: Origins the server lets browsers call it from (CORS_ALLOWED_ORIGINS).
CORS_ORIGINS = ("https://app.example", "https://other.example")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    """The test database, for another process."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


REDIS_URL = os.environ.get("REDIS_URL", "")


def service_env(**settings: object) -> dict[str, str]:
    """The environment of a process of the project on the tests' database and broker
    (Redis of REDIS_URL, or the filesystem broker under RUN_DIR), plus ``settings``
    (a value of ``None`` removes the variable)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": REDIS_URL,
        "CELERY_SKIP_CHECKS": "1",  # no Django system checks at every start of celery
        **{name: str(value) for name, value in settings.items() if value is not None},
    }
    for name in [name for name, value in settings.items() if value is None]:
        env.pop(name, None)
    return env


class ServerProcess:
    """``python -m <argv>`` in the repository, as production runs it, with
    ``service_env(**settings)``, its output in ``log_path``: the one way the tests run a
    process of the project (gunicorn, a celery worker, celery beat).  ``stop()`` ends
    it (SIGTERM, then SIGKILL after ``GRACE`` seconds); used as a context manager, at
    the end of the block."""

    GRACE = 15.0

    def __init__(self, argv: list[str], log_path: Path, **settings: object) -> None:
        self.log_path = log_path
        with log_path.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", *argv], cwd=ROOT, env=service_env(**settings),
                stdout=out, stderr=subprocess.STDOUT,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        return self.proc.poll()

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end (``subprocess.TimeoutExpired`` after ``timeout``)."""
        return self.proc.wait(timeout)

    def log(self) -> str:
        """Its output so far."""
        return self.log_path.read_text(errors="replace")

    def output(self) -> str:
        """The end of its output (for a failure's message)."""
        return self.log()[-5000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=self.GRACE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class Gunicorn(ServerProcess):
    """The web server as `make run` starts it: one gunicorn master and ``workers``
    worker processes, on a free port, with the settings of tests/server_settings.py;
    ``settings`` are more environment variables.  As a context manager, it is ready
    (answers requests) in the block and stopped after it.

    The port :func:`free_port` found may be taken by another process before gunicorn
    binds it (several test processes, servers and clients on one machine): gunicorn
    then says "Address already in use", and :meth:`wait_ready` starts it again on
    another port (``TRIES`` times at the most)."""

    ARGV = ["gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi:application"]
    TRIES = 3
    IN_USE = "Address already in use"

    def __init__(self, log: Path, workers: int = 1, **settings: object) -> None:
        self._log = log
        self._settings = {
            "WEB_CONCURRENCY": workers,
            "GUNICORN_THREADS": 4,
            "DJANGO_SETTINGS_MODULE": "tests.server_settings",
            "CONN_MAX_AGE": 0,  # nothing left connected to the test database
            "CORS_ALLOWED_ORIGINS": ", ".join(CORS_ORIGINS),
            "THROTTLE_ANON": "100000/min",
            "THROTTLE_USER": "100000/min",
            "THROTTLE_AUTH": "100000/min",
            "MAX_REQUEST_BYTES": None,  # the documented default
            **settings,
        }
        self._launch()

    def _launch(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(self.ARGV, self._log, **{"PORT": self.port, **self._settings})

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def wait_ready(self, timeout: float = 60) -> None:
        for attempt in range(1, self.TRIES + 1):
            if self._answers(timeout):
                return
            if attempt == self.TRIES or self.IN_USE not in self.log():
                break
            self.stop()
            self._launch()
        raise AssertionError(f"gunicorn did not answer:\n{self.output()}")

    def _answers(self, timeout: float) -> bool:
        """Whether it answers within ``timeout`` s (False at once when its port was taken)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"gunicorn exited:\n{self.output()}"
            conn = self.connection()
            try:
                conn.request("GET", "/api/v1/unknown")
                conn.getresponse().read()
                return True
            except OSError:
                if self.IN_USE in self.log():
                    return False
                time.sleep(0.2)
            finally:
                conn.close()
        return False

    def __enter__(self) -> "Gunicorn":
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self


def served(tmp_path_factory, name: str = "gunicorn", workers: int = 1, **settings) -> Iterator[Gunicorn]:
    """A module fixture's body: a server (``settings``: more environment), ready, stopped after."""
    with Gunicorn(tmp_path_factory.mktemp(name) / "gunicorn.log", workers, **settings) as server:
        yield server


@pytest.fixture(scope="module")
def gunicorn(django_db_setup, tmp_path_factory) -> Iterator[Gunicorn]:
    yield from served(tmp_path_factory)


# --- Requests to a real server ------------------------------------------------------


def call(server, method: str, path: str, body=None, token: str | None = None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=90)
    h = {"Content-Type": "application/json", **(headers or {})}
    if token:
        h["Authorization"] = f"Token {token}"
    conn.request(method, path, None if body is None else json.dumps(body), h)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    data = json.loads(raw) if raw else None
    return resp.status, data, {k.lower(): v for k, v in resp.getheaders()}


def register(server) -> tuple[str, str]:
    name = f"p{uuid.uuid4().hex[:12]}"
    status, body, _ = call(server, "POST", "/api/v1/auth/register", {"username": name, "password": "a-long-password-1"})
    assert status == 201, body
    return name, body["token"]


def two_player_game(server, ruleset: str = "standard") -> tuple[int, str, str]:
    (_, a), (_, b) = register(server), register(server)
    status, game, _ = call(server, "POST", "/api/v1/games", {"ruleset": ruleset, "max_players": 2}, a)
    assert status == 201, game
    assert call(server, "POST", f"/api/v1/games/{game['id']}/join", None, b)[0] == 200
    return game["id"], a, b


def step(server, game_id: int, tokens: list[str]) -> int:
    """One move by whoever may make one (the first of its ``legal_actions``); the new version."""
    for token in tokens:
        _, game, _ = call(server, "GET", f"/api/v1/games/{game_id}", token=token)
        if game["status"] != "active":
            return game["version"]
        if game["legal_actions"]:
            action = {**game["legal_actions"][0], "expected_version": game["version"]}
            status, body, _ = call(server, "POST", f"/api/v1/games/{game_id}/actions", action, token)
            assert status == 200, body
            return body["game"]["version"]
    raise AssertionError("nobody may act")


def play_until(server, game_id: int, tokens: list[str], version: int, at_least: int) -> int:
    """:func:`step` after step from ``version`` until the game is at ``at_least``; the new version."""
    while version < at_least:
        version = step(server, game_id, tokens)
    return version
