"""Options ``straights`` and ``continuations``: a turn of several cards (a *sequence*).

RULES.md: "``straights`` (seed 001): after a number card, the same player may continue
with the next higher or lower number of the same colour, one card at a time, in one
direction.  ``continuations`` (seed 004): the continuation may also be the same number
in another colour, or the next number in the same colour.  In both, after each card the
player may continue or ``end_turn``; the next player may cut in by playing on the top
card, which ends the sequence; jump-in applies between cards.  A player must call UNO
before the last card (no going out through a combination without it)."  And "Time": on
expiry "a sequence ... ends".

How the engine plays it (one mechanism for both options):

- A number card played as a turn's card (in turn, by a victim of a +2/+4 who plays on,
  jumped in, or cut in) opens a :class:`Sequence` owed by its player: the number's
  effect returns the intent 0 (the player continues) and pushes the decision.  Its
  moves are the cards that continue the sequence and ``end_turn``.  Every card of the
  sequence is played by the turn's one way to play a card (``turn.play_card``: the UNO
  call, the last card, the effect), so each is a card like any other.
- Decision: a drawn card played ends the turn as usual; RULES.md's "nothing else may be
  played after a draw" holds with these options too (a sequence follows a card played
  instead of drawing, not a draw).
- ``straights``: the next higher or lower number in the top card's colour; once the
  second card has set the direction (up or down) the sequence keeps it.
  ``continuations``: the same number in any colour, or the next higher or lower number
  in the same colour.  Decision: a continuation has no fixed direction (seed 004's own
  example goes red 6, 5, 5, 4, green 4, 5).  Setting both options is refused: they are
  two rulings of the same sequence.
- The next player may cut in (:class:`CutInWindow`, a chance nobody owes): any card the
  matching rule admits on the top card, as their turn; the sequence and its player's
  turn end.  The next player cannot draw meanwhile: they wait for ``end_turn``, a card
  that cuts in, or the timer.  Decision: an identical card of the next player is
  a jump-in when ``jump_in`` is on (it is one as well; same outcome, the event says
  ``jump_in``); other players jump in between cards as the jump-in window always
  allows.
- UNO: a card that would be the player's last is listed (and accepted) only while they
  are not exposed, i.e. once they have called UNO (with the next-to-last card, ahead,
  or with ``call_uno`` after the fact, before anybody catches them).
- Hidden information: every number card opens the decision, whether or not its player
  holds a card that continues, so the pause reveals nothing about their hand.
- Time: the sequence's deadline is the turn's; when it passes the sequence ends as
  with ``end_turn`` (RULES.md "Time").

Later sequences (Replay, Duo's Reverse) subclass :class:`Sequence`: the cut-in window
and the bots treat any instance alike.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar, Mapping

from ..actions import Action, ActionType, register
from ..cards import NUMBER_RANKS, Deck
from ..config import OptionSpec, boolean
from ..core import end_turn
from ..errors import InvalidOptions
from ..rules import Decision, Effect, Module, Play, Rules, Window
from ..state import State
from .turn import PlayDrawn, card_moves, play_card

Events = Any  # list[dict] | None

END_TURN = register(ActionType(
    "end_turn", refusal="only a player in a sequence (straights, continuations) may end their turn so",
    doc="end a turn of several cards (a sequence: options `straights`, `continuations`)"))
END_TURN_MOVE = Action("end_turn")
STRAIGHTS, CONTINUATIONS = "straights", "continuations"
DIRECTIONS = {1: "up", -1: "down", None: None}


# -- which cards continue a sequence -----------------------------------------------------
@lru_cache(maxsize=None)
def _values(deck: Deck) -> tuple[int | None, ...]:
    """Each card's number (None for a card that is not a number card)."""
    return tuple(int(r) if r in NUMBER_RANKS else None for r in deck.rank)


@lru_cache(maxsize=None)
def followers(deck: Deck, rule: str, top: int, step: int | None) -> frozenset[int]:
    """The cards that continue a sequence whose last card is ``top`` (``step``: the
    direction of a straight once set, +1 or -1).  Memoised: a pure function."""
    values, colors = _values(deck), deck.color
    v, color = values[top], colors[top]
    if v is None:
        return frozenset()
    if rule == STRAIGHTS:
        wanted = {v + step} if step is not None else {v - 1, v + 1}
        return frozenset(c for c, x in enumerate(values) if x in wanted and colors[c] == color)
    return frozenset(c for c, x in enumerate(values)
                     if x == v or (x is not None and abs(x - v) == 1 and colors[c] == color))


def rule_of(opts: Mapping[str, Any]) -> str | None:
    """The sequence rule a game plays (None: neither option)."""
    return STRAIGHTS if opts.get(STRAIGHTS) else CONTINUATIONS if opts.get(CONTINUATIONS) else None


