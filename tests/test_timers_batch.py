"""The batched timer (games.robots.sweep_deadlines): overdue games taken many per
transaction, their timeouts applied and written back with one statement per table.

The tests marked ``concurrency`` also run on the embedded default (SQLite, the
filesystem broker) under `make test`; the ones about row locks need PostgreSQL.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import timedelta

import pytest
import redis
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import robots, services, tasks
from games.models import Game, GameStatus, Move, Seat
from players.models import Webhook

from .celery_helpers import redis_broker  # noqa: F401 (fixture)
from .celery_helpers import celery_beat, celery_worker, queued_tasks, requires_redis, wait_for
from .games_support import assert_move_statements

ON_POSTGRES = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="row locks: PostgreSQL only")


def started_duels(make_player, n: int, turn_seconds: int | None = 60, bots: list[dict] | None = None) -> list[int]:
    """``n`` started two-seat games (two humans, or one human and ``bots``), through the services."""
    ids = []
    for _ in range(n):
        alice, _ = make_player()
        game = services.create_game(creator=alice, ruleset="standard", max_players=2, turn_seconds=turn_seconds,
                                    bots=bots)
        if not bots:
            bob, _ = make_player()
            services.join_game(player=bob, game_id=game.pk)
        services.start_game(player=alice, game_id=game.pk)
        ids.append(game.pk)
    return ids


def make_overdue(ids: list[int]) -> None:
    Game.objects.filter(pk__in=ids).update(deadline=timezone.now() - timedelta(seconds=1))


def until_the_bots_owe(ids: list[int]) -> None:
    """Time each duel of a human and a bot out (the deadline expired, at most three
    times) until its bot (seat 1) owes the decision."""
    for gid in ids:
        for _ in range(3):
            if Game.objects.get(pk=gid).current_seat == 1:
                break
            make_overdue([gid])
            assert robots.expire_deadline(gid)
        assert Game.objects.get(pk=gid).current_seat == 1


def versions(ids: list[int]) -> dict[int, int]:
    return dict(Game.objects.filter(pk__in=ids).values_list("id", "version"))


def moves_by(ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    """Each game's moves after the start: [(seq, by), ...]."""
    out: dict[int, list[tuple[int, str]]] = {gid: [] for gid in ids}
    for gid, seq, by in Move.objects.filter(game_id__in=ids, seq__gt=1).order_by("seq").values_list(
            "game_id", "seq", "by"):
        out[gid].append((seq, by))
    return out


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of 10 games, so that a few dozen games take several transactions."""
    monkeypatch.setitem(robots.BATCH_SIZE, connection.vendor, 10)
    return 10


# --- a batch ------------------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_batch_of_overdue_games_gets_exactly_one_timer_move_each(make_player, small_batches, caplog,
                                                                   django_capture_on_commit_callbacks):
    overdue = started_duels(make_player, 25)
    ahead = started_duels(make_player, 2)  # deadlines a minute away
    untimed = started_duels(make_player, 1, turn_seconds=None)
    make_overdue(overdue)
    late = dict(Game.objects.filter(pk__in=overdue).values_list("id", "current_seat"))
    before = timezone.now()

    with django_capture_on_commit_callbacks() as callbacks, caplog.at_level(logging.INFO, logger="games.robots"):
        assert robots.sweep_deadlines() == 25
    assert [r.getMessage().split(",")[0] for r in caplog.records] == [  # three transactions
        "deadlines: 10 timer moves", "deadlines: 10 timer moves", "deadlines: 5 timer moves"]
    assert robots.sweep_deadlines() == 0  # run twice, acts once

    assert versions(overdue) == {gid: 2 for gid in overdue}
    assert versions(ahead + untimed) == {gid: 1 for gid in ahead + untimed}
    for move in Move.objects.filter(game_id__in=overdue, seq=2):
        assert (move.seat, move.by, move.action, move.player_id) == (late[move.game_id], "timer", {"type": "timeout"},
                                                                     None)
    for game in Game.objects.filter(pk__in=overdue):
        # the next seat's clock started when the timer acted
        assert game.current_seat != late[game.pk] and game.status == GameStatus.ACTIVE
        assert before + timedelta(seconds=60) <= game.deadline <= timezone.now() + timedelta(seconds=60)
        assert game.updated_at >= before
    timeouts = {(s.game_id, s.seat): s.timeouts for s in Seat.objects.filter(game_id__in=overdue)}
    assert timeouts == {(gid, seat): int(seat == late[gid]) for gid in overdue for seat in (0, 1)}
    # humans only, no webhook, no countdown task: nothing to do after the commit
    assert callbacks == []


@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_batch_writes_each_table_once_whatever_its_size(make_player):
    """The statements of a batch do not grow with its games: one read of the games
    (locked), one of their seats, one INSERT of the moves, one UPDATE of the games,
    one of the seats."""

    def statements(n: int) -> list[str]:
        ids = started_duels(make_player, n)
        make_overdue(ids)
        with CaptureQueriesContext(connection) as captured:
            batch = robots.enforce_batch(n)
        assert sorted(batch.timed_out) == sorted(ids)
        return [q["sql"] for q in captured.captured_queries if "games_" in q["sql"]]

    for sqls in (statements(3), statements(12)):
        lock, seats, insert, update, seat_update = sqls
        assert_move_statements(lock, seats, insert, update, lock_tail="FOR UPDATE SKIP LOCKED")
        assert seat_update.startswith('UPDATE "games_seat"')


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_a_timer_move_tells_the_next_player_with_a_webhook_and_queues_nothing_else(make_player, redis_broker):
    from config.celery import app

    plain, hooked = started_duels(make_player, 2)
    make_overdue([plain, hooked])
    next_seat = 1 - Game.objects.get(pk=hooked).current_seat  # (two seats: the other one's turn comes)
    player = Seat.objects.get(game_id=hooked, seat=next_seat).player
    Webhook.objects.create(player=player, url="https://example.com/hook", secret="s" * 32)
    app.control.purge()
    assert robots.sweep_deadlines() == 2
    # after the commit: after_move for the game with a subscriber (its "your_turn"), and
    # nothing at all for the other (humans, no webhook, no countdown task)
    queued = queued_tasks() + queued_tasks("deadlines")
    assert [(name, args[:2]) for name, args in queued] == [("deliver_webhook", (player.pk, "your_turn"))]
    payload = queued[0][1][2]
    assert (payload["game"], payload["version"], payload["seat"]) == (hooked, 2, next_seat)


@pytest.mark.concurrency
@pytest.mark.django_db
def test_update_rows_writes_every_rows_own_values_nulls_included(make_player):
    """The one UPDATE of many rows (services.update_rows) that the batches write with."""
    ids = started_duels(make_player, 3)
    games = list(Game.objects.filter(pk__in=ids).order_by("pk"))
    when = timezone.now().replace(microsecond=0)
    for i, game in enumerate(games):
        game.version = 40 + i
        game.state = {**game.state, "marker": i}
        game.current_seat = None if i == 1 else i
        game.deadline = None  # a column of nulls only
        game.finished_at = when + timedelta(seconds=i) if i else None
        game.status = GameStatus.FINISHED if i == 2 else GameStatus.ACTIVE
    services.update_rows(games, ("version", "state", "current_seat", "deadline", "finished_at", "status"))
    for i, game in enumerate(Game.objects.filter(pk__in=ids).order_by("pk")):
        assert (game.version, game.state["marker"], game.current_seat, game.deadline) == (
            40 + i, i, None if i == 1 else i, None)
        assert game.finished_at == (when + timedelta(seconds=i) if i else None)
        assert game.status == (GameStatus.FINISHED if i == 2 else GameStatus.ACTIVE)
    with CaptureQueriesContext(connection) as captured:
        services.update_rows([], ("version",))
    assert captured.captured_queries == []  # nothing to write: no statement


# --- failures ---------------------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db
def test_one_broken_game_in_a_batch_does_not_stop_the_others(make_player, small_batches, caplog):
    ids = started_duels(make_player, 8)
    unreadable, unwritable = ids[2], ids[5]
    # a state the engine cannot read (the timeout fails before anything is written)...
    Game.objects.filter(pk=unreadable).update(state={"broken": True})
    # ...and a game whose next move cannot be written (its seq is taken: the batch's
    # INSERT fails, and the moves are written again one by one, each in a savepoint)
    stray = Move.objects.create(game_id=unwritable, seq=2, round=1, seat=None, action={"type": "stray"}, by="player")
    make_overdue(ids)
    late = Game.objects.get(pk=unwritable).current_seat
    with caplog.at_level(logging.INFO, logger="games.robots"):
        assert robots.sweep_deadlines() == 6
    fine = [gid for gid in ids if gid not in (unreadable, unwritable)]
    assert versions(fine) == {gid: 2 for gid in fine}
    assert all(m == [(2, "timer")] for m in moves_by(fine).values())
    # the broken games are as they were: no move, no timeout counted, still overdue
    assert versions([unreadable, unwritable]) == {unreadable: 1, unwritable: 1}
    assert Game.objects.filter(pk__in=[unreadable, unwritable], deadline__lte=timezone.now()).count() == 2
    assert list(Move.objects.filter(game_id=unwritable, seq=2)) == [stray]
    assert Seat.objects.get(game_id=unwritable, seat=late).timeouts == 0
    assert not Move.objects.filter(game_id=unreadable, seq__gt=1).exists()
    assert f"game {unreadable}: the timer could not act" in caplog.text
    assert f"game {unwritable}: its timer move could not be written" in caplog.text
    assert "6 timer moves, 2 failed" in caplog.text


# --- robots and the autopilot ---------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db
def test_an_overdue_decision_owed_by_a_bot_goes_the_bot_path_after_the_humans_timeouts(make_player, settings,
                                                                                        monkeypatch):
    settings.UNO_BOT_THINK_SECONDS = 0
    monkeypatch.setitem(robots.BATCH_SIZE, connection.vendor, 2)
    humans = started_duels(make_player, 3)
    bot_games = started_duels(make_player, 3, bots=[{"level": "normal"}])
    until_the_bots_owe(bot_games)
    before = versions(bot_games)
    # the bots' tasks were lost: their deadlines passed first, the humans' after
    Game.objects.filter(pk__in=bot_games).update(deadline=timezone.now() - timedelta(seconds=5))
    make_overdue(humans)
    assert robots.sweep_deadlines() == 6
    timer_moves = Move.objects.filter(game_id__in=humans, seq=2)
    assert sorted((m.game_id, m.by) for m in timer_moves) == [(gid, "timer") for gid in sorted(humans)]
    bot_moves = [Move.objects.get(game_id=gid, seq=before[gid] + 1) for gid in bot_games]
    assert {(m.seat, m.by) for m in bot_moves} == {(1, "bot")}  # the bot decided, not the timer
    # the robots at the head of the queue were left out of the next batches: the
    # humans' timeouts did not wait for the bots' decisions
    assert max(m.created_at for m in timer_moves) < min(m.created_at for m in bot_moves)


@requires_redis
@pytest.mark.django_db
def test_a_crowd_of_lost_bot_tasks_is_queued_for_every_worker_once_not_revived_one_by_one(make_player, settings,
                                                                                         redis_broker):
    """A flushed broker loses every bot task at once: the sweep revives the first
    robot itself (whatever the broker's state) and queues a bot step for each of the
    others, so that every worker's pool takes a share; a sweep soon after does not
    queue them again; the queued steps, run, make each of those bots move once."""
    settings.UNO_BOT_THINK_SECONDS = 0
    bot_games = started_duels(make_player, 5, bots=[{"level": "normal"}])
    until_the_bots_owe(bot_games)
    redis.Redis.from_url(redis_broker).delete("celery")  # the flush: their bot steps are lost
    assert queued_tasks() == []
    before = versions(bot_games)
    Game.objects.filter(pk__in=bot_games).update(deadline=timezone.now() - timedelta(seconds=5))
    assert robots.sweep_deadlines(budget=0) == 1  # the first, here
    moved = [gid for gid in bot_games if versions([gid])[gid] != before[gid]]
    assert len(moved) == 1
    left = sorted((gid, before[gid]) for gid in bot_games if gid not in moved)
    assert sorted(args for name, args in queued_tasks("deadlines") if name == "bot_step") == left
    # on the timer's own queue (never behind the bot backlog of the default one), and
    # each is dropped unrun if no worker starts it in time (a stack falling behind never
    # piles up copies of it): the next sweep after that queues another
    raw = redis.Redis.from_url(redis_broker).lrange("deadlines", 0, -1)
    expiries = [json.loads(m)["headers"]["expires"] for m in raw]
    assert len(expiries) == len(left) and all(expiries), expiries
    # the next sweep (half a second later) finds them still overdue: it revives the
    # first of them itself, and queues none again
    assert robots.sweep_deadlines(budget=0) == 1
    assert sorted(args for name, args in queued_tasks("deadlines") if name == "bot_step") == left
    moved_too = [(gid, version) for gid, version in left if versions([gid])[gid] != version]
    assert len(moved_too) == 1
    # the steps (as a worker runs them): each bot not moved yet moves once; the stale
    # one does nothing
    for gid, version in left:
        assert tasks.bot_step.run(gid, version) == ((gid, version) not in moved_too)
        assert not tasks.bot_step.run(gid, version)  # run twice: acts once
    assert all(Move.objects.get(game_id=gid, seq=before[gid] + 1).by == "bot" for gid in bot_games)


@pytest.mark.concurrency
@pytest.mark.django_db
def test_after_max_timeouts_in_a_row_the_seat_goes_on_autopilot(make_player, settings,
                                                                 django_capture_on_commit_callbacks):
    settings.UNO_MAX_TIMEOUTS = 2
    settings.UNO_BOT_THINK_SECONDS = 0
    [gid] = started_duels(make_player, 1)
    counted = {0: 0, 1: 0}
    while not all(Seat.objects.filter(game_id=gid).values_list("autopilot", flat=True)):
        seat = Game.objects.get(pk=gid).current_seat
        make_overdue([gid])
        with django_capture_on_commit_callbacks() as callbacks:
            assert robots.sweep_deadlines() == 1
        counted[seat] += 1
        row = Seat.objects.get(game_id=gid, seat=seat)
        assert Move.objects.filter(game_id=gid).latest("seq").by == "timer"
        assert row.timeouts == counted[seat] and row.autopilot == (counted[seat] >= 2)
        # a seat on autopilot: a bot plays it, so the move's follow-ups (a bot step) are queued
        assert len(callbacks) == int(any(Seat.objects.filter(game_id=gid, autopilot=True)))
        assert sum(counted.values()) <= 4
    assert counted == {0: 2, 1: 2}
    # every seat on autopilot: the next overdue decision is the autopilot's, not the timer's
    version = Game.objects.get(pk=gid).version
    make_overdue([gid])
    assert robots.sweep_deadlines() == 1
    assert Move.objects.get(game_id=gid, seq=version + 1).by == "bot"


# --- concurrency (PostgreSQL's row locks) ------------------------------------------


@ON_POSTGRES
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_sweeps_take_disjoint_batches_and_never_move_a_game_twice(make_player, small_batches,
                                                                                 monkeypatch):
    ids = started_duels(make_player, 60)
    make_overdue(ids)
    write = robots.write_moves

    def slow_write(recorded) -> None:
        # each batch holds its rows a moment before it writes, so that the two sweeps'
        # transactions overlap: each takes other games than the one the other holds
        time.sleep(0.05)
        write(recorded)

    monkeypatch.setattr(robots, "write_moves", slow_write)
    # (no sweeping lease: two sweeps at once, as when the cache cannot be reached; with
    # it the second gives way, tests/test_timers_sharp.py)
    monkeypatch.setattr(robots, "_lease", lambda budget: True)
    start = threading.Barrier(2)
    done: dict[str, int] = {}
    errors: list[BaseException] = []

    def sweep(name: str) -> None:
        try:
            start.wait()
            done[name] = robots.sweep_deadlines(budget=60)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sweep, args=(name,)) for name in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert done["a"] > 0 and done["b"] > 0 and done["a"] + done["b"] == 60, done
    assert versions(ids) == {gid: 2 for gid in ids}
    assert all(m == [(2, "timer")] for m in moves_by(ids).values())
    assert set(Seat.objects.filter(game_id__in=ids).values_list("timeouts", flat=True)) == {0, 1}


@ON_POSTGRES
@pytest.mark.django_db(transaction=True)
def test_a_game_locked_by_another_transaction_is_skipped_not_waited_on(make_player, settings):
    import psycopg

    ids = started_duels(make_player, 4)
    make_overdue(ids)
    busy = ids[1]
    db = connection.settings_dict
    with psycopg.connect(f"host={db['HOST']} port={db['PORT'] or 5432} user={db['USER']} dbname={db['NAME']}") as other:
        # a request moving the game holds its row lock: a sweep that waited for it would
        # block until this transaction ends, or fail at DB_LOCK_TIMEOUT_MS
        other.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [busy])
        assert robots.sweep_deadlines() == 3
        assert versions(ids) == {gid: 1 if gid == busy else 2 for gid in ids}
        other.rollback()
    assert robots.sweep_deadlines() == 1  # the next sweep takes it
    assert versions(ids) == {gid: 2 for gid in ids}


# --- the whole timer: a real worker and beat -------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_lone_game_is_moved_by_the_sweeper_after_each_deadline_with_worker_and_beat(make_player, tmp_path, settings):
    """The product's defaults: no countdown task, beat's sweep every UNO_SWEEP_SECONDS
    is the timer.  A newcomer's single game of one-second turns is moved by it after
    each deadline, never before it.  How late is the benchmark's figure (bench/timers.py:
    about a sweep period); the bound here only says "by the next sweeps", generous
    enough for a loaded machine."""
    from games.models import Heartbeat

    assert settings.UNO_TIMER_FAST_PATH_SECONDS == 0  # the default this test is about
    Heartbeat.objects.all().delete()
    # (a task run's line is DEBUG, config/logs.py: shown for the assertion at the end)
    with celery_worker(tmp_path, LOG_LEVELS="celery.app.trace=DEBUG") as worker, \
            celery_beat(tmp_path, sweep_seconds=settings.UNO_SWEEP_SECONDS):
        wait_for(lambda: Heartbeat.objects.filter(name="sweeper").exists(), timeout=30,
                 message="a first sweep (worker and beat up)")
        [gid] = started_duels(make_player, 1, turn_seconds=1)
        deadlines: dict[int, object] = {}

        def sampled() -> bool:  # the deadline of every version, as the bench samples it
            version, deadline = Game.objects.values_list("version", "deadline").get(pk=gid)
            deadlines.setdefault(version, deadline)
            return version >= 4

        wait_for(sampled, timeout=15, interval=0.01, message="three timer moves")
        log = worker.log()
    moves = {m.seq: m for m in Move.objects.filter(game_id=gid, seq__in=(2, 3, 4))}
    assert [moves[s].by for s in (2, 3, 4)] == ["timer"] * 3
    late = [(moves[s].created_at - deadlines[s - 1]).total_seconds() for s in (2, 3, 4) if s - 1 in deadlines]
    assert len(late) >= 2, deadlines
    print(f"lateness of the timer moves: {late}")
    assert all(0 <= x < 5 * settings.UNO_SWEEP_SECONDS + 3 for x in late), late
    # (the worker's banner lists every task: these are the lines of tasks run)
    assert "Task games.tasks.sweep_deadlines[" in log and "Task games.tasks.expire_deadline[" not in log
