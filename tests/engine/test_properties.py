"""Property tests over random-legal games, for a representative set of option combinations.

A game is driven by a seeded RNG: at each step usually the seat that owes the decision
acts, sometimes another seat that has legal actions (UNO calls and catches, jump-ins),
and now and then the server's ``timeout``; the action is a random listed one (plays
preferred, so that rounds end).  Two kinds of runs per combination:

- *checked* games (few): after every action, every property below;
- *bulk* games (thousands per combination): cards conserved after every action, the
  seat owing a decision always has a legal action, the game ends within a step bound
  with a consistent result, and the state survives a JSON round trip.

``ENGINE_GAMES_SCALE`` (environment, default 1) multiplies the number of games.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    COLORS, Action, State, action_key, apply, build_rules, legal_actions, legal_moves, new_game, push,
    replay, view, visible_events,
)
from games.engine.errors import GameOver, IllegalMove, InvalidAction, NotYourCard, NotYourTurn, UnknownCard

DECK_SIZE = 108
SPECIFIC_ERRORS = (InvalidAction, UnknownCard, NotYourCard, NotYourTurn, GameOver, IllegalMove)
SCALE = max(1, int(os.environ.get("ENGINE_GAMES_SCALE", "1")))

# (id, preset, options, seats)
COMBOS = [
    ("default-2p", "standard", {}, 2),
    ("default-3p", "standard", {}, 3),
    ("default-4p", "standard", {}, 4),
    ("default-10p", "standard", {}, 10),
    ("stacking-same", "standard", {"stacking": "same"}, 4),
    ("stacking-plus4_on_plus2", "standard", {"stacking": "plus4_on_plus2"}, 3),
    ("stacking-any", "standard", {"stacking": "any"}, 4),
    ("jump_in-exact", "standard", {"jump_in": "exact"}, 4),
    ("jump_in-super", "standard", {"jump_in": "super"}, 3),
    ("seven_zero", "standard", {"seven_zero": True}, 4),
    ("penalty_no_skip", "standard", {"penalty_skips_turn": False}, 3),
    ("draw_limit-3", "standard", {"draw_limit": 3}, 4),
    ("draw_limit-null", "standard", {"draw_limit": None}, 3),
    ("lowest_total", "standard", {"scoring": "lowest_total"}, 4),
    ("two_player_replay-off", "standard", {"two_player_replay": False, "stacking": "any"}, 2),
    ("house-everything", "house",
     {"stacking": "any", "jump_in": "super", "seven_zero": True, "draw_limit": None, "uno_penalty": 7}, 5),
    # the cards that move hands (uno/hand_moves.py; scenario tests: test_hands.py)
    ("standard_112-2p", "standard_112", {}, 2),
    ("standard_112-3p", "standard_112", {}, 3),
    ("standard_112-swap-5p", "standard_112", {"swap_hands_card": True, "jump_in": "exact"}, 5),
    ("hand_pass-2p", "standard", {"hand_pass_cards": True}, 2),
    ("hand_pass-uno_card-4p", "standard", {"hand_pass_cards": True, "uno_card": True, "seven_zero": True}, 4),
    ("uno_card-3p", "standard", {"uno_card": True, "stacking": "any"}, 3),
    ("standard_112-hands-everything", "standard_112",
     {"swap_hands_card": True, "hand_pass_cards": True, "uno_card": True, "seven_zero": True, "jump_in": "super",
      "stacking": "same", "draw_limit": None}, 6),
    # wild_draw_four (tests/engine/test_wilds.py has the games with Replay and play_uno_com)
    ("wild_draw_four-bluff", "standard", {"wild_draw_four": "bluff", "stacking": "any"}, 4),
    ("wild_draw_four-free", "standard", {"wild_draw_four": "free", "penalty_skips_turn": False}, 3),
    # Downpour, +2?/+4? (uno/downpour.py, uno/targeted.py; scenario tests: test_targets.py)
    ("downpour-3p-jump", "standard", {"downpour_cards": True, "jump_in": "exact"}, 3),
    ("targeted-4p-stacking-deflect", "standard",
     {"targeted_draw_cards": True, "stacking": "same", "deflect_cards": True, "jump_in": "super"}, 4),
    ("downpour-targeted-2p-any", "standard", {"downpour_cards": True, "targeted_draw_cards": True, "stacking": "any"}, 2),
]
COMBO_IDS = [c[0] for c in COMBOS]

CHECKED_GAMES = 6 * SCALE  # per combination, every property after every action
BULK_EXAMPLES = 5  # hypothesis examples per combination ...
BULK_GAMES_PER_EXAMPLE = 200 * SCALE  # ... each playing this many games: 1000 games per combination
STEP_BOUND_ONE_ROUND = 6000
STEP_BOUND_FULL_GAME = 60000


# ----------------------------------------------------------------------------------------------
# the random driver
# ----------------------------------------------------------------------------------------------
def choose(rnd: random.Random, acts: list[dict]) -> dict:
    """Mostly a play (so that rounds end), sometimes anything, now and then a draw
    although something else was possible."""
    r = rnd.random()
    plays = [a for a in acts if a["type"] in ("play", "choose_color", "challenge")]
    if plays and r < 0.8:
        return rnd.choice(plays)
    others = [a for a in acts if a["type"] != "draw"]
    if others and r < 0.95:
        return rnd.choice(others)
    return rnd.choice(acts)


def next_move(state: State, rnd: random.Random) -> tuple[int, dict, bool]:
    """(seat, action, system) for the next step of a random-legal game; the seat that
    owes the decision always has a legal action."""
    actor = state.actor()
    assert actor is not None
    mine = legal_actions(state, actor)
    assert mine, f"seat {actor} owes a decision but has no legal action"
    r = rnd.random()
    if r < 0.2:  # somebody else, if they may do anything now (catch / call UNO, jump in)
        seat = rnd.randrange(state.seats)
        if seat != actor:
            acts = legal_actions(state, seat)
            if acts:
                return seat, rnd.choice(acts), False
    elif r < 0.22:
        return actor, {"type": "timeout"}, True
    return actor, choose(rnd, mine), False


def game_deck_size(preset: str, options: dict, seats: int) -> int:
    """The size of the deck of a game of ``preset`` with ``options`` for ``seats``."""
    return deck_size(new_game(preset, options, seats, 0))


def deck_size(state: State) -> int:
    """The size of the game's own deck (``len(rules.deck)``: its preset's base deck plus
    the cards its options add; ``DECK_SIZE`` is the standard game's)."""
    return len(build_rules(state.config).deck)


