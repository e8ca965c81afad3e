"""Live events through Redis fan-out (``LIVE_FANOUT=redis``, ``config.fanout``), across
web processes: two real gunicorn servers on the one PostgreSQL test database and on a
private ``redis-server`` this module starts on a port of its own (and stops and starts
again mid-game), so that nothing it does touches the Redis of the other tests.

- a stream on server A receives every move committed through server B, in order, once;
  the same across a restart of Redis (moves committed while it is down included);
- a feed on A gets ``your_turn`` after a move on B;
- the most streams per player holds across A and B, and a stream's place comes back when
  it closes or when its process dies;
- a write nobody published (a writer that could not reach Redis) arrives within
  ``LIVE_CATCHUP_SECONDS``;
- with redis fan-out no server opens a ``LISTEN`` connection (and with postgres fan-out,
  the control, one does, and a stream on A still gets B's moves);
- every write path a scenario runs names what it writes: each game the PostgreSQL
  trigger (the old LISTEN's source, still installed) notifies was published on its
  channel, and nothing fell back to ``uno:live:all`` (the guard, shown to work on a write
  nothing named).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
import redis
from django.db import connection, transaction
from django.utils import timezone

from tests.celery_helpers import child_pids, wait_for
from tests.server_support import Gunicorn, call, free_port, play_until, register, step, two_player_game
from tests.sse_support import open_stream

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="two web processes on one PostgreSQL database"),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server to start a private Redis"),
]


def _port() -> int:
    """A free port: from ``UNO_TEST_PORTS`` (``low-high``) when set, else any."""
    span = os.environ.get("UNO_TEST_PORTS", "")
    if not span:
        return free_port()
    import socket

    low, high = (int(x) for x in span.split("-"))
    for port in range(low, high + 1):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {span}")


class RedisServer:
    """A private ``redis-server`` (no persistence) on its own port, stopped and started
    again at will on the same port."""

    def __init__(self, workdir: Path) -> None:
        self.port = _port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = (self.workdir / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)], stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        wait_for(lambda: self._pings(client), 20, 0.05, "redis-server answers")

    @staticmethod
    def _pings(client) -> bool:
        try:
            return client.ping()
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)
        self.proc = None


#: LISTEN needs a direct connection: behind a pooler in transaction mode (DB_POOLER=transaction,
#: tests/pooler_support.py) the tests that listen themselves, or run servers on LISTEN, cannot run
needs_listen = pytest.mark.skipif(os.environ.get("DB_POOLER", "").strip().lower() == "transaction",
                                  reason="LISTEN does not work through a pooler in transaction mode")


@pytest.fixture(scope="module")
def private_redis(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


def fanout_settings(redis_url: str, **more) -> dict:
    return {"REDIS_URL": redis_url, "LIVE_FANOUT": "redis", "LIVE_MAX_STREAMS_PER_PLAYER": 2,
            "LIVE_STREAM_LEASE_SECONDS": 3,
            # only the (re)subscription catches up, not the periodic pass: a move missed
            # without it shows
            "LIVE_CATCHUP_SECONDS": 3600, **more}


@pytest.fixture(scope="module")
def servers(django_db_setup, tmp_path_factory, private_redis):
    """Servers A and B, redis fan-out on the private Redis."""
    root = tmp_path_factory.mktemp("fanout")
    with Gunicorn(root / "a.log", 1, **fanout_settings(private_redis.url)) as a, \
            Gunicorn(root / "b.log", 1, **fanout_settings(private_redis.url)) as b:
        yield a, b


def moves_of(stream, until_version: int) -> list[int]:
    """The versions of the moves ``stream`` received up to ``until_version``."""
    got = stream.until(lambda e: e.event == "message" and e.data["version"] >= until_version, timeout=60)
    return [e.data["version"] for e in got if e.event == "message"]


def _listeners(redis_url: str, channel: str) -> int:
    return dict(redis.Redis.from_url(redis_url).pubsub_numsub(channel))[channel.encode()]


def test_a_stream_on_one_process_receives_every_move_committed_through_the_other_in_order_once(
        servers, private_redis):
    a, b = servers
    game_id, alice, bob = two_player_game(b)
    stream = open_stream(a.port, f"/api/v1/games/{game_id}/events", alice)
    channel = f"uno:live:g:{game_id}"
    try:
        assert stream.status == 200, stream.body
        assert call(b, "POST", f"/api/v1/games/{game_id}/start", None, alice)[0] == 200
        version = 1
        version = play_until(b, game_id, [alice, bob], version, 30)
        got = moves_of(stream, version)
        assert got == list(range(2, version + 1)) or got == list(range(1, version + 1)), got
        # only the process whose subscriber watches the game listens to its channel
        assert _listeners(private_redis.url, channel) == 1
    finally:
        stream.close()
    wait_for(lambda: _listeners(private_redis.url, channel) == 0, 30, 0.1, "unsubscribed once nobody watches")


def test_no_move_is_missed_or_sent_twice_across_a_restart_of_redis(servers, private_redis):
    a, b = servers
    game_id, alice, bob = two_player_game(b)
    stream = open_stream(a.port, f"/api/v1/games/{game_id}/events", bob)
    try:
        assert stream.status == 200, stream.body
        assert call(b, "POST", f"/api/v1/games/{game_id}/start", None, alice)[0] == 200
        version = 1
        version = play_until(b, game_id, [alice, bob], version, 10)
        before = moves_of(stream, version)
        private_redis.stop()
        # committed while Redis is down: nothing is published
        version = play_until(b, game_id, [alice, bob], version, 20)
        # a stream opens without Redis too (counted by its process alone)
        alone = open_stream(a.port, f"/api/v1/games/{game_id}/events?after={version}", alice)
        alone.close()
        assert alone.status == 200, alone.body
        private_redis.start()  # (the same port, empty)
        # nothing more moves: what was committed meanwhile comes from the hub's catch-up
        # once it is subscribed again (the periodic catch-up is off: LIVE_CATCHUP_SECONDS)
        meanwhile = moves_of(stream, version)
        version = play_until(b, game_id, [alice, bob], version, 30)
        after = moves_of(stream, version)
        got = before + meanwhile + after
        assert got[0] in (1, 2) and got == list(range(got[0], version + 1)), got
    finally:
        stream.close()


def test_a_feed_on_one_process_gets_your_turn_after_a_move_on_the_other(servers):
    """The feed is open before its player joins the game (through B): it learns of the
    game from the player's channel, then follows the game's."""
    a, b = servers
    (_, alice), (_, bob) = register(b), register(b)
    feed = open_stream(a.port, "/api/v1/players/me/events", bob)
    try:
        assert feed.status == 200, feed.body
        status, game, _ = call(b, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2}, alice)
        assert status == 201, game
        game_id = game["id"]
        assert call(b, "POST", f"/api/v1/games/{game_id}/join", None, bob)[0] == 200
        assert call(b, "POST", f"/api/v1/games/{game_id}/start", None, alice)[0] == 200
        started = feed.until(lambda e: e.event == "game_started", timeout=60)[-1]
        assert started.data["game"] == game_id
        turns = 0
        for _ in range(12):
            _, game, _ = call(b, "GET", f"/api/v1/games/{game_id}", token=bob)
            if game["status"] != "active":
                break
            mine = bool(game["legal_actions"])
            version = step(b, game_id, [alice, bob])
            _, game, _ = call(b, "GET", f"/api/v1/games/{game_id}", token=bob)
            if not mine and game["status"] == "active" and game["legal_actions"]:  # alice's move on B: bob's turn
                event = feed.until(lambda e: e.event == "your_turn" and e.data["version"] == version, timeout=60)[-1]
                assert event.data["game"] == game_id
                turns += 1
        assert turns >= 1
    finally:
        feed.close()


def test_the_most_streams_per_player_holds_across_processes_and_comes_back(servers, private_redis, tmp_path):
    a, b = servers
    game_id, alice, _ = two_player_game(b)
    path = f"/api/v1/games/{game_id}/events"
    first = open_stream(a.port, path, alice)
    second = open_stream(b.port, "/api/v1/players/me/events", alice)
    opened = [first, second]
    try:
        assert (first.status, second.status) == (200, 200)
        for server in (a, b):  # the third, on either process
            refused = open_stream(server.port, path, alice)
            assert refused.status == 429, refused.body
            assert refused.headers["retry-after"] == "10"
            problem = json.loads(refused.body)
            assert (problem["code"], problem["limit"]) == ("too_many_streams", 2)
        first.close()  # its place comes back (given back on the process's lease thread)
        third = wait_for(lambda: _ok_or_none(open_stream(b.port, path, alice), opened), 30, 0.2,
                         "a closed stream's place is given back")
        assert third.status == 200
        second.close()
        third.close()
        # a process holding the player's streams dies: its leases lapse
        with Gunicorn(tmp_path / "c.log", 1, **fanout_settings(private_redis.url)) as c:
            held = [open_stream(c.port, path, alice) for _ in range(2)]
            opened += held
            assert [s.status for s in held] == [200, 200]
            refused = open_stream(a.port, path, alice)  # c's two streams count on a
            opened.append(refused)
            assert refused.status == 429, refused.body
            for pid in [*child_pids(c.pid), c.pid]:
                os.kill(pid, signal.SIGKILL)
            c.proc.wait(10)
            back = wait_for(lambda: _ok_or_none(open_stream(a.port, path, alice), opened), 60, 0.3,
                            "a dead process's streams lapse")
            assert back.status == 200
    finally:
        for s in opened:
            s.close()


def _ok_or_none(stream, opened: list):
    opened.append(stream)
    if stream.status == 200:
        return stream
    stream.close()
    return None


def _listening(db_name: str) -> list[tuple]:
    with psycopg.connect(_conninfo(), autocommit=True) as conn:
        return conn.execute("SELECT pid, query FROM pg_stat_activity WHERE datname = %s AND query ILIKE 'LISTEN%%'",
                            (db_name,)).fetchall()


def _conninfo() -> str:
    s = connection.settings_dict
    return psycopg.conninfo.make_conninfo(dbname=s["NAME"], user=s["USER"] or None, password=s["PASSWORD"] or None,
                                          host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432)


@needs_listen
def test_with_redis_fanout_no_server_listens_on_postgresql_and_listen_stays_for_postgres(servers, tmp_path):
    a, b = servers
    game_id, alice, bob = two_player_game(b)
    streams = [open_stream(a.port, f"/api/v1/games/{game_id}/events", alice),
               open_stream(b.port, "/api/v1/players/me/events", bob)]
    name = connection.settings_dict["NAME"]
    try:
        assert [s.status for s in streams] == [200, 200]
        assert call(b, "POST", f"/api/v1/games/{game_id}/start", None, alice)[0] == 200
        moves_of(streams[0], step(b, game_id, [alice, bob]))  # both hubs run
        assert _listening(name) == []
        # the control: postgres fan-out listens (one connection per web process), and a stream
        # on one gets the moves committed through the other
        env = {"LIVE_FANOUT": "postgres", "REDIS_URL": None}
        with Gunicorn(tmp_path / "pa.log", 1, **env) as pa, Gunicorn(tmp_path / "pb.log", 1, **env) as pb:
            listening = open_stream(pa.port, f"/api/v1/games/{game_id}/events", bob)
            streams.append(listening)
            assert listening.status == 200
            rows = wait_for(lambda: _listening(name), 30, 0.1, "postgres fan-out LISTENs")
            assert all(q.strip() == "LISTEN uno_live" for _, q in rows)
            version = step(pb, game_id, [alice, bob])
            assert moves_of(listening, version)[-1] == version
    finally:
        for s in streams:
            s.close()


# --- every write path names what it writes ---------------------------------------------


class Recorder:
    """What was published on the private Redis (``uno:live:*``) and what the PostgreSQL
    trigger notified (``LISTEN uno_live``), from threads of the test."""

    def __init__(self, redis_url: str) -> None:
        self.published: list[tuple[str, str]] = []
        self.notified: list[str] = []
        self._stop = threading.Event()
        self._pubsub = redis.Redis.from_url(redis_url).pubsub()
        self._pubsub.psubscribe("uno:live:*")
        wait_for(lambda: self._pubsub.get_message(timeout=0.1), 10, 0, "psubscribe confirmed")
        self._pg = psycopg.connect(_conninfo(), autocommit=True)
        self._pg.execute("LISTEN uno_live")
        self._threads = [threading.Thread(target=self._redis, daemon=True),
                         threading.Thread(target=self._postgres, daemon=True)]
        for t in self._threads:
            t.start()

    def _redis(self) -> None:
        while not self._stop.is_set():
            m = self._pubsub.get_message(timeout=0.1)
            if m and m["type"] == "pmessage":
                self.published.append((m["channel"].decode(), m["data"].decode()))

    def _postgres(self) -> None:
        while not self._stop.is_set():
            for note in self._pg.notifies(timeout=0.1):
                self.notified.append(note.payload)

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(5)
        self._pubsub.close()
        self._pg.close()


def _unpublished(rec: Recorder) -> set[int]:
    games = {int(p) for p in rec.notified if p.isdigit()}
    return games - {int(c.rsplit(":", 1)[1]) for c, _ in rec.published if c.startswith("uno:live:g:")}


@needs_listen
def test_every_write_path_of_a_scenario_publishes_what_the_trigger_notifies(servers, private_redis):
    """The scenario writes games every way the API does: created (with and without bots),
    joined, left (a waiting game deleted with its last player), started, moved, a seat
    on autopilot, chat (a game's notice), a rematch offer (a player's notice)..."""
    a, b = servers
    rec = Recorder(private_redis.url)
    try:
        game_id, alice, bob = two_player_game(b)
        _, carol = register(b)
        # a waiting game joined, then left by all: deleted
        status, lone, _ = call(a, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 3}, carol)
        assert status == 201, lone
        assert call(a, "POST", f"/api/v1/games/{lone['id']}/join", None, alice)[0] == 200
        assert call(a, "POST", f"/api/v1/games/{lone['id']}/leave", None, alice)[0] in (200, 204)
        assert call(a, "POST", f"/api/v1/games/{lone['id']}/leave", None, carol)[0] in (200, 204)
        # a game with a bot seat, started by the creator
        status, botted, _ = call(a, "POST", "/api/v1/games",
                                 {"ruleset": "standard", "max_players": 2, "bots": [{"level": "random"}]}, carol)
        assert status == 201, botted
        # the two-player game: started, moved, table talk, the seat left on autopilot
        assert call(b, "POST", f"/api/v1/games/{game_id}/start", None, alice)[0] == 200
        version = 1
        version = play_until(a, game_id, [alice, bob], version, 6)
        status, said, _ = call(a, "POST", f"/api/v1/games/{game_id}/chat", {"text": "good luck"}, alice)
        assert status in (200, 201), said
        assert call(b, "POST", f"/api/v1/games/{game_id}/leave", None, bob)[0] in (200, 204)
        wait_for(lambda: not _unpublished(rec) and rec.notified, 30, 0.1, "every notified game published")
        time.sleep(0.5)  # (the last publishes and notifications of the scenario)
    finally:
        rec.close()
    games = {int(p) for p in rec.notified if p.isdigit()}
    assert {game_id, lone["id"], botted["id"]} <= games, rec.notified
    assert _unpublished(rec) == set(), (rec.notified, rec.published)
    if "n" in rec.notified:  # a notice was written (the chat's): published for its game
        assert (f"uno:live:g:{game_id}", "n") in rec.published, rec.published
    assert [p for p in rec.published if p[0] == "uno:live:all"] == []
    for server in (a, b):
        assert "without naming what it wrote" not in server.log()


def test_a_write_nothing_names_wakes_every_hub(private_redis, settings):
    """The guard: a game row written behind the writers' back (a raw queryset update)
    still publishes, on ``uno:live:all``, and says so."""
    from config import fanout
    from games.models import Game

    settings.LIVE_FANOUT, settings.REDIS_URL = "redis", private_redis.url
    fanout._clients.clear()
    fanout.install(connection=connection)
    rec = Recorder(private_redis.url)
    try:
        player = _player("guarded")
        game = Game.objects.create(creator=player, ruleset="standard", max_players=2, seed="1")
        with transaction.atomic():
            Game.objects.filter(pk=game.pk).update(turn_seconds=30)  # named by nobody
        sentinel = game.pk + 10**9
        with pytest.raises(RuntimeError), transaction.atomic():  # rolled back: nothing published
            Game.objects.filter(pk=game.pk).update(turn_seconds=35)
            fanout.games_written([sentinel])
            raise RuntimeError
        with transaction.atomic():
            with pytest.raises(RuntimeError), transaction.atomic():  # a savepoint rolled back
                fanout.games_written([sentinel])
                raise RuntimeError
            Game.objects.filter(pk=game.pk).update(turn_seconds=40)
            fanout.games_written([game.pk])  # named
        assert fanout.flush()
        wait_for(lambda: len(rec.published) >= 2, 10, 0.05, "published")
    finally:
        rec.close()
        connection.execute_wrappers.remove(fanout._guard)
        fanout._clients.clear()
    assert ("uno:live:all", "*") in rec.published
    assert rec.published.count(("uno:live:all", "*")) == 1, rec.published
    assert (f"uno:live:g:{game.pk}", str(game.pk)) in rec.published
    assert not [p for p in rec.published if p[0] == f"uno:live:g:{sentinel}"], rec.published


def test_reviving_lost_bot_steps_wakes_no_hub(private_redis, settings):
    """The sweeper's revival of late bot steps writes only ``bot_due`` (the workers' own
    bookkeeping): it publishes nothing, where an unnamed write made every hub read every
    game again, as often as steps ran late (a chaos soak: several times a second)."""
    from config import fanout
    from games import robots, services
    from games.models import Game

    player = _player("reviver")
    game = services.create_game(creator=player, ruleset="standard", max_players=2, bots=[{"level": "random"}])
    services.start_game(player=player, game_id=game.pk)
    services.leave_game(player=player, game_id=game.pk)  # robots on both seats: a step is owed
    Game.objects.filter(pk=game.pk).update(bot_due=timezone.now() - timedelta(seconds=60))  # (its step lost)
    settings.LIVE_FANOUT, settings.REDIS_URL = "redis", private_redis.url
    fanout._clients.clear()
    fanout.install(connection=connection)
    rec = Recorder(private_redis.url)
    try:
        assert robots.revive_lost_steps(timezone.now()) == 1
        assert Game.objects.get(pk=game.pk).bot_due > timezone.now()  # queued again, due again later
        with transaction.atomic():
            Game.objects.filter(pk=game.pk).update(turn_seconds=30)  # (a write nobody names: the control)
        assert fanout.flush()
        wait_for(lambda: rec.published, 10, 0.05, "published")
    finally:
        rec.close()
        connection.execute_wrappers.remove(fanout._guard)
        fanout._clients.clear()
    assert rec.published == [("uno:live:all", "*")], rec.published  # the control's alone


def _player(name: str):
    from players.models import Player

    return Player.objects.create_user(username=f"{name}{time.monotonic_ns() % 10**9}", password="x-long-password-1")



def test_what_no_writer_published_arrives_by_the_periodic_catch_up(servers, private_redis, tmp_path):
    """A write that was never published (here: committed through a server that does not
    publish, LIVE_FANOUT=postgres) reaches a stream within LIVE_CATCHUP_SECONDS all the same."""
    a, b = servers
    game_id, alice, bob = two_player_game(b)
    assert call(b, "POST", f"/api/v1/games/{game_id}/start", None, alice)[0] == 200
    quiet = {"LIVE_FANOUT": "postgres", "REDIS_URL": private_redis.url}
    with Gunicorn(tmp_path / "d.log", 1, **fanout_settings(private_redis.url, LIVE_CATCHUP_SECONDS=1)) as d, \
            Gunicorn(tmp_path / "q.log", 1, **quiet) as q:
        stream = open_stream(d.port, f"/api/v1/games/{game_id}/events?after=1", alice)
        try:
            assert stream.status == 200, stream.body
            version = 1
            version = play_until(q, game_id, [alice, bob], version, 8)
            assert moves_of(stream, version) == list(range(2, version + 1))
        finally:
            stream.close()
