"""Leaving a running game is for good (issue 24): the autopilot plays the seat to the
end, the leaver can no longer act in the game (403 ``left_game``), the game still
lists them (``players[i].left``), and their seat's result is what the autopilot makes
of it.  The autopilot of timeouts stays reversible (tests/test_games_move_path.py,
tests/test_celery_worker.py test_f)."""

from __future__ import annotations

import random
import time

import pytest

from games import engine, robots, selectors, services
from games.models import Game, GameStatus, Move, MoveBy, Seat
from games.obligations import REVIVE
from tests.games_support import assert_unchanged, by_seat, game_url, quick_policy, snapshot, start_table
from tests.helpers import assert_json, assert_problem

pytestmark = pytest.mark.django_db


def _left_duel(clients, **body):
    """A started two-player game whose seat 1 left: (gid, {seat: client})."""
    a, b = clients(2)
    gid = start_table([a, b], options={"rounds": 1}, **body)
    seats = by_seat(gid, [a, b])
    assert_json(seats[1].post(game_url(gid, "leave")), 200)
    return gid, seats


def test_a_left_seat_shows_left_and_autopilot_and_has_no_legal_actions(clients):
    gid, seats = _left_duel(clients)
    for viewer in seats.values():
        g = assert_json(viewer.get(game_url(gid)), 200)
        assert [(p["seat"], p["left"], p["autopilot"]) for p in g["players"]] == [(0, False, False), (1, True, True)]
        assert g["players"][1]["username"] == seats[1].player.username  # still listed
    mine = assert_json(seats[1].get(game_url(gid)), 200)
    assert mine["seat"] == 1 and mine["legal_actions"] == [] and mine["hand"]  # sees its hand, posts nothing
    seat = Seat.objects.get(game_id=gid, seat=1)
    assert seat.left and seat.autopilot


