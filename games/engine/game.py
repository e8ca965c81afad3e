"""The engine's public API: create a game, list legal actions, apply one, view it.

``apply`` validates before it mutates: an action that is not among
``legal_actions(state, seat)`` raises a typed :class:`~.errors.EngineError` and
leaves the state exactly as it was.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Mapping

from .cards import COLORS
from .core import Events, advance, can_draw, draw, hand_points, playable, playable_cards, reveal_hands
from .errors import EngineError, GameOver, IllegalMove, InvalidAction, NotYourCard, NotYourTurn, UnknownCard
from .options import make_config
from .rules import Play, Rules, build_rules
from .state import ACTIVE, FINISHED, State

HAND_SIZE = 7

# --------------------------------------------------------------------------------------
# Action shapes (exactly the JSON the REST API accepts)
# --------------------------------------------------------------------------------------
_REQ, _OPT = True, False
ACTION_FIELDS: dict[str, dict[str, bool]] = {
    "play": {"card": _REQ, "color": _OPT, "target_seat": _OPT, "uno": _OPT},
    "draw": {},
    "pass": {},
    "choose_color": {"color": _REQ},
    "challenge": {},
    "call_uno": {},
    "catch_uno": {"target_seat": _REQ},
}
#: applied by the server when a deadline passes; never listed, never accepted from a player
SYSTEM_ACTIONS = frozenset({"timeout"})
IN_TURN = frozenset({"play", "draw", "pass", "choose_color", "challenge"})

Key = tuple  # (type, card, color, target_seat, uno)


#: per action type: the fields it may carry (with "type") and the ones it requires
_ALLOWED = {kind: frozenset(spec) | {"type"} for kind, spec in ACTION_FIELDS.items()}
_REQUIRED = {kind: tuple(name for name, required in spec.items() if required) for kind, spec in ACTION_FIELDS.items()}


def _is_int(value: Any) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def action_key(action: Any) -> Key:
    """Validate an action's shape and return its canonical key (raises InvalidAction)."""
    # ``type(...) is dict`` first: the usual case, and much cheaper than an ABC check.
    if type(action) is not dict and not isinstance(action, Mapping):
        raise InvalidAction("an action must be an object")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise InvalidAction(f"'type' must be a string, one of {', '.join(ACTION_FIELDS)}", field="type")
    if kind in SYSTEM_ACTIONS:
        if len(action) != 1:
            raise InvalidAction(f"{kind!r} takes no other field", field=next(k for k in action if k != "type"))
        return (kind, None, None, None, None)
    if kind not in ACTION_FIELDS:
        raise InvalidAction(f"unknown action type {kind!r}; known: {', '.join(ACTION_FIELDS)}", field="type")
    if not action.keys() <= _ALLOWED[kind]:
        name = next(name for name in action if name not in _ALLOWED[kind])
        raise InvalidAction(f"{kind!r} takes no field {name!r}", field=name)
    for name in _REQUIRED[kind]:
        if action.get(name) is None:
            raise InvalidAction(f"{kind!r} needs {name!r}", field=name)
    if len(action) == 1:  # only its type (e.g. a draw): no field left to check
        return (kind, None, None, None, None)
    card, color, target, uno = action.get("card"), action.get("color"), action.get("target_seat"), action.get("uno")
    if card is not None and not _is_int(card):
        raise InvalidAction("'card' must be an integer", field="card")
    if target is not None and not _is_int(target):
        raise InvalidAction("'target_seat' must be an integer", field="target_seat")
    if color is not None and color not in COLORS:
        raise InvalidAction(f"'color' must be one of {', '.join(COLORS)}", field="color")
    if uno is not None and not isinstance(uno, bool):
        raise InvalidAction("'uno' must be true or false", field="uno")
    return (kind, card, color, target, True if uno else None)


def _key_of(a: dict) -> Key:
    return (a["type"], a.get("card"), a.get("color"), a.get("target_seat"), a.get("uno"))


