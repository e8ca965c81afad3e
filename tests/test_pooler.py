"""PgBouncer in transaction mode (issue 30): Debian's pgbouncer 1.18 with its stock
settings (prepared statements do not survive a transaction, unknown startup parameters
are refused) in front of the test database, started by the test; the web server, a
Celery worker and beat reach the database only through it, with ``DB_POOLER=transaction``.

The essentials of the concurrency tests run here on every PostgreSQL run; the whole of
the ``concurrency``-marked tests runs through a PgBouncer with ``DB_POOLER=transaction``
in the environment (tests/pooler_support.py).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import psycopg
import pytest
import requests
from django.db import connection

from bench._stack import PgBouncer
from games.models import Game, IdempotencyRecord, Move
from tests import pooler_support
from tests.celery_helpers import celery_beat, celery_worker, requires_redis, wait_for
from tests.games_support import clients, game_url  # noqa: F401 (fixture)
from tests.server_support import ROOT, Gunicorn, call, register, service_env
from tests.test_games_concurrency import THREADS, _race, race_table  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PgBouncer is for PostgreSQL"),
    pytest.mark.skipif(not PgBouncer.available(), reason="Debian's pgbouncer is not installed (.ci/run installs it)"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(scope="module")
def bouncer(django_db_setup, django_db_blocker):
    """The run's PgBouncer (DB_POOLER=transaction), or one of this module's in front of
    the test database's server."""
    if pooler_support.RUN_BOUNCER is not None:
        yield pooler_support.RUN_BOUNCER
        return
    with django_db_blocker.unblock():
        pooler_support.set_lock_timeout()
    with pooler_support.pgbouncer_before(pooler_support.direct_port()) as b:
        yield b


@pytest.fixture(scope="module")
def pooled_env(bouncer):
    """The settings of a process of the project behind it."""
    return {"DATABASE_URL": bouncer.url(connection.settings_dict["NAME"]), "DB_POOLER": "transaction"}


@pytest.fixture(scope="module")
def web(pooled_env, tmp_path_factory):
    """gunicorn, 2 processes x 4 threads, reaching the database only through PgBouncer."""
    with Gunicorn(tmp_path_factory.mktemp("pooled") / "gunicorn.log", workers=2, **pooled_env) as server:
        yield server


def transactions(bouncer: PgBouncer) -> int:
    """Transactions PgBouncer has carried to the test database so far."""
    cols = None
    total = 0
    for row in bouncer.admin("SHOW STATS"):
        if cols is None:
            cols = [c.name for c in bouncer_stats_columns(bouncer)]
        stats = dict(zip(cols, row))
        if stats["database"] == connection.settings_dict["NAME"]:
            total += int(stats["total_xact_count"])
    return total


def bouncer_stats_columns(bouncer: PgBouncer):
    with psycopg.connect(bouncer.url("pgbouncer"), autocommit=True, prepare_threshold=None) as conn:
        return conn.execute("SHOW STATS").description


def test_the_settings_behind_a_pooler_send_nothing_pgbouncer_refuses(bouncer):
    """DB_POOLER=transaction: no startup options (PgBouncer refuses the lock_timeout the
    direct settings send), nothing prepared, no server-side cursor."""
    code = ("import json, django; django.setup(); from django.conf import settings; "
            "d = settings.DATABASES['default']; print(json.dumps([d['OPTIONS'], d.get('DISABLE_SERVER_SIDE_CURSORS')]))")
    url = bouncer.url("uno")

    def databases(**env):
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=service_env(DATABASE_URL=url, **env),
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    direct_options, _ = databases(DB_POOLER=None)
    assert direct_options["options"].startswith("-c lock_timeout=")
    with pytest.raises(psycopg.OperationalError, match="unsupported startup parameter: options"):
        psycopg.connect(bouncer.url(connection.settings_dict["NAME"]), options=direct_options["options"])

    options, no_server_cursors = databases(DB_POOLER="transaction")
    assert options == {"prepare_threshold": None} and no_server_cursors is True


def test_manage_check_warns_when_live_events_would_need_listen_behind_the_pooler(bouncer):
    env = {"DATABASE_URL": bouncer.url(connection.settings_dict["NAME"]), "DB_POOLER": "transaction"}
    without = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                             env=service_env(REDIS_URL="", **env))
    assert "uno.W301" in without.stderr + without.stdout
    with_redis = subprocess.run([sys.executable, "manage.py", "check", "--database", "default"], cwd=ROOT,
                                capture_output=True, text=True, env=service_env(REDIS_URL="redis://127.0.0.1:1/0", **env))
    assert with_redis.returncode == 0, with_redis.stderr
    assert "uno.W301" not in with_redis.stderr + with_redis.stdout
    assert "uno.W302" not in with_redis.stderr + with_redis.stdout  # the database's lock_timeout is set