def test_the_leaver_cannot_act_again_whatever_the_action(clients):
    gid, seats = _left_duel(clients)
    game = Game.objects.get(pk=gid)
    state = engine.State.from_dict(game.state)
    # whatever it posts, in turn or not, legal or not, with or without a version
    tries = [*engine.legal_actions(state, 1), {"type": "draw"}, {"type": "call_uno"},
             {"type": "draw", "expected_version": game.version}, {"type": "draw", "expected_version": 0}]
    for action in tries:
        snap = snapshot(gid)
        problem = assert_problem(seats[1].post(game_url(gid, "actions"), action, format="json"), 403, "left_game")
        assert "left" in problem["detail"]
        assert_unchanged(gid, snap)
    seat = Seat.objects.get(game_id=gid, seat=1)
    assert seat.left and seat.autopilot and seat.timeouts == 0  # still the autopilot's
    # with an Idempotency-Key too (the refusal is its first answer)
    r = seats[1].post(game_url(gid, "actions"), {"type": "draw"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert_problem(r, 403, "left_game")
    # the service refuses it as well (not only the view)
    with pytest.raises(services.ApiError) as exc:
        services.act(game_id=gid, player=seats[1].player, action={"type": "draw"})
    assert exc.value.code == "left_game" and exc.value.status_code == 403


def test_leaving_again_changes_nothing(clients):
    gid, seats = _left_duel(clients, turn_seconds=60)
    before = Game.objects.get(pk=gid)
    g = assert_json(seats[1].post(game_url(gid, "leave")), 200)
    after = Game.objects.get(pk=gid)
    assert g["players"][1]["left"] is True
    assert (after.version, after.obligations, after.deadline, after.updated_at) == (
        before.version, before.obligations, before.deadline, before.updated_at)


def test_a_left_game_is_not_my_turn(clients):
    a, b = clients(2)
    gid = start_table([a, b], options={"rounds": 1})
    seats = by_seat(gid, [a, b])
    current = Game.objects.get(pk=gid).current_seat
    leaver = seats[current]
    listed = assert_json(leaver.get("/api/v1/games?my_turn=true"), 200)["results"]
    assert [x["id"] for x in listed] == [gid]
    assert_json(leaver.post(game_url(gid, "leave")), 200)
    assert assert_json(leaver.get("/api/v1/games?my_turn=true"), 200)["results"] == []
    mine = assert_json(leaver.get("/api/v1/games?mine=true"), 200)["results"]
    assert [(x["id"], x["my_turn"], x["seat"]) for x in mine] == [(gid, False, current)]  # still seated


def test_what_the_left_seat_owes_is_a_robots_never_a_timeout(clients):
    a, b = clients(2)
    gid = start_table([a, b], options={"rounds": 1}, turn_seconds=3600)
    seats = by_seat(gid, [a, b])
    current = Game.objects.get(pk=gid).current_seat
    assert_json(seats[current].post(game_url(gid, "leave")), 200)
    owed = [o for o in services.obligations.current(Game.objects.get(pk=gid)) if o.seat == current]
    assert owed and all(o.enforce == REVIVE for o in owed)  # its bot's, not a timer's on the leaver


def test_the_autopilot_plays_a_left_seat_to_the_end_and_the_result_is_the_seats(clients):
    """No worker: the bot steps are run here (``robots.bot_step``, as the task does), the
    other seat plays through the API; the leaver's attempts are refused all along."""
    a, b = clients(2)
    gid = start_table([a, b], options={"rounds": 1})
    seats = by_seat(gid, [a, b])
    assert_json(seats[0].post(game_url(gid, "leave")), 200)  # the creator leaves
    left_at = Game.objects.get(pk=gid).version
    rng = random.Random(5)
    for _ in range(3000):
        game = Game.objects.get(pk=gid)
        if game.status == GameStatus.FINISHED:
            break
        state = engine.State.from_dict(game.state)
        if state.actor() == 0:
            # (as the worker would: a step whose robot waits a person's reaction time, e.g.
            # to catch a missed UNO, comes back when it is due)
            assert any(robots.bot_step(gid, game.version) or time.sleep(0.05) for _ in range(100)), \
                "the autopilot did not act for the left seat"
            if rng.random() < 0.2:  # the leaver tries to take the seat back: refused (once the
                # autopilot's move ended the game, as any move of a finished game)
                running = Game.objects.get(pk=gid).status == GameStatus.ACTIVE
                assert_problem(seats[0].post(game_url(gid, "actions"), {"type": "draw"}, format="json"),
                               *((403, "left_game") if running else (409, "game_finished")))
        else:
            g = assert_json(seats[1].get(game_url(gid)), 200)
            action = quick_policy(g["legal_actions"], rng)
            assert_json(seats[1].post(game_url(gid, "actions"), action, format="json"), 200)
    game = Game.objects.get(pk=gid)
    assert game.status == GameStatus.FINISHED
    seat = Seat.objects.get(game_id=gid, seat=0)
    assert seat.left and seat.autopilot  # to the end
    since = Move.objects.filter(game_id=gid, seat=0, seq__gt=left_at)
    assert not since.filter(by=MoveBy.PLAYER).exists()  # only the autopilot played it from then on
    assert since.filter(by=MoveBy.BOT).exists()
    # the seat's result is what the autopilot made of it, counted in the leaver's record
    winners = set(engine.State.from_dict(game.state).winners)
    assert seat.won == (0 in winners)
    assert selectors.stats_for_player(seats[0].player) == {"games_played": 1, "games_won": int(seat.won)}
    g = assert_json(seats[0].get(game_url(gid)), 200)
    assert g["players"][0]["left"] is True and g["legal_actions"] == []
    assert_problem(seats[0].post(game_url(gid, "actions"), {"type": "draw"}, format="json"), 409, "game_finished")


def test_the_autopilot_of_timeouts_still_ends_when_the_player_acts(clients):
    # (the reversible autopilot beside the left seat: acting again takes it back)
    a, b = clients(2)
    gid = start_table([a, b], options={"rounds": 1})
    seats = by_seat(gid, [a, b])
    current = Game.objects.get(pk=gid).current_seat
    Seat.objects.filter(game_id=gid, seat=current).update(autopilot=True, timeouts=3)
    g = assert_json(seats[current].get(game_url(gid)), 200)
    assert g["players"][current]["autopilot"] is True and g["players"][current]["left"] is False
    assert g["legal_actions"]
    action = g["legal_actions"][0]
    g = assert_json(seats[current].post(game_url(gid, "actions"), action, format="json"), 200)["game"]
    assert g["players"][current]["autopilot"] is False
    assert not Seat.objects.get(game_id=gid, seat=current).autopilot
