"""Scheduling without a worker: the games waiting for me, a dead broker, deadlines
the sweeper relies on, and the timer/bot services run twice."""

from __future__ import annotations

import logging
import socket
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.utils import timezone

from games import robots
from games.models import DeferredBotStep, Game, Move, Seat

from .celery_helpers import client_for, redis_broker, requires_redis  # noqa: F401 (fixture)


def new_game(client, **body) -> int:
    r = client.post("/api/v1/games", {"ruleset": "standard", **body}, format="json")
    assert r.status_code == 201, r.content
    return r.json()["id"]


def started_duel(alice, bob, **body) -> int:
    gid = new_game(alice, max_players=2, **body)
    assert bob.post(f"/api/v1/games/{gid}/join").status_code == 200
    assert alice.post(f"/api/v1/games/{gid}/start").status_code == 200
    return gid


def pass_turn(client, gid) -> None:
    """The caller (whose turn it is) draws, then passes if still in turn."""
    for _ in range(5):
        g = client.get(f"/api/v1/games/{gid}").json()
        if g["current_seat"] != g["seat"]:
            return
        types = {a["type"]: a for a in g["legal_actions"]}
        action = types.get("pass") or types.get("draw") or g["legal_actions"][0]
        r = client.post(f"/api/v1/games/{gid}/actions", action, format="json")
        assert r.status_code == 200, r.content
    pytest.fail("the turn did not pass")


def turn_to(clients, gid, seat) -> None:
    """Make moves until the game waits for ``seat`` (seat numbers index ``clients``)."""
    for _ in range(10):
        g = clients[0].get(f"/api/v1/games/{gid}").json()
        if g["current_seat"] == seat:
            return
        pass_turn(clients[g["current_seat"]], gid)
    pytest.fail(f"never seat {seat}'s turn")


@pytest.mark.django_db
def test_g_my_turn_lists_exactly_the_games_waiting_for_me_most_urgent_first(make_player):
    _, ta = make_player("alice")
    _, tb = make_player("bob")
    _, tc = make_player("carol")
    alice, bob, carol = client_for(ta), client_for(tb), client_for(tc)
    slow = started_duel(alice, bob, turn_seconds=300)
    fast = started_duel(alice, bob, turn_seconds=60)
    untimed = started_duel(alice, bob)
    theirs = started_duel(alice, bob, turn_seconds=10)  # bob's turn: not listed
    others = started_duel(carol, bob, turn_seconds=5)  # carol's turn at seat 0, alice not seated
    new_game(alice)  # waiting
    for gid in (slow, fast, untimed):
        turn_to([alice, bob], gid, 0)
    turn_to([alice, bob], theirs, 1)
    turn_to([carol, bob], others, 0)

    r = alice.get("/api/v1/games?my_turn=true")
    assert r.status_code == 200, r.content
    listed = r.json()["results"]
    assert [g["id"] for g in listed] == [fast, slow, untimed]
    assert all(g["my_turn"] and g["seat"] == 0 and g["status"] == "active" for g in listed)
    assert listed[0]["deadline"] < listed[1]["deadline"] and listed[2]["deadline"] is None
    assert [g["id"] for g in bob.get("/api/v1/games?my_turn=true").json()["results"]] == [theirs]
    assert [g["id"] for g in carol.get("/api/v1/games?my_turn=true").json()["results"]] == [others]
    # my_turn=false is no filter at all
    assert alice.get("/api/v1/games?my_turn=false&mine=true").json()["count"] == 5


@contextmanager
def dead_broker():
    """Point the project's Celery app at a port nobody listens on."""
    from config.celery import app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free once closed: connections are refused

    def reset_pools():
        app._pool = None
        app.amqp._producer_pool = None

    saved = app.conf.broker_url, app.conf.get("broker_write_url")
    app.conf.broker_url = f"redis://127.0.0.1:{port}/0"
    app.conf.broker_write_url = None  # publish to broker_url
    reset_pools()
    try:
        assert app.conf.broker_write_url.endswith(f":{port}/0")
        yield
    finally:
        app.conf.broker_url, app.conf.broker_write_url = saved
        reset_pools()


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_a_committed_move_survives_a_dead_broker_and_the_sweeper_recovers_it(make_player, settings, caplog):
    settings.UNO_BOT_THINK_SECONDS = 0
    _, token = make_player("hugo")
    hugo = client_for(token)
    gid = new_game(hugo, bots=[{"level": "normal"}], turn_seconds=30, options={"rounds": 1})
    with dead_broker(), caplog.at_level(logging.ERROR, logger="games.scheduling"):
        r = hugo.post(f"/api/v1/games/{gid}/start")  # on_commit runs inside this request
        assert r.status_code == 200, r.content
        g = hugo.get(f"/api/v1/games/{gid}").json()
        if g["current_seat"] == 0:
            pass_turn(hugo, gid)
    assert "left to the deadline sweeper" in caplog.text
    game = Game.objects.get(pk=gid)
    assert game.status == "active" and game.current_seat == 1 and game.deadline is not None
    # the bot's task never reached the broker; its deadline in the database is what
    # the sweeper (beat) enforces once it is due
    version = game.version
    Game.objects.filter(pk=gid).update(deadline=timezone.now() - timedelta(seconds=1))
    assert robots.sweep_deadlines() == 1
    assert Game.objects.get(pk=gid).version == version + 1
    assert Move.objects.get(game_id=gid, seq=version + 1).by == "bot"


