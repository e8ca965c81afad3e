"""Scoring (option ``scoring``) and the game's end condition (``target_score`` /
``rounds``).

Decision: when the end condition is met but the best total is shared, another round is
played, so a finished game always has exactly one winner.
"""

from __future__ import annotations

from ..config import OptionSpec, choice, integer
from ..rules import Module, Rules, Scoring
from ..state import State
from .piles import hand_points


def _unique_best(totals: list[int], best: int) -> int | None:
    seats = [s for s, t in enumerate(totals) if t == best]
    return seats[0] if len(seats) == 1 else None


def _done(state: State, rules: Rules) -> bool:
    rounds = rules.opts["rounds"]
    return state.round >= rounds if rounds is not None else max(state.scores) >= rules.opts["target_score"]


class WinnerTakes(Scoring):
    """The winner scores the cards left in the others' hands; first to the target wins."""

    name = "winner_takes"

    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        row = [0] * state.seats
        row[winner] = sum(hand_points(state, rules, s) for s in range(state.seats) if s != winner)
        return row

    def game_winner(self, state: State, rules: Rules) -> int | None:
        return _unique_best(state.scores, max(state.scores)) if _done(state, rules) else None


class LowestTotal(Scoring):
    """Each player is charged the points left in their own hand; when someone
    reaches the target, the lowest total wins."""

    name = "lowest_total"

    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        return [hand_points(state, rules, s) for s in range(state.seats)]

    def game_winner(self, state: State, rules: Rules) -> int | None:
        return _unique_best(state.scores, min(state.scores)) if _done(state, rules) else None


SCORINGS: dict[str, Scoring] = {s.name: s for s in (WinnerTakes(), LowestTotal())}


class ScoringModule(Module):
    name = "scoring"
    options = (
        OptionSpec("target_score", 500, integer(1, 100_000), "points that end the game"),
        OptionSpec("rounds", None, integer(1, 1000, nullable=True), "a fixed number of rounds instead of a target"),
        OptionSpec("scoring", "winner_takes", choice(*SCORINGS), "scoring method",
                   planned=("elimination", "hands_won")),
    )

    def install(self, rules: Rules) -> None:
        rules.scoring = SCORINGS[rules.opts["scoring"]]
