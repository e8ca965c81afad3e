"""Option ``downpour_cards`` (seed 004, UNO H2O): two Downpour +1 and two Downpour +2.

RULES.md: "two Downpour +1 and two Downpour +2, wild (the player names a colour), 50
points; every other player draws 1 / 2; the direction continues."  Seed 004: "they can
be played any time on any other chart because they fulfill the function of joker.  When
they are played, all the other players must draw 1 or 2 charts in the pickaxe then the
player chooses a color and the hand passes to the following player.  If one of it is
the first chart of the heel, one draws another from them."

The cards are ``{"id", "color": null, "rank": "downpour_one" | "downpour_two"}`` (deck
part ``downpour_cards``, 4 cards, 50 points each).

Decisions where the sources are silent, as this module plays them:

- The draws happen at once, when the card is played: every other seat still in the
  game draws, one after the other in the direction of play from the next player
  (events ``draw`` with ``"reason": "downpour"``).  Nobody owes a decision for it.
- Nobody loses a turn: play passes to the next player as after a Wild ("the hand
  passes to the following player"; seed 004's "same effect as +2" is read as the
  drawing only).  With two players too: the opponent draws, then plays.
- Not a +2/+4: a Downpour is never stacked on a penalty nor answered by stacking, and
  no Renvoi sends it back (a Renvoi answers a +2, +4 or Skip aimed at its holder; a
  Downpour aims at no one in particular and leaves nothing pending).
- As the player's last card it still makes every other player draw (as a last +2 does),
  and those cards count.
- Turned up first it is put back and another card turned (seed 004), like a Wild Draw
  Four.  Having no colour, it is never jumped in.
- When both piles run out, a player draws what exists (possibly nothing).
"""

from __future__ import annotations

from typing import Any

from ..cards import PARTS, Card, uno_card
from ..config import OptionSpec, boolean
from ..rules import Module, Play, Rules
from ..state import State
from .piles import draw
from .standard import NEXT, color_params

Events = Any  # list[dict] | None

#: the ranks, and how many cards every other player draws for each
ONE, TWO = "downpour_one", "downpour_two"
AMOUNT = {ONE: 1, TWO: 2}
PART = "downpour_cards"
POINTS = 50
REASON = "downpour"


def downpour_cards(start: int) -> list[Card]:
    """RULES.md: two Downpour +1 and two Downpour +2, wild, 50 points."""
    ranks = (ONE, ONE, TWO, TWO)
    return [uno_card(start + i, None, rank, points=POINTS) for i, rank in enumerate(ranks)]


PARTS[PART] = downpour_cards


def soak(state: State, rules: Rules, play: Play, ev: Events) -> None:
    """Every other seat in the game draws the card's amount, from the next player on."""
    amount = AMOUNT[rules.deck.rank[play.card]]
    seat = state.next_seat(play.seat)
    while seat != play.seat:
        draw(state, rules, seat, amount, ev, REASON)
        seat = state.next_seat(seat)


def downpour(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """The others draw at once; play passes to the next player (nobody is skipped)."""
    soak(state, rules, play, ev)
    return NEXT


class DownpourCards(Module):
    """Installed after the standard cards (it adds to their first-card redraws)."""

    name = "downpour_cards"
    options = (OptionSpec("downpour_cards", False, boolean,
                          "two Downpour +1 and two Downpour +2 (wild, 50 points): every other player draws 1 / 2"),)

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        return (PART,) if opts["downpour_cards"] else ()

    def install(self, rules: Rules) -> None:
        if not rules.opts["downpour_cards"]:
            return
        for rank in AMOUNT:
            rules.effects[rank] = downpour
            rules.finish_effects[rank] = soak
            rules.params[rank] = color_params
        rules.first_card_redraw = rules.first_card_redraw | frozenset(AMOUNT)
