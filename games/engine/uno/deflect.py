"""Option ``deflect_cards`` (seed 004 "Renvoi"): four Renvoi cards that send a +2, +4 or
Skip back to the player who played it.

RULES.md: "four, one per colour, 20 points; played by the victim of a +2, +4 or Skip
instead of suffering it, sending the effect back to the player who played it.
Decision: with this option a Skip opens a decision for its victim (accept it, or
deflect) whether or not they hold a Renvoi, so that the pause reveals nothing about
their hand; a Renvoi may be played on a Renvoi."

This is the engine's decision owed by a seat that is not in turn: who decides (the
victim of the effect, ``Decision.seat``) and where play resumes (``State.current``)
are separate.  The decisions:

- a +2/+4 already waits for its victim (:class:`~.turn.Penalty`); this module adds
  the victim's Renvoi plays to it (``Rules.answers``);
- :class:`Skipped` (``"skip"``): the victim of a Skip accepts it (``pass``) or plays a
  Renvoi; owed whether or not the victim holds one;
- :class:`Deflected` (``"deflected"``): an effect sent back, owed by the player who
  played it (who is not in turn): accept it (``draw`` for a +2/+4, ``pass`` for a
  Skip) or send it back again with a Renvoi (a Renvoi on a Renvoi).

Decisions where the sources are silent, as this module plays them:

- A Renvoi is played only in answer to a +2, +4 or Skip aimed at its holder (RULES.md
  names no other use): never in an ordinary turn, never jumped in.  Any Renvoi
  answers any of them, whatever its colour; it then is the top card and its colour
  is the colour in force.
- Deflecting moves the effect, not play: the seat in turn stays the first victim.
  Whoever finally accepts draws the pending amount (stacked sums included); the loss
  of the turn (a Skip; a +2/+4 with ``penalty_skips_turn``) falls on the victim only
  if it is the seat in turn.  So a +2 sent back makes its player draw 2 and the first
  victim then plays; sent back again, the first victim draws and loses the turn.
- Once deflected, an effect may only be accepted or sent back with another Renvoi:
  no stacking on it, and a Wild Draw Four sent back is no longer challengeable (its
  first victim may challenge it, or deflect it, not both).
- Only effects someone played are deflected: a Draw Two or Skip turned up first has
  nobody to go back to (no Renvoi is listed, and a first Skip opens no decision); nor
  is a last card's effect (the round is over); nor a Reverse acting as a Skip between
  two players (RULES.md names the Skip card).
- A Renvoi that is its player's last card still sends a +2/+4 back: that player
  draws it, and those cards count (as a last Draw Two makes the next player draw).
- A Renvoi turned up first is a plain card of its colour.
- The timer accepts the effect for whoever owes the decision (its deadline is theirs,
  of the turn's kind), as it accepts a penalty.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from ..actions import Action
from ..cards import COLORS, PARTS, Card, uno_card
from ..config import OptionSpec, boolean
from ..core import end_turn
from ..rules import Decision, Module, Play, Rules
from ..state import State
from .piles import draw
from .standard import NEXT
from .turn import DRAW_MOVE, PASS_MOVE, Penalty, card_moves, play_card

Events = Any  # list[dict] | None

#: the Renvoi's rank (its cards are ``{"id", "color", "rank": "deflect"}``)
DEFLECT = "deflect"
#: the deck part this option adds (``cards.PARTS``)
PART = "deflect_cards"
POINTS = 20
SKIP = "skip"
#: why a Renvoi is refused in an ordinary turn (``Rules.answer_only``)
ONLY_IN_ANSWER = "a Renvoi is played only to send back a +2, +4 or Skip aimed at you"


def deflect_cards(start: int) -> list[Card]:
    """RULES.md: four Renvoi, one per colour, 20 points."""
    return [uno_card(start + i, color, DEFLECT, points=POINTS) for i, color in enumerate(COLORS)]


PARTS[PART] = deflect_cards


# -- the moves -------------------------------------------------------------------------------
def renvoi_moves(state: State, rules: Rules, seat: int, out: list) -> None:
    """Append ``seat``'s plays of each Renvoi it holds (any colour answers)."""
    hand = state.hands[seat]
    rank, n = rules.deck.rank, len(hand)
    for c in hand:
        if rank[c] == DEFLECT:
            out.extend(card_moves(rules, seat, c, n))


def answer_penalty(state: State, rules: Rules, decision: Decision, seat: int, out: list) -> None:
    """The Renvoi plays a +2/+4's victim may answer it with (``Rules.answers``): only if
    someone played it (a Draw Two turned up first has nobody to go back to)."""
    if decision.by is not None:  # type: ignore[attr-defined]
        renvoi_moves(state, rules, seat, out)


