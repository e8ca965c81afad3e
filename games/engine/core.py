"""Low-level state operations shared by the turn machinery and the rule modules.

Every function here mutates ``state`` and appends events to ``ev``.  An event is a
dict with a ``type``; an event meant for some seats only carries ``"to": [seats]``
(see :func:`games.engine.game.visible_events`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .state import State

if TYPE_CHECKING:
    from .rules import Rules

Events = list[dict]


def advance(state: State, steps: int = 1) -> None:
    """End the current turn: move ``steps`` seats on in the direction of play."""
    state.current = state.next_seat(state.current, steps)
    state.pending = None
    state.drawn = []
    state.uno_declared = None


def refill(state: State, ev: Events) -> bool:
    """Shuffle the discard pile (less its top card) into an empty draw pile."""
    if len(state.discard) <= 1:
        return False
    top = state.discard.pop()
    pile = state.discard
    state.shuffle(pile)
    state.draw_pile = pile
    state.discard = [top]
    ev.append({"type": "reshuffled", "count": len(pile)})
    return True


def draw(state: State, rules: "Rules", seat: int, count: int, ev: Events, reason: str) -> list[int]:
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
        state.uno_exposed = None
    ev.append({"type": "draw", "seat": seat, "count": len(got), "reason": reason})
    if got:
        ev.append({"type": "cards_drawn", "seat": seat, "cards": [rules.deck.dicts[c] for c in got], "to": [seat]})
    return got


def can_draw(state: State) -> bool:
    return bool(state.draw_pile) or len(state.discard) > 1


def playable(state: State, rules: "Rules", card: int) -> bool:
    """Whether ``card`` may be played on the discard pile in an ordinary turn."""
    deck = rules.deck
    return card in deck.playable_on(state.color, deck.rank[state.discard[-1]])


def playable_cards(state: State, rules: "Rules", cards: list[int]) -> list[int]:
    """The cards among ``cards`` that :func:`playable` admits, in order."""
    deck = rules.deck
    ok = deck.playable_on(state.color, deck.rank[state.discard[-1]])
    return [c for c in cards if c in ok]


def hand_points(state: State, rules: "Rules", seat: int) -> int:
    pts = rules.deck.points
    return sum(pts[c] for c in state.hands[seat])


def reveal_hands(state: State, rules: "Rules", ev: Events, seats: list[int] | None = None) -> None:
    """Tell every seat its (new) hand privately, e.g. after hands changed owners."""
    for s in range(state.seats) if seats is None else seats:
        ev.append({"type": "hand", "seat": s, "cards": [rules.deck.dicts[c] for c in state.hands[s]], "to": [s]})


def set_penalty(state: State, victim: int, amount: int, kind: str, by: int | None, **extra) -> None:
    """Make ``victim`` the current seat, owing a penalty it must accept (or answer)."""
    state.current = victim
    state.drawn = []
    state.uno_declared = None
    state.pending = {"type": "penalty", "seat": victim, "amount": amount, "kind": kind, "by": by, **extra}