# --------------------------------------------------------------------------------------
# Creating a game and its rounds
# --------------------------------------------------------------------------------------
def new_game(preset: Any, options: Any, seats: Any, seed: Any, events: Events | None = None) -> State:
    """Create a game and deal its first round (raises InvalidOptions naming the option).

    The arguments come from outside and are checked by ``make_config``: typed ``Any`` so
    that the compiled engine does not refuse a wrong type with a TypeError before that."""
    config = make_config(preset, options, seats, seed)
    rules = build_rules(config)
    state = State(config=config, scores=[0] * seats)
    ev: Events = [] if events is None else events
    # The "highest card deals" draw is recorded only as its outcome.
    state.dealer = state.rng().randrange(seats)
    ev.append({"type": "dealer_chosen", "seat": state.dealer})
    _start_round(state, rules, ev)
    return state


def _start_round(state: State, rules: Rules, ev: Events) -> None:
    n, deck = state.seats, rules.deck
    state.round += 1
    cards = list(range(len(deck)))
    state.shuffle(cards)
    hands: list[list[int]] = [[] for _ in range(n)]
    for _ in range(HAND_SIZE):
        for k in range(1, n + 1):  # one at a time, starting left of the dealer
            hands[(state.dealer + k) % n].append(cards.pop())
    state.hands, state.draw_pile, state.discard = hands, cards, []
    state.direction, state.pending, state.drawn = 1, None, []
    state.uno_declared = state.uno_exposed = None
    ev.append({"type": "round_started", "round": state.round, "dealer": state.dealer})
    reveal_hands(state, rules, ev)
    while True:
        card = state.draw_pile.pop()
        if deck.rank[card] not in rules.first_card_redraw:
            break
        # Returned to the deck, the deck reshuffled, another card turned.
        ev.append({"type": "first_card_returned", "rank": deck.rank[card]})
        state.draw_pile.append(card)
        state.shuffle(state.draw_pile)
    state.discard.append(card)
    state.color = deck.color[card]
    state.current = state.next_seat(state.dealer)
    ev.append({"type": "first_card", "card": deck.dicts[card]})
    effect = rules.first_card.get(deck.rank[card])
    if effect is not None:
        effect(state, rules, ev)


def _end_round(state: State, rules: Rules, winner: int, ev: Events, blocked: bool = False) -> None:
    assert rules.scoring is not None
    points = rules.scoring.round_points(state, rules, winner)
    for s, p in enumerate(points):
        state.scores[s] += p
    state.history.append({"round": state.round, "winner": winner, "points": points})
    ev.append(
        {
            "type": "round_ended",
            "round": state.round,
            "winner": winner,
            "blocked": blocked,
            "hand_points": [hand_points(state, rules, s) for s in range(state.seats)],
            "points": points,
            "scores": list(state.scores),
        }
    )
    state.pending, state.drawn, state.uno_declared, state.uno_exposed = None, [], None, None
    game_winner = rules.scoring.game_winner(state, rules)
    if game_winner is not None:
        state.status, state.winner = FINISHED, game_winner
        ev.append({"type": "game_ended", "winner": game_winner, "scores": list(state.scores)})
        return
    state.dealer = (state.dealer + 1) % state.seats  # the deal passes to the left
    _start_round(state, rules, ev)


def _blocked(state: State, rules: Rules, ev: Events) -> bool:
    """Decision: with both piles exhausted and no playable card in any hand, the round
    ends; the hand worth fewest points wins it (ties: nearest the current player)."""
    if can_draw(state) or any(playable(state, rules, c) for h in state.hands for c in h):
        return False
    order = [state.next_seat(state.current, k) for k in range(state.seats)]
    winner = min(order, key=lambda s: hand_points(state, rules, s))
    _end_round(state, rules, winner, ev, blocked=True)
    return True


