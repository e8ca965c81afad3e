"""The piles and hands of a UNO game: drawing, reshuffling, revealing, counting.

Every function mutates ``state`` and, unless ``ev`` is None (the fast path), appends
events to it.
"""

from __future__ import annotations

from typing import Any

from ..rules import Rules
from ..state import State

Events = Any  # list[dict] | None


def refill(state: State, ev: Events) -> bool:
    """Shuffle the discard pile (less its top card) into an empty draw pile."""
    if len(state.discard) <= 1:
        return False
    top = state.discard.pop()
    pile = state.discard
    state.shuffle(pile)
    state.draw_pile = pile
    state.discard = [top]
    if ev is not None:
        ev.append({"type": "reshuffled", "count": len(pile)})
    return True


def draw(state: State, rules: Rules, seat: int, count: int, ev: Events, reason: str) -> list[int]:
    """``seat`` draws up to ``count`` cards (fewer when both piles are exhausted)."""
    got: list[int] = []
    pile = state.draw_pile
    for _ in range(count):
        if not pile:
            if not refill(state, ev):
                break
            pile = state.draw_pile
        got.append(pile.pop())
    state.hands[seat].extend(got)
    if state.uno_exposed == seat:
        state.uno_exposed = None  # the UNO window's close rule: the uncalled player drew
    if ev is not None:
        ev.append({"type": "draw", "seat": seat, "count": len(got), "reason": reason})
        if got:
            dicts = rules.deck.dicts
            ev.append({"type": "cards_drawn", "seat": seat, "cards": [dicts[c] for c in got], "to": [seat]})
    return got


def can_draw(state: State) -> bool:
    return bool(state.draw_pile) or len(state.discard) > 1


def playable_cards(state: State, rules: Rules, cards: Any) -> list[int]:
    """The cards among ``cards`` the matching rule admits now, in order."""
    deck = rules.deck
    ok = rules.playable_on(state.color, deck.rank[state.discard[-1]])
    return [c for c in cards if c in ok]


def hand_points(state: State, rules: Rules, seat: int) -> int:
    pts = rules.deck.points
    return sum(pts[c] for c in state.hands[seat])


def reveal_hands(state: State, rules: Rules, ev: Events, seats: Any = None) -> None:
    """Tell every seat its (new) hand privately, e.g. after hands changed owners."""
    if ev is None:
        return
    dicts = rules.deck.dicts
    for s in range(state.seats) if seats is None else seats:
        ev.append({"type": "hand", "seat": s, "cards": [dicts[c] for c in state.hands[s]], "to": [s]})
