"""Helpers for the engine tests: explicitly arranged game states and card lookups.

Card names: ``"red 5"``, ``"blue skip"``, ``"green reverse"``, ``"yellow draw_two"``,
``"wild"``, ``"wild_draw_four"`` (see :func:`card_name`).  :func:`arrange` maps each
name to a free card id of the 108-card deck (each id is used once) and keeps every
card somewhere, so the arranged state conserves the deck like a dealt one.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Iterable

from games.bots import choose
from games.engine import EngineError, State, action_key, apply, build_rules, get_deck, legal_actions, new_game, observe
from tests.presets_support import short

DECK = get_deck("standard_108")
DECK_SIZE = len(DECK)


def card_name(card_id: int) -> str:
    """``"red 5"`` / ``"wild"``: the name :func:`arrange` understands for this id."""
    color, rank = DECK.color[card_id], DECK.rank[card_id]
    return rank if color is None else f"{color} {rank}"


def ids_named(name: str) -> list[int]:
    """Every id of the deck with this name (ascending)."""
    found = [c for c in range(DECK_SIZE) if card_name(c) == name]
    if not found:
        raise KeyError(f"no card named {name!r} in the standard deck")
    return found


class _Pool:
    """Hands out free ids by name, each id once."""

    def __init__(self) -> None:
        self.free: dict[str, list[int]] = {}
        for c in range(DECK_SIZE):
            self.free.setdefault(card_name(c), []).append(c)

    def take(self, name: str) -> int:
        if name not in self.free:
            raise KeyError(f"no card named {name!r} in the standard deck")
        if not self.free[name]:
            raise ValueError(f"no free {name!r} left in the deck")
        return self.free[name].pop(0)

    def rest(self) -> list[int]:
        return sorted(c for ids in self.free.values() for c in ids)


def arrange(
    seats: int = 2,
    options: dict | None = None,
    hands: list[list[str]] | None = None,
    top: str | None = "red 3",
    discard: list[str] | None = None,
    draw: list[str] | None = None,
    rest: str | int = "draw",
    current: int = 0,
    dealer: int | None = None,
    color: str | None = None,
    direction: int = 1,
    preset: str = "standard",
    seed: int | str = 0,
) -> State:
    """A game of ``seats`` players in an explicitly arranged position (round 1, no pending).

    - ``hands``: card names per seat (missing seats get an empty hand... so give them all).
    - ``discard``: names bottom to top; or ``top``: a single card (the top of the pile).
    - ``draw``: names *in the order they will be drawn* (the first is drawn first).
    - ``rest``: where every card not named goes, so that the deck is conserved:
      ``"draw"`` (below the named draw cards, ascending ids), ``"discard"`` (below the
      top card of the discard pile) or a seat number (appended to that hand).
    - ``color``: the colour in force (default: the colour of the top card).
    - ``dealer``: default: the seat right of ``current``.
    """
    state = new_game(preset, options, seats, seed)
    pool = _Pool()
    hands = hands if hands is not None else [[] for _ in range(seats)]
    assert len(hands) == seats, "give one hand per seat"
    hand_ids = [[pool.take(n) for n in h] for h in hands]
    if discard is None:
        discard = [top] if top is not None else []
    assert discard, "the discard pile needs a top card"
    discard_ids = [pool.take(n) for n in discard]
    draw_ids = [pool.take(n) for n in (draw or [])]
    leftover = pool.rest()
    if rest == "draw":
        draw_pile = list(reversed(draw_ids))
        draw_pile = leftover + draw_pile  # the leftovers lie below the named cards
    elif rest == "discard":
        draw_pile = list(reversed(draw_ids))
        discard_ids = leftover + discard_ids
    elif isinstance(rest, int) and not isinstance(rest, bool):
        draw_pile = list(reversed(draw_ids))
        hand_ids[rest].extend(leftover)
    else:
        raise ValueError(f"bad rest {rest!r}")
    state.hands = hand_ids
    state.discard = discard_ids
    state.draw_pile = draw_pile
    state.current = current
    state.direction = direction
    state.dealer = (current - direction) % seats if dealer is None else dealer
    state.color = color if color is not None else DECK.color[discard_ids[-1]]
    state.stack = []  # nothing pending: an ordinary turn of ``current``
    state.windows = []
    state.uno_declared = None
    state.uno_exposed = None
    state.round = 1
    state.history = []
    state.scores = [0] * seats
    touch(state)
    assert_conserved(state)
    return state


def touch(state: State) -> State:
    """Call after mutating a state by hand: invalidates the legal-action cache."""
    state.seq += 1
    state._legal = None
    return state


# -- lookups ---------------------------------------------------------------------------
def card(state: State, seat: int, name: str, nth: int = 0) -> int:
    """The id of the ``nth`` card called ``name`` in ``seat``'s hand."""
    found = [c for c in state.hands[seat] if card_name(c) == name]
    if len(found) <= nth:
        raise KeyError(f"seat {seat} holds no {name!r} (hand: {names(state.hands[seat])})")
    return found[nth]


