"""The game state: plain data, JSON-serialisable without loss.

Hands and piles hold card ids (see :mod:`games.engine.cards`).  Piles are lists
whose *last* element is the top.  Randomness is derived, never stored: shuffle
number ``k`` of a game uses ``random.Random(f"{seed}:{k}")``, so the state only
keeps a counter and a game replays exactly from its seed and its actions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields
from typing import Any

from .options import Config

ACTIVE = "active"
FINISHED = "finished"


@dataclass(eq=True)
class State:
    config: Config
    status: str = ACTIVE
    round: int = 0
    dealer: int = 0
    #: totals per seat
    scores: list[int] = field(default_factory=list)
    #: one row per finished round: {"round", "winner", "points": [per seat]}
    history: list[dict] = field(default_factory=list)
    winner: int | None = None
    shuffles: int = 0
    hands: list[list[int]] = field(default_factory=list)
    draw_pile: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    current: int = 0
    direction: int = 1
    color: str | None = None
    #: the decision the game waits for from ``pending["seat"]`` (None: an ordinary turn)
    pending: dict | None = None
    #: cards drawn by the current player this turn (still in hand)
    drawn: list[int] = field(default_factory=list)
    #: seat that called UNO ahead of playing its next-to-last card this turn
    uno_declared: int | None = None
    #: seat that played its next-to-last card without calling UNO and may be caught
    uno_exposed: int | None = None
    #: number of actions applied so far (also the engine's version of the state)
    seq: int = 0
    #: the legal actions last listed, ``(seq, seat, table)`` (see ``game._legal_index``):
    #: a cache, not game data, so never saved, copied, compared or shown. Declared (the
    #: compiled engine's classes take no ad-hoc attributes) and left to its default.
    _legal: tuple[int, int, dict] | None = field(default=None, repr=False, compare=False)

    # -- derived helpers -------------------------------------------------------------
    @property
    def seats(self) -> int:
        return self.config.seats

    @property
    def options(self) -> dict:
        return self.config.options  # type: ignore[return-value]

    @property
    def top(self) -> int:
        return self.discard[-1]

    def actor(self) -> int | None:
        """The seat that owes the next in-turn decision (None once finished)."""
        if self.status != ACTIVE:
            return None
        if self.pending is not None:
            return self.pending["seat"]
        return self.current

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.config.seats

    def rng(self) -> random.Random:
        """A fresh, reproducible RNG for the next random event of this game."""
        r = random.Random(f"{self.config.seed}:{self.shuffles}")
        self.shuffles += 1
        return r

    def shuffle(self, cards: list[int]) -> None:
        """Shuffle ``cards`` in place with the next RNG: ``self.rng().shuffle(cards)``."""
        _fisher_yates(self.rng(), cards)

    # -- serialisation ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in _SAVED:
            v = getattr(self, name)
            out[name] = v.to_dict() if name == "config" else _copy(v)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "State":
        kw = {name: _copy(d[name]) for name in _SAVED if name != "config"}
        return cls(config=Config.from_dict(d["config"]), **kw)

    def copy(self) -> "State":
        return State.from_dict(self.to_dict())


#: the fields ``to_dict`` saves and ``from_dict`` reads: all but the caches
_SAVED: tuple[str, ...] = tuple(f.name for f in fields(State) if f.name != "_legal")


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
