"""The pieces of preset ``play_uno_com`` (seed 002) that are not cards of their own: its
deck, and the two round-start options it sets.

RULES.md "play_uno_com": "120 cards: the standard 108, a second 0 per colour (decision:
"to complete the game"), and two Replay per colour (``replay_cards``). ... A Wild or
Wild Draw Four turned up first: the first player names the colour (no redraw). The
starting player is chosen at random."

- Base deck ``play_uno_com_112``: the standard 108 cards (ids 0-107), then a second 0
  of each colour (ids 108-111); ``replay_cards`` adds the 8 Replay (ids 112-119).
- ``first_wild_draw_four``: ``redraw`` (official: returned to the deck, another card
  turned) | ``name_color`` (seed 002: as a Wild turned up first, the first player names
  the colour, then plays; nobody draws).
- ``dealer``: ``rotates`` (official: at random for the first round, then passes to the
  left) | ``random`` (seed 002: "the player who starts the game is selected randomly"
  every round; decision: the dealer is drawn at random each round from the game's seed
  and the player left of them starts, so every first-card rule keeps its meaning).
"""

from __future__ import annotations

from ..cards import COLORS, DECKS, Card, standard_108, uno_card
from ..config import OptionSpec, choice
from ..rules import Module, Rules
from .standard import first_wild

#: the base deck of ``play_uno_com`` (``cards.DECKS``)
DECK = "play_uno_com_112"
WILD_DRAW_FOUR = "wild_draw_four"


def play_uno_com_112(start: int = 0) -> list[Card]:
    """The standard 108 cards, then a second 0 per colour (ids 108-111)."""
    cards = standard_108(start)
    return cards + [uno_card(start + len(cards) + i, color, "0") for i, color in enumerate(COLORS)]


DECKS[DECK] = play_uno_com_112


class RoundStart(Module):
    """``first_wild_draw_four`` and ``dealer`` (read by ``rounds.end_round``).  Installed
    after the standard cards (it edits their first-card table)."""

    name = "round_start"
    options = (
        OptionSpec("first_wild_draw_four", "redraw", choice("redraw", "name_color"),
                   "a Wild Draw Four turned up first: redraw (official) or the first player names the colour "
                   "(seed 002)"),
        OptionSpec("dealer", "rotates", choice("rotates", "random"),
                   "the dealer (the player on their left starts): random for the first round then passes left "
                   "(rotates), or random every round (seed 002)"),
    )

    def install(self, rules: Rules) -> None:
        if rules.opts["first_wild_draw_four"] == "name_color":
            rules.first_card_redraw = rules.first_card_redraw - {WILD_DRAW_FOUR}
            rules.first_card[WILD_DRAW_FOUR] = first_wild
