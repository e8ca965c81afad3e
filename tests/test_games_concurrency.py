"""Concurrent requests against a live server: the game row lock (on SQLite, the write
lock every transaction takes up front) and the Idempotency-Key table must let exactly
one of many simultaneous moves through, on PostgreSQL and on the embedded default."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection

from games import engine
from games.models import Game, IdempotencyRecord, Move
from tests.server_support import Gunicorn
from tests.games_support import (
    by_seat,
    clients,  # noqa: F401 (fixture)
    game_url,
    start_table,
)

THREADS = 16

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]


def _race(url: str, token: str, body: dict, headers: dict | None = None) -> list[requests.Response]:
    """POST ``body`` from THREADS threads at once; every response."""
    barrier = threading.Barrier(THREADS)

    def post(_):
        with requests.Session() as s:
            barrier.wait(timeout=30)
            return s.post(url, json=body, timeout=60,
                          headers={"Authorization": f"Token {token}", **(headers or {})})

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(post, range(THREADS)))


@pytest.fixture
def web(tmp_path):
    """The web server as users run it: gunicorn, 2 processes x 4 threads."""
    with Gunicorn(tmp_path / "gunicorn.log", workers=2) as server:
        yield server.url


@pytest.fixture
def race_table(clients):
    """A started two-player game: (gid, the client whose turn it is, a legal action, version)."""
    players = clients(2)
    gid = start_table(players, options={"rounds": 1})
    game = Game.objects.get(pk=gid)
    seat = game.current_seat
    client = by_seat(gid, players)[seat]
    action = engine.legal_actions(engine.State.from_dict(game.state), seat)[0]
    return gid, client, action, game.version


def test_same_expected_version_from_16_threads(web, race_table):
    gid, client, action, version = race_table
    moves = Move.objects.filter(game_id=gid).count()
    responses = _race(web + game_url(gid, "actions"), client.token, {**action, "expected_version": version})

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (THREADS - 1), [r.text for r in responses if r.status_code not in (200, 409)]
    for r in responses:
        if r.status_code == 409:
            assert r.headers["Content-Type"] == "application/problem+json"
            assert r.json()["code"] == "stale_version" and r.json()["version"] == version + 1
        else:
            assert r.json()["game"]["version"] == version + 1
    game = Game.objects.get(pk=gid)
    assert game.version == version + 1
    assert Move.objects.filter(game_id=gid).count() == moves + 1
    assert Move.objects.get(game_id=gid, seq=version + 1).action == action


def test_same_idempotency_key_from_16_threads(web, race_table):
    gid, client, action, version = race_table
    moves = Move.objects.filter(game_id=gid).count()
    url = web + game_url(gid, "actions")
    responses = _race(url, client.token, action, {"Idempotency-Key": "race-1"})

    ok = [r for r in responses if r.status_code == 200]
    busy = [r for r in responses if r.status_code == 409]
    assert len(ok) + len(busy) == THREADS, [(r.status_code, r.text) for r in responses]
    assert ok, "no request went through"
    assert all(r.json() == ok[0].json() for r in ok)
    assert all(r.headers["Content-Type"] == "application/problem+json"
               and r.json()["code"] == "idempotency_in_progress" for r in busy)
    assert Game.objects.get(pk=gid).version == version + 1
    assert Move.objects.filter(game_id=gid).count() == moves + 1
    record = IdempotencyRecord.objects.get(player=client.player, key="race-1")
    assert record.response_status == 200 and record.response_body == ok[0].json()
    # a later retry gets the same first response
    again = requests.post(url, json=action, timeout=30,
                          headers={"Authorization": f"Token {client.token}", "Idempotency-Key": "race-1"})
    assert again.status_code == 200 and again.json() == ok[0].json()
    assert Move.objects.filter(game_id=gid).count() == moves + 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite has no row locks: a retry waits instead")
def test_a_key_whose_first_request_is_still_running_gets_409(live_server, race_table):
    """While the first request with a key runs, it holds its record's row lock: a retry
    gets 409 idempotency_in_progress and changes nothing; once the first request is gone
    (its transaction ended without a response), the retry takes over."""
    import psycopg

    gid, client, action, version = race_table
    url = live_server.url + game_url(gid, "actions")
    headers = {"Authorization": f"Token {client.token}", "Idempotency-Key": "slow-1"}
    from games import services

    record = IdempotencyRecord.objects.create(
        player=client.player, key="slow-1", request_hash=services.fingerprint("POST", game_url(gid, "actions"), action)
    )
    moves = Move.objects.filter(game_id=gid).count()
    settings = connection.settings_dict
    dsn = f"host={settings['HOST']} port={settings['PORT'] or 5432} user={settings['USER']} dbname={settings['NAME']}"
    with psycopg.connect(dsn) as other:  # "the first request", mid-transaction
        other.execute("SELECT id FROM games_idempotencyrecord WHERE id = %s FOR UPDATE", [record.pk])
        busy = requests.post(url, json=action, headers=headers, timeout=30)
        assert busy.status_code == 409 and busy.json()["code"] == "idempotency_in_progress", busy.text
        assert Move.objects.filter(game_id=gid).count() == moves
        other.rollback()  # the first request died with nothing applied
    taken = requests.post(url, json=action, headers=headers, timeout=30)
    assert taken.status_code == 200, taken.text
    assert Game.objects.get(pk=gid).version == version + 1
    assert Move.objects.filter(game_id=gid).count() == moves + 1
    again = requests.post(url, json=action, headers=headers, timeout=30)
    assert again.status_code == 200 and again.json() == taken.json()