def names(cards: Iterable[int]) -> list[str]:
    return [card_name(c) for c in cards]


def hand_names(state: State, seat: int) -> list[str]:
    return names(state.hands[seat])


def top_name(state: State) -> str:
    return card_name(state.discard[-1])


def deck_counts(state: State) -> Counter:
    return Counter(c for h in state.hands for c in h) + Counter(state.draw_pile) + Counter(state.discard)


def assert_conserved(state: State) -> None:
    """Every card of the deck is in exactly one place."""
    every = [c for h in state.hands for c in h] + state.draw_pile + state.discard
    assert len(every) == DECK_SIZE, f"{len(every)} cards instead of {DECK_SIZE}"
    assert sorted(every) == list(range(DECK_SIZE)), "a card is duplicated or lost"


# -- actions ---------------------------------------------------------------------------
def keys(actions: Iterable[dict]) -> set:
    return {action_key(a) for a in actions}


def is_legal(state: State, seat: int, action: dict) -> bool:
    return action_key(action) in keys(legal_actions(state, seat))


def types(state: State, seat: int) -> set[str]:
    return {a["type"] for a in legal_actions(state, seat)}


def play(state: State, seat: int, name_or_id: str | int, **extra: Any) -> list[dict]:
    """Play a card of ``seat`` by name (or id), with extra fields (color, target_seat, uno)."""
    cid = name_or_id if isinstance(name_or_id, int) else card(state, seat, name_or_id)
    return apply(state, seat, {"type": "play", "card": cid, **extra})


def act(state: State, seat: int, kind: str, **fields: Any) -> list[dict]:
    return apply(state, seat, {"type": kind, **fields})


def ev_types(events: Iterable[dict]) -> list[str]:
    return [e["type"] for e in events]


def only(events: Iterable[dict], kind: str) -> dict:
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, f"expected one {kind!r} event, got {found}"
    return found[0]


def snapshot(state: State) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


def assert_refused(state: State, seat: Any, action: Any, error: type[EngineError] = EngineError, **kw) -> EngineError:
    """``apply`` raises ``error`` (with attributes ``kw``, e.g. code=...) and changes nothing."""
    before = snapshot(state)
    seq = state.seq
    try:
        apply(state, seat, action, **kw.pop("apply_kw", {}))
    except error as exc:
        for k, v in kw.items():
            assert getattr(exc, k) == v, f"{k}: {getattr(exc, k)!r} != {v!r}"
        assert snapshot(state) == before, "a refused action changed the state"
        assert state.seq == seq
        return exc
    raise AssertionError(f"{action!r} by seat {seat!r} was accepted; expected {error.__name__}")


