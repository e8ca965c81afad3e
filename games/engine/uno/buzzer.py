"""Option ``buzzer_cards`` (seed 001), with ``buzzer_seconds``: the Buzzer cards and the
buzz window.

RULES.md: "8 colourless Buzzer cards (20 points). Played in turn on anything; anything
may follow. Playing one opens a buzz window (`buzzer_seconds`, default 10): every player
must `buzz`; the last to buzz, and everyone who did not buzz before the window closes,
draws 2. Bots buzz after a human-like random delay."  And "Time": "Out-of-turn windows
(UNO catch, jump-in, buzz) close with the next in-turn action or their own timer", "an
unbuzzed seat simply did not buzz".

How the engine plays it:

- The cards: deck part ``buzzer`` (8 cards ``{"id", "color": null, "rank": "buzzer"}``,
  20 points).  A Buzzer is playable in turn on any top card (it has no colour: the UNO
  matching rule admits colourless cards everywhere); on a Buzzer any card may be played
  (``Rules.anything_follows``): the colour in force is none until the next card gives
  one.
- The window: :class:`BuzzWindow`, a stored window (``State.windows``) that every active
  seat owes, the Buzzer's player included.  Its deadline is its own (deadline kind
  ``buzzer_seconds``, ``seconds()`` the option's value, counted from its opening): the
  server applies the ``expire`` system action for each seat still owing it then, and
  that seat simply did not buzz.  The view's ``pending`` shows it while no decision is
  on the stack: ``{"type": "buzz", "seat": <the Buzzer's player>, "buzzed": [...],
  "owed_by": [...], "seconds": N}``.
- The window closes when no seat owes it any more (everyone buzzed or was timed out),
  or with the next in-turn action (any seat's play, draw, pass, challenge, ... or the
  timer acting in turn: ``StoredWindow.on_turn_action``): the seats that had not buzzed
  when that action was taken did not buzz before the window closed.  Then the last to
  buzz, and every seat that did not buzz, draw 2 each (in seat order), right after that
  action (which applies exactly as it was listed: a play listed for a hand of one card
  stays the last card).

Decisions where the sources are silent, as this module plays them:

- "The last to buzz" is the seat whose buzz came last, also when some seats did not
  buzz at all: RULES.md names both, so then both draw (the last buzzer and each seat
  that did not buzz).  When nobody buzzed, every seat draws 2.
- A seat whose window deadline passed (the timer) can no longer buzz in that window.
- A Buzzer played as the last card ends the round: no window opens.  A Buzzer turned
  up first opens none either (nobody played it); any card may be played on it.
- An in-turn action that ends the round (its player went out) ends an open window with
  it: the round is scored as it stands, nobody draws for the buzz.
- A Buzzer is never jumped in (it has no colour to be identical in) and does not
  answer a pending penalty (the victim of a +2/+4 still draws or stacks).
- Playing a Buzzer while a buzz window is open opens a new one and closes the old one
  (an in-turn action): every seat owes the new one, whatever it did in the old one.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..actions import Action, ActionType, register
from ..cards import PARTS, Card
from ..config import OptionSpec, boolean, integer
from ..errors import InvalidOptions
from ..rules import Module, Play, Rules, StoredWindow
from ..state import State
from .piles import draw
from .standard import NEXT

Events = Any  # list[dict] | None

#: the Buzzer's rank; the deck part that adds the cards (``cards.PARTS``)
BUZZER = "buzzer"
PART = "buzzer"
COPIES = 8
POINTS = 20
#: cards drawn by the last to buzz and by each seat that did not buzz
PENALTY = 2
#: the window's deadline kind (``owed``) and the option holding its seconds
SECONDS_OPTION = "buzzer_seconds"
DEFAULT_SECONDS = 10
#: the longest window: the longest turn a correspondence game may have (14 days)
MAX_SECONDS = 14 * 24 * 3600

BUZZ = register(ActionType("buzz", refusal="you owe no buzz now (no buzz window is open, or you are done with it)",
                           doc="buzz in an open buzz window (a Buzzer was played): the last to buzz, and every "
                               "player who did not buzz before the window closes, draws 2"))
BUZZ_MOVE = Action("buzz")


def buzzer_cards(start: int) -> list[Card]:
    """RULES.md: 8 colourless Buzzer cards, 20 points each."""
    return [Card(start + i, "action", BUZZER, (), (), POINTS, BUZZER) for i in range(COPIES)]


PARTS[PART] = buzzer_cards


class BuzzWindow(StoredWindow):
    """A buzz window: every active seat owes a ``buzz`` (see the module docstring).

    ``seat``: who played the Buzzer; ``buzzed``: the seats that buzzed, in order;
    ``missed``: the seats whose deadline passed (they did not buzz); ``opened``: the
    engine's ``State.seq`` when it opened, which tells one window from the next."""

    __slots__ = ("buzzed", "missed", "opened")
    name = "buzz"
    public_schema = {
        "buzzed": {"type": "array", "items": {"type": "integer"}, "description": "seats that buzzed, in order"},
        "owed_by": {"type": "array", "items": {"type": "integer"}, "description": "seats that still owe a buzz"},
        "seconds": {"type": "number", "description": "the window's length (buzzer_seconds)"},
    }
    fields = ("buzzed", "missed", "opened")
    actions = ("buzz",)
    timer = SECONDS_OPTION
    buzzed: tuple[int, ...]
    missed: tuple[int, ...]
    opened: int

    def __init__(self, seat: int, opened: int, buzzed: tuple[int, ...] = (), missed: tuple[int, ...] = ()):
        self.seat, self.opened, self.buzzed, self.missed = seat, opened, buzzed, missed

    def owes(self, state: State, seat: int) -> bool:
        return seat not in self.buzzed and seat not in self.missed and seat not in state.eliminated

    # -- what is owed, and for how long ----------------------------------------------------
    def owed_by(self, state: State) -> tuple[int, ...]:
        return tuple(s for s in range(state.seats) if self.owes(state, s))

    def seconds(self, state: State) -> float | None:
        return state.options[SECONDS_OPTION]

    def instance(self) -> int | None:
        return self.opened

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "buzzed": list(self.buzzed),
                "owed_by": list(self.owed_by(state)), "seconds": self.seconds(state)}

    # -- the moves -------------------------------------------------------------------------
    def moves(self, state: State, rules: Rules, seat: int, top: Any, is_owner: bool, out: list) -> None:
        if self.owes(state, seat):
            out.append(BUZZ_MOVE)

    def takes(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        return self.owes(state, seat)

    def apply(self, state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
        if ev is not None:
            ev.append({"type": "buzz", "seat": seat})
        self._become(state, rules, BuzzWindow(self.seat, self.opened, self.buzzed + (seat,), self.missed), ev)

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        """RULES.md "Time": an unbuzzed seat simply did not buzz."""
        self._become(state, rules, BuzzWindow(self.seat, self.opened, self.buzzed, self.missed + (seat,)), ev)

    # -- closing ---------------------------------------------------------------------------
    def on_turn_action(self, state: State, rules: Rules, seat: int, kind: str, ev: Events) -> None:
        """The next in-turn action (whoever took it, the timer's too) closed the window."""
        close(state, rules, self, ev)

    def _become(self, state: State, rules: Rules, new: BuzzWindow, ev: Events) -> None:
        """Replace this window by ``new`` (decisions are immutable), closed at once if
        nobody owes it any more."""
        windows = state.windows
        windows[next(i for i, w in enumerate(windows) if w is self)] = new
        if not new.owed_by(state):
            close(state, rules, new, ev)


def close(state: State, rules: Rules, window: BuzzWindow, ev: Events) -> None:
    """The window closes: the last to buzz, and every seat that did not buzz, draw 2."""
    state.windows = [w for w in state.windows if w is not window]
    not_buzzed = sorted(set(window.missed) | set(window.owed_by(state)))
    last = window.buzzed[-1] if window.buzzed else None
    losers = sorted(set(not_buzzed) | ({last} if last is not None else set()))
    if ev is not None:
        ev.append({"type": "buzz_closed", "seat": window.seat, "buzzed": list(window.buzzed),
                   "not_buzzed": not_buzzed, "last": last, "draws": losers})
    for s in losers:
        draw(state, rules, s, PENALTY, ev, reason="buzz")


def buzzer(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """A Buzzer: a buzz window opens that every seat owes; play moves on."""
    window = BuzzWindow(play.seat, state.seq)
    state.windows = [*state.windows, window]
    if ev is not None:
        ev.append({"type": "buzz_window", "seat": play.seat, "seconds": window.seconds(state),
                   "owed_by": list(window.owed_by(state))})
    return NEXT


class BuzzerCards(Module):
    name = "buzzer_cards"
    options = (
        OptionSpec("buzzer_cards", False, boolean,
                   "8 colourless Buzzer cards (20 points), played on anything: every player must buzz; the last "
                   "to buzz, and everyone who did not, draws 2"),
        OptionSpec(SECONDS_OPTION, DEFAULT_SECONDS, integer(1, MAX_SECONDS),
                   "seconds a buzz window stays open (with buzzer_cards)"),
    )

    def validate(self, opts: dict[str, Any], given: Mapping[str, Any]) -> None:
        # (judged on the value: a saved config repeats every option, defaults included)
        if opts[SECONDS_OPTION] != DEFAULT_SECONDS and not opts["buzzer_cards"]:
            raise InvalidOptions(SECONDS_OPTION, "a buzz window opens only with buzzer_cards: set buzzer_cards "
                                                 "to true, or leave buzzer_seconds out")

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        return (PART,) if opts["buzzer_cards"] else ()

    def install(self, rules: Rules) -> None:
        if not rules.opts["buzzer_cards"]:
            return
        rules.effects[BUZZER] = buzzer
        rules.anything_follows = rules.anything_follows | {BUZZER}
        rules.decision_types.append(BuzzWindow)
        rules.opens_windows = True
