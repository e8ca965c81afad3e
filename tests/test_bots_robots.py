"""The bot service (games.robots) on arranged positions: who acts first, and what
happens when a bot fails."""

from __future__ import annotations

import logging
import random

import pytest

from games import bots, robots, services
from games.models import Game, Move, Seat
from tests.engine.helpers import arrange, play

pytestmark = pytest.mark.django_db


def game_in(make_player, levels: list[str], state) -> int:
    """A started game (human in seat 0, bots of ``levels`` after) put in ``state``."""
    player, _ = make_player("hugo")
    game = services.create_game(creator=player, ruleset="standard", max_players=len(levels) + 1,
                                bots=[{"level": lv} for lv in levels])
    services.start_game(player=player, game_id=game.pk)
    # (obligations null: what the arranged state owes, as a game stored before them)
    Game.objects.filter(pk=game.pk).update(state=state.to_dict(), current_seat=state.actor(), round=state.round,
                                           obligations=None)
    return game.pk


def version(gid: int) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=gid)


def test_acting_order_puts_the_seat_in_turn_last():
    rng = random.Random(1)
    orders = {tuple(bots.acting_order(2, [0, 1, 2, 3], rng)) for _ in range(50)}
    assert all(o[-1] == 2 and sorted(o) == [0, 1, 2, 3] for o in orders)
    assert len(orders) > 1  # the others in a random order: out-of-turn chances are a race
    assert bots.acting_order(None, [1, 3], rng) in ([1, 3], [3, 1])
    assert bots.acting_order(0, [1, 3], rng) in ([1, 3], [3, 1])


def test_a_bot_catches_a_missed_uno_before_the_bot_in_turn_plays(make_player):
    # Seat 0 (the human) plays its next-to-last card without calling UNO; seat 1 (a bot)
    # is next.  The other bot must get its chance to catch before seat 1 moves and
    # closes the window (before the fix, the bot in turn always moved first).
    state = arrange(seats=3, hands=[["red 5", "blue 7"], ["green 2", "yellow 4", "green 9"],
                                    ["blue 2", "yellow 8", "green 6"]], top="red 3", current=0)
    play(state, 0, "red 5")
    assert state.uno_exposed == 0 and state.actor() == 1
    gid = game_in(make_player, ["normal", "normal"], state)
    v = version(gid)
    assert robots.bot_step(gid, v)
    move = Move.objects.get(game_id=gid, seq=v + 1)
    assert (move.seat, move.by, move.action) == (2, "bot", {"type": "catch_uno", "target_seat": 0})
    # then the bot in turn plays
    assert robots.bot_step(gid, v + 1)
    move = Move.objects.get(game_id=gid, seq=v + 2)
    assert move.seat == 1 and move.by == "bot" and move.action["type"] in ("play", "draw")


def test_a_failing_bot_in_turn_is_replaced_by_the_timer(make_player, caplog):
    state = arrange(seats=2, hands=[["red 5", "blue 7"], ["green 2", "yellow 4"]], top="red 3", current=1)
    gid = game_in(make_player, ["normal"], state)
    Seat.objects.filter(game_id=gid, seat=1).update(bot_level="genius")  # no such policy: it raises
    v = version(gid)
    with caplog.at_level(logging.ERROR, logger="games.robots"):
        assert robots.bot_step(gid, v)
    assert "the genius bot of seat 1 failed" in caplog.text
    move = Move.objects.get(game_id=gid, seq=v + 1)
    assert (move.seat, move.by, move.action) == (1, "timer", {"type": "timeout"})
    assert Game.objects.get(pk=gid).current_seat == 0  # the game goes on


def test_a_bot_out_of_turn_with_nothing_to_do_lets_the_human_think(make_player):
    state = arrange(seats=2, hands=[["red 5", "blue 7"], ["green 2", "yellow 4"]], top="red 3", current=0)
    gid = game_in(make_player, ["normal"], state)
    v = version(gid)
    assert not robots.bot_step(gid, v)
    assert version(gid) == v


def test_a_hard_bot_decides_from_the_events_of_the_round_it_was_shown(make_player, monkeypatch):
    """``hard`` infers the hidden hands from the round's public history: the robots read
    it from the moves (``selectors.round_history``), only this round's, only what its
    seat was shown, and hand it to the bot."""
    from games import engine, selectors
    from games.bots import Beliefs

    player, _ = make_player("hugo")
    game = services.create_game(creator=player, ruleset="standard", max_players=2, bots=[{"level": "hard"}],
                                options={"rounds": 2})
    services.start_game(player=player, game_id=game.pk)
    given: list = []
    real_decide = bots.decide

    def decide(level, state, seat, rng, budget_ms=None, history=None, max_samples=None):
        given.append((state.round, seat, history))
        return real_decide(level, state, seat, rng, budget_ms=2, history=history, max_samples=max_samples)

    monkeypatch.setattr(bots, "decide", decide)
    rng = random.Random(3)
    for _ in range(3000):
        g = Game.objects.get(pk=game.pk)
        state = engine.State.from_dict(g.state)
        if g.status == "finished" or (state.round == 2 and len(given) > 5 and given[-1][0] == 2):
            break
        if state.actor() == 0:
            legal = engine.legal_actions(state, 0)
            plays = [a for a in legal if a["type"] in ("play", "choose_color")]
            services.act(game_id=game.pk, player=player, action=rng.choice(plays or legal))
        else:
            assert robots.bot_step(game.pk, g.version)
    assert given and all(seat == 1 and history for _, seat, history in given)
    state = engine.State.from_dict(Game.objects.get(pk=game.pk).state)
    assert state.round == 2 and state.phase == engine.PLAY, "the second round is under way"
    history = selectors.round_history(Game.objects.get(pk=game.pk), state.round, 1)
    assert history[0] == {"type": "round_started", "round": state.round, "dealer": history[0]["dealer"]}
    assert not any(e["type"] == "round_started" for e in history[1:])
    assert all(e["to"] == [1] for e in history if "to" in e), "only what seat 1 was shown"
    assert any(e["type"] == "hand" and e["seat"] == 1 for e in history)
    everything = [e for m in Move.objects.filter(game_id=game.pk).order_by("seq") for e in m.events]
    start = max(i for i, e in enumerate(everything) if e["type"] == "round_started")
    assert history == engine.visible_events(everything[start:], 1)
    assert Beliefs(state, 1).feed(history).hands[0].count == len(state.hands[0])


def test_the_round_history_stops_at_the_version_the_game_was_read_at(make_player):
    """A robot reads the game, then the round's moves, with no lock: a move that commits
    in between is not part of the state it decides on, so its events are not read."""
    from games import engine, selectors

    player, _ = make_player("ines")
    game = services.create_game(creator=player, ruleset="standard", max_players=2, bots=[{"level": "normal"}])
    services.start_game(player=player, game_id=game.pk)
    read = Game.objects.get(pk=game.pk)  # the game as the robot read it
    state = engine.State.from_dict(read.state)
    before = selectors.round_history(read, state.round, 1)
    actor = state.actor()
    legal = engine.legal_actions(state, actor)
    if actor == 0:
        services.act(game_id=game.pk, player=player, action=legal[0])
    else:
        assert robots.bot_step(game.pk, read.version)
    assert Game.objects.get(pk=game.pk).version > read.version, "a move committed after the read"
    assert selectors.round_history(read, state.round, 1) == before
    assert len(selectors.round_history(Game.objects.get(pk=game.pk), state.round, 1)) > len(before)