def conserved(state: State) -> None:
    size = deck_size(state)
    every = [c for h in state.hands for c in h]
    every += state.draw_pile
    every += state.discard
    assert len(every) == size, f"{len(every)} cards"
    assert len(set(every)) == size, "duplicated card"
    assert min(every) == 0 and max(every) == size - 1


def check_result(state: State, step_bound: int, steps: int) -> None:
    """A finished game has one consistent winner."""
    assert steps < step_bound, f"game not over after {steps} actions"
    assert state.status == "finished"
    assert state.actor() is None
    assert all(legal_actions(state, s) == [] for s in range(state.seats))
    opts = state.options
    assert [sum(row["points"][s] for row in state.history) for s in range(state.seats)] == state.scores
    assert len(state.history) == state.round
    if opts["rounds"] is not None:
        assert state.round >= opts["rounds"]
    else:
        assert max(state.scores) >= opts["target_score"]
    if opts["scoring"] == "winner_takes":
        assert state.scores.count(max(state.scores)) == 1 and state.scores[state.winner] == max(state.scores)
        for row in state.history:
            assert all(p == 0 for s, p in enumerate(row["points"]) if s != row["winner"])
    else:
        assert state.scores.count(min(state.scores)) == 1 and state.scores[state.winner] == min(state.scores)
        for row in state.history:
            assert row["points"][row["winner"]] == 0


