"""Timers, the sweeper and bots with a real Celery worker on Redis (see celery_helpers)."""

from __future__ import annotations

import threading
import re
import time

import pytest
from django.core.cache import cache

from config.celery import app
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis, wait_for, worker  # noqa: F401 (fixture)

pytestmark = [requires_redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def countdowns(settings):
    """These tests run a worker without beat (except where they start one): the timer's
    countdown tasks, the fast path that UNO_TIMER_FAST_PATH_SECONDS turns on, act
    (tests/test_timers_batch.py covers the default: beat's sweep alone)."""
    settings.UNO_TIMER_FAST_PATH_SECONDS = 300


def two_player_game(make_player, **body):
    _, t1 = make_player("alice")
    _, t2 = make_player("bob")
    alice, bob = client_for(t1), client_for(t2)
    r = alice.post("/api/v1/games", {"ruleset": "standard", "max_players": 2, **body}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/join").status_code == 200
    r = alice.post(f"/api/v1/games/{gid}/start")
    assert r.status_code == 200, r.content
    return gid, {0: alice, 1: bob}, r.json()


def test_a_one_second_turn_expires_and_the_timer_acts(worker, make_player):
    worker.start()
    gid, clients, g = two_player_game(make_player, turn_seconds=1)
    started = time.monotonic()
    late = g["current_seat"]
    move = wait_for(lambda: Move.objects.filter(game_id=gid, by="timer").first(), timeout=2.0,
                    message="a timer move")
    took = time.monotonic() - started
    assert 0.9 <= took <= 2.0
    assert move.seq == 2 and move.seat == late and move.action == {"type": "timeout"}
    moves = clients[0].get(f"/api/v1/games/{gid}/moves").json()["results"]
    assert [m["by"] for m in moves[:2]] == ["player", "timer"]
    # the move commits before the task returns: its postrun record follows a moment later
    wait_for(lambda: worker.log.runs("expire_deadline", (gid, 1)), timeout=2.0,
             message="the worker recording the expire_deadline run")


def game_json(client, gid):
    r = client.get(f"/api/v1/games/{gid}")
    assert r.status_code == 200, r.content
    return r.json()


def version_of(gid) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=gid)


def test_b_the_sweeper_enforces_deadlines_whose_task_is_gone(worker, make_player, tmp_path):
    # No worker yet: the countdown task of the 1 s turn waits in the queue...
    gid, _, _ = two_player_game(make_player, turn_seconds=1)
    assert app.control.purge() >= 1  # ...and is lost
    # A correspondence game (no countdown task at all) whose deadline has passed.
    _, t3 = make_player("carol")
    _, t4 = make_player("dave")
    carol, dave = client_for(t3), client_for(t4)
    gid2 = carol.post("/api/v1/games", {"ruleset": "standard", "max_players": 2, "turn_seconds": 7200},
                      format="json").json()["id"]
    dave.post(f"/api/v1/games/{gid2}/join")
    assert carol.post(f"/api/v1/games/{gid2}/start").status_code == 200
    assert app.control.purge() == 0
    from datetime import timedelta

    from django.utils import timezone

    Game.objects.filter(pk=gid2).update(deadline=timezone.now() - timedelta(seconds=1))

    worker.start()
    time.sleep(1.2)
    assert version_of(gid) == 1 and version_of(gid2) == 1  # nobody but the sweeper would act
    from .celery_helpers import celery_beat

    # (beat's line for each message it sends is DEBUG: shown for celery.beat alone)
    with celery_beat(tmp_path, sweep_seconds=0.5, LOG_LEVELS="celery.beat=DEBUG") as beat:
        wait_for(lambda: version_of(gid) >= 2 and version_of(gid2) >= 2, timeout=15,
                 message="the sweeper enforcing both deadlines")
    # beat sent it (its line for a message sent names the task)
    assert re.search(r"Sending due task \S+ \(games\.tasks\.sweep_deadlines\)", beat.log()), beat.log()
    for g in (gid, gid2):
        first = Move.objects.get(game_id=g, seq=2)
        assert first.by == "timer" and first.action == {"type": "timeout"}
    assert not worker.log.runs("expire_deadline", (gid, 1))  # the countdown task never ran
    wait_for(lambda: any(r[2] for r in worker.log.runs("sweep_deadlines")), timeout=2.0,
             message="a sweep that acted")  # recorded once the sweep task has returned


def test_c_timer_and_bot_tasks_run_twice_change_nothing_more(worker, make_player):
    from datetime import timedelta

    from django.utils import timezone

    from games import tasks

    gid, _, _ = two_player_game(make_player, turn_seconds=7200)  # no countdown task
    Game.objects.filter(pk=gid).update(deadline=timezone.now() - timedelta(seconds=1))
    worker.start()
    # the same deadline enforced five times over, concurrently (a pool of 4 threads)
    sent = [tasks.expire_deadline.delay(gid, 1), tasks.expire_deadline.delay(gid, 1),
            tasks.sweep_deadlines.delay(), tasks.sweep_deadlines.delay(), tasks.bot_step.delay(gid, 1)]
    wait_for(lambda: len(worker.log.done) >= len(sent), timeout=5, message="all five tasks")
    assert version_of(gid) == 2
    assert list(Move.objects.filter(game_id=gid).values_list("seq", "by")) == [(1, "player"), (2, "timer")]
    assert sum(bool(r[2]) for r in worker.log.done) == 1  # exactly one task acted
    game = Game.objects.get(pk=gid)
    assert game.deadline > timezone.now() + timedelta(seconds=7000)  # the next seat's new deadline
    # and once more, late: the game has moved on
    tasks.expire_deadline.delay(gid, 1)
    tasks.bot_step.delay(gid, 1)
    wait_for(lambda: len(worker.log.done) >= len(sent) + 2, timeout=5)
    assert version_of(gid) == 2 and Move.objects.filter(game_id=gid).count() == 2


def bot_game(client, levels, **body):
    r = client.post("/api/v1/games", {"ruleset": "standard", "bots": [{"level": lv} for lv in levels], **body},
                    format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    r = client.post(f"/api/v1/games/{gid}/start")
    assert r.status_code == 200, r.content
    return gid


def hugo_against_bots(worker, make_player, levels, **body) -> tuple:
    """The worker started, Hugo (a person, seat 0) in a started game of ``body`` against
    a bot of each of ``levels``: (his client, the game's id)."""
    _, token = make_player("hugo")
    hugo = client_for(token)
    worker.start()
    return hugo, bot_game(hugo, levels, **body)


def wait_my_turn(client, gid, seat=0, timeout=10.0):
    """Poll GET until the game waits for ``seat`` (or is over); returns the game."""
    return wait_for(
        lambda: (lambda g: g if g["status"] == "finished" or g["current_seat"] == seat else None)(
            game_json(client, gid)),
        timeout=timeout, interval=0.02, message=f"seat {seat}'s turn in game {gid}")


def take_turn(client, gid, g, rng) -> bool:
    """Post one of the legal actions of ``g`` (plays first); False on a stale version."""
    legal = g["legal_actions"]
    plays = [a for a in legal if a["type"] in ("play", "choose_color")]
    action = rng.choice(plays or legal)
    r = client.post(f"/api/v1/games/{gid}/actions", {**action, "expected_version": g["version"]}, format="json")
    if r.status_code == 409:  # a bot acted out of turn in between: look again
        return False
    assert r.status_code == 200, r.content
    return True


def test_d_a_worker_restart_leaves_games_moving(worker, make_player):
    import random

    hugo, gid = hugo_against_bots(worker, make_player, ["normal", "normal", "normal"], options={"rounds": 1})
    rng = random.Random(3)
    g = wait_my_turn(hugo, gid)
    assert g["status"] == "active"
    worker.stop()
    while g["current_seat"] == 0 and g["status"] == "active":  # e.g. draw, then pass
        take_turn(hugo, gid, g, rng)
        g = game_json(hugo, gid)
    if g["status"] == "finished":
        pytest.skip("the human went out at once")  # (rules out nothing: deal-dependent)
    stuck = g["version"]
    time.sleep(0.5)
    assert version_of(gid) == stuck  # no worker, no bot moves: the task waits in Redis
    worker.start()  # a new worker
    g = wait_my_turn(hugo, gid)
    assert g["version"] > stuck


def test_d_a_deadline_passing_while_no_worker_runs_is_enforced_by_the_next(worker, make_player):
    import redis

    from .celery_helpers import REDIS_URL

    broker = redis.Redis.from_url(REDIS_URL)
    worker.start()
    gid, _, _ = two_player_game(make_player, turn_seconds=2)
    # the worker has received the countdown task: it holds it, unacknowledged, until due
    wait_for(lambda: broker.hlen("unacked") >= 1 and broker.llen("deadlines") == 0, timeout=2)
    worker.stop()  # a warm shutdown hands it back to its queue (timers have their own)
    assert broker.llen("deadlines") >= 1
    time.sleep(2.0)  # the deadline passes meanwhile
    assert version_of(gid) == 1
    worker.start()
    move = wait_for(lambda: Move.objects.filter(game_id=gid, by="timer").first(), timeout=3,
                    message="the new worker's timer move")
    assert move.seq == 2


def test_e_one_human_and_three_bots_play_with_no_call_but_the_humans(worker, make_player):
    import random

    hugo, gid = hugo_against_bots(worker, make_player, ["easy", "normal", "random"], options={"rounds": 1})
    rng = random.Random(11)
    turns = 0
    started = time.monotonic()
    while True:
        g = wait_my_turn(hugo, gid)  # only polling: the human never acts out of turn
        if g["status"] == "finished":
            break
        assert g["legal_actions"]
        turns += take_turn(hugo, gid, g, rng)
        assert time.monotonic() - started < 40
    assert turns >= 1
    g = game_json(hugo, gid)
    assert g["status"] == "finished" and g["winner"]["seat"] in range(4)
    moves = list(Move.objects.filter(game_id=gid).values_list("seat", "by"))
    assert {seat for seat, by in moves if by == "bot"} == {1, 2, 3}
    assert {by for seat, by in moves if seat == 0} == {"player"}
    assert "timer" not in {by for _, by in moves}  # no bot ever needed the fallback
    assert [p["is_bot"] for p in g["players"]] == [False, True, True, True]


def test_e_a_game_left_to_the_autopilot_plays_to_the_end(worker, make_player):
    hugo, gid = hugo_against_bots(worker, make_player, ["hard", "normal", "easy"], options={"rounds": 2})
    r = hugo.post(f"/api/v1/games/{gid}/leave")
    assert r.status_code == 200 and r.json()["players"][0]["autopilot"] is True
    g = wait_for(lambda: (lambda g: g if g["status"] == "finished" else None)(game_json(hugo, gid)), timeout=40,
                 interval=0.1, message="the end of the game")
    assert g["round"] == 2 and len(hugo.get(f"/api/v1/games/{gid}/scores").json()["rounds"]) == 2
    by_seat0 = set(Move.objects.filter(game_id=gid, seat=0, seq__gt=1).values_list("by", flat=True))
    assert by_seat0 == {"bot"}


def test_f_autopilot_engages_after_max_timeouts_and_disengages_when_the_player_acts(worker, make_player, settings):
    import random

    from games.models import Seat

    settings.UNO_MAX_TIMEOUTS = 2
    settings.UNO_BOT_THINK_SECONDS = 0.4  # time for the returning player to act first
    hugo, gid = hugo_against_bots(worker, make_player, ["normal"], turn_seconds=1, options={"rounds": 1})

    def me():
        return game_json(hugo, gid)["players"][0]

    wait_for(lambda: me()["autopilot"], timeout=12, interval=0.05, message="the autopilot")
    timer_moves = list(Move.objects.filter(game_id=gid, by="timer").values_list("seat", flat=True))
    assert timer_moves == [0, 0]  # two timeouts in a row, no more
    seat = Seat.objects.get(game_id=gid, seat=0)
    assert seat.timeouts == 2 and seat.autopilot
    # the autopilot plays the seat (no timer any more)...
    wait_for(lambda: Move.objects.filter(game_id=gid, seat=0, by="bot").exists(), timeout=8,
             message="an autopilot move")
    # ...until its player acts again
    rng = random.Random(2)
    for _ in range(20):
        g = wait_my_turn(hugo, gid)
        if g["status"] == "finished":
            pytest.skip("the game ended before the player came back")
        if take_turn(hugo, gid, g, rng):
            break
    else:
        pytest.fail("the player never got to act")
    assert me()["autopilot"] is False
    seat.refresh_from_db()
    assert seat.timeouts == 0 and not seat.autopilot
    assert Move.objects.filter(game_id=gid, seat=0, by="player", seq__gt=1).exists()


def test_a_countdown_that_fires_early_comes_back_at_the_deadline(worker, make_player):
    from datetime import timedelta

    from django.utils import timezone

    from games import tasks

    gid, _, _ = two_player_game(make_player, turn_seconds=7200)  # no countdown task of its own
    worker.start()  # first: a slow worker start must not make the early task late
    Game.objects.filter(pk=gid).update(deadline=timezone.now() + timedelta(seconds=2))
    tasks.expire_deadline.delay(gid, 1)  # far too early
    wait_for(lambda: worker.log.runs("expire_deadline", (gid, 1)), timeout=2)
    assert version_of(gid) == 1
    move = wait_for(lambda: Move.objects.filter(game_id=gid, by="timer").first(), timeout=4)
    assert move.seq == 2
    # early, then on time (the second run is logged when it returns, just after its commit)
    wait_for(lambda: len(worker.log.runs("expire_deadline", (gid, 1))) == 2, timeout=2)
    assert len(worker.log.runs("expire_deadline", (gid, 1))) == 2


def test_f_a_redelivered_task_that_finds_its_game_moved_on_queues_the_follow_ups_again(worker, make_player):
    """A pool process that committed a move and died before it queued the move's
    follow-ups: its task comes back redelivered, finds the game moved on and queues
    them again; an ordinary stale task does not (it would double every follow-up)."""
    from games import tasks

    _, token = make_player("hugo")
    hugo = client_for(token)
    gid = bot_game(hugo, ["normal", "normal", "normal"], options={"rounds": 1})
    assert hugo.post(f"/api/v1/games/{gid}/leave").status_code == 200  # robots only
    app.control.purge()  # the follow-ups of the last move are lost
    cache.clear()  # (and the slots of their owner's share they held: games.botqueue, also in Redis)
    version = version_of(gid)
    worker.start()
    tasks.bot_step.apply_async((gid, version - 1))  # stale, not redelivered
    wait_for(lambda: worker.log.runs("bot_step", (gid, version - 1)), timeout=5)
    time.sleep(0.5)
    assert version_of(gid) == version  # nothing queued again: the game waits
    tasks.bot_step.apply_async((gid, version - 1), headers={"redelivered": True})
    wait_for(lambda: version_of(gid) > version, timeout=5, message="the game moving again")


_held_started, _held_release, _held_ended = threading.Event(), threading.Event(), threading.Event()


@app.task(name="tests.held_task", ignore_result=True)
def held_task() -> None:
    _held_started.set()
    _held_release.wait(30)
    _held_ended.set()


def test_g_stopping_the_test_worker_waits_for_the_task_it_is_running(worker):
    """The fixture's worker is stopped before the test database is flushed: a task still
    running then (a bot's move, its transaction open) deadlocked with the flush's
    TRUNCATE.  stop() returns only once the running task has ended."""
    for event in (_held_started, _held_release, _held_ended):
        event.clear()
    worker.start()
    held_task.delay()
    assert _held_started.wait(10), "the task did not start"
    stopping = threading.Thread(target=worker.stop)
    stopping.start()
    try:
        stopping.join(3)  # (the worker itself stops well within this)
        assert stopping.is_alive(), "stop() returned while a task was still running"
    finally:
        _held_release.set()
    stopping.join(30)
    assert not stopping.is_alive() and _held_ended.is_set()
