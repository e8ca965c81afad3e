"""hard's samplers: a sampler may weigh the worlds it deals (games/bots/beliefs.py's
own tests are tests/engine/test_beliefs.py)."""

from __future__ import annotations

import random

from games.bots import choose
from games.engine import build_rules, legal_actions
from games.engine import observe


def test_hard_weighs_the_worlds_a_sampler_returns_with_a_weight():
    """A sampler may return (world, weight): the search then averages with the
    weights, so a world of weight 0 counts for nothing.  Here the opponent's last
    card decides the move: the play of the colour it holds would let it go out."""
    from .engine.helpers import arrange

    state = arrange(hands=[["red 5", "blue 5"], ["yellow 2"]], top="green 5", current=0)
    deck = build_rules(state.config).deck
    legal = legal_actions(state, 0)

    def holding(colour, other):
        calls = [0]

        def sampler(st, seat, rng):
            # worlds alternate: the opponent holds a card of `colour` (weight 1) or of
            # `other` (weight 0); unweighted, the two kinds would balance out
            calls[0] += 1
            held = colour if calls[0] % 2 else other
            world = observe(st, seat, rng)
            pile = world.draw_pile
            i = next(i for i, c in enumerate(pile) if deck.color[c] == held and deck.rank[c] != "5")
            world.hands[1], pile[i] = [pile[i]], world.hands[1][0]
            return world, 1.0 if held == colour else 0.0

        return sampler

    for colour, other in (("red", "blue"), ("blue", "red")):
        for seed in range(3):
            pick = choose("hard", state, 0, legal, random.Random(seed), budget_ms=30, sampler=holding(colour, other))
            assert pick["type"] == "play" and deck.color[pick["card"]] == other, (colour, pick)
