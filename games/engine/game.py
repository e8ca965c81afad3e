"""The engine's public API: create a game, list legal actions, apply one, view it.

Two ways to act:

- validated, for clients: ``legal_actions`` (ready-to-post dicts) and ``apply``, which
  refuses anything not listed with a typed :class:`~.errors.EngineError`, the state
  left exactly as it was;
- unchecked and cheap, for bots and replay: ``legal_moves`` (the :class:`Action`
  values, uncopied) and ``push`` (no validation; ``events=None`` builds no event),
  with ``State.copy()`` to try a move and come back.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .actions import JSON, SYSTEM_ACTIONS, Action, checked_key, json_of
from .catalog import build_rules, make_config
from .config import Config
from .core import execute, expire_own, legal_moves as _legal_moves, owes, owes_own, refusal, timeout, top_and_owner
from .errors import GameOver, InvalidAction, NotYourTurn
from .rules import Rules, places
from .state import FINISHED, GAME_OVER, State

Events = list[dict]


def _is_int(value: Any) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _check_seat(state: State, seat: Any) -> None:
    if not (_is_int(seat) and 0 <= seat < state.config.seats):
        raise InvalidAction(f"no seat {seat!r} in this game", field="seat")


def _rules(state: State) -> Rules:
    rules = state.config._rules
    return rules if rules is not None else build_rules(state.config)


# -- creating a game ----------------------------------------------------------------------
def new_game(preset: Any, options: Any, seats: Any, seed: Any, events: Events | None = None) -> State:
    """Create a game and deal its first round (raises InvalidOptions naming the option).
    ``events``: a list the game's first events are appended to."""
    config = make_config(preset, options, seats, seed)
    rules = build_rules(config)
    state = State(config)
    rules.family.start_game(state, rules, [] if events is None else events)
    return state


def standings(state: State) -> list[int]:
    """Each seat's place in a finished game, 0 the first, equal places a tie (what
    ratings are computed from): the winners first (a team's seats, a shared win), then
    the others in the game's own order: ``winner_takes`` and ``hands_won`` the highest
    total first, ``lowest_total`` the lowest, ``elimination`` the later eliminated first,
    Decktet-Uno the most points first.  In a team game a team's seats share their
    total, so they share their place."""
    if state.status != FINISHED:
        raise GameOver("the game is not over: it has no standings yet")
    rules = _rules(state)
    if rules.scoring is None:  # Decktet-Uno: the most points first
        return places([-total for total in state.scores])
    return rules.scoring.standings(state, rules)


def lasting_teams(state: State) -> list[int] | None:
    """The team of each seat in a game whose partners stay together (``teams``), or
    None: no teams, or partners that change each round (``partner_rotation``: each
    player stands alone)."""
    if state.teams is None or state.options.get("partner_rotation"):
        return None
    return list(state.teams)


# -- legal actions ------------------------------------------------------------------------
def legal_moves(state: State, seat: int) -> list[Action]:
    """Every move ``seat`` may make now, as :class:`Action` values (unchecked seat;
    the list is fresh, the values shared: read them, never change them)."""
    return _legal_moves(state, state.config._rules or build_rules(state.config), seat)  # type: ignore[return-value]


def _legal_index(state: State, rules: Rules, seat: int) -> dict:
    """``seat``'s legal moves, each with its ready-to-post object (shared: copy it), in
    listing order (a move listed twice counts once); cached until the state changes."""
    cached = state._legal
    if cached is not None and cached[0] == state.seq and cached[1] == seat:
        return cached[2]
    get = JSON.get
    index = {}
    for m in _legal_moves(state, rules, seat):  # a loop, not a comprehension: no frame of its own
        index[m] = get(m) or json_of(m)
    state._legal = (state.seq, seat, index)
    return index


def legal_actions(state: State, seat: Any) -> list[dict]:
    """Every action ``seat`` may take now, in turn or out of turn, ready to post."""
    if type(seat) is not int or not 0 <= seat < state.config.seats:
        _check_seat(state, seat)
    index = _legal_index(state, state.config._rules or build_rules(state.config), seat)
    return [d.copy() for d in index.values()]


