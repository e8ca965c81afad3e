"""Determinizations that respect what is known about hidden hands.

A *constraint* on one hidden card is a pair ``(colours, ranks)``: the card is of none
of those colours (``None`` is the colour of wilds) and of none of those ranks.
:func:`constrained_sampler` returns a sampler for ``games.bots.choose(...,
sampler=...)`` (``hard``): like :func:`~games.engine.observe` it deals
every card the seat cannot see again at random, but each listed card of a seat's
hand only from the unseen cards that satisfy its constraint (the hand's other
cards, and the draw pile, from what is left).  Constraints are dealt most
restrictive first: when they are nested (as those learned from forced draws are)
this is uniform over the deals that satisfy them all.  A constraint no unseen card
left satisfies is dropped (that card is dealt freely).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from games.engine import State, build_rules, observe, redeal_hidden

Constraint = tuple[frozenset, frozenset]  # (excluded colours, excluded ranks)


def constrained_deal(state: State, seat: int, constraints: Mapping[int, Sequence[Constraint]],
                     rng: random.Random) -> State:
    """``observe(state, seat, rng)`` with the hands of ``constraints``' seats dealt
    under their constraints (at most one per card of the hand)."""
    obs = observe(state, seat, rng)
    if not any(constraints.get(s) for s in range(len(obs.hands)) if s != seat):
        return obs
    deck = build_rules(obs.config).deck
    color, rank = deck.color, deck.rank
    unseen = list(obs.draw_pile)
    for s, hand in enumerate(obs.hands):
        if s != seat:
            unseen.extend(hand)
    rng.shuffle(unseen)
    used = [False] * len(unseen)
    hands: dict[int, list[int]] = {}
    for s, hand in enumerate(obs.hands):
        if s == seat:
            continue
        cons = sorted(constraints.get(s, ())[: len(hand)], key=lambda c: -(len(c[0]) + len(c[1])))
        picked = hands.setdefault(s, [])
        for colours, ranks in cons:
            for i, c in enumerate(unseen):
                if not used[i] and color[c] not in colours and rank[c] not in ranks:
                    used[i] = True
                    picked.append(c)
                    break
    # the rest of every hand (unconstrained cards, or constraints nothing satisfied)
    rest = iter(i for i in range(len(unseen)) if not used[i])
    for s, hand in enumerate(obs.hands):
        if s == seat:
            continue
        picked = hands[s]
        while len(picked) < len(hand):
            i = next(rest)
            used[i] = True
            picked.append(unseen[i])
        rng.shuffle(picked)
        obs.hands[s] = picked
    obs.draw_pile = [c for i, c in enumerate(unseen) if not used[i]]
    return redeal_hidden(obs, seat, rng)  # the decisions' hidden data agree with the new deal


def constrained_sampler(
    constraints: Mapping[int, Sequence[Constraint]],
) -> Callable[[State, int, random.Random], State]:
    """A ``sampler`` for ``choose(..., sampler=...)`` dealing under ``constraints``."""
    return lambda state, seat, rng: constrained_deal(state, seat, constraints, rng)
