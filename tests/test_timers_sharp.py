"""The sharper timer (issue 30): a sweep that sees the next deadline fall due before
beat's next sweep queues a sweep for that moment (``scheduling.queue_sweep``); lost
bot steps queued again by the sweeper soon after they were due (``Game.bot_due``,
``robots.revive_lost_steps``); and several workers and beats at once never apply one
deadline twice.

The tests marked ``concurrency`` also run on the embedded default (SQLite, the
filesystem broker) under `make test`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.celery import app
from games import robots, scheduling
from games.models import DeferredBotStep, Game, Move, Seat

from .celery_helpers import celery_beat, celery_worker, requires_redis, wait_for
from .celery_helpers import redis_broker  # noqa: F401 (fixture)
from .test_timers_batch import started_duels, until_the_bots_owe

ON_POSTGRES = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="row locks: PostgreSQL only")


def sweeps_queued() -> list[dict]:
    """The headers of the sweeps waiting in the timer's queue (Redis broker, no worker)."""
    import json

    import redis

    from .celery_helpers import REDIS_URL

    raw = redis.Redis.from_url(REDIS_URL).lrange("deadlines", 0, -1)
    return [h for h in (json.loads(m)["headers"] for m in raw) if h["task"] == "games.tasks.sweep_deadlines"]


# --- at rest: what a sweep costs when nothing is due --------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_sweep_with_nothing_due_is_one_statement_and_queues_nothing(make_player, settings):
    """The idle cost of a quiet server: beat's sweep, with no game or with a deadline
    far ahead, reads the next deadline and lost bot step in one statement, and queues
    no sweep of its own (beat's next one comes first)."""
    settings.UNO_TIMER_RESOLUTION_SECONDS = 0.1
    for _ in range(2):  # no game at all; then one whose deadline is a minute away
        with CaptureQueriesContext(connection) as queries:
            assert robots.sweep_deadlines() == 0
        assert len(queries.captured_queries) == 1, queries.captured_queries
        started_duels(make_player, 1, turn_seconds=60)


@requires_redis
@pytest.mark.django_db
def test_a_deadline_due_before_beats_next_sweep_gets_one_sweep_of_its_own(make_player, settings, redis_broker):
    """A deadline 3 s ahead (beat's next sweep is up to 5 s away): the sweep queues
    one sweep, due at that deadline rounded up to the resolution, on the timer's queue;
    the next sweeps (beat's, or another worker's) find it queued and queue none again."""
    import redis

    settings.UNO_TIMER_RESOLUTION_SECONDS = 0.1
    settings.UNO_SWEEP_SECONDS = 5  # (beat's period: long here, so that the deadline is still ahead below)
    redis.Redis.from_url(redis_broker).delete("deadlines")
    [gid] = started_duels(make_player, 1, turn_seconds=60)
    deadline = timezone.now() + timedelta(seconds=3)
    Game.objects.filter(pk=gid).update(deadline=deadline)
    assert robots.sweep_deadlines() == 0
    [sweep] = sweeps_queued()
    assert sweep["kwargsrepr"] == "{'woken': True}"
    eta = datetime.fromisoformat(sweep["eta"])
    assert deadline <= eta <= deadline + timedelta(seconds=0.1), (deadline, eta)
    assert sweep["expires"]
    for _ in range(3):
        assert robots.sweep_deadlines() == 0
    assert len(sweeps_queued()) == 1
    # a deadline more than a beat period ahead: beat's own sweep sees it in time
    redis.Redis.from_url(redis_broker).delete("deadlines")
    Game.objects.filter(pk=gid).update(deadline=timezone.now() + timedelta(seconds=8))
    assert robots.sweep_deadlines() == 0
    assert sweeps_queued() == []
    # off (resolution 0): beat's sweeps only
    settings.UNO_TIMER_RESOLUTION_SECONDS = 0
    Game.objects.filter(pk=gid).update(deadline=timezone.now() + timedelta(seconds=2))
    assert robots.sweep_deadlines() == 0
    assert sweeps_queued() == []