# -- positions on a game's own deck (options that add cards) ---------------------------------
def arrange_game(
    seats: int = 3,
    options: dict | None = None,
    hands: list[list[str]] | None = None,
    top: str = "red 3",
    draw: Iterable[str] = (),
    current: int = 0,
    color: str | None = None,
    direction: int = 1,
    preset: str = "standard",
) -> State:
    """:func:`arrange` on the game's own deck, for options that add cards (a Buzzer, a
    Renvoi...): cards are named as that deck names them (``Card.name``: ``"red 5"``,
    ``"wild"``, ``"buzzer"``); ``draw`` are the next cards drawn, in order, every card not
    named lies below them; round 1 of a one-round game (where the preset takes
    ``rounds``), nothing pending."""
    state = new_game(preset, {**short(preset), **(options or {})}, seats, "arranged")
    deck = game_deck(state)
    free: dict[str, list[int]] = {}
    for c in deck.cards:
        free.setdefault(c.name, []).append(c.id)

    def take(name: str) -> int:
        if not free.get(name):
            raise KeyError(f"no free {name!r} left in the deck {deck.name}")
        return free[name].pop(0)

    state.hands = [[take(n) for n in h] for h in (hands or [[] for _ in range(seats)])]
    assert len(state.hands) == seats, "give one hand per seat"
    state.discard = [take(top)]
    named = [take(n) for n in draw]
    state.draw_pile = sorted(c for ids in free.values() for c in ids) + named[::-1]
    state.current, state.direction = current, direction
    state.dealer = (current - direction) % seats
    state.color = color if color is not None else deck.color[state.discard[-1]]
    state.stack, state.windows = [], []
    state.uno_declared = state.uno_exposed = None
    state.round, state.history, state.scores = 1, [], [0] * seats
    touch(state)
    assert_game_conserved(state)
    return state


def game_deck(state: State):
    """The deck of ``state``'s game (its preset's plus the cards its options add)."""
    return build_rules(state.config).deck


def assert_game_conserved(state: State) -> None:
    """Every card of the game's own deck is in exactly one place."""
    every = sorted([c for h in state.hands for c in h] + state.draw_pile + state.discard + [a[1] for a in state.aside])
    assert every == list(range(len(game_deck(state)))), "a card is duplicated or lost"


def card_in(state: State, seat: int, name: str, nth: int = 0) -> int:
    """The id of the ``nth`` card called ``name`` (its ``Card.name``) in ``seat``'s hand,
    on the game's own deck."""
    cards = game_deck(state).cards
    found = [c for c in state.hands[seat] if cards[c].name == name]
    if len(found) <= nth:
        raise KeyError(f"seat {seat} holds no {name!r} (hand: {[cards[c].name for c in state.hands[seat]]})")
    return found[nth]


def plays_of(state: State, seat: int) -> list[str]:
    """The names (the game's own deck's ``Card.name``) of the cards ``seat`` may play now,
    in listing order, once each."""
    cards = game_deck(state).cards
    out: list[str] = []
    for a in legal_actions(state, seat):
        if a["type"] == "play" and cards[a["card"]].name not in out:
            out.append(cards[a["card"]].name)
    return out


def assert_bot_answers_legally(level: str, positions: Iterable[tuple[State, int]], tries: int = 5) -> None:
    """The bot of ``level``, asked ``tries`` times (rngs seeded 0, 1, ...) for the decision
    of ``seat`` in each (state, seat) of ``positions``, picks one of its legal actions."""
    for state, seat in positions:
        for k in range(tries):
            rng = random.Random(k)
            legal = legal_actions(state, seat)
            pick = choose(level, observe(state, seat, rng), seat, legal, rng, max_samples=2)
            assert pick in legal


def play_to_the_end(state: State, rnd) -> list[tuple[int, dict]]:
    """Play ``state`` to its end, each seat that owes the decision choosing at random from
    its legal actions (plays and colour choices, mostly); returns the log of (seat, action)."""
    log = []
    while state.status == "active":
        seat = state.actor()
        acts = legal_actions(state, seat)
        plays = [a for a in acts if a["type"] in ("play", "choose_color")]
        action = rnd.choice(plays) if plays and rnd.random() < 0.85 else rnd.choice(acts)
        apply(state, seat, action)
        log.append((seat, action))
    return log
