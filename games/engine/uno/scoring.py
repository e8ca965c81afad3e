"""Scoring (option ``scoring``) and the game's end condition (``target_score`` /
``rounds`` / ``hands_to_win``).

- ``winner_takes``: the winner scores the cards left in the others' hands; first to the
  target wins.
- ``lowest_total``: each player is charged the points left in their own hand; when
  someone reaches the target, the lowest total wins.
- ``elimination`` (seed 004 "Uno challenge"): as ``lowest_total``, but a player reaching
  the target is eliminated (``State.eliminated``); the last one left wins.
- ``hands_won`` (seed 004, Aqua): a round won scores 1; first to ``hands_to_win`` wins.

In a team game (``State.teams``, ``uno/teams.py``) a team scores as one player and
every member is credited its points: ``winner_takes``: the points in the hands of every
other team; ``lowest_total``: the points in the team's own hands; ``hands_won``: 1 for
the team of the round's winner.  So each seat's total is its team's (``partner_rotation``:
the player's own, as partners change each round).

Decisions: when the end condition is met but the best total is shared (by seats of
different teams), another round is played, so a finished game always has one winner
(a team: its seats; ``partner_rotation``: equal best totals after its three rounds
share the win).  ``elimination``: when every seat still in reaches the target in the
same round, those with the lowest total stay in (one: the winner).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..config import OptionSpec, choice, integer
from ..errors import InvalidOptions
from ..rules import Module, Rules, Scoring, places
from ..state import State
from .piles import hand_points

Events = Any  # list[dict] | None

HANDS_TO_WIN = 3
TARGET_SCORE = 500


def _team(state: State, seat: int) -> int:
    """``seat``'s team (each seat its own without teams)."""
    teams = state.teams
    return seat if teams is None else teams[seat]


def _best(state: State, rules: Rules, best: int) -> list[int] | None:
    """The seats whose total is ``best``, if they make one winner (one seat, or one
    team's seats; with ``partner_rotation`` several players share the win)."""
    seats = [s for s, t in enumerate(state.scores) if t == best and s not in state.eliminated]
    if len(seats) == 1 or rules.opts.get("partner_rotation"):
        return seats
    return seats if len({_team(state, s) for s in seats}) == 1 else None


def _done(state: State, rules: Rules) -> bool:
    rounds = rules.opts["rounds"]
    return state.round >= rounds if rounds is not None else max(state.scores) >= rules.opts["target_score"]


class WinnerTakes(Scoring):
    """The winner scores the cards left in the others' hands; first to the target wins."""

    name = "winner_takes"

    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        row = [0] * state.seats
        if state.teams is None:
            row[winner] = sum(hand_points(state, rules, s) for s in range(state.seats) if s != winner)
            return row
        team = state.teams[winner]
        points = sum(hand_points(state, rules, s) for s in range(state.seats) if state.teams[s] != team)
        return [points if state.teams[s] == team else 0 for s in range(state.seats)]

    def game_winners(self, state: State, rules: Rules) -> list[int] | None:
        return _best(state, rules, max(state.scores)) if _done(state, rules) else None

    def game_winner(self, state: State, rules: Rules) -> int | None:
        winners = self.game_winners(state, rules)
        return winners[0] if winners else None

    def standings(self, state: State, rules: Rules) -> list[int]:
        """The winners first, then the highest totals, equal totals by the points left in
        hand when the game ended (a team's: its seats' together), the fewest first."""
        left = [hand_points(state, rules, s) for s in range(state.seats)]
        if state.teams is not None:
            left = [sum(p for o, p in enumerate(left) if state.teams[o] == state.teams[s]) for s in range(state.seats)]
        return places([(s not in state.winners, -state.scores[s], left[s]) for s in range(state.seats)])


class LowestTotal(Scoring):
    """Each player is charged the points left in their own hand; when someone
    reaches the target, the lowest total wins."""

    name = "lowest_total"
    higher_is_better = False

    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        own = [hand_points(state, rules, s) for s in range(state.seats)]
        if state.teams is None:
            return own
        teams = state.teams
        return [sum(p for o, p in enumerate(own) if teams[o] == teams[s]) for s in range(state.seats)]

    def game_winners(self, state: State, rules: Rules) -> list[int] | None:
        return _best(state, rules, min(state.scores)) if _done(state, rules) else None

    def game_winner(self, state: State, rules: Rules) -> int | None:
        winners = self.game_winners(state, rules)
        return winners[0] if winners else None


