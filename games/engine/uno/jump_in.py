"""Option ``jump_in``: playing an identical card out of turn.

``exact``: same colour and number/symbol; ``super``: same number/symbol, any colour;
never Wilds, never a card played only in answer (a Renvoi).  A window open to every
seat but the one that owes the decision on top, except while a colour is being named.
Play continues from the jumper, who takes it as their turn; the jumped-in card cancels
the pending effect of the one beneath it (its own effect follows from the jumper).
"""

from __future__ import annotations

from typing import Any, Callable

from ..config import OptionSpec, choice
from ..rules import Decision, Module, Rules, Window
from ..state import State
from .turn import card_moves, jump_in

Events = Any  # list[dict] | None
Finder = Callable[[State, Rules, int], list[int]]


def exact(state: State, rules: Rules, seat: int) -> list[int]:
    top = state.discard[-1]
    color, rank = rules.deck.color, rules.deck.rank
    tc, tr = color[top], rank[top]
    if tc is None:
        return []
    return [c for c in state.hands[seat] if rank[c] == tr and color[c] == tc]


def same_rank(state: State, rules: Rules, seat: int) -> list[int]:
    top = state.discard[-1]
    color, rank = rules.deck.color, rules.deck.rank
    if color[top] is None:
        return []
    tr = rank[top]
    return [c for c in state.hands[seat] if rank[c] == tr and color[c] is not None]


FINDERS: dict[str, Finder] = {"exact": exact, "super": same_rank}


def jumpable(state: State, rules: Rules, seat: int, find: Finder) -> list[int]:
    """The cards ``find`` admits, less those played only in answer to a decision (a
    Renvoi: ``Rules.answer_only``)."""
    if not state.discard:
        return []  # no card turned up yet (Duo's draft): nothing to jump in on
    cards = find(state, rules, seat)
    if cards and rules.answer_only:
        rank = rules.deck.rank
        cards = [c for c in cards if rank[c] not in rules.answer_only]
    return cards


class JumpInWindow(Window):
    name = "jump_in"
    actions = ("play",)

    def __init__(self, find: Finder):
        self.find = find

    def moves(self, state: State, rules: Rules, seat: int, top: Decision, is_owner: bool, out: list) -> None:
        if is_owner or not top.windows_open:
            return
        cards = jumpable(state, rules, seat, self.find)
        if cards:
            n = len(state.hands[seat])
            for c in sorted(cards):
                out.extend(card_moves(rules, seat, c, n))

    def takes(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        # a listed play from a seat that does not owe the top decision: a jump-in if
        # its card is one (another window may offer other plays: a cut-in)
        return move[1] in jumpable(state, rules, seat, self.find)

    def might_take(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        return move[1] in jumpable(state, rules, seat, self.find)

    def apply(self, state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
        jump_in(state, rules, seat, move, ev)


class JumpIn(Module):
    name = "jump_in"
    options = (OptionSpec("jump_in", "off", choice("off", *FINDERS), "out-of-turn play of an identical card"),)

    def install(self, rules: Rules) -> None:
        find = FINDERS.get(rules.opts["jump_in"])
        if find is not None:
            rules.windows.append(JumpInWindow(find))
