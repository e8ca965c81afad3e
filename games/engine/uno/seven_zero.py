"""Option ``seven_zero``: a 0 passes every hand on in the direction of play; a 7
swaps hands with a player the player names (``target_seat``).

Decision: going out with a 7 or a 0 ends the round; no hands change then (the round
is over before the card's effect), and a last 7 names nobody.
"""

from __future__ import annotations

from typing import Any

from ..config import OptionSpec, boolean
from ..rules import Module, Play, Rules
from ..state import State
from .calls import hands_moved
from .piles import reveal_hands

Events = Any  # list[dict] | None


def zero(state: State, rules: Rules, play: Play, ev: Events) -> int:
    n, d = state.seats, state.direction
    hands = state.hands
    state.hands = [hands[(i - d) % n] for i in range(n)]
    hands_moved(state)
    if ev is not None:
        ev.append({"type": "hands_rotated", "seat": play.seat,
                   "direction": "clockwise" if d == 1 else "counterclockwise"})
    reveal_hands(state, rules, ev)
    return 1


def seven(state: State, rules: Rules, play: Play, ev: Events) -> int:
    a, b = play.seat, play.move[3]
    state.hands[a], state.hands[b] = state.hands[b], state.hands[a]
    hands_moved(state)
    if ev is not None:
        ev.append({"type": "hands_swapped", "seat": a, "target_seat": b})
    reveal_hands(state, rules, ev, [a, b])
    return 1


def seven_params(rules: Rules, seat: int, card: int, hand_size: int) -> list[dict]:
    if hand_size == 1:
        return [{}]  # going out with a 7 swaps nothing, so it needs no target
    return [{"target_seat": t} for t in range(rules.seats) if t != seat]


class SevenZero(Module):
    name = "seven_zero"
    options = (OptionSpec("seven_zero", False, boolean, "0 rotates all hands, 7 swaps hands with a named player"),)

    def install(self, rules: Rules) -> None:
        if rules.opts["seven_zero"]:
            rules.effects["0"] = zero
            rules.effects["7"] = seven
            rules.params["7"] = seven_params
