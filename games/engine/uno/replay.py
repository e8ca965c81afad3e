"""Option ``replay_cards`` (seed 002, preset ``play_uno_com``): two Replay per colour.

RULES.md: "two Replay per colour, 20 points. Played on its colour or on a Replay; the
player then plays again at once: a card of the same colour, another Replay, or a Wild."
And "Time": on expiry "a sequence (straights, continuations, Replay, Duo's Reverse)
ends".  Seed 002: "the current player can immediately replay a card of the same colour
or another REPLAY card of any color (or a black card)".

How the engine plays it:

- The cards: deck part ``replay`` (8 cards ``{"id", "color", "rank": "replay"}``, 20
  points).  The matching rule already plays a Replay on its colour or on a Replay.
- A Replay played opens a :class:`Replay` decision (a :class:`~.straights.Sequence`
  owed by its player, ``pending`` ``{"type": "replay", "seat"}``): its moves are the
  cards the matching rule admits on the Replay (the colour in force is the Replay's: a
  card of that colour, another Replay, or a colourless card, i.e. a Wild or a Wild Draw
  Four) and ``end_turn``.  The card played is the turn's next card, with its own effect
  (a Skip skips, a Wild names a colour, another Replay opens another replay...); the
  replay ends with it, with ``end_turn``, or with the turn's timer (RULES.md "Time").

Decisions where the sources are silent, as this module plays them:

- The player may not draw instead ("can replay": a chance to play more, not a new
  turn; the turn's draw was the alternative to the Replay itself): with nothing to
  play, or not wanting to, they ``end_turn``.  The decision opens after every Replay,
  whether or not its player can go on, so the pause reveals nothing about the hand.
- "At once": nobody cuts in (unlike a straight, ``Sequence.cut_in``); jump-in applies
  between cards as it does anywhere (an identical Replay jumped in replays for the
  jumper).
- A Replay played after drawing it still lets its player play again: it is the card's
  effect, as a drawn Skip still skips (unlike a straight, which is a way of playing
  several cards, not an effect).
- UNO: as in every sequence, a card that would be the player's last is listed only once
  they have called UNO (no going out through a replay without it).
- A Replay as the last card ends the round; one turned up first is a plain card of its
  colour (the first player plays on it as on any card).
"""

from __future__ import annotations

from typing import Any

from ..cards import COLORS, PARTS, Card, uno_card
from ..config import OptionSpec, boolean
from ..rules import Module, Play, Rules
from ..state import State
from .straights import END_TURN_MOVE, Sequence
from .turn import card_moves

Events = Any  # list[dict] | None

#: the Replay's rank; the deck part that adds the cards (``cards.PARTS``)
REPLAY = "replay"
PART = "replay"
COPIES_PER_COLOR = 2
POINTS = 20


def replay_cards(start: int) -> list[Card]:
    """RULES.md: two Replay per colour, 20 points each."""
    return [uno_card(start + 2 * i + k, color, REPLAY, points=POINTS)
            for i, color in enumerate(COLORS) for k in range(COPIES_PER_COLOR)]


PARTS[PART] = replay_cards


class Replay(Sequence):
    """The player of a Replay plays again at once (a card of the Replay's colour,
    another Replay, or a Wild) or ``end_turn``."""

    __slots__ = ()
    name = "replay"
    public_schema: dict = {}
    cut_in = False

    def __init__(self, seat: int):
        self.seat = seat
        self.step = None

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        hand = state.hands[seat]
        n = len(hand)
        if n > 1 or state.uno_exposed != seat:  # no last card without UNO called
            ok = rules.playable_on(state.color, rules.deck.rank[state.discard[-1]])
            for c in hand:
                if c in ok:
                    out.extend(card_moves(rules, seat, c, n))
        out.append(END_TURN_MOVE)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] != "play":
            return None  # the action type's own refusal says it
        if seat != self.seat:
            return f"seat {self.seat} is replaying: nobody else plays but a jump-in"
        if move[1] in rules.playable_on(state.color, rules.deck.rank[state.discard[-1]]):
            return "call UNO before playing your last card: no going out through a replay without it"
        return f"after a Replay play a {state.color} card, another Replay or a Wild, or end_turn"

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat}


def replay(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """A Replay: its player plays again at once (or ends the turn)."""
    state.stack.append(Replay(play.seat))
    return 0


class ReplayCards(Module):
    name = "replay_cards"
    options = (OptionSpec("replay_cards", False, boolean,
                          "two Replay per colour (20 points): played on its colour or a Replay, then its player "
                          "plays again at once a card of that colour, another Replay or a Wild, or end_turn"),)

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        return (PART,) if opts["replay_cards"] else ()

    def install(self, rules: Rules) -> None:
        if not rules.opts["replay_cards"]:
            return
        rules.effects[REPLAY] = replay
        rules.decision_types.append(Replay)
