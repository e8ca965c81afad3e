"""Option ``seven_zero``: a 0 passes every hand on in the direction of play; a 7
swaps hands with a player the player names (``target_seat``).

Decision: going out with a 7 or a 0 ends the round; no hands change then (the
round is over before the card's effect).
"""

from __future__ import annotations

from ..core import advance, reveal_hands
from . import Events, Play, Rules, State


def zero(state: State, rules: Rules, play: Play, ev: Events) -> None:
    n, d = state.seats, state.direction
    hands = state.hands
    state.hands = [hands[(i - d) % n] for i in range(n)]
    state.uno_exposed = None
    ev.append({"type": "hands_rotated", "seat": play.seat, "direction": "clockwise" if d == 1 else "counterclockwise"})
    reveal_hands(state, rules, ev)
    advance(state)


def seven(state: State, rules: Rules, play: Play, ev: Events) -> None:
    a, b = play.seat, play.action["target_seat"]
    state.hands[a], state.hands[b] = state.hands[b], state.hands[a]
    state.uno_exposed = None
    ev.append({"type": "hands_swapped", "seat": a, "target_seat": b})
    reveal_hands(state, rules, ev, [a, b])
    advance(state)


def target_params(state: State, rules: Rules, seat: int, card: int) -> list[dict]:
    return [{"target_seat": t} for t in range(state.seats) if t != seat]


def _seven_params(state: State, rules: Rules, seat: int, card: int) -> list[dict]:
    # Going out with a 7 swaps nothing, so it needs no target.
    if len(state.hands[seat]) == 1:
        return [{}]
    return target_params(state, rules, seat, card)


def install(rules: Rules) -> None:
    if rules.opt("seven_zero"):
        rules.effects["0"] = zero
        rules.effects["7"] = seven
        rules.params["7"] = _seven_params
