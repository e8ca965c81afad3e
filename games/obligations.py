"""Obligations: every decision a game owes now, who owes it, and until when.

A game may owe several decisions at once: the turn, and windows that several seats owe
together (a buzz window every seat owes, with its own ``buzzer_seconds``).  The engine
lists them (``engine.owed(state)``: seat, decision type, deadline kind) and says how
long a decision lasts when its deadline is its own (``engine.deadline_seconds``).  The
server keeps one :class:`Obligation` per (seat, decision) in ``Game.obligations``, a
JSON list written by the move that changed the state (the same row lock and UPDATE:
no table of its own), and keeps ``Game.deadline`` as the earliest of their deadlines
(indexed: the sweeper finds overdue games by it) and ``Game.current_seat`` as the seat
in turn.  Everything that acts on time works from them: the sweeper
(``robots.enforce_batch``), the bots (``robots.bot_step``) and the "your turn"
webhooks (``notifications``).

Each obligation says what the server does when its deadline passes (``enforce``):

- ``timeout``: a human seat's decision under the turn's deadline (``turn_seconds``;
  none without a limit): the timer applies the engine's ``timeout`` for the seat,
  counted towards autopilot (``UNO_MAX_TIMEOUTS``);
- ``expire``: a decision with a deadline of its own (a buzz window): at its end the
  server applies the engine's ``expire`` system action for each seat, robot or human,
  that still owes it (not counted as a timeout: an unbuzzed seat simply did not buzz);
- ``revive``: a robot's (a bot seat's, or a human's on autopilot) decision under the
  turn's deadline: the robot acts by itself, and this deadline only revives it if its
  task was lost (``UNO_BOT_STALL_SECONDS`` after its think time).

Each obligation also says when it began (``at``): a bot acts after its think time
(``UNO_BOT_THINK_SECONDS``), or, for an action its policy says a person would take
after a while (a buzz: ``bots.reaction_delay``), that long after the decision began.

Clocks: an obligation still owed after a move keeps its deadline, except a decision
under the turn's deadline owed again by the seat that just acted (it took a step of its
turn: a fresh clock, as before obligations existed) or whose seat changed hands
(autopilot on or off: its new player's clock); a window's own deadline stays whatever
happens; a new round starts every clock afresh.  ``Game.deadline`` is what the sweeper
selects games by: set by hand before the obligations' earliest (an operator, a test),
it makes that earliest due (``robots._enforce``).

Games stored before obligations existed (``Game.obligations`` null) are read as owing
what their state owes, the seat in turn under the stored ``Game.deadline``
(:func:`current`); their first move stores the list.

Away (``games.away``): in a correspondence game (``turn_seconds`` at least
``UNO_CORRESPONDENCE_SECONDS``) the clock of a human's decision under the turn's deadline
stands still while its player is away (``Player.away_until``, read with the seats): such
an obligation has its deadline moved past the away period by the time it had left and
says until when it is paused (``paused_until``, :func:`pause`); one that begins while its
player is away starts its clock at ``away_until``.  Windows' own deadlines and robots'
are not clocks: away changes neither.  The view shows each seat's clock
(:func:`time_left`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from games import engine
from games.models import Game, GameStatus, Seat

#: the deadline kind of the decisions owed in turn (``engine.owed``)
TURN = "turn"
#: what the server does when an obligation's deadline passes (see the module docstring)
TIMEOUT, EXPIRE, REVIVE = "timeout", "expire", "revive"
#: the engine's system action for each: a robot's obligation is revived, not acted on
SYSTEM_ACTIONS = {TIMEOUT: {"type": "timeout"}, EXPIRE: {"type": "expire"}}


def is_robot(seat: Seat | None) -> bool:
    """Whether a bot plays ``seat`` (a bot seat, or a human's on autopilot)."""
    return seat is not None and (seat.is_bot or seat.autopilot)


@dataclass(frozen=True)
class Obligation:
    """A decision one seat owes, with its deadline (see the module docstring)."""

    seat: int
    decision: str
    kind: str
    #: the game's version from which it is owed (the move that made it owed)
    since: int
    #: when it began to be owed (by its seat's current player)
    at: datetime
    #: when the server acts on it if the seat has not (None: never by itself)
    deadline: datetime | None
    #: TIMEOUT, EXPIRE or REVIVE: what the server does then
    enforce: str
    #: which window it is owed in (``engine.window_instance``): one that closed and
    #: opened again in one move is a new obligation (None: not told apart)
    instance: int | None = None
    #: a ``timeout`` whose clock stands still until then (its player is away): the time
    #: it has left is ``deadline - paused_until`` (None: its clock runs)
    paused_until: datetime | None = None

    @property
    def key(self) -> tuple[int, str]:
        return self.seat, self.decision

    def to_json(self) -> dict[str, Any]:
        out = {"seat": self.seat, "decision": self.decision, "kind": self.kind, "since": self.since,
               "at": self.at.isoformat(), "deadline": _iso(self.deadline), "enforce": self.enforce}
        if self.instance is not None:
            out["instance"] = self.instance
        if self.paused_until is not None:
            out["paused_until"] = self.paused_until.isoformat()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Obligation:
        return cls(d["seat"], d["decision"], d["kind"], d["since"], datetime.fromisoformat(d["at"]),
                   _datetime(d["deadline"]), d["enforce"], d.get("instance"), _datetime(d.get("paused_until")))

    def overdue(self, now: datetime) -> bool:
        return self.deadline is not None and self.deadline <= now


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _datetime(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------
def current(game: Game, seats: Sequence[Seat] | None = None, state: engine.State | None = None) -> list[Obligation]:
    """What ``game`` owes now, as stored with its last move; for a game stored before
    obligations existed (null), derived from its state: the seat in turn owes its
    decision until the stored ``deadline`` (``seats``, when given, say whether a robot
    owes it; ``state``: the game's, if already loaded)."""
    if game.obligations is not None:
        return [Obligation.from_json(d) for d in game.obligations]
    if game.status != GameStatus.ACTIVE or game.state is None:
        return []
    state = state if state is not None else engine.State.from_dict(game.state)
    robots = _robots(seats) if seats is not None else set()
    return [
        Obligation(seat, decision, kind, game.version, game.updated_at,
                   game.deadline if seat == state.actor() else None, REVIVE if seat in robots else TIMEOUT)
        for seat, decision, kind in engine.owed(state)
    ]


def earliest(obligations: Iterable[Obligation]) -> datetime | None:
    """The earliest deadline of ``obligations`` (``Game.deadline``), None if none has one."""
    return min((o.deadline for o in obligations if o.deadline is not None), default=None)


def _robots(seats: Iterable[Seat]) -> set[int]:
    return {s.seat for s in seats if is_robot(s)}


# --------------------------------------------------------------------------------------
# Away: correspondence clocks that stand still
# --------------------------------------------------------------------------------------
def is_correspondence(game: Game) -> bool:
    """Whether ``game`` is a correspondence game: ``turn_seconds`` at least
    ``UNO_CORRESPONDENCE_SECONDS`` (a day by default)."""
    return bool(game.turn_seconds) and game.turn_seconds >= settings.UNO_CORRESPONDENCE_SECONDS


def away_until(game: Game, seat: Seat | None, now: datetime) -> datetime | None:
    """Until when the player of ``seat`` is away, if they are at ``now`` and it stops
    their clock in ``game`` (a correspondence game, a human seat that no robot plays);
    else None.  Reads ``Player.away_until`` as loaded with the seats."""
    if seat is None or seat.player_id is None or is_robot(seat) or not is_correspondence(game):
        return None
    until = getattr(seat.player, "away_until", None)
    return until if until is not None and until > now else None


def away_seats(game: Game, seats: Iterable[Seat], now: datetime) -> dict[int, datetime]:
    """The seats of ``game`` whose player is away at ``now`` (:func:`away_until`)."""
    out = {}
    for s in seats:
        until = away_until(game, s, now)
        if until is not None:
            out[s.seat] = until
    return out


def pause(o: Obligation, until: datetime | None, now: datetime) -> Obligation:
    """``o`` with its clock standing still until ``until`` (its player is away until
    then), or running from ``now`` again (``until`` None or past: not away), keeping
    the time it had left: that is its deadline less when its clock runs again (now, or
    the end of the pause it is in).  Only a human's decision under the turn's deadline
    has a clock; any other obligation is returned as it is.  The same ``until`` twice
    changes nothing."""
    if o.enforce != TIMEOUT or o.deadline is None:
        return o
    resumes = max(o.paused_until or now, now)
    left = max(o.deadline - resumes, timedelta(0))
    if until is not None and until > now:
        return replace(o, deadline=until + left, paused_until=until)
    return replace(o, deadline=now + left, paused_until=None)


def time_left(game: Game, seats: Sequence[Seat], owed: Iterable[Obligation], now: datetime) -> list[dict | None]:
    """Per seat (by seat number), its clock: ``{"seconds", "deadline", "running",
    "paused"}``, None for a game without a turn limit or not running and for a seat a
    robot plays.  A seat owing a decision under the turn's deadline: the time left on
    it (from ``now`` if it runs; ``paused``: its player is away, the clock runs again at
    the end of the away period), its ``deadline``; a seat owing none (or only a window,
    whose own deadline is not its clock): the full ``turn_seconds`` it will get, no
    deadline, ``paused`` when its player is away (its next clock starts then)."""
    owed = list(owed)
    n = max((s.seat for s in seats), default=-1) + 1
    out: list[dict | None] = [None] * n
    if not game.turn_seconds or game.status != GameStatus.ACTIVE:
        return out
    for s in seats:
        if is_robot(s):
            continue
        clocks = [o for o in owed if o.seat == s.seat and o.enforce == TIMEOUT and o.deadline is not None]
        if clocks:
            o = min(clocks, key=lambda c: c.deadline)  # type: ignore[arg-type,return-value]
            paused = o.paused_until is not None and o.paused_until > now
            resumes = o.paused_until if paused else now
            out[s.seat] = {"seconds": max((o.deadline - resumes).total_seconds(), 0.0),  # type: ignore[operator]
                           "deadline": o.deadline, "running": not paused, "paused": paused}
        else:
            out[s.seat] = {"seconds": float(game.turn_seconds), "deadline": None, "running": False,
                           "paused": away_until(game, s, now) is not None}
    return out


# --------------------------------------------------------------------------------------
# Computing them after a move
# --------------------------------------------------------------------------------------
def compute(game: Game, state: engine.State, seats: Sequence[Seat], now: datetime, *, acted: int | None,
            previous: Sequence[Obligation]) -> list[Obligation]:
    """The obligations of ``game`` (whose state is now ``state``) after a move made at
    ``now`` by the seat ``acted`` (None: by nobody, e.g. a seat handed to the
    autopilot), given those owed before it (``previous``; empty after a new round).
    A decision still owed keeps its clock (module docstring), and takes the kind of
    player that now plays its seat (a robot's bot time; a human's time limit)."""
    if state.status == engine.FINISHED:
        return []
    robots = _robots(seats)
    away = away_seats(game, seats, now)
    before = {o.key: o for o in previous}
    out = []
    for seat, decision, kind in engine.owed(state):
        old = before.get((seat, decision))
        robot = seat in robots
        if old is not None and old.instance != engine.window_instance(state, decision):
            old = None  # that window closed and another opened in this move: a fresh clock
        if old is not None and old.kind == kind and (seat != acted or old.enforce == EXPIRE):
            # still owed, and not a step of the acting seat's turn: its clock runs on,
            # unless the seat changed hands (autopilot on or off) under the turn's
            # deadline (its new player's clock; a window's own deadline stays)
            if old.enforce == EXPIRE or (old.enforce == REVIVE) == robot:
                out.append(old)
            else:
                out.append(_new(game, state, seat, decision, kind, old.since, robot, now, away.get(seat)))
        else:
            out.append(_new(game, state, seat, decision, kind, game.version, robot, now, away.get(seat)))
    return out


def _new(game: Game, state: engine.State, seat: int, decision: str, kind: str, since: int, robot: bool,
         now: datetime, away: datetime | None = None) -> Obligation:
    """A decision that ``seat`` begins to owe at ``now`` (its player away until
    ``away``: a clock under the turn's deadline starts then)."""
    own = engine.deadline_seconds(state, decision)
    if own is not None:  # a deadline of its own, for robots and humans alike
        return Obligation(seat, decision, kind, since, now, now + timedelta(seconds=own), EXPIRE,
                          engine.window_instance(state, decision))
    if robot:
        revive = settings.UNO_BOT_THINK_SECONDS + settings.UNO_BOT_STALL_SECONDS
        return Obligation(seat, decision, kind, since, now, now + timedelta(seconds=revive), REVIVE)
    if not game.turn_seconds:
        return Obligation(seat, decision, kind, since, now, None, TIMEOUT)
    starts = away if away is not None and away > now else now
    return Obligation(seat, decision, kind, since, now, starts + timedelta(seconds=game.turn_seconds), TIMEOUT,
                      paused_until=starts if starts > now else None)


def record(game: Game, state: engine.State, seats: Sequence[Seat], now: datetime, *, acted: int | None,
           previous: Sequence[Obligation]) -> None:
    """Bring ``game``'s obligations, ``deadline`` (their earliest) and ``current_seat``
    to ``state`` (see :func:`compute`), in memory: the caller writes the row."""
    owed = compute(game, state, seats, now, acted=acted, previous=previous)
    game.obligations = [o.to_json() for o in owed]
    game.deadline = earliest(owed)
    game.bot_due = bot_due(owed, now)
    game.current_seat = state.actor()


def bot_due(owed: Iterable[Obligation], now: datetime) -> datetime | None:
    """When the bot step that a move made at ``now`` queues is due (``Game.bot_due``): the
    bots' think time after it, if a robot owes a decision under the turn's deadline
    (``REVIVE``); None otherwise (a robot's window has its own deadline)."""
    if any(o.enforce == REVIVE for o in owed):
        return now + timedelta(seconds=settings.UNO_BOT_THINK_SECONDS)
    return None


# --------------------------------------------------------------------------------------
# The view
# --------------------------------------------------------------------------------------
def public(obligations: Iterable[Obligation]) -> list[dict[str, Any]]:
    """The view's ``obligations``: each seat, decision type, deadline kind and deadline
    (when the server acts for the seat: a timer move, a window's end, or a bot revived)."""
    return [{"seat": o.seat, "type": o.decision, "kind": o.kind, "deadline": o.deadline} for o in obligations]


def seat_deadlines(obligations: Iterable[Obligation], seats: int) -> list[datetime | None]:
    """Per seat, the earliest deadline of what it owes (None: nothing with a deadline)."""
    out: list[datetime | None] = [None] * seats
    for o in obligations:
        if o.deadline is not None and 0 <= o.seat < seats and (out[o.seat] is None or o.deadline < out[o.seat]):
            out[o.seat] = o.deadline
    return out
