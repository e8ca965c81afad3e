"""Options ``teams`` and ``partner_rotation`` (seed 004, "Team game").

- ``teams``: an even number of players (4, 6, 8 or 10) in teams of two; partners sit
  opposite (seat i and i + n/2).  When a player goes out, their team scores the points
  in every other team's hands (with 4 players: both opponents'); first team to the
  target wins.  A team scores as one player (``uno/scoring.py``): each member is
  credited the team's points, so each seat's total is its team's.
- ``partner_rotation`` (4 players): three rounds, a different partner each round (seat
  0 with seat 2, then with 1, then with 3); each player keeps their own total (they are
  credited what their team of that round scored).  The game is exactly three rounds
  (``rounds`` is set to 3); the best individual total wins, equal best totals share the
  win.

The teams of a round are ``State.teams`` (set when each round starts), shown per seat
in the view (``team``, ``Family.seat_view``).  A finished team game lists every seat of
the winning team in ``winners`` (``State.winners``; ``winner`` is one of them: the seat
that went out last if it is one, else the first).

Nonsense is refused naming the option: ``teams`` with an odd count or fewer than 4
players, ``partner_rotation`` without exactly 4 players or with a ``rounds`` other than
3 or a ``target_score``, either with ``scoring: elimination`` (a seat out of the game
would leave its partner alone), ``partner_rotation`` with ``scoring: hands_won``.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..config import OptionSpec, boolean
from ..errors import InvalidOptions
from ..rules import Module, Rules
from ..state import State
from .scoring import TARGET_SCORE

ROTATION_ROUNDS = 3
#: ``partner_rotation``: the team of each seat in the 1st, 2nd and 3rd round (then again)
ROTATION = ((0, 1, 0, 1), (0, 0, 1, 1), (0, 1, 1, 0))


def fixed_teams(seats: int) -> list[int]:
    """Partners sit opposite: seat i and i + n/2 form team i (for i < n/2)."""
    half = seats // 2
    return [s % half for s in range(seats)]


def partner(state: State, seat: int) -> int | None:
    """``seat``'s partner this round (None without teams)."""
    teams = state.teams
    if teams is None:
        return None
    return next((s for s in range(state.seats) if s != seat and teams[s] == teams[seat]), None)


def same_team(state: State, a: int, b: int) -> bool:
    """Whether seats ``a`` and ``b`` play together (a seat with itself, too)."""
    teams = state.teams
    return a == b if teams is None else teams[a] == teams[b]


def _fixed(state: State) -> list[int]:
    return fixed_teams(state.seats)


def _rotating(state: State) -> list[int]:
    return list(ROTATION[(state.round - 1) % len(ROTATION)])


class Teams(Module):
    name = "teams"
    options = (
        OptionSpec("teams", False, boolean,
                   "teams of two partners sitting opposite (even player counts); a team scores the points in the "
                   "other teams' hands; first team to the target wins"),
        OptionSpec("partner_rotation", False, boolean,
                   "4 players, exactly three rounds, a different partner each round, scores kept per player"),
    )

    def validate(self, opts: dict[str, Any], given: Mapping[str, Any]) -> None:
        rotation = opts["partner_rotation"]
        for name in ("teams", "partner_rotation"):
            if opts[name] and opts["scoring"] == "elimination":
                raise InvalidOptions(name, "teams cannot play scoring elimination (an eliminated player would leave "
                                           "their partner alone)")
        if not rotation:
            return
        if opts["scoring"] == "hands_won":
            raise InvalidOptions("partner_rotation", "partner_rotation plays exactly three rounds: scoring hands_won "
                                                     "makes no sense with it")
        if opts["rounds"] not in (None, ROTATION_ROUNDS):
            raise InvalidOptions("rounds", "partner_rotation plays exactly three rounds: leave rounds out or set 3")
        if opts["target_score"] != TARGET_SCORE:
            raise InvalidOptions("target_score", "partner_rotation plays exactly three rounds: no target_score")
        opts["rounds"] = ROTATION_ROUNDS  # the game's end condition, shown with the options

    def validate_seats(self, opts: dict[str, Any], seats: int) -> None:
        if opts["partner_rotation"] and seats != 4:
            raise InvalidOptions("partner_rotation", f"partner_rotation is played by exactly 4 players, not {seats}")
        if opts["teams"] and (seats % 2 or seats < 4):
            raise InvalidOptions("teams", f"teams are pairs of partners: 4, 6, 8 or 10 players, not {seats}")

    def install(self, rules: Rules) -> None:
        if rules.opts["partner_rotation"]:
            rules.teams = _rotating
        elif rules.opts["teams"]:
            rules.teams = _fixed
        else:
            return
        rules.several_winners = True