# --- the timer between beat's sweeps: a real worker and beat -------------------------


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_lone_game_is_timed_out_between_beats_sweeps_never_early(make_player, tmp_path, settings):
    """Beat sends the sweeper every 5 s here; a lone game of one-second turns gets a
    timer move at each deadline all the same (the sweeps that sweeps queue for the next
    deadline), never before it: more timer moves than beat sent sweeps, which beat's
    sweeps alone cannot do (a sweep moves a lone game of one-second turns once)."""
    from games.models import Heartbeat

    Heartbeat.objects.all().delete()
    with celery_worker(tmp_path, UNO_SWEEP_SECONDS=5, UNO_MAX_TIMEOUTS=1000) as worker, \
            celery_beat(tmp_path, sweep_seconds=5, LOG_LEVELS="celery.beat=DEBUG") as beat:
        wait_for(lambda: Heartbeat.objects.filter(name="sweeper").exists(), timeout=30,
                 message="a first sweep (worker and beat up)")
        sent_before = len(re.findall(r"Sending due task \S+ \(games\.tasks\.sweep_deadlines\)", beat.log()))
        [gid] = started_duels(make_player, 1, turn_seconds=1)
        deadlines: dict[int, object] = {}

        def sampled() -> bool:  # the deadline of every version, as the bench samples it
            version, deadline = Game.objects.values_list("version", "deadline").get(pk=gid)
            deadlines.setdefault(version, deadline)
            return version >= 5

        wait_for(sampled, timeout=30, interval=0.01, message="four timer moves")
        sent = len(re.findall(r"Sending due task \S+ \(games\.tasks\.sweep_deadlines\)", beat.log())) - sent_before
        log = worker.log()
    moves = {m.seq: m for m in Move.objects.filter(game_id=gid, seq__in=(2, 3, 4, 5))}
    assert [moves[s].by for s in (2, 3, 4, 5)] == ["timer"] * 4
    assert sent < 4, (sent, beat.log()[-3000:])
    late = [(moves[s].created_at - deadlines[s - 1]).total_seconds() for s in (2, 3, 4, 5) if s - 1 in deadlines]
    assert len(late) >= 3, deadlines
    print(f"lateness of the timer moves: {late}; beat sent {sent} sweeps meanwhile")
    assert all(x >= 0 for x in late), late
    assert "deadlines: 1 timer moves" in log  # (the worker moved it)


# --- several workers and beats at once --------------------------------------------


@ON_POSTGRES
@pytest.mark.django_db
def test_a_sweep_gives_way_to_one_at_work_and_takes_over_once_it_ends(make_player, settings):
    """One sweep at work at a time (a lease in the cache): a sweep that finds another
    at work does nothing (that one queues the next as it ends); once the lease is
    released (or has expired: a sweep killed midway), the next sweep works."""
    from django.core.cache import cache

    settings.UNO_TIMER_RESOLUTION_SECONDS = 0
    ids = started_duels(make_player, 3)
    Game.objects.filter(pk__in=ids).update(deadline=timezone.now() - timedelta(seconds=1))
    cache.set(robots.SWEEP_LEASE, "another sweep", timeout=30)
    assert robots.sweep_deadlines() == 0
    assert set(Game.objects.filter(pk__in=ids).values_list("version", flat=True)) == {1}
    cache.delete(robots.SWEEP_LEASE)
    assert robots.sweep_deadlines() == 3
    assert cache.get(robots.SWEEP_LEASE) is None  # released as it ended


@ON_POSTGRES
@pytest.mark.django_db(transaction=True)
def test_two_workers_and_two_beats_at_once_apply_each_deadline_once(make_player, tmp_path):
    """Two workers (each two pool processes) and two beats (two replicas, each sending
    the sweeper every 0.5 s, each sweep queueing sweeps of its own) over the same 30
    games of one-second turns where nobody acts: every deadline gets exactly one timer
    move.  A deadline applied twice would show as two timer moves of one game less than
    a turn apart (the second enforcing a deadline that had not passed), or a seat whose
    timeouts count is not its timer moves."""
    ids = started_duels(make_player, 30, turn_seconds=1)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    slow = {"LOG_LEVELS": "celery.app.trace=DEBUG", "UNO_MAX_TIMEOUTS": 1000}  # (no autopilot)
    with celery_worker(tmp_path, name="w1", **slow) as w1, celery_worker(tmp_path, name="w2", **slow) as w2, \
            celery_beat(tmp_path / "a", sweep_seconds=0.5), celery_beat(tmp_path / "b", sweep_seconds=0.5):
        wait_for(lambda: all(v >= 6 for v in Game.objects.filter(pk__in=ids).values_list("version", flat=True)),
                 timeout=60, interval=0.1, message="five timer moves in every game")
        logs = w1.log(), w2.log()
    # both workers swept
    assert all("Task games.tasks.sweep_deadlines[" in log for log in logs), [log[-2000:] for log in logs]
    moves: dict[int, list[Move]] = {gid: [] for gid in ids}
    for m in Move.objects.filter(game_id__in=ids, seq__gt=1).order_by("game_id", "seq"):
        moves[m.game_id].append(m)
    counted: dict[tuple[int, int], int] = {}
    for gid, ms in moves.items():
        assert all(m.by == "timer" for m in ms), [(m.seq, m.by) for m in ms]
        gaps = [(b.created_at - a.created_at).total_seconds() for a, b in zip(ms, ms[1:])]
        assert all(g > 0.5 for g in gaps), (gid, gaps)
        for m in ms:
            counted[gid, m.seat] = counted.get((gid, m.seat), 0) + 1
    # (seats counted after the workers stopped: no move since)
    for gid, seat, timeouts in Seat.objects.filter(game_id__in=ids).values_list("game_id", "seat", "timeouts"):
        assert timeouts == counted.get((gid, seat), 0), (gid, seat, timeouts, counted.get((gid, seat)))