# --------------------------------------------------------------------------------------
# Legal actions
# --------------------------------------------------------------------------------------
#: legal actions by their key (see :func:`action_key`), in listing order
Table = dict[Key, dict]


def _no_fields(kind: str) -> tuple[Key, dict]:
    return (kind, None, None, None, None), {"type": kind}


(_DRAW_KEY, _DRAW), (_PASS_KEY, _PASS), (_CHALLENGE_KEY, _CHALLENGE), (_CALL_KEY, _CALL) = (
    _no_fields(t) for t in ("draw", "pass", "challenge", "call_uno")
)


def _add(out: Table, action: dict) -> None:
    out[_key_of(action)] = action


def _add_plays(out: Table, state: State, rules: Rules, seat: int, card: int) -> None:
    params = rules.params.get(rules.deck.rank[card])
    uno = len(state.hands[seat]) == 2  # this play leaves one card: it may call UNO with it
    if params is None:  # most cards: one play without parameters, its key written out
        out["play", card, None, None, None] = {"type": "play", "card": card}
        if uno:
            out["play", card, None, None, True] = {"type": "play", "card": card, "uno": True}
        return
    for extra in params(state, rules, seat, card):
        a = {"type": "play", "card": card, **extra}
        _add(out, a)
        if uno:
            _add(out, {**a, "uno": True})


def _draw_options(state: State, rules: Rules) -> tuple[bool, bool]:
    """In the 'play_drawn' phase: (may draw another card, may pass)."""
    limit = rules.opt("draw_limit")
    more = (limit is None or len(state.drawn) < limit) and can_draw(state)
    return more, bool(playable_cards(state, rules, state.drawn))


def _legal_table(state: State, rules: Rules, seat: int) -> Table:
    out: Table = {}
    if state.status != ACTIVE:
        return out
    hand = state.hands[seat]
    p = state.pending
    actor = p["seat"] if p is not None else state.current
    ptype = p["type"] if p is not None else None
    if seat == actor:
        if p is None:
            for c in playable_cards(state, rules, hand):
                _add_plays(out, state, rules, seat, c)
            out[_DRAW_KEY] = _DRAW
        elif ptype == "penalty":
            out[_DRAW_KEY] = _DRAW
            if p.get("challengeable"):
                out[_CHALLENGE_KEY] = _CHALLENGE
            allowed = rules.stack_on.get(p["kind"])
            if allowed:
                for c in hand:
                    if rules.deck.rank[c] in allowed:
                        _add_plays(out, state, rules, seat, c)
        elif ptype == "play_drawn":
            for c in playable_cards(state, rules, state.drawn):
                _add_plays(out, state, rules, seat, c)
            more, may_pass = _draw_options(state, rules)
            if more:
                out[_DRAW_KEY] = _DRAW
            if may_pass:
                out[_PASS_KEY] = _PASS
        elif ptype == "choose_color":
            for color in COLORS:
                _add(out, {"type": "choose_color", "color": color})
        if len(hand) == 2 and state.uno_declared != seat and ptype != "choose_color":
            out[_CALL_KEY] = _CALL
    exposed = state.uno_exposed
    if exposed is not None:
        if seat == exposed:
            out[_CALL_KEY] = _CALL
        else:
            _add(out, {"type": "catch_uno", "target_seat": exposed})
    if rules.out_of_turn and seat != actor and ptype != "choose_color":
        cards: set[int] = set()
        for find in rules.out_of_turn:
            cards.update(find(state, rules, seat))
        for c in sorted(cards):
            _add_plays(out, state, rules, seat, c)
    return out


def _compute_legal(state: State, rules: Rules, seat: int) -> list[dict]:
    """The legal actions, uncopied: read them, never change them."""
    return list(_legal_table(state, rules, seat).values())


def _legal_index(state: State, rules: Rules, seat: int) -> Table:
    cached = state._legal
    if cached is not None and cached[0] == state.seq and cached[1] == seat:
        return cached[2]
    index = _legal_table(state, rules, seat)
    state._legal = (state.seq, seat, index)
    return index


