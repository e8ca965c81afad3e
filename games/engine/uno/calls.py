"""Calling UNO and catching a player who did not (RULES.md "UNO"; option ``uno_penalty``).

A player who plays their next-to-last card must call UNO: ahead, in their turn
(``call_uno`` with two cards), or with the play (``"uno": true``).  Otherwise the UNO
window opens on them (``State.uno_exposed``): any other player may ``catch_uno`` them
(they draw ``uno_penalty`` cards), and they may still ``call_uno`` to be safe.

The window's close rule: the next player beginning their turn closes it, that is any
other player playing, drawing, passing or challenging (naming a colour does not); so
does the player drawing cards, and hands changing owners (a 7 or a 0 with
``seven_zero``).
"""

from __future__ import annotations

from typing import Any

from ..actions import Action, ActionType, register
from ..config import OptionSpec, integer
from ..rules import Decision, Module, Rules, Window
from ..state import State
from .piles import draw

Events = Any  # list[dict] | None

CALL_UNO = register(ActionType(
    "call_uno", refusal="UNO is called with two cards in turn, or with one card before being caught",
    doc="call UNO: in turn with two cards, or with one card before being caught"))
CATCH_UNO = register(ActionType("catch_uno", (("target_seat", True),), refusal="that player cannot be caught now",
                                doc="catch a player who played their next-to-last card without calling UNO"))

CALL_MOVE = Action("call_uno")
#: the in-turn actions of another seat that close the window
CLOSED_BY = frozenset({"play", "draw", "pass", "challenge"})


def hands_moved(state: State) -> None:
    """Hands changed owners: nobody holds the uncalled card any more."""
    state.uno_exposed = None


class UnoWindow(Window):
    """The UNO window: the call ahead of the seat in turn, the call and the catch of an
    uncalled last card."""

    name = "uno"
    actions = ("call_uno", "catch_uno")

    def __init__(self) -> None:
        self._catch: dict[int, Action] = {}

    def moves(self, state: State, rules: Rules, seat: int, top: Decision, is_owner: bool, out: list) -> None:
        exposed = state.uno_exposed
        if exposed is None and not is_owner:
            return  # the usual case of a seat out of turn: nothing to call, nobody to catch
        if (is_owner and top.turn_extras and len(state.hands[seat]) == 2 and state.uno_declared != seat) \
                or seat == exposed:
            out.append(CALL_MOVE)
        if exposed is not None and seat != exposed:
            catch = self._catch.get(exposed)
            if catch is None:
                catch = self._catch[exposed] = Action("catch_uno", target_seat=exposed)
            out.append(catch)

    def apply(self, state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
        if move[0] == "call_uno":
            if state.uno_exposed == seat:
                state.uno_exposed = None
            else:
                state.uno_declared = seat
            if ev is not None:
                ev.append({"type": "uno", "seat": seat})
            return
        target = move[3]
        state.uno_exposed = None
        if ev is not None:
            ev.append({"type": "uno_caught", "seat": seat, "target_seat": target})
        draw(state, rules, target, rules.opts["uno_penalty"], ev, reason="uno_penalty")

    def on_act(self, state: State, seat: int, kind: str) -> None:
        if state.uno_exposed is not None and state.uno_exposed != seat and kind in CLOSED_BY:
            state.uno_exposed = None


class UnoCalls(Module):
    name = "uno_calls"
    options = (OptionSpec("uno_penalty", 2, integer(1, 20), "cards drawn by a player caught without calling UNO"),)

    def install(self, rules: Rules) -> None:
        rules.windows.append(UnoWindow())