class Elimination(LowestTotal):
    """``lowest_total``, but a player reaching the target is eliminated; the last one
    left wins."""

    name = "elimination"

    def after_round(self, state: State, rules: Rules, ev: Events) -> None:
        target = rules.opts["target_score"]
        scores = state.scores
        active = [s for s in range(state.seats) if s not in state.eliminated]
        out = [s for s in active if scores[s] >= target]
        if len(out) == len(active):  # nobody would be left: the lowest totals stay in
            low = min(scores[s] for s in active)
            out = [s for s in out if scores[s] != low]
        if not out:
            return
        state.eliminated = sorted(state.eliminated + out)
        if ev is not None:
            ev.append({"type": "seats_eliminated", "seats": out, "scores": list(scores)})

    def game_winners(self, state: State, rules: Rules) -> list[int] | None:
        active = [s for s in range(state.seats) if s not in state.eliminated]
        return active if len(active) == 1 else None

    def standings(self, state: State, rules: Rules) -> list[int]:
        """The last seat left first, then the others by when they were eliminated (the
        later, the higher), those of one round by their totals (the lowest first): the
        rounds' rows replayed through ``after_round``."""
        replayed = State(state.config)
        out_after: dict[int, int] = {}
        for i, row in enumerate(state.history):
            replayed.scores = [t + p for t, p in zip(replayed.scores, row["points"])]
            before = set(replayed.eliminated)
            self.after_round(replayed, rules, None)
            out_after.update((s, i) for s in replayed.eliminated if s not in before)
        last = len(state.history)
        return places([(s not in state.winners, -out_after.get(s, last), state.scores[s]) for s in range(state.seats)])


class HandsWon(WinnerTakes):
    """A round won scores 1 (every member of the winner's team); the first to win
    ``hands_to_win`` rounds wins."""

    name = "hands_won"

    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        team = _team(state, winner)
        return [1 if _team(state, s) == team else 0 for s in range(state.seats)]

    def game_winners(self, state: State, rules: Rules) -> list[int] | None:
        if max(state.scores) < rules.opts["hands_to_win"]:
            return None
        return _best(state, rules, max(state.scores))


SCORINGS: dict[str, Scoring] = {s.name: s for s in (WinnerTakes(), LowestTotal(), Elimination(), HandsWon())}


class ScoringModule(Module):
    name = "scoring"
    options = (
        OptionSpec("target_score", TARGET_SCORE, integer(1, 100_000), "points that end the game"),
        OptionSpec("rounds", None, integer(1, 1000, nullable=True), "a fixed number of rounds instead of a target"),
        OptionSpec("scoring", "winner_takes", choice(*SCORINGS),
                   "scoring method: winner_takes, lowest_total, elimination (a player reaching the target is out; "
                   "the last one left wins), hands_won (first to win hands_to_win rounds)"),
        OptionSpec("hands_to_win", HANDS_TO_WIN, integer(1, 100), "rounds to win (scoring: hands_won)"),
    )

    def validate(self, opts: dict[str, Any], given: Mapping[str, Any]) -> None:
        # (judged on the values: a saved config repeats every option, defaults included)
        scoring = opts["scoring"]
        if opts["hands_to_win"] != HANDS_TO_WIN and scoring != "hands_won":
            raise InvalidOptions("hands_to_win", "hands_to_win counts rounds won: set scoring to hands_won, or leave "
                                                 "hands_to_win out")
        if scoring == "hands_won":
            if opts["rounds"] is not None:
                raise InvalidOptions("rounds", "scoring hands_won ends at hands_to_win rounds won, not after a fixed "
                                               "number of rounds")
            if opts["target_score"] != TARGET_SCORE:
                raise InvalidOptions("target_score", "scoring hands_won counts rounds won (hands_to_win), not points")
        if scoring == "elimination" and opts["rounds"] is not None:
            raise InvalidOptions("rounds", "scoring elimination plays on until one player is left: set target_score, "
                                           "not rounds")

    def install(self, rules: Rules) -> None:
        rules.scoring = SCORINGS[rules.opts["scoring"]]
