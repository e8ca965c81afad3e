"""The machinery every family shares: the turn controller, and listing, dispatching,
explaining and timing out the decisions owed.

- :func:`end_turn` is the one turn controller: effects state their intent (how many
  seats play moves on) and push decisions; only this function moves play on.
- :func:`legal_moves` lists a seat's moves: the top decision's (if the seat owes it,
  with the answers modules add to its type, ``Rules.answers``), then each window's, in
  order.
- :func:`execute` applies a move (unchecked) through the decision or window that
  offers it.
- :func:`refusal` explains why a move is not legal, from the same per-decision rules.
- :func:`timeout` is what the server does for a seat whose deadline passed.

Events: a list of dicts, or None on the fast path (nothing is built).  An event meant
for some seats only carries ``"to": [seats]`` (see ``game.visible_events``).
"""

from __future__ import annotations

from typing import Any

from .actions import ACTION_TYPES
from .errors import EngineError, IllegalMove, NotYourCard, NotYourTurn, UnknownCard
from .rules import Decision, Rules
from .state import GAME_OVER, State

Events = Any  # list[dict] | None


# -- the turn controller ------------------------------------------------------------------
def end_turn(state: State, steps: int) -> None:
    """Move play on ``steps`` seats from the seat in turn (0: it continues), ending its
    turn: what it declared for this turn (an UNO call ahead) lapses.  Decisions the
    effects pushed stay owed."""
    if steps:
        if state.eliminated:
            state.current = state.next_seat(state.current, steps)
        else:  # ``next_seat``, inlined: this runs after nearly every action
            state.current = (state.current + steps * state.direction) % state.config.seats
    state.uno_declared = None


def top_and_owner(state: State, rules: Rules) -> tuple[Decision, int]:
    """The decision on top (the family's turn when the stack is empty) and its owner."""
    stack = state.stack
    if stack:
        top = stack[-1]
        return top, top.seat
    return rules.turn, state.current  # type: ignore[return-value]


# -- listing -----------------------------------------------------------------------------
def legal_moves(state: State, rules: Rules, seat: int) -> list[tuple]:
    """``seat``'s legal moves, in listing order (an owed decision's first)."""
    if state.phase == GAME_OVER:
        return []
    if state.eliminated and seat in state.eliminated:
        return []  # a seat out of the game (``scoring: elimination``) acts no more
    out: list[tuple] = []
    top, owner = top_and_owner(state, rules)
    is_owner = seat == owner
    if is_owner:
        top.moves(state, rules, seat, out)
        if rules.answers:  # moves other modules add to this decision type's
            for answer in rules.answers.get(top.name, ()):
                answer(state, rules, top, seat, out)
    for w in rules.windows:
        w.moves(state, rules, seat, top, is_owner, out)
    for w in state.windows:
        w.moves(state, rules, seat, top, is_owner, out)  # type: ignore[attr-defined]
    if state.eliminated:  # a play's targets are every other seat (cached): none out of the game
        out = [m for m in out if m[3] is None or m[3] not in state.eliminated]
    return out