# -- accepting an effect ---------------------------------------------------------------------
def accept(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    """``seat`` suffers the effect ``top`` aims at it: draws its amount (a +2/+4); loses
    the turn (a Skip, or a +2/+4 with ``penalty_skips_turn``) only if ``seat`` is the
    seat in turn, otherwise play resumes with the seat in turn."""
    assert isinstance(top, Aimed)
    rules.close(state, seat, move[0])
    state.stack.pop()
    if top.kind == SKIP:
        if ev is not None:
            ev.append({"type": "skipped", "seat": seat})
        skips = True
    else:
        draw(state, rules, seat, top.amount, ev, top.kind)
        skips = rules.opts["penalty_skips_turn"]
    if skips and seat == state.current:
        end_turn(state, 1)


class Aimed(Decision):
    """An effect aimed at ``seat`` that it may deflect: ``kind`` (``skip``,
    ``draw_two``, ``wild_draw_four``), ``amount`` (cards to draw; 0 for a Skip), ``by``
    (the player a Renvoi sends it back to)."""

    __slots__ = ("kind", "amount", "by")
    fields = ("kind", "amount", "by")
    handlers = {"pass": accept, "draw": accept, "play": play_card}
    kind: str
    amount: int
    by: int

    def __init__(self, seat: int, kind: str, amount: int, by: int):
        self.seat, self.kind, self.amount, self.by = seat, kind, amount, by

    @property
    def accept_move(self) -> Action:
        """How it is accepted: ``draw`` a +2/+4, ``pass`` on a Skip."""
        return PASS_MOVE if self.kind == SKIP else DRAW_MOVE

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        out.append(self.accept_move)
        renvoi_moves(state, rules, seat, out)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "challenge" and self.kind == "wild_draw_four":
            return "a Wild Draw Four sent back cannot be challenged"
        what = "the Skip" if self.kind == SKIP else f"the {self.amount}-card penalty"
        return f"{self.what()}: accept {what} ({self.accept_move.type}) or send it back with a Renvoi"

    @abstractmethod
    def what(self) -> str:
        """Who aimed the effect at its owner, for a refusal (``seat 2 skipped you``)."""

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "by": self.by}

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        accept(state, rules, seat, self.accept_move, ev, self)  # never deflects


class Skipped(Aimed):
    """The victim of a Skip (the seat in turn) accepts it or deflects it; owed whether
    or not it holds a Renvoi, so that the pause says nothing about its hand."""

    name = "skip"
    public_schema = {"by": {"type": "integer", "description": "the seat that played the Skip"}}

    def what(self) -> str:
        return f"seat {self.by} skipped you"


class Deflected(Aimed):
    """An effect sent back to ``seat`` (who played it, or sent it back before; not the
    seat in turn unless it came back twice) by ``by``."""

    name = "deflected"
    public_schema = {
        "by": {"type": "integer", "description": "the seat that sent the effect back"},
        "kind": {"type": "string", "description": "the effect: draw_two, wild_draw_four or skip"},
        "amount": {"type": "integer", "description": "cards to draw (0 for a Skip)"},
    }
    #: its owner is usually not in turn: no UNO call ahead (a Renvoi play carries its own)
    turn_extras = False

    def what(self) -> str:
        return f"seat {self.by} sent it back to you"

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "by": self.by, "kind": self.kind, "amount": self.amount}


# -- the cards' effects ----------------------------------------------------------------------
def skip(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """A Skip: its victim, the next player, owes a decision (accept or deflect)."""
    state.stack.append(Skipped(state.next_seat(play.seat), SKIP, 0, play.seat))
    return NEXT


def sent_back(play: Play) -> Deflected:
    """The effect the Renvoi ``play`` answered, aimed at whoever sent it."""
    answered = play.answered
    assert isinstance(answered, (Penalty, Aimed)) and answered.by is not None, "a Renvoi answers an effect"
    kind = answered.kind
    return Deflected(answered.by, kind, 0 if kind == SKIP else answered.amount, play.seat)


def deflect(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """A Renvoi: the effect it answered goes back to the player who sent it; play does
    not move (the seat in turn stays)."""
    back = sent_back(play)
    state.stack.append(back)
    if ev is not None:
        ev.append({"type": "deflected", "seat": play.seat, "target_seat": back.seat, "kind": back.kind,
                   "amount": back.amount})
    return 0


def last_deflect(state: State, rules: Rules, play: Play, ev: Events) -> None:
    """A last-card Renvoi still sends a +2/+4 back: its player draws (the round ends)."""
    back = sent_back(play)
    if ev is not None:
        ev.append({"type": "deflected", "seat": play.seat, "target_seat": back.seat, "kind": back.kind,
                   "amount": back.amount})
    if back.amount:
        draw(state, rules, back.seat, back.amount, ev, back.kind)


class DeflectCards(Module):
    name = "deflect_cards"
    options = (OptionSpec("deflect_cards", False, boolean,
                          "four Renvoi cards (20 points): the victim of a +2, +4 or Skip sends it back"),)

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        return (PART,) if opts["deflect_cards"] else ()

    def install(self, rules: Rules) -> None:
        if not rules.opts["deflect_cards"]:
            return
        rules.effects[DEFLECT] = deflect
        rules.effects[SKIP] = skip  # installed before the standard cards, which keep it
        rules.finish_effects[DEFLECT] = last_deflect
        rules.answers.setdefault(Penalty.name, []).append(answer_penalty)
        rules.answer_only[DEFLECT] = ONLY_IN_ANSWER
        rules.decision_types.extend((Skipped, Deflected))
