"""The rules of a game, assembled from its options.

:class:`Rules` is a small table the turn machinery consults: what each rank does
when played, what parameters a play of that rank takes (a colour, a target seat),
what may be stacked on a penalty, which cards may be played out of turn, how a
Wild Draw Four is challenged and how rounds are scored.  Each option lives in one
module of this package whose ``install(rules)`` edits that table; adding a house
rule means writing one module, declaring its option in :mod:`..options` and
listing the module in ``INSTALLERS`` below.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, NamedTuple, Sequence

from ..cards import Deck, get_deck
from ..options import Config
from ..state import State

Events = list[dict]


class Play(NamedTuple):
    """A card being played, as the effect of its rank sees it."""

    seat: int
    card: int
    action: dict
    stack: int  # penalty already pending on the player (stacking), 0 if none
    prev_color: str | None  # colour in force before this card


Effect = Callable[[State, "Rules", Play, Events], None]
#: (state, rules, seat, card) -> the extra fields each distinct play of that card carries
ParamFn = Callable[[State, "Rules", int, int], Sequence[dict]]
#: (state, rules, seat) -> card ids the seat may play out of turn right now
OutOfTurn = Callable[[State, "Rules", int], list[int]]
#: (state, rules, events) -> None: the effect of the first card turned up
FirstCard = Callable[[State, "Rules", Events], None]
#: (state, rules, seat, events) -> None: resolve a challenge of the pending penalty
Challenge = Callable[[State, "Rules", int, Events], None]


class Scoring(ABC):
    """How a round is scored and when the game is over."""

    name: str

    @abstractmethod
    def round_points(self, state: State, rules: "Rules", winner: int) -> list[int]:
        """Points each seat scores for the round ``winner`` just won."""

    @abstractmethod
    def game_winner(self, state: State, rules: "Rules") -> int | None:
        """The seat that has won the game after the last round, if any."""


@dataclass
class Rules:
    deck: Deck
    opts: dict[str, Any]
    effects: dict[str, Effect] = field(default_factory=dict)
    #: what a rank does when it is the player's last card (the round ends after it)
    finish_effects: dict[str, Effect] = field(default_factory=dict)
    params: dict[str, ParamFn] = field(default_factory=dict)
    #: penalty kind -> ranks that may be played on it instead of accepting it
    stack_on: dict[str, frozenset[str]] = field(default_factory=dict)
    out_of_turn: list[OutOfTurn] = field(default_factory=list)
    #: what the first card turned up does, by rank (default: the player left of the dealer starts)
    first_card: dict[str, FirstCard] = field(default_factory=dict)
    #: ranks that are put back and replaced when turned up first
    first_card_redraw: frozenset[str] = frozenset()
    challenge: Challenge | None = None
    scoring: Scoring | None = None

    def opt(self, name: str) -> Any:
        return self.opts[name]


def _installers():
    from . import jump_in, scoring, seven_zero, stacking, standard, wild_draw_four

    return [standard.install, wild_draw_four.install, stacking.install, jump_in.install,
            seven_zero.install, scoring.install]


@lru_cache(maxsize=256)
def _build(deck_name: str, opts: tuple) -> Rules:
    rules = Rules(deck=get_deck(deck_name), opts=dict(opts))
    for install in _installers():
        install(rules)
    return rules


def build_rules(config: Config) -> Rules:
    rules = config._rules
    if rules is None:
        rules = _build(config.deck, tuple(sorted(config.options.items())))
        object.__setattr__(config, "_rules", rules)  # a cache on the frozen config (a declared field)
    return rules