# -- applying ----------------------------------------------------------------------------
def execute(state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
    """Apply a legal ``move`` of ``seat`` (not checked: see ``game.apply``) through the
    decision or window that offers it.  An in-turn action closes the stored windows open
    before it: their close rules run once it applied (it applies exactly as listed)."""
    kind = move[0]
    open_before = state.windows[:] if state.windows and rules.opens_windows and kind in rules.in_turn else None
    top, owner = top_and_owner(state, rules)
    handler = top.handlers.get(kind) if seat == owner else None
    if handler is not None:
        handler(state, rules, seat, move, ev, top)
    else:
        _window_taking(state, rules, seat, move).apply(state, rules, seat, move, ev)
    if open_before:
        close_windows(state, rules, open_before, seat, kind, ev)


def _window_taking(state: State, rules: Rules, seat: int, move: tuple) -> Any:
    """The window (standing, then stored) that answers ``seat``'s ``move``."""
    kind = move[0]
    for w in (*rules.windows, *state.windows):
        if kind in w.actions and w.takes(state, rules, seat, move):  # type: ignore[attr-defined]
            return w
    raise AssertionError(f"no decision or window takes {move!r} from seat {seat}")


def close_windows(state: State, rules: Rules, windows: list, seat: int, kind: str, ev: Events) -> None:
    """The close rules of the stored ``windows`` (those open before ``seat`` took an
    in-turn action of ``kind``) still open after it: a round that ended with the action
    took its windows with it (a window that closes removes itself)."""
    for w in windows:
        if any(w is x for x in state.windows):
            w.on_turn_action(state, rules, seat, kind, ev)


# -- refusals ----------------------------------------------------------------------------
def refusal(state: State, rules: Rules, seat: int, move: tuple, legal: Any) -> EngineError:
    """Why ``move`` (well-formed, not among ``legal``, ``seat``'s moves) is refused.

    In order: the card (no such card, not yours); the turn (an in-turn action from a
    seat that owes nothing and to which no window offers it); a play's fields, from the
    rules that list the plays (a colour only for cards whose plays name one, ``uno``
    only with the next-to-last card, other parameters); then the decision on top
    explains, else the action type's own refusal."""
    kind, card, color, target, uno = move
    deck = rules.deck
    if card is not None:
        if not 0 <= card < len(deck):
            return UnknownCard(f"there is no card {card} in this game's deck", field="card")
        if card not in state.hands[seat]:
            return NotYourCard(f"card {card} is not in your hand", field="card")
    if state.eliminated and seat in state.eliminated:
        return NotYourTurn(f"seat {seat} is out of the game (eliminated)")
    top, owner = top_and_owner(state, rules)
    if kind in rules.in_turn and seat != owner:
        if not any(kind in w.actions and w.might_take(state, rules, seat, move)
                   for w in (*rules.windows, *state.windows)):  # type: ignore[misc]
            return NotYourTurn(f"it is seat {owner}'s turn")
    if kind == "play":
        assert card is not None
        hand_size = len(state.hands[seat])
        family = rules.family
        takes_color = family.play_takes_color(rules, seat, card, hand_size)
        if takes_color and color is None:
            return IllegalMove("a wild card needs a 'color'", field="color")
        if not takes_color and color is not None:
            return IllegalMove(family.no_color, field="color")
        if uno and not family.uno_call:
            return IllegalMove(f"{family.title} has no UNO call: a play takes no 'uno'", field="uno")
        if uno and hand_size != 2:
            return IllegalMove("'uno' goes with playing your next-to-last card", field="uno")
        if any(m[0] == "play" and m[1] == card for m in legal):
            if target is not None and rules.target_refusal is not None:
                why = rules.target_refusal(state, rules, seat, card, target)
                if why is not None:
                    return IllegalMove(why, field="target_seat")
            return IllegalMove("this play needs other parameters (e.g. a valid 'target_seat')", field="target_seat")
    why = top.explain(state, rules, seat, move)
    return IllegalMove(why if why is not None else ACTION_TYPES[kind].refusal)


# -- the timer ---------------------------------------------------------------------------
def owes(state: State, rules: Rules, seat: int) -> bool:
    """Whether ``seat`` owes a decision now (the top one, or a window's)."""
    if state.phase == GAME_OVER:
        return False
    return seat == top_and_owner(state, rules)[1] or any(
        seat in w.owed_by(state) for w in (*rules.windows, *state.windows))  # type: ignore[misc]


def timeout(state: State, rules: Rules, seat: int, ev: Events) -> None:
    """What the server does for ``seat`` when its deadline passes (RULES.md "Time"):
    each decision it owes expires as its type says (accept a penalty, name the colour
    held most, draw then pass...), repeated while it still owes one in this round."""
    if ev is not None:
        ev.append({"type": "timeout", "seat": seat})
    start_round = state.round  # a round that ends inside a timeout ends the timer's work
    while state.phase != GAME_OVER and state.round == start_round:
        top, owner = top_and_owner(state, rules)
        if seat == owner:
            if state.windows and rules.opens_windows:  # the timer acts in turn
                open_before = state.windows[:]
                top.expire(state, rules, seat, ev)
                close_windows(state, rules, open_before, seat, "timeout", ev)
            else:
                top.expire(state, rules, seat, ev)
            continue
        window = next((w for w in (*rules.windows, *state.windows) if seat in w.owed_by(state)), None)
        if window is None:
            break
        window.expire(state, rules, seat, ev)  # type: ignore[union-attr]


def _own_deadline(state: State, rules: Rules, seat: int) -> Any:
    """The decision or window ``seat`` owes whose deadline is its own (``seconds`` not
    None): the top one first, then the windows in order; None if there is none."""
    top, owner = top_and_owner(state, rules)
    if seat == owner and top.seconds(state) is not None:
        return top
    return next((w for w in (*rules.windows, *state.windows)  # type: ignore[misc]
                 if seat in w.owed_by(state) and w.seconds(state) is not None), None)


def owes_own(state: State, rules: Rules, seat: int) -> bool:
    """Whether ``seat`` owes a decision whose deadline is its own (a buzz window's...)."""
    return state.phase != GAME_OVER and _own_deadline(state, rules, seat) is not None


def expire_own(state: State, rules: Rules, seat: int, ev: Events) -> None:
    """The ``expire`` system action: what the server does for ``seat`` when the deadline
    of its own of a decision or window it owes passes (``seconds`` not None; RULES.md
    "Time": e.g. an unbuzzed seat simply did not buzz).  Each such decision expires as
    its type says, repeated while the seat owes one in this round; the decisions it owes
    under the turn's deadline are left alone (``timeout`` is theirs)."""
    if ev is not None:
        ev.append({"type": "expired", "seat": seat})
    start_round = state.round
    while state.phase != GAME_OVER and state.round == start_round:
        decision = _own_deadline(state, rules, seat)
        if decision is None:
            break
        decision.expire(state, rules, seat, ev)
