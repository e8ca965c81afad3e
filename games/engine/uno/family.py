"""The UNO family: 108 cards (a preset's base deck, plus what options add), 7 cards
dealt, the matching rule (colour, number or symbol; wilds on anything), the round over
when a hand is empty, and its rule modules.

Presets are configuration of this family (``catalog.PRESETS``).  Duo is a subclass
(``uno/duo.py``: a ``SETUP`` phase holding the draft's decisions, Player 2 first, its
Reverse a sequence) through the hooks below.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from ..cards import COLORS, Deck
from ..rules import Family, Module, Rules
from ..state import State
from . import rounds, turn
from .buzzer import BuzzerCards
from .calls import UnoCalls
from .deflect import DeflectCards
from .downpour import DownpourCards
from .misplay import JumpInMisplay
from .targeted import TargetedDrawCards
from .hand_moves import HandMoves
from .jump_in import JumpIn
from .play_uno_com import RoundStart
from .replay import ReplayCards
from .scoring import ScoringModule
from .seven_zero import SevenZero
from .stacking import Stacking
from .straights import Sequences
from .standard import StandardCards
from .teams import Teams
from .wild_draw_four import WildDrawFour


class UnoFamily(Family):
    name = "uno"
    title = "UNO"
    hand_size = 7
    colors = COLORS
    #: declaration order of the options too (the resolved options' key order)
    modules: ClassVar[Sequence[Module]] = (
        ScoringModule(), Teams(), turn.Penalties(), Stacking(), turn.Drawing(), UnoCalls(), JumpIn(), SevenZero(),
        DeflectCards(), StandardCards(), WildDrawFour(), Sequences(), BuzzerCards(),
        HandMoves(),  # the 112-card deck's wilds, swap_hands_card, hand_pass_cards, uno_card
        ReplayCards(), RoundStart(),  # seed 002 (play_uno_com): Replay; first_wild_draw_four, dealer
        DownpourCards(), TargetedDrawCards(), JumpInMisplay(),  # seed 004 Downpour, +2?/+4?; seed 001 misplays
    )

    def install(self, rules: Rules) -> None:
        rules.turn = turn.Turn()
        rules.decision_types.extend(turn.DECISION_TYPES)

    def start_game(self, state: State, rules: Rules, ev: Any) -> None:
        rounds.start_game(state, rules, ev)

    def start_round(self, state: State, rules: Rules, ev: Any) -> None:
        """Start the next round (``rounds.end_round`` calls it): deal and turn the first
        card; Duo (``uno/duo.py``) drafts instead."""
        rounds.start_round(state, rules, ev)

    def playable(self, deck: Deck, color: str | None, rank: str) -> frozenset[int]:
        colors, ranks = deck.color, deck.rank
        return frozenset(c for c in range(len(deck)) if colors[c] is None or colors[c] == color or ranks[c] == rank)

    def play_takes_color(self, rules: Rules, seat: int, card: int, hand_size: int) -> bool:
        return turn.play_takes_color(rules, seat, card, hand_size)

    def seat_view(self, state: State, seat: int) -> dict:
        """A seat's ``team`` in a team game, its ``status`` (active or eliminated) with
        ``scoring: elimination``; nothing otherwise (existing views unchanged)."""
        out: dict = {}
        if state.teams is not None:
            out["team"] = state.teams[seat]
        if state.options["scoring"] == "elimination":
            out["status"] = state.seat_status(seat)
        return out