# -- applying an action -------------------------------------------------------------------
def apply(state: State, seat: Any, action: Any, *, system: bool = False) -> Events:
    """Validate and apply ``action`` by ``seat``; return the events it caused.

    Raises an :class:`EngineError` subclass and changes nothing when the action is not
    legal.  ``system=True`` admits the server's own actions (``timeout``, and
    ``expire`` for a window whose own deadline passed)."""
    if state.phase == GAME_OVER:
        raise GameOver("the game is over")
    if type(seat) is not int or not 0 <= seat < state.config.seats:
        _check_seat(state, seat)
    rules = state.config._rules or build_rules(state.config)
    key = checked_key(action, rules.shape)
    ev: Events = []
    if key[0] in SYSTEM_ACTIONS:
        if not system:
            raise InvalidAction(f"{key[0]!r} is applied by the server only", field="type")
        if key[0] == "expire":
            if not owes_own(state, rules, seat):
                raise NotYourTurn(f"seat {seat} owes no decision with a deadline of its own")
            expire_own(state, rules, seat, ev)
        else:
            if not owes(state, rules, seat):
                raise NotYourTurn(f"seat {seat} owes no decision")
            timeout(state, rules, seat, ev)
    else:
        cached = state._legal  # usually the listing the action was picked from
        if cached is not None and cached[0] == state.seq and cached[1] == seat:
            index = cached[2]
        else:
            index = _legal_index(state, rules, seat)
        if key not in index and (rules.unlisted is None or not rules.unlisted(state, rules, seat, key)):
            raise refusal(state, rules, seat, key, index)
        execute(state, rules, seat, key, ev)  # the key is the listed move's value (or a misplay)
    state.seq += 1
    return ev


def push(state: State, seat: int, move: tuple, events: Events | None = None) -> Events | None:
    """Apply ``move`` (one of ``legal_moves(state, seat)``, or the ``timeout`` /
    ``expire`` of a seat that owes a decision) WITHOUT checking it: the fast path of
    bots and replay.  Events are appended to ``events`` when given, and not built at
    all otherwise."""
    rules = state.config._rules or build_rules(state.config)
    if move[0] in SYSTEM_ACTIONS:
        (expire_own if move[0] == "expire" else timeout)(state, rules, seat, events)
    else:
        execute(state, rules, seat, move, events)
    state.seq += 1
    return events


# -- what is owed -------------------------------------------------------------------------
def owed(state: State) -> list[tuple[int, str, str]]:
    """Every decision owed now: ``(seat, decision type, deadline kind)``, the in-turn one
    first (deadline kind ``"turn"``), then each window's seats under the window's own."""
    if state.phase == GAME_OVER:
        return []
    rules = _rules(state)
    top, owner = top_and_owner(state, rules)
    out = [(owner, top.name, top.timer or "turn")]
    for w in (*rules.windows, *state.windows):
        for seat in w.owed_by(state):  # type: ignore[attr-defined]
            out.append((seat, w.name, w.timer or "window"))  # type: ignore[attr-defined]
    return out


def window_instance(state: State, decision: str) -> int | None:
    """Which window of type ``decision`` (a name ``owed`` lists) is open now
    (``Window.instance``: a buzz window's ``opened``), so that the server can tell a
    window that closed and opened again in one move from one still open; None for
    decisions that are not windows, or windows that are one and the same."""
    if state.phase == GAME_OVER:
        return None
    for w in (*_rules(state).windows, *state.windows):
        if w.name == decision:  # type: ignore[attr-defined]
            return w.instance()  # type: ignore[attr-defined]
    return None


