"""A read replica (issue 30): a private primary cluster and a streaming replica made from
it with ``pg_basebackup -R``, both started by the test on their own ports, and the real
web server on them with ``DATABASE_REPLICA_URL``.  A game list is read from the replica
(proved with the replica's replay paused: a game committed on the primary is not listed
until it resumes), the move path never reads it (moves go on while it is paused), and
the lists fall back to the primary when the replica is stopped."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest

from bench._stack import PG_BIN, PrivatePostgres, PrivateReplica
from tests.celery_helpers import wait_for
from tests.server_support import Gunicorn, call, database_url, free_port, register

pytestmark = [
    pytest.mark.skipif(not (PG_BIN / "pg_basebackup").exists() or os.geteuid() != 0,
                       reason="needs PostgreSQL 15's binaries and root (initdb runs as postgres)"),
    # the test database, which the private primary is copied from, is made even when only this
    # file runs (pytest-django makes the databases the collected tests ask for)
    pytest.mark.django_db,
]


#: the server's DATABASE_REPLICA_STICKY_SECONDS
STICKY = 2


def _port(name: str) -> int:
    return int(os.environ.get(name) or free_port())


def copy_the_test_database(url: str) -> None:
    """The test database (migrated by pytest-django for this run) copied into ``url`` with
    pg_dump and psql: the schema ``migrate`` makes, its recorded migrations and rows, in
    seconds where running the migrations again on a new cluster took one to two minutes."""
    dump = subprocess.run([str(PG_BIN / "pg_dump"), "--no-owner", "--no-privileges", "-d", database_url()],
                          capture_output=True)
    assert dump.returncode == 0, dump.stderr.decode(errors="replace")
    load = subprocess.run([str(PG_BIN / "psql"), "-q", "-X", "-v", "ON_ERROR_STOP=1", "-d", url], input=dump.stdout,
                          capture_output=True)
    assert load.returncode == 0, load.stderr.decode(errors="replace")


@pytest.fixture(scope="module")
def clusters(django_db_setup):
    """(primary, replica): the primary holding the migrated schema, the replica streaming from it."""
    base = Path(tempfile.mkdtemp(prefix="uno-replica-"))
    base.chmod(0o755)
    primary = PrivatePostgres(base, _port("TEST_PRIMARY_PORT"))
    replica = PrivateReplica(base, _port("TEST_REPLICA_PORT"), primary)
    try:
        primary.start()
        copy_the_test_database(primary.url())
        replica.start()
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def web(clusters, tmp_path_factory):
    primary, replica = clusters
    with Gunicorn(tmp_path_factory.mktemp("replica") / "gunicorn.log", workers=1, DATABASE_URL=primary.url(),
                  DATABASE_REPLICA_URL=replica.url(), DATABASE_REPLICA_RETRY_SECONDS=1,
                  DATABASE_REPLICA_STICKY_SECONDS=STICKY) as server:
        yield server


def sql(url: str, query: str, *params):
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()


def caught_up(primary: PrivatePostgres, replica: PrivateReplica) -> None:
    """Wait until the replica has replayed everything the primary has committed."""
    [(lsn,)] = sql(primary.url(), "SELECT pg_current_wal_lsn()")
    wait_for(lambda: sql(replica.url(), "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", lsn)[0][0], timeout=30,
             interval=0.05, message="the replica to catch up")


def listed(web, token: str, query: str = "mine=true") -> set[int]:
    status, body, _ = call(web, "GET", f"/api/v1/games?{query}", token=token)
    assert status == 200, body
    return {g["id"] for g in body["results"]}


def test_lists_read_the_replica_the_move_path_the_primary_and_lists_fall_back_when_it_stops(clusters, web):
    primary, replica = clusters
    assert sql(replica.url(), "SELECT pg_is_in_recovery()") == [(True,)]
    (alice_name, alice), (_, bob), (_, carol) = register(web), register(web), register(web)
    caught_up(primary, replica)

    sql(replica.url(), "SELECT pg_wal_replay_pause()")  # the replica holds still
    try:
        status, game, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2}, alice)
        assert status == 201, game
        gid = game["id"]
        assert sql(primary.url(), "SELECT count(*) FROM games_game WHERE id = %s", gid) == [(1,)]
        assert sql(replica.url(), "SELECT count(*) FROM games_game WHERE id = %s", gid) == [(0,)]
        # the lists come from the replica: the new game is not in Carol's yet ...
        assert gid not in listed(web, carol, "status=waiting")
        # ... but Alice, who just created it, reads her own writes (the primary, for a while)
        assert gid in listed(web, alice)
        wait_for(lambda: gid not in listed(web, alice), timeout=30, interval=0.2,
                 message=f"Alice's reads back on the replica after DATABASE_REPLICA_STICKY_SECONDS={STICKY}")
        # the move path reads the primary only: join, start, a move, the game itself
        assert call(web, "POST", f"/api/v1/games/{gid}/join", None, bob)[0] == 200
        status, started, _ = call(web, "POST", f"/api/v1/games/{gid}/start", None, alice)
        assert status == 200, started
        mover = alice if started["legal_actions"] else bob
        _, view, _ = call(web, "GET", f"/api/v1/games/{gid}", token=mover)
        status, moved, _ = call(web, "POST", f"/api/v1/games/{gid}/actions",
                                {**view["legal_actions"][0], "expected_version": view["version"]}, mover)
        assert status == 200, moved
        assert call(web, "GET", f"/api/v1/games/{gid}", token=alice)[1]["version"] == moved["game"]["version"]
        # the games waiting for one's decision: the primary's, always
        other = bob if mover == alice else alice
        wait_for(lambda: gid not in listed(web, other), timeout=30, interval=0.2, message="stickiness over")
        assert gid in listed(web, other, "my_turn=true")
        assert sql(replica.url(), "SELECT count(*) FROM games_game WHERE id = %s", gid) == [(0,)]
    finally:
        sql(replica.url(), "SELECT pg_wal_replay_resume()")
    caught_up(primary, replica)
    assert gid in listed(web, carol, "status=active")

    replica.stop()  # down: the lists fall back to the primary
    status, second, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2}, alice)
    assert status == 201
    assert second["id"] in listed(web, carol, "status=waiting")
    status, profile, _ = call(web, "GET", f"/api/v1/players/{alice_name}")
    assert status == 200, profile
    status, board, _ = call(web, "GET", "/api/v1/leaderboards/standard")
    assert status == 200, board
    assert "the read replica cannot be reached" in web.log()

    replica.start_again()  # back: after DATABASE_REPLICA_RETRY_SECONDS the lists read it again
    caught_up(primary, replica)
    sql(replica.url(), "SELECT pg_wal_replay_pause()")
    try:
        status, third, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2}, alice)
        assert status == 201
        wait_for(lambda: third["id"] not in listed(web, carol, "status=waiting"), timeout=30, interval=0.2,
                 message="the lists to read the replica again")
    finally:
        sql(replica.url(), "SELECT pg_wal_replay_resume()")


def test_a_finished_games_history_is_never_read_short_from_a_lagging_replica(clusters, web):
    """Its moves and scores come from the replica only when it has them all."""
    primary, replica = clusters
    (alice_name, alice), (_, bob), (_, carol) = register(web), register(web), register(web)
    status, game, _ = call(web, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2,
                                                         "options": {"rounds": 1}}, alice)
    gid = game["id"]
    assert call(web, "POST", f"/api/v1/games/{gid}/join", None, bob)[0] == 200
    assert call(web, "POST", f"/api/v1/games/{gid}/start", None, alice)[0] == 200
    caught_up(primary, replica)
    sql(replica.url(), "SELECT pg_wal_replay_pause()")  # the replica misses the whole game
    try:
        view: dict = {}
        for _ in range(3000):
            for token in (alice, bob):
                _, view, _ = call(web, "GET", f"/api/v1/games/{gid}", token=token)
                if view["status"] != "active" or view["legal_actions"]:
                    break
            if view["status"] != "active":
                break
            plays = [a for a in view["legal_actions"] if a["type"] in ("play", "choose_color")]
            status, body, _ = call(web, "POST", f"/api/v1/games/{gid}/actions",
                                   {**(plays or view["legal_actions"])[0], "expected_version": view["version"]}, token)
            assert status == 200, body
        assert view["status"] == "finished"
        # read by Carol, who sat out (the players read their own writes from the primary anyway)
        seqs: list[int] = []
        while True:
            status, page, _ = call(web, "GET", f"/api/v1/games/{gid}/moves?limit=100&after={len(seqs)}", token=carol)
            assert status == 200, page
            seqs += [m["seq"] for m in page["results"]]
            if page["next_cursor"] is None:
                break
        assert seqs == list(range(1, view["version"] + 1))
        status, scores, _ = call(web, "GET", f"/api/v1/games/{gid}/scores", token=carol)
        assert status == 200 and len(scores["rounds"]) == 1, scores
        # her profile's games come from the replica: not finished there yet
        status, games, _ = call(web, "GET", f"/api/v1/players/{alice_name}/games")
        assert status == 200 and gid not in {g["id"] for g in games["results"]}, games
    finally:
        sql(replica.url(), "SELECT pg_wal_replay_resume()")
    caught_up(primary, replica)
    status, games, _ = call(web, "GET", f"/api/v1/players/{alice_name}/games")
    assert status == 200 and gid in {g["id"] for g in games["results"]}, games
