"""hard's search at tables of three and more (issue 31): how a rollout cut short is
valued, and when the search overrules normal's favourite."""

from __future__ import annotations

import random

import pytest

from games.bots import decide, policies
from games.engine import GAME_OVER, apply, legal_actions, legal_moves, new_game
from tests.engine.helpers import arrange


def cut_value(state, seat: int, monkeypatch) -> float:
    monkeypatch.setattr(policies, "HARD_ROLLOUT_DEPTH", 0)  # (judged at once by the hand sizes)
    return policies._rollout(state.copy(), seat, random.Random(0))


def test_a_rollout_cut_short_values_every_seat_by_its_hand_size(monkeypatch):
    state = arrange(seats=3, hands=[["red 1", "red 2"], ["blue 1", "blue 2", "blue 3", "blue 4"],
                                    ["green 1", "green 2", "green 3", "green 4"]])
    values = [cut_value(state, s, monkeypatch) for s in range(3)]
    assert values[0] == pytest.approx(0.5)  # 1/2 against 1/2 + 1/4 + 1/4
    assert values[1] == values[2] == pytest.approx(0.25)
    four = arrange(seats=4, hands=[["red 1", "red 2"], ["blue 1", "blue 2"], ["green 1", "green 2"],
                                   ["yellow 1", "yellow 2"]])
    assert cut_value(four, 0, monkeypatch) == pytest.approx(0.25), "four equal hands: a quarter each"
    two = arrange(hands=[["red 1", "red 2"], ["blue 1", "blue 2", "blue 3", "blue 4"]])
    assert cut_value(two, 0, monkeypatch) == pytest.approx(4 / 6), "heads-up: the opponent's cards over both"


def positions(seats: int, games: int):
    """Positions of ``normal`` games where the seat in turn has more than one legal action."""
    for g in range(games):
        dealt: list[dict] = []
        state = new_game("standard", {"rounds": 1}, seats, f"gate:{seats}:{g}", events=dealt)
        rng = random.Random(g)
        for _ in range(400):
            if state.phase == GAME_OVER:
                break
            seat = state.actor()
            legal = legal_actions(state, seat)
            if len(legal) > 1:
                yield state, seat
            apply(state, seat, decide("normal", state, seat, rng))


def test_at_three_seats_and_more_hard_keeps_normals_favourite_unless_another_is_clearly_better(monkeypatch):
    """With an overrule margin no search can reach, ``hard`` plays the first candidate
    (``normal``'s favourite) at 3 and 4 seats; heads-up the best mean still decides."""
    monkeypatch.setattr(policies, "OVERRULE_Z", float("inf"))
    for seats in (3, 4):
        compared = 0
        for n, (state, seat) in enumerate(positions(seats, 3)):
            if n % 4:
                continue
            candidates = policies._candidates(state, seat, legal_moves(state, seat))
            if len(candidates) < 2 or any(a.type == "choose_color" for a in candidates):
                continue  # (a colour to name: normal's judgement, not searched)
            pick = decide("hard", state, seat, random.Random(n), max_samples=8)
            assert pick == candidates[0].to_json(), (seats, n)
            compared += 1
        assert compared >= 10
    overruled = 0
    for n, (state, seat) in enumerate(positions(2, 3)):
        candidates = policies._candidates(state, seat, legal_moves(state, seat))
        if len(candidates) >= 2:
            overruled += decide("hard", state, seat, random.Random(n), max_samples=8) != candidates[0].to_json()
    assert overruled, "heads-up the search still overrules normal's favourite"
