"""Option ``jump_in``: playing an identical card out of turn.

``exact``: same colour and number/symbol; ``super``: same number/symbol, any
colour; never Wilds.  Play continues from the jumper, who takes it as their turn;
the jumped-in card cancels the pending effect of the one beneath it (the turn
machinery drops the pending decision before the jumper's card takes effect).
"""

from __future__ import annotations

from . import Rules, State


def _exact(state: State, rules: Rules, seat: int) -> list[int]:
    top = state.discard[-1]
    color, rank = rules.deck.color, rules.deck.rank
    tc, tr = color[top], rank[top]
    if tc is None:
        return []
    return [c for c in state.hands[seat] if rank[c] == tr and color[c] == tc]


def _super(state: State, rules: Rules, seat: int) -> list[int]:
    top = state.discard[-1]
    color, rank = rules.deck.color, rules.deck.rank
    if color[top] is None:
        return []
    tr = rank[top]
    return [c for c in state.hands[seat] if rank[c] == tr and color[c] is not None]


def install(rules: Rules) -> None:
    mode = rules.opt("jump_in")
    if mode == "exact":
        rules.out_of_turn.append(_exact)
    elif mode == "super":
        rules.out_of_turn.append(_super)