# ----------------------------------------------------------------------------------------------
# checks after every action (checked games)
# ----------------------------------------------------------------------------------------------
def _card_ids(obj, out: set) -> set:
    if isinstance(obj, dict):
        if "id" in obj and "rank" in obj:
            out.add(obj["id"])
        for k, v in obj.items():
            if k == "drawn":
                out.update(v)
            else:
                _card_ids(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _card_ids(v, out)
    return out


def _keys(obj, out: set) -> set:
    if isinstance(obj, dict):
        out.update(obj)
        for v in obj.values():
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


def check_views(state: State) -> None:
    top = {state.discard[-1]} if state.discard else set()
    spectator = view(state, None)
    assert "hand" not in spectator and "drawn" not in spectator
    assert _card_ids(spectator, set()) <= top
    assert "guilty" not in _keys(spectator, set())
    json.dumps(spectator)
    for s in range(state.seats):
        v = view(state, s)
        json.dumps(v)
        assert [c["id"] for c in v["hand"]] == state.hands[s]
        assert set(v.get("drawn", [])) <= set(state.hands[s])
        assert _card_ids(v, set()) <= set(state.hands[s]) | top, "a view shows another seat's or the pile's card"
        assert "guilty" not in _keys(v, set())
        assert [p["hand_count"] for p in v["players"]] == [len(h) for h in state.hands]
        assert v["current_seat"] == state.actor()


PRIVATE_TYPES = {"hand", "cards_drawn", "hand_revealed"}


def check_events(events: list[dict], known: list[list[int]], state: State) -> None:
    """Each seat sees only what it may, and can follow its own hand from what it sees."""
    public = [e for e in events if "to" not in e]
    for e in public:
        assert e["type"] not in PRIVATE_TYPES
        ids = _card_ids(e, set())
        if ids:
            assert e["type"] in ("play", "first_card"), e
    for e in events:
        if "to" in e:
            assert e["type"] in PRIVATE_TYPES, e
            assert len(e["to"]) == 1
    assert visible_events(events, None) == public
    assert visible_events(events, None, reveal_all=True) == events
    challengers = {e["seat"]: e["target_seat"] for e in events if e["type"] == "challenge"}
    for s in range(state.seats):
        seen = visible_events(events, s)
        for e in seen:
            if "to" not in e:
                continue
            assert e["to"] == [s]
            if e["type"] == "hand_revealed":
                assert challengers.get(s) == e["seat"]
            else:
                assert e["seat"] == s
        hand = known[s]
        for e in seen:
            if e["type"] == "hand":
                hand = [c["id"] for c in e["cards"]]
            elif e["type"] == "cards_drawn":
                hand = hand + [c["id"] for c in e["cards"]]
            elif e["type"] == "play" and e["seat"] == s:
                hand = list(hand)
                hand.remove(e["card"]["id"])
        assert Counter(hand) == Counter(state.hands[s]), f"seat {s} cannot follow its hand from its events"
        known[s] = hand


def check_legal_lists(state: State, legal: dict[int, list[dict]]) -> None:
    actor = state.actor()
    assert legal[actor], "the seat owing a decision has no legal action"
    for s, acts in legal.items():
        # the fast path lists the same moves in the same order, as Action values
        assert [m.to_json() for m in legal_moves(state, s)] == acts
        assert [Action.from_json(a) for a in acts] == legal_moves(state, s)
        ks = [action_key(a) for a in acts]
        assert len(ks) == len(set(ks)), f"duplicated legal action for seat {s}"
        for a in acts:
            assert a["type"] != "timeout"
            if "card" in a:
                assert a["card"] in state.hands[s]
            if a.get("target_seat") is not None:
                assert 0 <= a["target_seat"] < state.seats and a["target_seat"] != s


def perturbations(state: State, seat: int, acts: list[dict], all_acts: list[dict], rnd: random.Random) -> list:
    n = state.seats
    others = [c for s, h in enumerate(state.hands) if s != seat for c in h]
    pool = others + state.draw_pile[-3:] + state.discard[-1:] + state.hands[seat] + [deck_size(state), -1, 10**6]
    out: list = []
    for a in rnd.sample(acts, min(2, len(acts))):
        if "card" in a:
            out.append({**a, "card": rnd.choice(pool)})
            if "color" in a:
                out.append({**a, "color": rnd.choice([c for c in COLORS if c != a["color"]])})
                out.append({k: v for k, v in a.items() if k != "color"})
            else:
                out.append({**a, "color": rnd.choice(COLORS)})
            if "target_seat" in a:
                out.append({**a, "target_seat": rnd.choice([seat, n, rnd.randrange(n)])})
                out.append({k: v for k, v in a.items() if k != "target_seat"})
            else:
                out.append({**a, "target_seat": rnd.randrange(n + 1)})
            out.append({**a, "uno": True})
        else:
            out.append({**a, "card": rnd.choice(pool)})
    out += [{"type": "draw"}, {"type": "pass"}, {"type": "challenge"}, {"type": "call_uno"},
            {"type": "choose_color", "color": rnd.choice(COLORS)}, {"type": "catch_uno", "target_seat": rnd.randrange(n)},
            {"type": "play", "card": rnd.choice(pool)}, {"type": "timeout"}]
    out += rnd.sample(all_acts, min(3, len(all_acts)))  # what other seats may do
    out += [{"type": "play", "card": True}, {"type": rnd.choice(["draw", "pass"]), "card": 1}, "draw"]
    return out


def fingerprint(state: State) -> str:
    """Every field of the state, exactly."""
    return json.dumps(state.to_dict())


def check_acceptance(state: State, legal: dict[int, list[dict]], rnd: random.Random, probes=None) -> None:
    """Every listed action is accepted; the unlisted ones of ``probes`` (default
    :func:`perturbations`) are refused and change nothing."""
    probes = probes or perturbations
    base = state.to_dict()
    before = fingerprint(state)
    # every listed action is accepted (each on a copy), and the fast path (push of the
    # same move, no event built) reaches exactly the same state
    pairs = [(s, a) for s, acts in legal.items() for a in acts]
    for s, a in pairs:
        copy = state.copy()
        apply(copy, s, a)
        conserved(copy)
        assert copy.seq == state.seq + 1
        fast = state.copy()
        push(fast, s, Action.from_json(a))
        assert fast.to_dict() == copy.to_dict(), f"push and apply of {a!r} differ"
    assert fingerprint(state) == before, "trying the listed actions on copies changed the state"
    loaded = State.from_dict(base)
    s, a = rnd.choice(pairs)
    apply(loaded, s, a)
    assert loaded.seq == state.seq + 1
    # unlisted actions are refused, and change nothing
    all_acts = [a for _, a in pairs]
    seats = {state.actor(), rnd.randrange(state.seats)}
    for s in seats:
        listed = {action_key(a) for a in legal[s]}
        for a in probes(state, s, legal[s], all_acts, rnd):
            try:
                if action_key(a) in listed:
                    continue
            except InvalidAction:
                pass
            try:
                apply(state, s, a)
            except SPECIFIC_ERRORS:
                pass
            else:
                raise AssertionError(f"unlisted action {a!r} by seat {s} was accepted")
            # (the dict, not its JSON: encoding it after every probe was a fifth of the checked games' time)
            assert state.to_dict() == base, f"refused action {a!r} by seat {s} changed the state"
    assert fingerprint(state) == before  # exactly, types included, after them all


def play_checked_game(preset: str, options: dict, seats: int, seed: int, full: bool = False, *,
                      move=None, probes=None, result=None) -> State:
    """One random game (one round, or ``full``: the whole game), every property checked:
    after each action (each 10th in a whole game) the legal lists, their acceptance and
    the views; after every action cards conserved and the events.  At the end: ``result``
    (:func:`check_result`), a JSON round trip, replay exact.  A family of options may
    drive the game with its own ``move`` (:func:`next_move`) and ``probes``
    (:func:`perturbations`)."""
    move, result = move or next_move, result or check_result
    rnd = random.Random(seed)
    opts = dict(options) if full else {**options, "rounds": 1}
    events: list = []
    state = new_game(preset, opts, seats, seed, events=events)
    conserved(state)
    known: list[list[int]] = [[] for _ in range(seats)]
    check_events(events, known, state)
    log: list = []
    bound = STEP_BOUND_FULL_GAME if full else STEP_BOUND_ONE_ROUND
    steps = 0
    while state.status == "active" and steps < bound:
        legal = {s: legal_actions(state, s) for s in range(seats)}
        check_legal_lists(state, legal)
        if not full or steps % 10 == 0:
            check_acceptance(state, legal, rnd, probes)
            check_views(state)
        seat, action, system = move(state, rnd)
        ev = apply(state, seat, action, system=system)
        log.append((seat, action))
        steps += 1
        conserved(state)
        check_events(ev, known, state)
    result(state, bound, steps)
    d = state.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert State.from_dict(json.loads(json.dumps(d))).to_dict() == d
    assert replay(state.config, log).to_dict() == d
    assert replay(json.loads(json.dumps(state.config.to_dict())), log).to_dict() == d
    return state


def play_checked_games(preset: str, options: dict, seats: int, games: int) -> None:
    """``games`` checked games of one round (:func:`play_checked_game`), dealt from the
    seeds 0, 1, ... ``games - 1``."""
    for seed in range(games):
        play_checked_game(preset, options, seats, seed)


def play_checked_whole_game(preset: str, options: dict, seats: int, seed: int, target_score: int) -> State:
    """One checked whole game (:func:`play_checked_game`, ``full``) played to
    ``target_score``; it ends with a winner.  Returns its final state."""
    state = play_checked_game(preset, {**options, "target_score": target_score}, seats, seed, full=True)
    assert state.winner is not None
    return state


class Before(NamedTuple):
    """What a state was as an action was posted (for a combination's own checks)."""
    round: int
    phase: object


def play_random_game(preset: str, options: dict, seats: int, seed: int, rnd: random.Random | None = None, *,
                     full: bool = False, bound: int | None = None, move=None, play=None, after=None,
                     result=None) -> tuple[State, int]:
    """One random game of ``preset`` with ``options`` for ``seats`` dealt from ``seed``
    (one round, or ``full``: the whole game), its moves drawn from ``rnd`` (default
    ``Random(seed)``) by ``move`` (:func:`next_move`) and made by ``play`` (``apply``;
    ``play(state, seat, action, system=...)`` returns the events): after every action
    the game's own deck conserved, then ``after(state, seat, action, events, before)``
    (a combination's own checks; ``before``: :class:`Before`); at the end ``result``
    (:func:`check_result`) and a JSON round trip.  Returns (the state, its actions).

    The one loop of the bulk property tests of every option set (this file's and the
    scenario files': test_duo, test_wilds, test_deflect, test_targets, test_straights,
    test_buzzer, test_teams)."""
    rnd = rnd or random.Random(seed)
    move, play, result = move or next_move, play or apply, result or check_result
    state = new_game(preset, options if full else {**options, "rounds": 1}, seats, seed)
    size = deck_size(state)
    deck = set(range(size))
    bound = bound or (STEP_BOUND_FULL_GAME if full else STEP_BOUND_ONE_ROUND)
    steps = 0
    while state.status == "active" and steps < bound:
        seat, action, system = move(state, rnd)
        before = Before(state.round, state.phase)
        events = play(state, seat, action, system=system)
        steps += 1
        every = [c for h in state.hands for c in h] + state.draw_pile + state.discard
        assert len(every) == size and set(every) == deck, f"cards not conserved (seed {seed})"
        if after is not None:
            after(state, seat, action, events, before)
    result(state, bound, steps)
    d = state.to_dict()
    assert State.from_dict(json.loads(json.dumps(d))).to_dict() == d
    return state, steps


def play_random_games(preset: str, options: dict, seats: int, games: int, rnd: random.Random, **how) -> int:
    """``games`` random games (:func:`play_random_game`, ``how`` its keywords), each dealt
    from a seed of ``rnd`` and played by ``rnd``; returns their actions in all."""
    return sum(play_random_game(preset, options, seats, rnd.getrandbits(64), rnd, **how)[1] for _ in range(games))


def by_option_set(combos: list[tuple]):
    """Parametrise a test by option set: ``(name, preset, options, seats)``, named by ``name``."""
    return pytest.mark.parametrize("name, preset, options, seats", combos, ids=[c[0] for c in combos])


def seeded(examples: int):
    """Run a test with the argument ``seed`` on ``examples`` seeds drawn by hypothesis."""
    def wrap(test):
        return settings(max_examples=examples, deadline=None, database=None,
                        suppress_health_check=[HealthCheck.too_slow], print_blob=True)(given(seed=SEEDS)(test))

    return wrap


SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


# ----------------------------------------------------------------------------------------------
# the tests
# ----------------------------------------------------------------------------------------------
@by_option_set(COMBOS)
@seeded(CHECKED_GAMES)
def test_checked_random_games(name, preset, options, seats, seed):
    play_checked_game(preset, options, seats, seed)


@by_option_set(COMBOS)
@seeded(BULK_EXAMPLES)
def test_bulk_random_games(name, preset, options, seats, seed):
    total = play_random_games(preset, options, seats, BULK_GAMES_PER_EXAMPLE, random.Random(seed))
    assert total >= BULK_GAMES_PER_EXAMPLE  # every game took at least one action


FULL_COMBOS = [c for c in COMBOS if c[0] in ("default-2p", "default-4p", "stacking-any", "lowest_total",
                                             "seven_zero", "house-everything", "standard_112-hands-everything")]


@by_option_set(FULL_COMBOS)
@seeded(1 * SCALE)
def test_full_multi_round_games(name, preset, options, seats, seed):
    state = play_checked_game(preset, options, seats, seed, full=True)
    assert state.round >= 1 and state.winner is not None