# --- lost bot steps -----------------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_lost_bot_step_is_queued_again_by_the_sweeper_soon_after_it_was_due(make_player, tmp_path, settings):
    """A bot's step is queued by the move that made it owe the decision, then lost (the
    broker's queues purged, as a flushed Redis loses them) before any worker takes it.
    Worker and beat start: the sweeper queues the step again ``UNO_BOT_REVIVE_SECONDS``
    after it was due (``Game.bot_due``), long before the robot's own deadline (a
    minute here) would revive it, and the bot moves, once; nothing else sends it."""
    settings.UNO_BOT_THINK_SECONDS = 0.5
    settings.UNO_BOT_STALL_SECONDS = 60  # the robot's deadline: the old way back, out of reach here
    [gid] = started_duels(make_player, 1, turn_seconds=60, bots=[{"level": "normal"}])
    until_the_bots_owe([gid])  # (the timer's move queued the bot's step)
    game = Game.objects.get(pk=gid)
    assert game.bot_due is not None and game.deadline - game.bot_due >= timedelta(seconds=59)
    assert app.control.purge() >= 1  # the step is lost
    version, due = game.version, game.bot_due
    with celery_worker(tmp_path, UNO_BOT_THINK_SECONDS=0.5, LOG_LEVELS="games.robots=INFO") as worker, \
            celery_beat(tmp_path, sweep_seconds=0.5):
        wait_for(lambda: Game.objects.get(pk=gid).version > version, timeout=40, interval=0.05,
                 message=f"the bot's move (worker log: {worker.output()})")
        log = worker.log()
    move = Move.objects.get(game_id=gid, seq=version + 1)
    assert move.by == "bot" and move.seat == 1
    assert move.created_at >= due + timedelta(seconds=settings.UNO_BOT_REVIVE_SECONDS)
    assert move.created_at < game.deadline  # not the robot's deadline: the lost step, queued again
    assert "queued again" in log, log[-3000:]
    assert Move.objects.filter(game_id=gid, seq=version + 1).count() == 1


@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_held_back_bot_step_is_not_lost_and_a_queued_again_one_not_queued_twice(make_player, settings):
    """``revive_lost_steps``: a step held back by its owner's share waits for its slot
    (not queued again); a lost one is queued again once, its ``bot_due`` moved on until
    then; both are left out of the next wake-up time."""
    settings.UNO_BOT_THINK_SECONDS = 0
    held, lost = started_duels(make_player, 2, turn_seconds=60, bots=[{"level": "normal"}])
    until_the_bots_owe([held, lost])
    past = timezone.now() - timedelta(seconds=5)
    Game.objects.filter(pk__in=[held, lost]).update(bot_due=past)
    game = Game.objects.get(pk=held)
    DeferredBotStep.objects.create(game_id=held, owner_id=game.creator_id, version=game.version, since=past)
    queued: list[tuple[int, int]] = []
    real = scheduling.queue_bot_step
    settings.UNO_TIMER_RESOLUTION_SECONDS = 0  # (no sweep queued: only the bot steps are looked at here)

    def recording(game_id, version, delay, **kw):
        queued.append((game_id, version))
        return real(game_id, version, delay, **kw)

    scheduling.queue_bot_step = recording
    try:
        now = timezone.now()
        assert robots.revive_lost_steps(now) == 1
        assert robots.revive_lost_steps(timezone.now()) == 0  # moved on: not again now
    finally:
        scheduling.queue_bot_step = real
    assert queued == [(lost, Game.objects.get(pk=lost).version)]
    assert Game.objects.get(pk=lost).bot_due >= now + timedelta(seconds=robots.REQUEUE_SECONDS)
    assert Game.objects.get(pk=held).bot_due == past
    _, due = robots.next_times(after=timezone.now())
    assert due == Game.objects.get(pk=lost).bot_due  # the held-back one is not a wake-up time
