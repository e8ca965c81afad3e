"""The game state: plain data, JSON-serialisable without loss.

Hands and piles hold card ids (see :mod:`games.engine.cards`); piles are lists whose
*last* element is the top.  Randomness is derived, never stored: shuffle number ``k``
of a game uses ``random.Random(f"{seed}:{k}")``, so the state keeps only a counter and
a game replays exactly from its seed and its actions.

What the game waits for is the decision stack (``stack``, see
:mod:`games.engine.decisions`): empty, the ``current`` seat owes an ordinary turn.
Windows several seats may act in keep their data here too (``uno_exposed``,
``uno_declared``; ``windows`` for the stored ones).  Seats have a status (active or
eliminated) and, in team games, a team.

Saved form: ``to_dict()`` writes format 2 (``"format": 2``; ``aside`` and ``refills``,
Decktet-Uno's, only when set, so that other games' snapshots are as they were);
``from_dict`` also reads
format 1, the snapshots of the engine before issue 9 (no ``format`` key; ``pending``,
``drawn`` and ``status`` instead of the stack and the phase), so that games stored by
it load and play on.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol

from .config import Config

ACTIVE = "active"
FINISHED = "finished"

# phases of a game
SETUP = "setup"  # before the play of a round (a draft...): decisions on the stack
PLAY = "play"  # a round is being played
ROUND_OVER = "round_over"  # between rounds (a family may wait for something there)
GAME_OVER = "game_over"

FORMAT = 2
SEAT_ACTIVE, SEAT_ELIMINATED = "active", "eliminated"


class Decision(Protocol):
    """What the state needs of a decision (``rules.Decision`` is the real thing): who
    owes it, and its saved form."""

    seat: int

    def to_dict(self) -> dict: ...


#: decision type name -> how to load its saved form (``rules.Decision`` registers each)
DECISION_LOADERS: dict[str, Callable[[dict], Decision]] = {}


def decision_from_dict(d: dict) -> Decision:
    return DECISION_LOADERS[d["type"]](d)


class State:
    """A game in progress (or over).  Mutable; ``copy()`` is cheap and deep."""

    __slots__ = (
        "config", "phase", "round", "dealer", "scores", "history", "winner", "winners", "shuffles", "hands", "draw_pile",
        "discard", "current", "direction", "color", "stack", "windows", "uno_declared", "uno_exposed",
        "eliminated", "teams", "aside", "refills", "seq", "_legal",
    )

    def __init__(self, config: Config, scores: list[int] | None = None):
        self.config = config
        self.phase: str = SETUP
        self.round = 0
        self.dealer = 0
        #: totals per seat
        self.scores: list[int] = list(scores) if scores is not None else [0] * config.seats
        #: one row per finished round: {"round", "winner", "points": [per seat]}
        self.history: list[dict] = []
        self.winner: int | None = None
        #: every seat that won the game (a team's seats; ``winner`` is one of them), empty
        #: until it is over
        self.winners: list[int] = []
        self.shuffles = 0
        self.hands: list[list[int]] = [[] for _ in range(config.seats)]
        self.draw_pile: list[int] = []
        self.discard: list[int] = []
        #: the seat in turn: where play resumes once the stack is empty
        self.current = 0
        self.direction = 1
        #: the colour in force (UNO)
        self.color: str | None = None
        #: decisions owed, top last (empty: ``current`` owes an ordinary turn)
        self.stack: list[Decision] = []
        #: stored windows (decisions several seats may act on), in opening order
        self.windows: list[Decision] = []
        #: seat that called UNO ahead of playing its next-to-last card this turn
        self.uno_declared: int | None = None
        #: seat that played its next-to-last card without calling UNO and may be caught
        self.uno_exposed: int | None = None
        #: seats out of the game (``scoring: elimination``), ascending
        self.eliminated: list[int] = []
        #: team of each seat, or None in a game without teams
        self.teams: list[int] | None = None
        #: cards set aside face down, ``[seat, card]`` each, the owner's to see only
        #: (Decktet-Uno's ``face_down``: a card waiting to be placed on the pile)
        self.aside: list[list[int]] = []
        #: how many times the discard pile was shuffled into a new deck where the rules
        #: count it (Decktet-Uno's ``decks: 2``: once)
        self.refills = 0
        #: number of actions applied so far (also the engine's version of the state)
        self.seq = 0
        #: the legal actions last listed, ``(seq, seat, table)``: a cache, not game data
        self._legal: tuple[int, int, dict] | None = None

    # -- derived helpers -------------------------------------------------------------
    @property
    def seats(self) -> int:
        return self.config.seats

    @property
    def options(self) -> dict:
        return self.config.options  # type: ignore[return-value]

    @property
    def status(self) -> str:
        """``active`` or ``finished`` (the API's game status)."""
        return FINISHED if self.phase == GAME_OVER else ACTIVE

    @property
    def top(self) -> int:
        return self.discard[-1]

    def decision(self) -> Decision | None:
        """The decision on top of the stack (None: an ordinary turn, or the game is over)."""
        return self.stack[-1] if self.stack else None

    def actor(self) -> int | None:
        """The seat that owes the next in-turn decision (None once finished)."""
        if self.phase == GAME_OVER:
            return None
        if self.stack:
            return self.stack[-1].seat
        return self.current

    @property
    def pending(self) -> dict | None:
        """The top decision in its saved form (None: an ordinary turn); read-only."""
        return self.stack[-1].to_dict() if self.stack else None

    @property
    def drawn(self) -> list[int]:
        """The cards the seat in turn drew this turn and may still play (read-only)."""
        top = self.stack[-1] if self.stack else None
        return list(getattr(top, "drawn", None) or ())

    def seat_status(self, seat: int) -> str:
        return SEAT_ELIMINATED if seat in self.eliminated else SEAT_ACTIVE

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places on from ``seat`` in the direction of play
        (eliminated seats are passed over)."""
        if not self.eliminated:
            return (seat + steps * self.direction) % self.config.seats
        n = self.config.seats
        for _ in range(steps):
            seat = (seat + self.direction) % n
            while seat in self.eliminated:
                seat = (seat + self.direction) % n
        return seat

    def rng(self) -> random.Random:
        """A fresh, reproducible RNG for the next random event of this game."""
        r = random.Random(f"{self.config.seed}:{self.shuffles}")
        self.shuffles += 1
        return r

    def shuffle(self, cards: list[int]) -> None:
        """Shuffle ``cards`` in place with the next RNG: ``self.rng().shuffle(cards)``."""
        _fisher_yates(self.rng(), cards)

    # -- copies and comparison -------------------------------------------------------
    def copy(self) -> "State":
        """A deep copy, fast: lists of ints are copied, decisions (immutable) shared."""
        new = State.__new__(State)
        new.config = self.config
        new.phase = self.phase
        new.round = self.round
        new.dealer = self.dealer
        new.scores = self.scores[:]
        new.history = self.history[:]  # rows are never changed once written
        new.winner = self.winner
        new.winners = self.winners[:]
        new.shuffles = self.shuffles
        new.hands = [h[:] for h in self.hands]
        new.draw_pile = self.draw_pile[:]
        new.discard = self.discard[:]
        new.current = self.current
        new.direction = self.direction
        new.color = self.color
        new.stack = self.stack[:]
        new.windows = self.windows[:]
        new.uno_declared = self.uno_declared
        new.uno_exposed = self.uno_exposed
        new.eliminated = self.eliminated[:]
        new.teams = self.teams[:] if self.teams is not None else None
        new.aside = [a[:] for a in self.aside] if self.aside else []
        new.refills = self.refills
        new.seq = self.seq
        new._legal = None
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"State(round={self.round}, phase={self.phase}, actor={self.actor()}, seq={self.seq})"

    # -- serialisation ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        teams = self.teams
        return {
            "format": FORMAT,
            "config": self.config.to_dict(),
            "phase": self.phase,
            "round": self.round,
            "dealer": self.dealer,
            "scores": list(self.scores),
            "history": [_copy(row) for row in self.history],
            "winner": self.winner,
            "winners": list(self.winners),
            "shuffles": self.shuffles,
            "seats": [{"status": self.seat_status(s), "team": teams[s] if teams is not None else None}
                      for s in range(self.config.seats)],
            "hands": [list(h) for h in self.hands],
            "draw_pile": list(self.draw_pile),
            "discard": list(self.discard),
            "current": self.current,
            "direction": self.direction,
            "color": self.color,
            "stack": [d.to_dict() for d in self.stack],
            "windows": [w.to_dict() for w in self.windows],
            "uno_declared": self.uno_declared,
            "uno_exposed": self.uno_exposed,
            "seq": self.seq,
            **({"aside": [list(a) for a in self.aside]} if self.aside else {}),
            **({"refills": self.refills} if self.refills else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "State":
        """A state from its saved form, format 2 or format 1 (before issue 9)."""
        version = d.get("format", 1)
        if version not in (1, FORMAT):
            raise ValueError(f"unknown state format {version!r}")
        state = cls(Config.from_dict(d["config"]), list(d["scores"]))
        for name in ("round", "dealer", "winner", "shuffles", "current", "direction", "color", "uno_declared",
                     "uno_exposed", "seq"):
            setattr(state, name, d[name])
        state.history = [_copy(row) for row in d["history"]]
        # (saved before teams: the one winner, if any)
        state.winners = list(d.get("winners", [] if state.winner is None else [state.winner]))
        state.hands = [list(h) for h in d["hands"]]
        state.aside = [list(a) for a in d.get("aside", ())]
        state.refills = d.get("refills", 0)
        state.draw_pile = list(d["draw_pile"])
        state.discard = list(d["discard"])
        if version == 1:
            _from_v1(state, d)
            return state
        state.phase = d["phase"]
        state.stack = [decision_from_dict(x) for x in d["stack"]]
        state.windows = [decision_from_dict(x) for x in d["windows"]]
        seats = d["seats"]
        state.eliminated = [s for s, info in enumerate(seats) if info["status"] == SEAT_ELIMINATED]
        teams = [info["team"] for info in seats]
        state.teams = teams if any(t is not None for t in teams) else None
        return state


def _from_v1(state: State, d: dict[str, Any]) -> None:
    """Format 1: ``status`` active/finished, one ``pending`` decision (``penalty``,
    ``play_drawn`` with the turn's ``drawn`` cards, ``choose_color``) or None."""
    state.phase = GAME_OVER if d["status"] == FINISHED else PLAY
    pending = d["pending"]
    if pending is not None:
        # the decision types of format 1 kept their names and fields; ``drawn`` was
        # the state's and belongs to ``play_drawn`` now
        state.stack = [decision_from_dict({**pending, "drawn": d.get("drawn") or []})]


def _fisher_yates(rng: random.Random, x: list) -> None:
    """Exactly ``rng.shuffle(x)``: CPython's algorithm (Fisher-Yates, each index drawn
    by rejection sampling from ``getrandbits``, as ``Random._randbelow`` does) with
    the per-card method call inlined, about twice as fast; dealing is most of the
    cost of ``new_game``. Written out, a seed also deals the same on any Python."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def _copy(v: Any) -> Any:
    if isinstance(v, list):
        return [_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    return v
