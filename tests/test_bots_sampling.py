"""games.bots.sampling: determinizations under constraints on hidden cards."""

from __future__ import annotations

import random
from collections import Counter

from games.bots import choose
from games.bots.sampling import constrained_deal, constrained_sampler
from games.engine import build_rules, legal_actions, new_game
from games.engine import observe

NOT_RED_NOR_WILD = (frozenset({"red"}), frozenset({"wild", "wild_draw_four"}))
NOT_BLUE_NOR_7 = (frozenset({"blue"}), frozenset({"7"}))


def cards(state):
    return Counter(c for h in state.hands for c in h) + Counter(state.draw_pile) + Counter(state.discard)


def test_constrained_deal_respects_the_constraints_and_conserves_the_cards():
    state = new_game("standard", {"rounds": 1}, 2, 7)
    deck = build_rules(state.config).deck
    n = len(state.hands[1])
    constraints = {1: [NOT_RED_NOR_WILD] * 3 + [NOT_BLUE_NOR_7]}
    for seed in range(200):
        obs = constrained_deal(state, 0, constraints, random.Random(seed))
        assert cards(obs) == cards(state)
        assert obs.hands[0] == state.hands[0] and obs.discard == state.discard
        assert len(obs.hands[1]) == n and len(obs.draw_pile) == len(state.draw_pile)
        hand = obs.hands[1]
        fit = [c for c in hand if deck.color[c] != "red" and deck.color[c] is not None]
        assert len(fit) >= 3
        assert any(deck.color[c] != "blue" and deck.rank[c] != "7" for c in hand)


def test_constrained_deal_varies_the_free_cards_and_drops_what_nothing_satisfies():
    state = new_game("standard", {"rounds": 1}, 2, 3)
    impossible = (frozenset({"red", "green", "blue", "yellow", None}), frozenset())
    hands = set()
    for seed in range(20):
        obs = constrained_deal(state, 0, {1: [impossible]}, random.Random(seed))
        assert cards(obs) == cards(state) and len(obs.hands[1]) == len(state.hands[1])
        hands.add(tuple(sorted(obs.hands[1])))
    assert len(hands) > 1


def test_no_constraint_is_observe():
    state = new_game("standard", {"rounds": 1}, 2, 5)
    a = constrained_deal(state, 0, {}, random.Random(1))
    b = observe(state, 0, random.Random(1))
    assert a.hands == b.hands and a.draw_pile == b.draw_pile


def test_hard_accepts_a_sampler():
    state = new_game("standard", {"rounds": 1}, 2, 11)
    seat = state.actor()
    legal = legal_actions(state, seat)
    obs = observe(state, seat, random.Random(0))
    sampler = constrained_sampler({1 - seat: [NOT_RED_NOR_WILD] * 2})
    assert choose("hard", obs, seat, legal, random.Random(0), budget_ms=2, sampler=sampler) in legal


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
