"""A UNO turn: its decisions, playing a card, drawing, passing.

The decisions (RULES.md "A turn", "Draw Two / Wild Draw Four"):

- :class:`Turn`: an ordinary turn, owed by the seat in turn when nothing else is
  pending: play a card the matching rule admits, or draw.
- :class:`PlayDrawn`: after drawing: play a playable card drawn this turn, draw again
  while under ``draw_limit``, or pass once a drawn card is playable.
- :class:`Penalty`: the victim of a +2/+4 accepts it (``draw``), answers it with a
  card the stacking rule admits, or challenges a Wild Draw Four.
- :class:`ChooseColor`: a colour to name (a Wild turned up first).

:func:`play_card` is the one way a card is played (in turn, stacked, jumped in): the
card goes on the pile, the UNO call is checked, the round ends if it was the last card,
otherwise its rank's effect runs and the turn controller moves play on.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..actions import Action, ActionType, register
from ..cards import COLORS
from ..config import OptionSpec, boolean, integer
from ..core import end_turn
from ..rules import Decision, Module, Play, Rules
from ..state import State
from .piles import can_draw, draw, playable_cards
from .rounds import end_if_blocked, end_round

Events = Any  # list[dict] | None
_new_tuple = tuple.__new__

PLAY = register(ActionType(
    "play", (("card", True), ("color", False), ("target_seat", False), ("uno", False)),
    doc="play a card (`color` for a wild, `target_seat` where the card names a player, `\"uno\": true` "
        "to call UNO with the next-to-last card)"))
DRAW = register(ActionType("draw", refusal="you may not draw now",
                           doc="draw a card; also accepts a pending penalty (+2/+4)"))
PASS = register(ActionType("pass", refusal="you may pass only after drawing a playable card",
                           doc="end the turn after drawing a playable card"))
CHOOSE_COLOR = register(ActionType("choose_color", (("color", True),), refusal="no colour is to be chosen now",
                                   doc="name the colour (a Wild turned up first)"))

DRAW_MOVE = Action("draw")
PASS_MOVE = Action("pass")
CHOOSE_MOVES = tuple(Action("choose_color", color=c) for c in COLORS)


# -- the moves of a card ------------------------------------------------------------------
def card_moves(rules: Rules, seat: int, card: int, hand_size: int) -> tuple:
    """Every distinct play of ``card`` by ``seat`` holding ``hand_size`` cards: one per
    parameter set its rank takes (a colour, a target seat), each followed by its
    ``"uno": true`` twin when the play leaves one card.  Cached: the parameters are a
    function of the seat, the card and whether the hand holds 1, 2 or more cards."""
    moves = moves_row(rules, seat, hand_size)[card]
    return moves if moves is not None else build_moves(rules, seat, card, hand_size)


def moves_row(rules: Rules, seat: int, hand_size: int) -> list:
    """The memo of ``seat``'s plays with ``hand_size`` cards, by card (None: not built
    yet, see :func:`build_moves`): listings index it once per card."""
    return rules._moves[seat][0 if hand_size == 1 else 1 if hand_size == 2 else 2]


def build_moves(rules: Rules, seat: int, card: int, hand_size: int) -> tuple:
    moves = moves_row(rules, seat, hand_size)[card] = _build_moves(rules, seat, card, hand_size)
    return moves


def _build_moves(rules: Rules, seat: int, card: int, hand_size: int) -> tuple:
    params = rules.params.get(rules.deck.rank[card])
    out = []
    for extra in params(rules, seat, card, hand_size) if params is not None else ({},):
        move = Action("play", card, extra.get("color"), extra.get("target_seat"))
        out.append(move)
        if hand_size == 2:  # this play leaves one card: it may call UNO with it
            out.append(move._replace(uno=True))
    return tuple(out)


def play_takes_color(rules: Rules, seat: int, card: int, hand_size: int) -> bool:
    """Whether the plays of ``card`` name a colour (from the same parameters)."""
    return any(m[2] is not None for m in card_moves(rules, seat, card, hand_size))


# -- playing a card -----------------------------------------------------------------------
def play_card(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision | None) -> None:
    """``seat`` plays ``move``'s card, answering the decision ``top`` (popped here; None:
    a jump-in, which has already cancelled what was pending).  A card played on a
    penalty carries it (stacking: the next victim draws the sum)."""
    deck = rules.deck
    rules.close(state, seat, "play")
    carry = 0
    answered = None
    if top is not None and state.stack:
        answered = state.stack.pop()
        carry = answered.carry
    card = move[1]
    hand = state.hands[seat]
    hand.remove(card)
    prev_color = state.color
    state.discard.append(card)
    color = state.color = move[2] or deck.color[card]
    if ev is not None:
        event = {"type": "play", "seat": seat, "card": deck.dicts[card], "color": color}
        if move[3] is not None:
            event["target_seat"] = move[3]
        ev.append(event)
    if len(hand) == 1:
        if move[4] or state.uno_declared == seat:
            if ev is not None:
                ev.append({"type": "uno", "seat": seat})
        else:
            state.uno_exposed = seat  # the UNO window opens on this seat
    state.uno_declared = None
    play = _new_tuple(Play, (seat, card, move, carry, prev_color, answered))  # Play(...), without its __new__
    rank = deck.rank[card]
    if not hand:
        finish = rules.finish_effects.get(rank)
        winner = finish(state, rules, play, ev) if finish is not None else None
        end_round(state, rules, seat if winner is None else winner, ev)  # (a last UNO card: another wins)
        return
    end_turn(state, rules.effects[rank](state, rules, play, ev))


def jump_in(state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
    """``seat`` plays out of turn: it takes the turn, and what was pending is cancelled
    (the jumped-in card's own effect follows from the jumper)."""
    if ev is not None:
        ev.append({"type": "jump_in", "seat": seat})
    state.current = seat
    state.stack.clear()
    play_card(state, rules, seat, move, ev, None)


# -- drawing and passing ------------------------------------------------------------------
def draw_options(state: State, rules: Rules, drawn: Any) -> tuple[bool, bool]:
    """After drawing ``drawn`` this turn: (may draw another card, may pass)."""
    limit = rules.opts["draw_limit"]
    more = (limit is None or len(drawn) < limit) and can_draw(state)
    if not drawn:
        return more, False
    key = (state.color, rules.deck.rank[state.discard[-1]])
    ok = rules._playable.get(key) or rules.playable_on(*key)
    for c in drawn:
        if c in ok:
            return more, True
    return more, False


def _draw(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    """Draw one card; then play on (``PlayDrawn``) or, with nothing to do, pass."""
    rules.close(state, seat, "draw")
    got = draw(state, rules, seat, 1, ev, "draw")
    drawing = top if type(top) is PlayDrawn else None
    drawn = drawing.drawn + tuple(got) if drawing is not None else tuple(got)  # type: ignore[union-attr]
    more, may_pass = draw_options(state, rules, drawn)
    if more or may_pass:
        if drawing is not None:
            state.stack[-1] = PlayDrawn(seat, drawn)
        else:
            state.stack.append(PlayDrawn(seat, drawn))
        return
    if ev is not None:
        ev.append({"type": "pass", "seat": seat, "auto": True})
    if drawing is not None:
        state.stack.pop()
    end_turn(state, 1)
    if not got:
        end_if_blocked(state, rules, ev)


def _pass(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    rules.close(state, seat, "pass")
    if ev is not None:
        ev.append({"type": "pass", "seat": seat})
    state.stack.pop()
    end_turn(state, 1)


# -- the decisions ------------------------------------------------------------------------
class Turn(Decision):
    """An ordinary turn of the seat in turn (never on the stack: the empty stack)."""

    name = "turn"
    shown = False
    on_stack = False
    handlers = {"play": play_card, "draw": _draw}

    def __init__(self) -> None:
        self.seat = -1  # never read: the owner of the turn is the seat in turn, ``State.current``

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        hand = state.hands[seat]
        key = (state.color, rules.deck.rank[state.discard[-1]])
        ok = rules._playable.get(key) or rules.playable_on(*key)
        n = len(hand)
        row = rules._moves[seat][0 if n == 1 else 1 if n == 2 else 2]  # moves_row(), inlined: a hot path
        for c in hand:
            if c in ok:
                out.extend(row[c] or build_moves(rules, seat, c, n))
        out.append(DRAW_MOVE)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "play":
            why = rules.answer_only.get(rules.deck.rank[move[1]])
            if why is not None:
                return why
            return f"{rules.deck.card_dict(move[1])} does not match the top card or the colour {state.color}"
        return None

    def public(self, state: State) -> dict | None:
        return None

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        _draw(state, rules, seat, DRAW_MOVE, ev, self)


class PlayDrawn(Decision):
    """After drawing: play a playable drawn card, draw again, or pass."""

    __slots__ = ("drawn",)
    name = "play_drawn"
    public_schema = {"drawn_count": {"type": "integer", "description": "cards drawn this turn"}}
    fields = ("drawn",)
    handlers = {"play": play_card, "draw": _draw, "pass": _pass}
    drawn: tuple[int, ...]

    def __init__(self, seat: int, drawn: tuple[int, ...]):
        self.seat = seat
        self.drawn = drawn

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        n = len(state.hands[seat])
        for c in playable_cards(state, rules, self.drawn):
            out.extend(card_moves(rules, seat, c, n))
        more, may_pass = draw_options(state, rules, self.drawn)
        if more:
            out.append(DRAW_MOVE)
        if may_pass:
            out.append(PASS_MOVE)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "play":
            return "after drawing only a drawn playable card may be played"
        return None

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "drawn_count": len(self.drawn)}

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        more, may_pass = draw_options(state, rules, self.drawn)
        if may_pass or not more:
            _pass(state, rules, seat, PASS_MOVE, ev, self)
        else:
            _draw(state, rules, seat, DRAW_MOVE, ev, self)

    def redeal(self, state: State, rules: Rules, observer: int) -> Decision:
        if self.seat == observer:
            return self
        # which cards were drawn is hidden too: say they are the seat's last ones
        return PlayDrawn(self.seat, tuple(state.hands[self.seat][-len(self.drawn):]))


def _accept(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    """The victim draws the penalty; it loses its turn unless ``penalty_skips_turn`` is off
    or it is not the seat in turn (a +2? aimed past the next player: ``targeted_draw_cards``)."""
    assert isinstance(top, Penalty)
    rules.close(state, seat, "draw")
    draw(state, rules, seat, top.amount, ev, top.kind)
    state.stack.pop()
    if rules.opts["penalty_skips_turn"] and seat == state.current:
        end_turn(state, 1)


def _challenge(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    assert rules.challenge is not None
    rules.challenge(state, rules, seat, ev)


class Penalty(Decision):
    """A +2/+4 owed by its victim (``seat``); ``by``: who played it (None: the first
    card).  A Wild Draw Four's is ``challengeable``; whether its player was ``guilty``
    (held the colour in force, ``prev_color``; with ``wild_draw_four: bluff`` any other
    card playable on the card it covered, ``prev_rank``) is settled when it is played
    and kept, hidden, for the challenge."""

    __slots__ = ("amount", "kind", "by", "challengeable", "guilty", "prev_color", "prev_rank")
    name = "penalty"
    public_schema = {
        "amount": {"type": "integer", "description": "cards to draw"},
        "kind": {"type": "string", "description": "the card behind it: draw_two or wild_draw_four (with "
                                                   "targeted_draw_cards also targeted_draw_two or "
                                                   "targeted_wild_draw_four: a +2? / +4? naming this seat)"},
        "challengeable": {"type": "boolean", "description": "a Wild Draw Four that may be challenged"},
    }
    fields = ("amount", "kind", "by", "challengeable", "guilty", "prev_color", "prev_rank")
    handlers = {"draw": _accept, "challenge": _challenge, "play": play_card}
    amount: int
    kind: str
    by: int | None
    challengeable: bool | None
    guilty: bool | None
    prev_color: str | None
    prev_rank: str | None

    def __init__(self, seat: int, amount: int, kind: str, by: int | None, challengeable: bool | None = None,
                 guilty: bool | None = None, prev_color: str | None = None, prev_rank: str | None = None):
        self.seat, self.amount, self.kind, self.by = seat, amount, kind, by
        self.challengeable, self.guilty, self.prev_color, self.prev_rank = challengeable, guilty, prev_color, prev_rank

    @property
    def carry(self) -> int:  # type: ignore[override]
        return self.amount  # a card stacked on it carries the amount on

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["by"] = self.by  # saved even when None (the first card's penalty)
        return out

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        out.append(DRAW_MOVE)
        if self.challengeable:
            out.append(Action("challenge"))
        allowed = rules.stack_on.get(self.kind)
        if allowed and seat == state.current:  # a victim not in turn does not play on (a +2?)
            hand = state.hands[seat]
            rank, n = rules.deck.rank, len(hand)
            for c in hand:
                if rank[c] in allowed:
                    out.extend(card_moves(rules, seat, c, n))

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "play":
            return f"you must first take the {self.amount}-card penalty (draw) or answer it"
        if move[0] == "challenge" and self.kind == "wild_draw_four" and rules.challenge is None:
            return "with wild_draw_four: free a Wild Draw Four cannot be challenged: draw the penalty"
        return None

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat, "amount": self.amount, "kind": self.kind,
                "challengeable": bool(self.challengeable)}

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        _accept(state, rules, seat, DRAW_MOVE, ev, self)  # never challenges

    def redeal(self, state: State, rules: Rules, observer: int) -> Decision:
        if self.guilty is None or self.by is None or rules.guilt is None:
            return self
        # whether the Wild Draw Four was a bluff follows from the sampled hand
        guilty = rules.guilt(rules, state.hands[self.by], self.prev_color, self.prev_rank)
        return Penalty(self.seat, self.amount, self.kind, self.by, self.challengeable, guilty, self.prev_color,
                       self.prev_rank)


def _choose_color(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    state.color = move[2]
    state.stack.pop()
    if ev is not None:
        ev.append({"type": "color_chosen", "seat": seat, "color": state.color})


class ChooseColor(Decision):
    """A colour to name (a Wild turned up first: the first player names it, then plays).
    Nothing else happens meanwhile: no UNO call ahead, no jump-in."""

    name = "choose_color"
    handlers = {"choose_color": _choose_color}
    turn_extras = False
    windows_open = False

    def __init__(self, seat: int):
        self.seat = seat

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        out.extend(CHOOSE_MOVES)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "play":
            return "name the colour first (choose_color)"
        return None

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        # the colour the player holds most of (ties: first in COLORS order)
        counts = Counter(rules.deck.color[c] for c in state.hands[seat])
        color = max(COLORS, key=lambda c: counts[c])
        _choose_color(state, rules, seat, CHOOSE_MOVES[COLORS.index(color)], ev, self)


#: the turn's decision types, in the order the family installs them (the order its action
#: types are listed in messages: play, draw, pass, choose_color, challenge)
DECISION_TYPES = (Turn, PlayDrawn, ChooseColor, Penalty)


# -- the modules of the turn's options ----------------------------------------------------
class Penalties(Module):
    """``penalty_skips_turn``: whether the victim of +2/+4 loses the turn after drawing
    (RULES.md; seed 001's base rules: it draws, then plays)."""

    name = "penalties"
    options = (OptionSpec("penalty_skips_turn", True, boolean, "the victim of +2/+4 loses the turn after drawing"),)

    def install(self, rules: Rules) -> None:
        pass  # read by the Penalty decision (and the challenge)


class Drawing(Module):
    """``draw_limit``: draw until a playable card or N cards; the player may stop early
    only after drawing a playable card (seed 004 "pickaxe": 3)."""

    name = "drawing"
    options = (OptionSpec("draw_limit", 1, integer(1, 200, nullable=True),
                          "cards a player may draw in one turn (null: until playable)"),)

    def install(self, rules: Rules) -> None:
        pass  # read by the PlayDrawn decision