@pytest.mark.django_db
def test_the_timer_services_run_twice_act_once(make_player):
    _, ta = make_player("alice")
    _, tb = make_player("bob")
    gid = started_duel(client_for(ta), client_for(tb), turn_seconds=7200)
    assert not robots.expire_deadline(gid, 1)  # not due yet
    Game.objects.filter(pk=gid).update(deadline=timezone.now() - timedelta(seconds=1))
    late = Game.objects.get(pk=gid).current_seat
    assert robots.expire_deadline(gid, 1)
    assert not robots.expire_deadline(gid, 1)
    assert not robots.expire_deadline(gid)  # the sweeper's call: the new deadline is ahead
    assert robots.sweep_deadlines() == 0
    assert not robots.bot_step(gid, 1)
    assert list(Move.objects.filter(game_id=gid).values_list("seq", "seat", "by")) == [
        (1, 0, "player"), (2, late, "timer")]
    assert Seat.objects.get(game_id=gid, seat=late).timeouts == 1
    assert robots.seconds_to_deadline(gid, 1) is None  # stale version
    assert 7000 < robots.seconds_to_deadline(gid, 2) <= 7200


@pytest.mark.django_db
def test_leaving_on_ones_turn_gives_the_autopilot_a_deadline(make_player, settings):
    # Without a time limit, a human's turn has no deadline; once the autopilot owes the
    # decision, a bot's deadline lets the sweeper revive it if its task is lost.
    _, ta = make_player("alice")
    _, tb = make_player("bob")
    alice, bob = client_for(ta), client_for(tb)
    gid = started_duel(alice, bob)
    turn_to([alice, bob], gid, 0)
    assert Game.objects.get(pk=gid).deadline is None
    before = timezone.now()
    r = alice.post(f"/api/v1/games/{gid}/leave")
    assert r.status_code == 200 and r.json()["players"][0]["autopilot"]
    deadline = Game.objects.get(pk=gid).deadline
    wait = settings.UNO_BOT_THINK_SECONDS + settings.UNO_BOT_STALL_SECONDS
    assert before + timedelta(seconds=wait) <= deadline <= timezone.now() + timedelta(seconds=wait)
    # and that deadline is enforced: the autopilot plays
    Game.objects.filter(pk=gid).update(deadline=timezone.now())
    assert robots.sweep_deadlines() == 1
    assert Move.objects.filter(game_id=gid).latest("seq").by == "bot"


@requires_redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fast_path", [0, 300])
def test_a_countdown_task_is_queued_for_a_humans_deadline_only_when_the_fast_path_is_on(make_player, settings,
                                                                                        redis_broker, fast_path):
    """By default (UNO_TIMER_FAST_PATH_SECONDS 0) no countdown task at all: beat's
    sweep is the timer.  With the fast path on, a human's deadline gets one (in the
    timers' own queue), a robot's never."""
    from .celery_helpers import queued_tasks

    settings.UNO_BOT_THINK_SECONDS = 0
    settings.UNO_TIMER_FAST_PATH_SECONDS = fast_path
    _, token = make_player("hugo")
    hugo = client_for(token)
    gid = new_game(hugo, bots=[{"level": "normal"}], turn_seconds=60, options={"rounds": 1})
    assert hugo.post(f"/api/v1/games/{gid}/start").status_code == 200
    def steps():  # (game, version) of each bot step queued (then the slot of its owner's share)
        return [(name, args[:2]) for name, args in queued_tasks()]

    if Game.objects.get(pk=gid).current_seat == 0:
        assert steps() == [("bot_step", (gid, 1))]
        assert queued_tasks("deadlines") == ([("expire_deadline", (gid, 1))] if fast_path else [])
        pass_turn(hugo, gid)
    version = Game.objects.get(pk=gid).version
    # the bot's turn: its step (queued, or held back while the owner's earlier steps, which
    # no worker runs here, hold its share: games.botqueue), and no countdown for its
    # (stall) deadline
    assert steps()[-1] == ("bot_step", (gid, version)) or DeferredBotStep.objects.filter(
        game_id=gid, version=version).exists()
    assert ("expire_deadline", (gid, version)) not in queued_tasks("deadlines")
    if not fast_path:
        assert queued_tasks("deadlines") == []