def legal_actions(state: State, seat: Any) -> list[dict]:
    """Every action ``seat`` may take now, in turn or out of turn, ready to post."""
    _check_seat(state, seat)
    return [a.copy() for a in _legal_index(state, build_rules(state.config), seat).values()]


# --------------------------------------------------------------------------------------
# Applying an action
# --------------------------------------------------------------------------------------
def _close_uno_window(state: State, seat: int) -> None:
    # The catch window closes when anyone but the exposed player acts in the game.
    if state.uno_exposed is not None and state.uno_exposed != seat:
        state.uno_exposed = None


def _do_play(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    deck = rules.deck
    _close_uno_window(state, seat)
    p = state.pending
    stack = 0
    if seat != (p["seat"] if p is not None else state.current):
        # Jump-in: the jumper takes this as their turn; what was pending is cancelled.
        ev.append({"type": "jump_in", "seat": seat})
        state.current, state.drawn = seat, []
    elif p is not None and p["type"] == "penalty":
        stack = p["amount"]  # stacking: the next victim draws the sum
    state.pending = None
    card = act["card"]
    hand = state.hands[seat]
    hand.remove(card)
    prev_color = state.color
    state.discard.append(card)
    state.color = act.get("color") or deck.color[card]
    event = {"type": "play", "seat": seat, "card": deck.dicts[card], "color": state.color}
    if "target_seat" in act:
        event["target_seat"] = act["target_seat"]
    ev.append(event)
    if len(hand) == 1:
        if act.get("uno") or state.uno_declared == seat:
            ev.append({"type": "uno", "seat": seat})
        else:
            state.uno_exposed = seat
    state.uno_declared = None
    play = Play(seat, card, act, stack, prev_color)
    rank = deck.rank[card]
    if not hand:
        finish = rules.finish_effects.get(rank)
        if finish is not None:
            finish(state, rules, play, ev)
        _end_round(state, rules, seat, ev)
        return
    rules.effects[rank](state, rules, play, ev)


def _do_draw(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    _close_uno_window(state, seat)
    p = state.pending
    if p is not None and p["type"] == "penalty":
        draw(state, rules, seat, p["amount"], ev, reason=p["kind"])
        if rules.opt("penalty_skips_turn"):
            advance(state)
        else:
            state.pending = None  # the victim drew and now plays
        return
    got = draw(state, rules, seat, 1, ev, reason="draw")
    state.drawn.extend(got)
    more, may_pass = _draw_options(state, rules)
    if more or may_pass:
        state.pending = {"type": "play_drawn", "seat": seat}
        return
    ev.append({"type": "pass", "seat": seat, "auto": True})
    advance(state)
    if not got:
        _blocked(state, rules, ev)


def _do_pass(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    _close_uno_window(state, seat)
    ev.append({"type": "pass", "seat": seat})
    advance(state)


def _do_choose_color(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    state.color = act["color"]
    state.pending = None
    ev.append({"type": "color_chosen", "seat": seat, "color": state.color})


def _do_challenge(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    _close_uno_window(state, seat)
    assert rules.challenge is not None
    rules.challenge(state, rules, seat, ev)


def _do_call_uno(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    if state.uno_exposed == seat:
        state.uno_exposed = None
    else:
        state.uno_declared = seat
    ev.append({"type": "uno", "seat": seat})


def _do_catch_uno(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    target = act["target_seat"]
    state.uno_exposed = None
    ev.append({"type": "uno_caught", "seat": seat, "target_seat": target})
    draw(state, rules, target, rules.opt("uno_penalty"), ev, reason="uno_penalty")


def _do_timeout(state: State, rules: Rules, seat: int, act: dict, ev: Events) -> None:
    """What the server does for a player whose deadline passed (RULES.md "Time"):
    accept a pending penalty, otherwise draw and pass."""
    ev.append({"type": "timeout", "seat": seat})
    start_round = state.round  # a round that ends inside a timeout ends the timer's work
    p = state.pending
    if p is not None and p["type"] == "choose_color":
        counts = Counter(rules.deck.color[c] for c in state.hands[seat])
        color = max(COLORS, key=lambda c: counts[c])  # ties: first in COLORS order
        _do_choose_color(state, rules, seat, {"color": color}, ev)
    elif p is not None and p["type"] == "penalty":
        _do_draw(state, rules, seat, act, ev)
    # Still this seat's turn: draw (as often as the rules demand), then pass.
    while state.status == ACTIVE and state.actor() == seat and state.round == start_round:
        if state.pending is not None and state.pending["type"] == "play_drawn":
            more, may_pass = _draw_options(state, rules)
            if may_pass or not more:
                _do_pass(state, rules, seat, act, ev)
                break
        _do_draw(state, rules, seat, act, ev)


HANDLERS: dict[str, Callable[[State, Rules, int, dict, Events], None]] = {
    "play": _do_play,
    "draw": _do_draw,
    "pass": _do_pass,
    "choose_color": _do_choose_color,
    "challenge": _do_challenge,
    "call_uno": _do_call_uno,
    "catch_uno": _do_catch_uno,
    "timeout": _do_timeout,
}


def _check_seat(state: State, seat: Any) -> None:
    if not (_is_int(seat) and 0 <= seat < state.config.seats):
        raise InvalidAction(f"no seat {seat!r} in this game", field="seat")


def apply(state: State, seat: Any, action: Any, *, system: bool = False) -> Events:
    """Validate and apply ``action`` by ``seat``; return the events it caused.

    Raises an :class:`EngineError` subclass and changes nothing when the action is
    not legal.  ``system=True`` admits the server's own actions (``timeout``).

    ``seat`` and ``action`` (like ``seat`` in ``legal_actions`` and ``view``) come from
    outside and are checked here, hence ``Any``: the compiled engine checks the declared
    types of arguments, and would raise TypeError, or take ``True`` for seat 1.
    """
    if state.status != ACTIVE:
        raise GameOver("the game is over")
    _check_seat(state, seat)
    key = action_key(action)
    rules = build_rules(state.config)
    if key[0] in SYSTEM_ACTIONS:
        if not system:
            raise InvalidAction(f"{key[0]!r} is applied by the server only", field="type")
        if seat != state.actor():
            raise NotYourTurn(f"seat {seat} owes no decision")
        act: dict = {"type": key[0]}
    else:
        found = _legal_index(state, rules, seat).get(key)
        if found is None:
            raise _diagnose(state, rules, seat, key)
        act = found
    ev: Events = []
    HANDLERS[key[0]](state, rules, seat, act, ev)
    state.seq += 1
    return ev


def _diagnose(state: State, rules: Rules, seat: int, key: Key) -> EngineError:
    kind, card, color, target, uno = key
    deck = rules.deck
    if card is not None:
        if not 0 <= card < len(deck):
            return UnknownCard(f"there is no card {card} in this game's deck", field="card")
        if card not in state.hands[seat]:
            return NotYourCard(f"card {card} is not in your hand", field="card")
    actor = state.actor()
    if kind in IN_TURN and seat != actor:
        jump = kind == "play" and any(card in f(state, rules, seat) for f in rules.out_of_turn)
        if not jump:
            return NotYourTurn(f"it is seat {actor}'s turn")
    if kind == "play":
        assert card is not None
        wild = deck.color[card] is None
        if wild and color is None:
            return IllegalMove("a wild card needs a 'color'", field="color")
        if not wild and color is not None:
            return IllegalMove("only a wild card takes a 'color'", field="color")
        if uno and len(state.hands[seat]) != 2:
            return IllegalMove("'uno' goes with playing your next-to-last card", field="uno")
        legal = {a["card"] for a in _legal_index(state, rules, seat).values() if a["type"] == "play"}
        if card in legal:
            return IllegalMove("this play needs other parameters (e.g. a valid 'target_seat')", field="target_seat")
        p = state.pending
        if p is not None and p["type"] == "penalty":
            return IllegalMove(f"you must first take the {p['amount']}-card penalty (draw) or answer it")
        if p is not None and p["type"] == "play_drawn":
            return IllegalMove("after drawing only a drawn playable card may be played")
        if p is not None and p["type"] == "choose_color":
            return IllegalMove("name the colour first (choose_color)")
        return IllegalMove(f"{deck.card_dict(card)} does not match the top card or the colour {state.color}")
    messages = {
        "draw": "you may not draw now",
        "pass": "you may pass only after drawing a playable card",
        "choose_color": "no colour is to be chosen now",
        "challenge": "there is no Wild Draw Four to challenge",
        "call_uno": "UNO is called with two cards in turn, or with one card before being caught",
        "catch_uno": "that player cannot be caught now",
    }
    return IllegalMove(messages[kind])


# --------------------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------------------
def public_pending(state: State) -> dict | None:
    p = state.pending
    if p is None:
        return None
    t = p["type"]
    if t == "penalty":
        return {
            "type": "penalty",
            "seat": p["seat"],
            "amount": p["amount"],
            "kind": p["kind"],
            "challengeable": bool(p.get("challengeable")),
        }
    if t == "play_drawn":
        return {"type": "play_drawn", "seat": p["seat"], "drawn_count": len(state.drawn)}
    return {"type": t, "seat": p["seat"]}


def view(state: State, seat: Any = None) -> dict:
    """What ``seat`` may see (``None``: a spectator, who sees no hand at all)."""
    rules = build_rules(state.config)
    deck = rules.deck
    v = {
        "status": state.status,
        "round": state.round,
        "dealer": state.dealer,
        "current_seat": state.actor(),
        "direction": "clockwise" if state.direction == 1 else "counterclockwise",
        "top_card": deck.card_dict(state.discard[-1]) if state.discard else None,
        "current_color": state.color,
        "draw_pile_count": len(state.draw_pile),
        "discard_pile_count": len(state.discard),
        "pending": public_pending(state),
        "uno_catchable_seat": state.uno_exposed,
        "players": [
            {"seat": s, "hand_count": len(h), "score": state.scores[s]} for s, h in enumerate(state.hands)
        ],
        "winner": state.winner,
    }
    if seat is not None:
        _check_seat(state, seat)
        v["seat"] = seat
        v["hand"] = [deck.card_dict(c) for c in state.hands[seat]]
        if state.actor() == seat and state.drawn:
            v["drawn"] = list(state.drawn)
    return v


def visible_events(events: Iterable[dict], seat: int | None, reveal_all: bool = False) -> list[dict]:
    """The events ``seat`` may see (all of them once the game is over)."""
    out = []
    for e in events:
        to = e.get("to")
        if to is None or reveal_all or (seat is not None and seat in to):
            out.append(e)
    return out


def replay(config_or_state: Any, moves: Iterable[tuple[int, Mapping[str, Any]]]) -> State:
    """Rebuild a game from its config (or a fresh initial state) and its (seat, action) log."""
    from .options import Config

    cfg = config_or_state.config if isinstance(config_or_state, State) else config_or_state
    if not isinstance(cfg, Config):
        cfg = Config.from_dict(cfg)
    state = new_game(cfg.preset, _explicit(cfg), cfg.seats, cfg.seed)
    for seat, action in moves:
        apply(state, seat, action, system=True)
    return state


def _explicit(cfg: Any) -> dict:
    # resolved options already include the preset's values; pass them explicitly
    opts = dict(cfg.options)
    if opts.get("rounds") is not None:
        opts.pop("target_score", None)
    return opts