# -- the decision --------------------------------------------------------------------------
def _end_sequence(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    """``end_turn``: the sequence and the player's turn end; the next player plays."""
    rules.close(state, seat, "end_turn")
    if ev is not None:
        ev.append({"type": "end_turn", "seat": seat})
    state.stack.pop()
    end_turn(state, 1)


class Sequence(Decision):
    """The player of a number card may continue the sequence or ``end_turn``.

    ``step``: a straight's direction once its second card set it (+1 up, -1 down);
    None before that, and always with ``continuations``."""

    __slots__ = ("step",)
    name = "sequence"
    public_schema = {
        "rule": {"type": "string", "enum": ["straights", "continuations"]},
        "direction": {"type": "string", "nullable": True, "description": "up or down once set (straights)"},
        "cut_in_seat": {"type": "integer", "description": "the next player, who may cut in"},
    }
    fields = ("step",)
    handlers = {"play": play_card, "end_turn": _end_sequence}
    #: whether the next player may cut in (:class:`CutInWindow`): seed 001's straights and
    #: seed 004's continuations; not a Replay's "play again at once" (``uno/replay.py``)
    cut_in: ClassVar[bool] = True
    step: int | None

    def __init__(self, seat: int, step: int | None = None):
        self.seat = seat
        self.step = step

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        hand = state.hands[seat]
        n = len(hand)
        if n > 1 or state.uno_exposed != seat:  # no last card without UNO called
            follows = followers(rules.deck, rule_of(rules.opts), state.discard[-1], self.step)  # type: ignore[arg-type]
            for c in hand:
                if c in follows:
                    out.extend(card_moves(rules, seat, c, n))
        out.append(END_TURN_MOVE)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] != "play":
            return None  # the action type's own refusal says it
        deck = rules.deck
        if seat != self.seat:  # the next player (the only other seat a play gets this far from)
            return (f"{deck.card_dict(move[1])} does not match the top card or the colour {state.color}: "
                    "only a card that does cuts in")
        rule = rule_of(rules.opts)
        top = state.discard[-1]
        if move[1] in followers(deck, rule, top, self.step):  # type: ignore[arg-type]
            return "call UNO before playing your last card: no going out through a sequence without it"
        v, color = _values(deck)[top], deck.color[top]
        if rule == STRAIGHTS:
            if self.step is None:
                return f"a straight goes on with the {color} {v - 1} or {v + 1} (one lower or higher), or end_turn"  # type: ignore[operator]
            return f"a straight goes on in one direction: the {color} {v + self.step}, or end_turn"  # type: ignore[operator]
        return (f"a continuation is a {v} of any colour or the {color} {v - 1} or {v + 1}, "  # type: ignore[operator]
                "or end_turn")

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "rule": rule_of(state.options),
                "direction": DIRECTIONS[self.step], "cut_in_seat": state.next_seat(self.seat)}

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        _end_sequence(state, rules, seat, END_TURN_MOVE, ev, self)  # the sequence ends


def sequenced(inner: Effect) -> Effect:
    """A number card's effect with the sequence: after ``inner`` (a plain number passes
    play on; a 7 or 0 of ``seven_zero`` first swaps or passes hands), its player may
    continue instead, unless the card was played after a draw or ``inner`` did more
    than pass play on (pushed a decision, skipped someone)."""

    def effect(state: State, rules: Rules, play: Play, ev: Events) -> int:
        depth = len(state.stack)
        intent = inner(state, rules, play, ev)
        answered = play.answered
        if intent != 1 or len(state.stack) != depth or type(answered) is PlayDrawn:
            return intent
        step = None
        if isinstance(answered, Sequence) and rule_of(rules.opts) == STRAIGHTS:
            values = _values(rules.deck)
            before = values[state.discard[-2]]  # None after a card of another sequence (a Replay)
            step = values[play.card] - before if before is not None else None  # type: ignore[operator]
        state.stack.append(Sequence(play.seat, step))
        return 0  # the player continues

    return effect


# -- the cut-in ----------------------------------------------------------------------------
def cut_in(state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
    """The next player plays on the top card during a sequence: the sequence and its
    player's turn end, and the card is the next player's turn."""
    sequence = state.stack.pop()
    if ev is not None:
        ev.append({"type": "cut_in", "seat": seat, "target_seat": sequence.seat})
    end_turn(state, 1)
    assert state.current == seat
    play_card(state, rules, seat, move, ev, None)


class CutInWindow(Window):
    """The next player's chance to cut in while a sequence is on top: the plays the
    matching rule admits on the top card.  Nobody owes it (no deadline)."""

    name = "cut_in"
    actions = ("play",)

    def moves(self, state: State, rules: Rules, seat: int, top: Any, is_owner: bool, out: list) -> None:
        if is_owner or not isinstance(top, Sequence) or not top.cut_in or seat != state.next_seat(top.seat):
            return
        hand = state.hands[seat]
        n = len(hand)
        ok = rules.playable_on(state.color, rules.deck.rank[state.discard[-1]])
        for c in hand:
            if c in ok:
                for m in card_moves(rules, seat, c, n):
                    if m not in out:  # an identical card the jump-in window listed already
                        out.append(m)

    def might_take(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        top = state.stack[-1] if state.stack else None
        return isinstance(top, Sequence) and top.cut_in and seat == state.next_seat(top.seat)

    def apply(self, state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
        cut_in(state, rules, seat, move, ev)


# -- the module ----------------------------------------------------------------------------
class Sequences(Module):
    """``straights`` and ``continuations`` (see the module docstring).  Installed after
    the modules that give the number ranks their effects (it wraps them)."""

    name = "sequences"
    options = (
        OptionSpec(STRAIGHTS, False, boolean,
                   "after a number card, play on the next higher or lower number of its colour, in one "
                   "direction, or end_turn; the next player may cut in"),
        OptionSpec(CONTINUATIONS, False, boolean,
                   "after a number card, play on the same number (any colour) or the next higher or lower "
                   "number of its colour, or end_turn; the next player may cut in"),
    )

    def validate(self, opts: Mapping[str, Any], given: Mapping[str, Any]) -> None:
        if opts[STRAIGHTS] and opts[CONTINUATIONS]:
            name = CONTINUATIONS if CONTINUATIONS in given else STRAIGHTS
            raise InvalidOptions(name, "set either straights or continuations, not both: they are two rulings "
                                       "of the same sequence (continuations already admits every straight)")

    def install(self, rules: Rules) -> None:
        if rule_of(rules.opts) is None:
            return
        for rank in NUMBER_RANKS:
            rules.effects[rank] = sequenced(rules.effects[rank])
        rules.decision_types.append(Sequence)
        rules.windows.append(CutInWindow())
