"""Decktet-Uno's bot levels (preset ``decktet_uno``): every play scores at once, so a
level is how far it looks past the points of the card it plays.

* ``random``: any legal action.
* ``easy``: a random card that scores, if any (else any card face up).
* ``normal``: greedy: the card that scores most now (ties at random).  With
  ``face_down``, when nothing scores, it sets aside its card of most suits if that
  has two or more (likely to share a suit with the next player's card), else plays
  a card face up for nothing.
* ``hard``: determinized search over the engine with a time budget: every legal
  action is tried in the same sampled worlds (the unseen cards dealt again:
  :func:`~games.engine.observe`), followed by ``HORIZON`` turns of every seat
  playing greedily, and valued by the points it gained less the mean the others
  gained; the best mean wins.  This sees what greedy play cannot: the card a play
  leaves on the pile is what the next player scores on (a three-suit card offers
  up to 6 points, a one-suit card at most 1), and the card kept for the next turn.

The policies take an observation (never the real state) and the engine's
:class:`~games.engine.Action` values, like UNO's (``policies.choose`` dispatches here).
"""

from __future__ import annotations

import random
import time

from games.engine import DECKTET_POINTS as POINTS, GAME_OVER, Action, State, get_deck, legal_moves, observe, push

#: turns of greedy play after the candidate, in every seat, before a world is valued
HORIZON = 6
#: sampled worlds at most (the time budget is what usually stops the search)
MAX_WORLDS = 2_000
#: how many suits each card has
SUITS = tuple(len(c.suits) for c in get_deck("decktet_44").cards)


def _plays(moves: list[Action]) -> list[Action]:
    return [m for m in moves if m.type == "play"]


def _random(state: State, seat: int, moves: list[Action], rng: random.Random) -> Action:
    return rng.choice(moves)


def _easy(state: State, seat: int, moves: list[Action], rng: random.Random) -> Action:
    row = POINTS[state.discard[-1]]
    scoring = [m for m in _plays(moves) if row[m.card]]
    return rng.choice(scoring or _plays(moves))


def _greedy(state: State, moves: list[Action], rng: random.Random | None) -> Action:
    """The face-up play that scores most (ties: at random, or the first without ``rng``)."""
    row = POINTS[state.discard[-1]]
    plays = _plays(moves)
    best = max(row[m.card] for m in plays)
    top = [m for m in plays if row[m.card] == best]
    return top[0] if rng is None or len(top) == 1 else rng.choice(top)


def _normal(state: State, seat: int, moves: list[Action], rng: random.Random) -> Action:
    pick = _greedy(state, moves, rng)
    if POINTS[state.discard[-1]][pick.card] == 0:
        face_down = [m for m in moves if m.type == "play_face_down" and SUITS[m.card] >= 2]
        if face_down:
            return max(face_down, key=lambda m: (SUITS[m.card], -m.card))
    return pick


def _playout(state: State, turns: int) -> None:
    """``turns`` turns of greedy play (fast path: no event built), or to the end."""
    for _ in range(turns):
        if state.phase == GAME_OVER:
            return
        seat = state.current
        push(state, seat, _greedy(state, legal_moves(state, seat), None))


def hard(state: State, seat: int, moves: list[Action], rng: random.Random, budget_ms: float) -> tuple[Action, int]:
    """``hard``'s action, and how many worlds it sampled."""
    if len(moves) == 1:
        return moves[0], 0
    deadline = time.perf_counter() + budget_ms / 1000.0
    others = [s for s in range(state.seats) if s != seat]
    totals = [0.0] * len(moves)
    worlds = 0
    while worlds < MAX_WORLDS and (worlds < 2 or time.perf_counter() < deadline):
        world = observe(state, seat, rng)
        worlds += 1
        for i, move in enumerate(moves):
            trial = world.copy()
            push(trial, seat, move)
            _playout(trial, HORIZON)
            gained = trial.scores[seat] - world.scores[seat]
            theirs = sum(trial.scores[s] - world.scores[s] for s in others) / len(others)
            totals[i] += gained - theirs
    best = max(range(len(moves)), key=lambda i: (totals[i], -i))
    return moves[best], worlds


#: the levels but ``hard`` (``hard`` takes a budget and reports its search)
POLICIES = {"random": _random, "easy": _easy, "normal": _normal}
