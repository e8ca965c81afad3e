"""Decktet-Uno's bot levels (preset ``decktet_uno``): every play scores at once, so a
level is how far it looks past the points of the card it plays.

* ``random``: any legal action.
* ``easy``: a random card that scores, if any (else any card face up).
* ``normal``: greedy: the card that scores most now (ties at random).  With
  ``face_down``, when nothing scores, it sets aside its card of most suits if that
  has two or more (likely to share a suit with the next player's card), else plays
  a card face up for nothing.
* ``hard``: determinized search over the engine with a time budget: every legal
  action is tried in the same sampled worlds (the unseen cards dealt again: from what
  the round's events tell, :class:`DecktetBeliefs`, when the caller gives them, as the
  server does; else uniformly, :func:`~games.engine.observe`), followed by ``HORIZON`` turns of every seat
  playing greedily, and valued by the points it gained less the mean the others
  gained; the best mean wins.  This sees what greedy play cannot: the card a play
  leaves on the pile is what the next player scores on (a three-suit card offers
  up to 6 points, a one-suit card at most 1), and the card kept for the next turn.

The policies take an observation (never the real state) and the engine's
:class:`~games.engine.Action` values, like UNO's (``policies.choose`` dispatches here).
"""

from __future__ import annotations

import random

from games.engine import DECKTET_POINTS as POINTS, GAME_OVER, Action, State, get_deck, legal_moves, push

from .beliefs import NONE, Beliefs
from .worlds import Sampler, sampled_worlds

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


def hard(state: State, seat: int, moves: list[Action], rng: random.Random, budget_ms: float,
         sampler: Sampler | None = None, max_samples: int | None = None) -> tuple[Action, int]:
    """``hard``'s action, and how many worlds it sampled.  ``sampler(state, seat, rng)``
    deals a world (or ``(world, weight)``; default :func:`observe`: uniformly);
    ``max_samples`` (a test's): that many worlds, not the time budget."""
    if len(moves) == 1:
        return moves[0], 0
    others = [s for s in range(state.seats) if s != seat]
    totals = [0.0] * len(moves)
    worlds = 0
    for world, weight in sampled_worlds(state, seat, rng, sampler, budget_ms, max_samples, MAX_WORLDS):
        worlds += 1
        for i, move in enumerate(moves):
            trial = world.copy()
            push(trial, seat, move)
            _playout(trial, HORIZON)
            gained = trial.scores[seat] - world.scores[seat]
            theirs = sum(trial.scores[s] - world.scores[s] for s in others) / len(others)
            totals[i] += weight * (gained - theirs)
    best = max(range(len(moves)), key=lambda i: (totals[i], -i))
    return moves[best], worlds


class DecktetBeliefs(Beliefs):
    """What one seat can tell about the other Decktet-Uno hands from the round's events
    (the slots and known cards of :class:`~games.bots.beliefs.Beliefs`, its ``deal``):

    - a card set aside face down (``face_down``) proves that no card of its player's hand
      scored on the top card (the rule): the cards it kept share no suit with it;
    - a card played face up was likely the one of its hand that scored most (what greedy
      ``normal`` plays, and most people): the cards it kept likely score no more on that
      top (likely only: like every such evidence it is dropped once a later play
      contradicts it);
    - a draw proves nothing (every turn ends with one) and adds an unknown card.

    The card set aside is dealt at random from the unseen cards (what it proves is not
    used)."""

    def __init__(self, state: State, seat: int) -> None:
        super().__init__(state, seat)
        self.top_card: int | None = None  # (the round's events name it: ``first_card``)

    def _on_round_started(self, e: dict) -> None:
        super()._on_round_started(e)
        self.top_card = None

    def _on_first_card(self, e: dict) -> None:
        self.top_card = e["card"]["id"]

    def _on_draw(self, e: dict) -> None:
        self.hands[e["seat"]].slots.extend([NONE] * e["count"])

    def _on_play(self, e: dict) -> None:
        s, card = e["seat"], e["card"]["id"]
        hand = self.hands[s]
        hand.take_out(card)
        if s != self.seat and self.top_card is not None:
            self._scored_at_most(s, POINTS[self.top_card][card])
        self.top_card = card

    def _on_face_down(self, e: dict) -> None:
        s = e["seat"]
        hand = self.hands[s]
        if s != self.seat:
            self._scored_at_most(s, 0)
        if hand.slots:  # the card set aside (which one, only its owner knows) leaves the hand
            hand.slots.pop()
        elif hand.known:
            hand.known.pop()

    def _on_face_down_placed(self, e: dict) -> None:
        self.top_card = e["card"]["id"]

    def _scored_at_most(self, s: int, points: int) -> None:
        """Seat ``s``'s cards scored at most ``points`` on the top card (proven or likely)."""
        if self.top_card is not None:
            row = POINTS[self.top_card]
            self.hands[s].exclude_all(frozenset(c for c, scored in enumerate(row) if scored > points))


#: the levels but ``hard`` (``hard`` takes a budget and reports its search)
POLICIES = {"random": _random, "easy": _easy, "normal": _normal}
