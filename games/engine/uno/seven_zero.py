"""Option ``seven_zero``: a 0 passes every hand on in the direction of play; a 7
swaps hands with a player the player names (``target_seat``).

The hand moves are ``hand_moves``' (shared with the Change de jeu, the UNO card and the
Mattel wilds).

Decision: going out with a 7 or a 0 ends the round; no hands change then (the round
is over before the card's effect), and a last 7 names nobody.
"""

from __future__ import annotations

from typing import Any

from ..config import OptionSpec, boolean
from ..rules import Module, Play, Rules
from ..state import State
from .hand_moves import rotate_hands, swap_hands, target_params

Events = Any  # list[dict] | None


def zero(state: State, rules: Rules, play: Play, ev: Events) -> int:
    rotate_hands(state, rules, play.seat, state.direction, ev)
    return 1


def seven(state: State, rules: Rules, play: Play, ev: Events) -> int:
    swap_hands(state, rules, play.seat, play.move[3], ev)
    return 1


#: a 7's plays: every other seat as its target; as the last card, none
seven_params = target_params


class SevenZero(Module):
    name = "seven_zero"
    options = (OptionSpec("seven_zero", False, boolean, "0 rotates all hands, 7 swaps hands with a named player"),)

    def install(self, rules: Rules) -> None:
        if rules.opts["seven_zero"]:
            rules.effects["0"] = zero
            rules.effects["7"] = seven
            rules.params["7"] = seven_params
