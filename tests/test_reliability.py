"""Faults with real processes: a killed pool process, a killed worker, a locked
database, a missing worker.  Each runs on PostgreSQL + Redis and again on the
embedded default (SQLite, filesystem broker) under `make test`."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from contextlib import contextmanager

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game, Move

from .celery_helpers import (
    REDIS_URL,
    celery_beat,
    celery_worker,
    child_pids,
    client_for,
    wait_for,
)

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]

ON_REDIS = REDIS_URL.startswith("redis")


def version_of(gid: int) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=gid)


def robots_only_game(make_player, levels: list[str]) -> int:
    """A started game whose human creator left at once: every seat is a bot or on
    autopilot, so it plays itself through the worker."""
    _, token = make_player()
    host = client_for(token)
    r = host.post("/api/v1/games", {"ruleset": "standard", "bots": [{"level": lv} for lv in levels],
                                    "options": {"target_score": 100000}}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert host.post(f"/api/v1/games/{gid}/start").status_code == 200
    assert host.post(f"/api/v1/games/{gid}/leave").status_code == 200
    return gid


def moves_on(gid: int, by: int, timeout: float, message: str) -> int:
    """Wait until the game has moved ``by`` versions from now; returns the version."""
    start = version_of(gid)
    return wait_for(lambda: (v := version_of(gid)) >= start + by and v, timeout=timeout, interval=0.05,
                    message=message)


# --- a killed pool process --------------------------------------------------


@pytest.mark.skipif(not ON_REDIS, reason="the filesystem broker's worker has no pool processes (next test)")
def test_a_killed_pool_process_neither_freezes_the_worker_nor_loses_its_task(tmp_path, make_player):
    """Prefork on Redis: kill -9 a pool process in the middle of a game.  The worker
    replaces it, the task it was running goes back to the queue (acks_late +
    reject_on_worker_lost) and the game moves again, with no beat running: the worker
    recovers by itself.  (The pool notices a killed process's job 4.5-5.3 s after the
    kill here, loaded or not; nothing but the redelivered task can move the game.)"""
    recovery = 15  # seconds (no beat, no sweep: the redelivered task moves the game)
    with celery_worker(tmp_path, concurrency=2, UNO_BOT_THINK_SECONDS=0, UNO_HARD_BUDGET_MS=100) as worker:
        gid = robots_only_game(make_player, ["hard", "hard", "hard"])
        moves_on(gid, 3, timeout=30, message="the game under way")
        for round_no in range(3):
            pool = wait_for(lambda: len(child_pids(worker.pid)) == 2 and child_pids(worker.pid), timeout=10,
                            message="two pool processes")
            os.kill(pool[round_no % 2], signal.SIGKILL)
            try:
                moves_on(gid, 1, timeout=recovery, message=f"a move after pool process {pool[round_no % 2]} died")
            except BaseException:
                print(worker.log()[-6000:])
                raise
        assert worker.poll() is None, worker.log()
        assert "exited with 'signal 9 (SIGKILL)'" in worker.log()
    assert Move.objects.filter(game_id=gid).count() == version_of(gid)  # one move per version


@pytest.mark.skipif(ON_REDIS, reason="the Redis worker's pool processes are covered by the test above")
def test_the_default_worker_has_no_pool_process_to_wedge_and_survives_its_own_death(tmp_path, make_player):
    """On the filesystem broker the worker runs tasks in threads (billiard's blocking
    pool shares one queue lock that a killed pool process can hold forever).  Killing
    the whole worker loses the messages it held: a new worker plus the sweeper (the
    robot's deadline) get the game moving again."""
    settings = {"UNO_BOT_THINK_SECONDS": 0, "UNO_HARD_BUDGET_MS": 50, "UNO_BOT_STALL_SECONDS": 1}
    with celery_worker(tmp_path, **settings) as worker:
        gid = robots_only_game(make_player, ["hard", "hard", "hard"])
        moves_on(gid, 3, timeout=30, message="the game under way")
        assert child_pids(worker.pid) == []  # threads: no pool process at all
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(5)
    stopped = version_of(gid)
    with celery_worker(tmp_path, name="w2", **settings), celery_beat(tmp_path, sweep_seconds=1, **settings):
        moves_on(gid, 3, timeout=15, message="moves after the worker was replaced")
    assert version_of(gid) > stopped
    assert Move.objects.filter(game_id=gid).count() == version_of(gid)


# --- a locked database -------------------------------------------------------


@contextmanager
def game_locked(gid: int):
    """Another connection holds what a move needs: on SQLite the database's write lock
    (BEGIN IMMEDIATE), on PostgreSQL the game's row lock."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        other = sqlite3.connect(db["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()
    else:
        import psycopg

        dsn = f"host={db['HOST']} port={db['PORT'] or 5432} user={db['USER']} dbname={db['NAME']}"
        with psycopg.connect(dsn) as other:
            other.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [gid])
            yield
            other.rollback()


def test_a_task_that_meets_a_locked_database_is_retried_and_the_move_happens_once(tmp_path, make_player):
    gid = robots_only_game(make_player, ["normal"])  # its first bot task waits in the broker
    version = version_of(gid)
    settings = {"UNO_BOT_THINK_SECONDS": 0, "SQLITE_BUSY_TIMEOUT": 1, "DB_LOCK_TIMEOUT_MS": 300}
    with game_locked(gid):
        with celery_worker(tmp_path, **settings) as worker:
            wait_for(lambda: "Retry in" in worker.log(), timeout=20, message="the task retried")
            assert version_of(gid) == version  # nothing happened while locked
            time.sleep(0.2)
    with celery_worker(tmp_path, name="w2", **settings) as worker:  # (any worker takes the retry)
        moves_on(gid, 2, timeout=30, message="the retried task acting once the lock is gone")
        log = worker.log()
    moves = list(Move.objects.filter(game_id=gid).order_by("seq").values_list("seq", flat=True))
    assert moves == list(range(1, len(moves) + 1))  # every version once: no move recorded twice
    assert "raised unexpected" not in log, log


# --- health ------------------------------------------------------------------


def test_health_says_503_without_a_worker_and_ok_with_worker_and_beat(tmp_path, api, settings):
    from games.models import Heartbeat

    Heartbeat.objects.all().delete()
    body = api.get("/api/v1/health").json()
    assert (body["status"], body["worker"], body["sweeper"]) == (503, "error", "error")

    with celery_worker(tmp_path, UNO_WORKER_HEARTBEAT_SECONDS=1):
        wait_for(lambda: api.get("/api/v1/health").json()["worker"] == "ok", timeout=20,
                 message="the worker's heartbeat")
        assert api.get("/api/v1/health").json()["sweeper"] == "error"  # no beat yet
        with celery_beat(tmp_path, sweep_seconds=1):
            wait_for(lambda: api.get("/api/v1/health").status_code == 200, timeout=20,
                     message="health 200 with worker and beat")
    settings.UNO_WORKER_HEARTBEAT_SECONDS = 1
    settings.UNO_SWEEP_SECONDS = 1
    # no worker: within 3 periods + 5 s the heartbeats are stale and health says so
    Heartbeat.objects.update(at=timezone.now() - timezone.timedelta(seconds=9))
    body = api.get("/api/v1/health").json()
    assert (body["status"], body["worker"], body["sweeper"]) == (503, "error", "error")


# --- a request that meets a locked database -------------------------------------


def test_a_request_that_meets_a_locked_database_answers_503_and_changes_nothing(tmp_path, make_player):
    import requests

    from tests.server_support import Gunicorn

    from .test_celery_worker import two_player_game

    gid, clients, g = two_player_game(make_player)
    client = clients[g["current_seat"]]
    g = client.get(f"/api/v1/games/{gid}").json()  # as the seat that owes the decision
    token = client._credentials["HTTP_AUTHORIZATION"]
    action = {**g["legal_actions"][0], "expected_version": g["version"]}
    moves = Move.objects.filter(game_id=gid).count()
    with Gunicorn(tmp_path / "gunicorn.log", workers=1, SQLITE_BUSY_TIMEOUT=1, DB_LOCK_TIMEOUT_MS=300) as server:
        url = server.url
        post = lambda: requests.post(f"{url}/api/v1/games/{gid}/actions", json=action,  # noqa: E731
                                     headers={"Authorization": token}, timeout=30)
        with game_locked(gid):
            r = post()
            assert r.status_code == 503, r.text
            assert r.headers["Content-Type"] == "application/problem+json"
            assert r.headers["Retry-After"] == "1" and r.json()["code"] == "unavailable"
            assert version_of(gid) == g["version"] and Move.objects.filter(game_id=gid).count() == moves
        r = post()  # the retry the client was told to make
        assert r.status_code == 200, r.text
    assert version_of(gid) == g["version"] + 1 and Move.objects.filter(game_id=gid).count() == moves + 1
