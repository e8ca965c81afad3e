"""What a seat knows, as a playable state: for bots and search.

:func:`observe` returns a *determinization*: a full :class:`State` that agrees with
everything ``seat`` can see (its own hand, counts, piles' sizes, the public discard
pile) while every card it cannot see (other hands and the draw pile) is dealt again at
random from the unseen cards (the cards others set aside face down too), and the decisions that keep hidden data (which cards were
just drawn, whether a Wild Draw Four was a bluff) make it agree with the new deal
(``Decision.redeal``).  Code given only observations cannot use hidden information,
whatever it does with them.
"""

from __future__ import annotations

import random

from .catalog import build_rules
from .state import State


def redeal_hidden(obs: State, seat: int, rng: random.Random) -> State:
    """Make a state whose hidden cards were dealt again consistent for ``seat``: the
    decisions' hidden data, and a different future (the observer must not know the
    real shuffles to come).  Samplers that deal in their own way end with this."""
    rules = build_rules(obs.config)
    if obs.stack:
        obs.stack = [d.redeal(obs, rules, seat) for d in obs.stack]
    if obs.windows:
        obs.windows = [w.redeal(obs, rules, seat) for w in obs.windows]
    obs.config = obs.config.reseeded(f"obs:{rng.random()}")
    return obs


def unseen_cards(state: State, seat: int) -> tuple[list[int], list[list[int]]]:
    """The cards ``seat`` cannot see in ``state`` (the draw pile, the other hands, the
    cards others set aside face down, in that order), and those set-aside ``[seat,
    card]`` pairs (the state's own: a sampler deals into a copy)."""
    unseen: list[int] = list(state.draw_pile)
    for s, hand in enumerate(state.hands):
        if s != seat:
            unseen.extend(hand)
    hidden_aside = [a for a in state.aside if a[0] != seat]
    unseen.extend(a[1] for a in hidden_aside)
    return unseen, hidden_aside


def observe(state: State, seat: int, rng: random.Random) -> State:
    """A random state consistent with what ``seat`` sees of ``state``: the other hands,
    the draw pile and the cards others set aside face down dealt again."""
    obs = state.copy()
    unseen, hidden_aside = unseen_cards(obs, seat)
    rng.shuffle(unseen)
    pos = 0
    for a in hidden_aside:  # (copies: ``State.copy`` copied each pair)
        a[1] = unseen[pos]
        pos += 1
    for s, hand in enumerate(obs.hands):
        if s != seat:
            k = len(hand)
            obs.hands[s] = unseen[pos : pos + k]
            pos += k
    obs.draw_pile = unseen[pos:]
    return redeal_hidden(obs, seat, rng)