def test_sixteen_threads_moving_one_game_through_pgbouncer_one_applies(web, bouncer, race_table):
    gid, client, action, version = race_table
    moves = Move.objects.filter(game_id=gid).count()
    before = transactions(bouncer)
    responses = _race(web.url + game_url(gid, "actions"), client.token, {**action, "expected_version": version})
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (THREADS - 1), [r.text for r in responses if r.status_code not in (200, 409)]
    assert all(r.json()["code"] == "stale_version" for r in responses if r.status_code == 409)
    assert Game.objects.get(pk=gid).version == version + 1
    assert Move.objects.filter(game_id=gid).count() == moves + 1
    assert transactions(bouncer) >= before + THREADS  # every request's transaction went through PgBouncer


def test_one_idempotency_key_from_sixteen_threads_through_pgbouncer_moves_once(web, race_table):
    gid, client, action, version = race_table
    moves = Move.objects.filter(game_id=gid).count()
    url = web.url + game_url(gid, "actions")
    responses = _race(url, client.token, action, {"Idempotency-Key": "pooled-1"})
    ok = [r for r in responses if r.status_code == 200]
    busy = [r for r in responses if r.status_code == 409]
    assert ok and len(ok) + len(busy) == THREADS, [(r.status_code, r.text) for r in responses]
    assert all(r.json() == ok[0].json() for r in ok)
    assert all(r.json()["code"] == "idempotency_in_progress" for r in busy)
    again = requests.post(url, json=action, timeout=30,
                          headers={"Authorization": f"Token {client.token}", "Idempotency-Key": "pooled-1"})
    assert again.status_code == 200 and again.json() == ok[0].json()
    assert Move.objects.filter(game_id=gid).count() == moves + 1
    assert IdempotencyRecord.objects.get(player=client.player, key="pooled-1").response_status == 200


def test_a_whole_game_through_a_server_behind_pgbouncer(web):
    """Two people play a one-round game to its end, every read and move through
    PgBouncer (the hot reads bind server-side, unprepared), and it verifies."""
    (_, a), (_, b) = register(web), register(web)
    status, game, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2,
                                                         "options": {"rounds": 1}}, a)
    assert status == 201, game
    gid = game["id"]
    assert call(web, "POST", f"/api/v1/games/{gid}/join", None, b)[0] == 200
    assert call(web, "POST", f"/api/v1/games/{gid}/start", None, a)[0] == 200
    rng = random.Random(30)
    g: dict = {}
    for _ in range(3000):
        for token in (a, b):  # whoever may act
            _, g, _ = call(web, "GET", f"/api/v1/games/{gid}", token=token)
            if g["status"] != "active" or g["legal_actions"]:
                break
        if g["status"] != "active":
            break
        legal = g["legal_actions"]
        plays = [x for x in legal if x["type"] in ("play", "choose_color")]
        status, body, _ = call(web, "POST", f"/api/v1/games/{gid}/actions",
                               {**rng.choice(plays or legal), "expected_version": g["version"]}, token)
        assert status == 200, body
    assert g["status"] == "finished", "the game did not end in 3000 moves"
    game_row = Game.objects.get(pk=gid)
    assert Move.objects.filter(game_id=gid).count() == game_row.version
    verify = subprocess.run([sys.executable, "manage.py", "verify_game", str(gid)], cwd=ROOT,
                            capture_output=True, text=True, env=service_env())
    assert verify.returncode == 0, verify.stdout + verify.stderr


@requires_redis
def test_the_sweeper_and_the_bots_through_pgbouncer_with_worker_and_beat(web, pooled_env, tmp_path):
    """A real worker and beat behind PgBouncer: the sweeper moves a duel of one-second
    turns at its deadlines, and a game left to the autopilot against bots plays to its end."""
    (_, a), (_, b) = register(web), register(web)
    with celery_worker(tmp_path, **pooled_env) as worker, celery_beat(tmp_path, sweep_seconds=0.5, **pooled_env):
        status, duel, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2,
                                                              "turn_seconds": 1}, a)
        assert status == 201, duel
        assert call(web, "POST", f"/api/v1/games/{duel['id']}/join", None, b)[0] == 200
        assert call(web, "POST", f"/api/v1/games/{duel['id']}/start", None, a)[0] == 200
        status, bots, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "options": {"rounds": 1},
                                                              "bots": [{"level": "easy"}, {"level": "normal"}]}, a)
        assert status == 201, bots
        assert call(web, "POST", f"/api/v1/games/{bots['id']}/start", None, a)[0] == 200
        assert call(web, "POST", f"/api/v1/games/{bots['id']}/leave", None, a)[0] == 200  # the autopilot plays
        wait_for(lambda: Move.objects.filter(game_id=duel["id"], by="timer").count() >= 2, timeout=30,
                 interval=0.1, message=f"two timer moves:\n{worker.output()}")
        wait_for(lambda: Game.objects.get(pk=bots["id"]).status == "finished", timeout=90, interval=0.2,
                 message=f"the bots' game's end:\n{worker.output()}")
        log = worker.log()
    assert set(Move.objects.filter(game_id=bots["id"], seq__gt=1).values_list("by", flat=True)) == {"bot"}
    assert "Traceback" not in log, log[-3000:]