def deadline_seconds(state: State, decision: str) -> float | None:
    """How long the seats owing ``decision`` (a name ``owed`` lists) have when its
    deadline is its own (``Decision.seconds`` / ``Window.seconds``: a buzz window's
    ``buzzer_seconds``), the server applying ``expire`` for them at its end; None when
    its deadline is the turn's (``turn_seconds`` and ``timeout``) or it has none."""
    if state.phase == GAME_OVER:
        return None
    rules = _rules(state)
    top, _ = top_and_owner(state, rules)
    for d in (top, *rules.windows, *state.windows):
        if d.name == decision:  # type: ignore[union-attr]
            return d.seconds(state)  # type: ignore[union-attr]
    return None


# -- views --------------------------------------------------------------------------------
def public_pending(state: State) -> dict | None:
    """What the game waits for, as everyone may see it: the decision on top of the
    stack, else the first stored window that describes itself (a buzz); None: an
    ordinary turn."""
    if state.stack:
        return state.stack[-1].public(state)
    for w in state.windows:
        public = w.public(state)  # type: ignore[attr-defined]
        if public is not None:
            return public
    return None


def deck_of(state: State) -> dict:
    """The game's deck as clients may know it: its name (the base deck and the parts its
    options add, ``+``-joined), its size and how many cards of each rank it holds."""
    return _rules(state).deck.describe()


def view(state: State, seat: Any = None) -> dict:
    """What ``seat`` may see (``None``: a spectator, who sees no hand at all)."""
    rules = _rules(state)
    deck = rules.deck
    family = rules.family
    actor = state.actor()
    v = {
        "status": state.status,
        "round": state.round,
        "dealer": state.dealer,
        "current_seat": actor,
        "direction": "clockwise" if state.direction == 1 else "counterclockwise",
        "top_card": deck.card_dict(state.discard[-1]) if state.discard else None,
        "current_color": state.color,
        "draw_pile_count": len(state.draw_pile),
        "discard_pile_count": len(state.discard),
        "pending": public_pending(state),
        "uno_catchable_seat": state.uno_exposed,
        "players": [
            {"seat": s, "hand_count": len(h), "score": state.scores[s], **family.seat_view(state, s)}
            for s, h in enumerate(state.hands)
        ],
        "winner": state.winner,
    }
    if rules.several_winners:  # a team game: every seat of the winning team; a shared win
        v["winners"] = list(state.winners)
    v.update(family.table_view(state, seat))
    if seat is not None:
        _check_seat(state, seat)
        v["seat"] = seat
        v["hand"] = [deck.card_dict(c) for c in state.hands[seat]]
        drawn = state.drawn
        if actor == seat and drawn:
            v["drawn"] = drawn
    return v


def visible_events(events: Iterable[dict], seat: int | None, reveal_all: bool = False) -> list[dict]:
    """The events ``seat`` may see (all of them once the game is over)."""
    out = []
    for e in events:
        to = e.get("to")
        if to is None or reveal_all or (seat is not None and seat in to):
            out.append(e)
    return out


def public_event(event: dict) -> dict:
    """``event`` as the API shows it: a private event's audience ``to`` is named
    ``private_to`` (the event itself is left unchanged)."""
    if "to" not in event:
        return event
    e = dict(event)
    e["private_to"] = e.pop("to")
    return e


# -- replay -------------------------------------------------------------------------------
def replay(config_or_state: Any, moves: Iterable[tuple[int, Mapping[str, Any]]]) -> State:
    """Rebuild a game from its config (or a fresh initial state) and its (seat, action)
    log, each action validated (with ``system=True``: timeouts included)."""
    cfg = config_or_state.config if isinstance(config_or_state, State) else config_or_state
    if not isinstance(cfg, Config):
        cfg = Config.from_dict(cfg)
    state = new_game(cfg.preset, _explicit(cfg), cfg.seats, cfg.seed)
    for seat, action in moves:
        apply(state, seat, action, system=True)
    return state


def _explicit(cfg: Config) -> dict:
    # resolved options already include the preset's values; pass them explicitly
    opts = dict(cfg.options)
    if opts.get("rounds") is not None:
        opts.pop("target_score", None)
    return opts
