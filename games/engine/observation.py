"""What a seat knows, as a playable state: for bots and search.

:func:`observe` returns a *determinization*: a full :class:`State` that agrees
with everything ``seat`` can see (its own hand, counts, piles' sizes, the public
discard pile) while every card it cannot see (other hands and the draw pile) is
dealt again at random from the unseen cards.  Code given only observations
cannot use hidden information, whatever it does with them.
"""

from __future__ import annotations

import random

from .rules import build_rules
from .state import State


def clone(state: State) -> State:
    """A fast deep copy (lists of ints and small dicts)."""
    return State(
        config=state.config,
        status=state.status,
        round=state.round,
        dealer=state.dealer,
        scores=list(state.scores),
        history=[dict(h) for h in state.history],
        winner=state.winner,
        shuffles=state.shuffles,
        hands=[list(h) for h in state.hands],
        draw_pile=list(state.draw_pile),
        discard=list(state.discard),
        current=state.current,
        direction=state.direction,
        color=state.color,
        pending=dict(state.pending) if state.pending is not None else None,
        drawn=list(state.drawn),
        uno_declared=state.uno_declared,
        uno_exposed=state.uno_exposed,
        seq=state.seq,
    )


def observe(state: State, seat: int, rng: random.Random) -> State:
    """A random state consistent with what ``seat`` sees of ``state``."""
    obs = clone(state)
    unseen: list[int] = list(obs.draw_pile)
    for s, hand in enumerate(obs.hands):
        if s != seat:
            unseen.extend(hand)
    rng.shuffle(unseen)
    pos = 0
    for s, hand in enumerate(obs.hands):
        if s != seat:
            k = len(hand)
            obs.hands[s] = unseen[pos : pos + k]
            pos += k
    obs.draw_pile = unseen[pos:]
    actor = obs.actor()
    if actor is not None and actor != seat and obs.drawn:
        # which cards the actor drew is hidden too: say they are its last ones
        obs.drawn = obs.hands[actor][-len(obs.drawn) :]
    p = obs.pending
    if p is not None and "guilty" in p:
        # whether a Wild Draw Four was a bluff follows from the sampled hand
        color = build_rules(obs.config).deck.color
        p["guilty"] = any(color[c] == p.get("prev_color") for c in obs.hands[p["by"]])
    # a different future: the observer must not know the real shuffles to come
    obs.config = type(obs.config)(obs.config.preset, obs.config.seats, f"obs:{rng.random()}", obs.config.options)
    return obs
