"""Option ``jump_in_misplay_points`` (seed 001: 3): a jump-in attempted with a card that
does not qualify costs points instead of being refused.

RULES.md (``jump_in``): "`jump_in_misplay_points` (seed 001: 3): a jump-in attempted
with a card that does not qualify is recorded as a misplay costing those points instead
of being refused (only when set)."  Seed 001: "IF you are not fast enough or if you make
a misstake, you get 3 penality points... so be careful !"

How the engine plays it:

- An attempt is a ``play`` posted out of turn: by a seat that does not owe the decision
  on top, while jump-in is possible at all (a round in play, no colour being named).
  ``legal_actions`` lists the legal jump-ins only (it would otherwise list every card);
  a client attempts one by posting the play.  With the option set, such a play of a
  card of the seat's hand, well formed as that card's plays are (a colour for a wild, a
  ``target_seat`` where the card names one), that is not a legal jump-in (nor a cut-in)
  is accepted as a misplay; any other unlisted action is refused as before.  A play
  that comes too late (the top card changed first) is a misplay too: "not fast
  enough"; a client that sends ``expected_version`` is refused instead (409, stale).
- The card stays in the hand; nothing else changes: no turn, no window closes.  The
  public event ``{"type": "misplay", "seat", "points"}`` records it.  It names no
  card: the card stays hidden in the hand (the server's move history shows others the
  attempt without its card until the game is over).
- The points are charged at once to the seat's score (visible in the view's
  ``players[].score``): added under ``lowest_total`` and ``elimination`` (points count
  against), taken off under ``winner_takes`` (a total may go below 0).  In a team game
  the team's total is charged (every seat of the team).  The round's row of the score
  table (``history``, ``round_ended``) includes them: a round's points are its cards'
  points plus its misplays'.
- Refused (400 naming ``jump_in_misplay_points``) without ``jump_in``, and with a
  scoring that counts no points (``hands_won``).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..config import OptionSpec, integer
from ..core import legal_moves, top_and_owner
from ..errors import InvalidOptions
from ..events import EventType, register as register_event, seat as seat_field
from ..rules import Decision, Module, Rules, Scoring, Window
from ..state import PLAY, State
from .turn import card_moves

Events = Any  # list[dict] | None

OPTION = "jump_in_misplay_points"
MISPLAY_EVENT = register_event(EventType(
    "misplay", {"seat": seat_field("who played out of turn a card that is no jump-in"),
                "points": {"type": "integer", "minimum": 1, "description": "the points it cost (jump_in_misplay_points)"}},
    "a jump-in attempted with a card that does not qualify (jump_in_misplay_points): the card stays in the hand "
    "and the points are charged to the seat's total"))
#: how a misplay's points count, by scoring: +1 against (lowest totals win), -1 off a total
SIGN = {"winner_takes": -1, "lowest_total": 1, "elimination": 1}


def is_misplay(state: State, rules: Rules, seat: int, move: tuple) -> bool:
    """Whether ``move`` of ``seat`` is a jump-in attempted with a card that does not
    qualify (``Rules.unlisted``)."""
    if move[0] != "play" or state.phase != PLAY:
        return False
    card = move[1]
    hand = state.hands[seat]
    if card not in hand:
        return False
    top, owner = top_and_owner(state, rules)
    if seat == owner or not top.windows_open:
        return False
    return move in card_moves(rules, seat, card, len(hand)) and move not in legal_moves(state, rules, seat)


def charged_seats(state: State, rules: Rules, seat: int) -> list[int]:
    """The seats whose total a misplay of ``seat`` charges: its team's in a team game
    (each seat's total is its team's), else its own."""
    teams = state.teams
    if teams is None or rules.opts.get("partner_rotation"):
        return [seat]
    return [s for s in range(state.seats) if teams[s] == teams[seat]]


class MisplayWindow(Window):
    """Takes the misplays (never lists any; nobody owes it)."""

    name = "misplay"
    actions = ("play",)

    def __init__(self, points: int, sign: int):
        self.points, self.sign = points, sign

    def moves(self, state: State, rules: Rules, seat: int, top: Decision, is_owner: bool, out: list) -> None:
        return

    def takes(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        return is_misplay(state, rules, seat, move)

    def apply(self, state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
        for s in charged_seats(state, rules, seat):
            state.scores[s] += self.sign * self.points
        if ev is not None:
            ev.append({"type": "misplay", "seat": seat, "points": self.points})


class Charged(Scoring):
    """A scoring whose round rows include the points charged during the round
    (misplays): they are in the totals already, so each round's row is its cards'
    points plus the charges since the previous row, and the totals stay the sum of
    the rows.  Everything else is the wrapped scoring's."""

    def __init__(self, base: Scoring):
        self.base = base
        self.name = base.name

    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        points = self.base.round_points(state, rules, winner)
        history = state.history
        for s in range(state.seats):
            charged = state.scores[s] - sum(row["points"][s] for row in history)
            if charged:  # moved from the total into the round's row (end_round adds the row)
                state.scores[s] -= charged
                points[s] += charged
        return points

    def game_winner(self, state: State, rules: Rules) -> int | None:
        return self.base.game_winner(state, rules)

    def game_winners(self, state: State, rules: Rules) -> list[int] | None:
        return self.base.game_winners(state, rules)

    def standings(self, state: State, rules: Rules) -> list[int]:
        return self.base.standings(state, rules)

    def after_round(self, state: State, rules: Rules, ev: Events) -> None:
        self.base.after_round(state, rules, ev)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)


class JumpInMisplay(Module):
    """Installed after ``jump_in`` and the scoring (it wraps it)."""

    name = "jump_in_misplay"
    options = (OptionSpec(OPTION, None, integer(1, 1000, nullable=True),
                          "points a jump-in attempted with a card that does not qualify costs (null: refused)"),)

    def validate(self, opts: dict[str, Any], given: Mapping[str, Any]) -> None:
        if opts[OPTION] is None:
            return
        if opts["jump_in"] == "off":
            raise InvalidOptions(OPTION, "needs jump_in (exact or super)")
        if opts["scoring"] not in SIGN:
            raise InvalidOptions(OPTION, f"scoring {opts['scoring']!r} counts no points to charge")

    def install(self, rules: Rules) -> None:
        points = rules.opts[OPTION]
        if points is None:
            return
        assert rules.scoring is not None
        rules.windows.append(MisplayWindow(points, SIGN[rules.opts["scoring"]]))
        rules.scoring = Charged(rules.scoring)
        rules.unlisted = is_misplay
