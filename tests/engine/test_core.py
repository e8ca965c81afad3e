"""The engine's core (issue 9): the fast path and copies, actions as values, decisions
and their explanations, windows, what is owed, the saved formats, the registries."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

from games import engine
from games.engine import (
    ACTION_FIELDS,
    ACTION_TYPES,
    Action,
    Decision,
    IllegalMove,
    InvalidAction,
    NotYourTurn,
    State,
    StoredWindow,
    apply,
    build_rules,
    legal_actions,
    legal_moves,
    new_game,
    owed,
    push,
    view,
)
from games.engine.uno.turn import ChooseColor, Penalty, PlayDrawn

from .helpers import act, arrange, assert_refused, card, play, snapshot

OPTION_SETS = [
    ("standard", {}, 2),
    ("standard", {"stacking": "any", "jump_in": "super", "seven_zero": True}, 4),
    ("house", {"draw_limit": None, "jump_in": "exact", "stacking": "same"}, 3),
    ("standard", {"penalty_skips_turn": False, "two_player_replay": False, "draw_limit": 3}, 2),
]


def random_step(state: State, rnd: random.Random) -> tuple[int, Action]:
    """A random listed move of a random seat that has one (usually the actor), or the
    actor's timeout now and then."""
    actor = state.actor()
    if rnd.random() < 0.03:
        return actor, Action("timeout")
    seat = actor if rnd.random() < 0.8 else rnd.randrange(state.seats)
    moves = legal_moves(state, seat) or legal_moves(state, actor)
    if not legal_moves(state, seat):
        seat = actor
    plays = [m for m in moves if m.type in ("play", "choose_color")]
    return seat, rnd.choice(plays if plays and rnd.random() < 0.8 else moves)


# -- the fast path and copies ------------------------------------------------------------------
def check_copy_then_push(seed: str, preset: str, options: dict, seats: int, total: int) -> None:
    """Over ``total`` random actions of one-round games: a copy is deep (pushing moves on
    it never changes the original) and exact (push of a move and its validated apply
    reach the same state with the same events).  Shared by the option test files."""
    rnd = random.Random(seed)
    steps = game = 0
    while steps < total:
        state = new_game(preset, {**options, "rounds": 1}, seats, f"copy-{game}")
        game += 1
        while state.status == "active" and steps < total:
            before = snapshot(state)
            trial = state.copy()
            assert snapshot(trial) == before
            for _ in range(3):  # a few moves ahead on the copy
                if trial.status != "active":
                    break
                push(trial, *random_step(trial, rnd))
            assert snapshot(state) == before, "pushing on a copy changed the original"
            seat, move = random_step(state, rnd)
            again = state.copy()
            events = push(state, seat, move, [])
            assert apply(again, seat, move.to_json(), system=move.type == "timeout") == events
            assert snapshot(again) == snapshot(state)
            steps += 1


@pytest.mark.parametrize("preset, options, seats", OPTION_SETS)
def test_copy_then_push_leaves_the_original_exactly_as_it_was(preset, options, seats):
    """Over thousands of random actions: a copy is deep and exact."""
    check_copy_then_push(f"copy:{preset}:{seats}", preset, options, seats, 3000)


def test_push_builds_no_event_unless_asked():
    state = new_game("standard", {}, 3, "quiet")
    seat = state.actor()
    assert push(state, seat, legal_moves(state, seat)[0]) is None
    seat = state.actor()
    events: list = []
    assert push(state, seat, legal_moves(state, seat)[0], events) is events and events


def test_legal_moves_are_the_listed_actions_as_values():
    state = arrange(2, hands=[["wild", "red 5"], ["blue 1", "blue 2"]], top="red 3")
    moves = legal_moves(state, 0)
    assert moves == [Action("play", card(state, 0, "wild"), color=c, uno=u)
                     for c in ("red", "yellow", "green", "blue") for u in (None, True)] + [
        Action("play", card(state, 0, "red 5")), Action("play", card(state, 0, "red 5"), uno=True),
        Action("draw"), Action("call_uno")]
    assert [m.to_json() for m in moves] == legal_actions(state, 0)


# -- actions as values -------------------------------------------------------------------------
def test_actions_round_trip_through_json():
    for preset, options, seats in OPTION_SETS:
        state = new_game(preset, options, seats, "json")
        rnd = random.Random(0)
        for _ in range(300):
            if state.status != "active":
                break
            for s in range(seats):
                for a in legal_actions(state, s):
                    move = Action.from_json(json.loads(json.dumps(a)))
                    assert move.to_json() == a
                    assert Action.from_json(move.to_json()) == move
            seat, move = random_step(state, rnd)
            push(state, seat, move)


def test_from_json_validates_like_the_api():
    assert Action.from_json({"type": "play", "card": 5, "uno": False}) == Action("play", 5)
    assert Action.from_json({"type": "play", "card": 5, "color": None}) == Action("play", 5)
    for bad, field in [({"type": "play"}, "card"), ({"type": "play", "card": True}, "card"),
                       ({"type": "draw", "card": 1}, "card"), ({"type": 4}, "type"),
                       ({"type": "choose_color", "color": "pink"}, "color")]:
        with pytest.raises(InvalidAction) as exc:
            Action.from_json(bad)
        assert exc.value.extra["field"] == field
    with pytest.raises(InvalidAction, match="an action must be an object"):
        Action.from_json(["draw"])


def test_the_action_registry_gives_the_api_shapes_and_a_schema_per_type():
    standard = {
        "play": {"card": True, "color": False, "target_seat": False, "uno": False},
        "draw": {}, "pass": {}, "choose_color": {"color": True}, "challenge": {}, "call_uno": {},
        "catch_uno": {"target_seat": True},
    }
    # the standard game's types, and those the options' modules register (each tested with its option)
    assert {name: ACTION_FIELDS[name] for name in standard} == standard
    schemas = engine.json_schemas()
    assert list(schemas) == list(ACTION_FIELDS)
    play = schemas["play"]
    assert play["properties"]["type"] == {"type": "string", "enum": ["play"]}
    assert play["required"] == ["type", "card"] and play["additionalProperties"] is False
    assert play["properties"]["color"]["enum"] == list(engine.COLORS)
    assert ACTION_TYPES["timeout"].system and "timeout" not in schemas
    # a game's messages list its own action types, in the order its decisions accept them
    rules = build_rules(new_game("standard", {}, 2, 1).config)
    assert rules.action_types == ("play", "draw", "pass", "choose_color", "challenge", "call_uno", "catch_uno")


# -- decisions and their explanations ----------------------------------------------------------
def test_each_refused_play_is_explained_by_the_decision_on_top():
    rules_of = lambda s: build_rules(s.config)  # noqa: E731
    # an ordinary turn
    state = arrange(3, hands=[["blue 9", "red 1"], ["green 1"], ["green 2"]], top="red 3")
    refused = {"type": "play", "card": card(state, 0, "blue 9")}
    exc = assert_refused(state, 0, refused, IllegalMove)
    assert exc.detail == rules_of(state).turn.explain(state, rules_of(state), 0, Action.from_json(refused))
    assert "does not match" in exc.detail
    # a penalty
    state = arrange(3, hands=[["red draw_two", "red 1"], ["blue 9", "green 1"], ["green 2"]], top="red 3")
    play(state, 0, "red draw_two")
    top = state.decision()
    assert isinstance(top, Penalty)
    refused = {"type": "play", "card": card(state, 1, "blue 9")}
    exc = assert_refused(state, 1, refused, IllegalMove)
    assert exc.detail == top.explain(state, rules_of(state), 1, Action.from_json(refused))
    assert exc.detail == "you must first take the 2-card penalty (draw) or answer it"
    # after drawing
    state = arrange(2, hands=[["blue 9", "blue 1"], ["green 1"]], top="red 3", draw=["red 7"])
    act(state, 0, "draw")
    assert isinstance(state.decision(), PlayDrawn)
    exc = assert_refused(state, 0, {"type": "play", "card": card(state, 0, "blue 9")}, IllegalMove)
    assert exc.detail == "after drawing only a drawn playable card may be played"


class _Toll(Decision):
    """A decision type of this test only: its owner pays (draws) or refuses politely."""

    __slots__ = ("amount",)
    name = "test_toll"
    fields = ("amount",)

    def __init__(self, seat: int, amount: int):
        self.seat, self.amount = seat, amount

    def moves(self, state, rules, seat, out):
        out.append(Action("draw"))

    def explain(self, state, rules, seat, move):
        return f"pay the toll of {self.amount} first"

    def public(self, state):
        return {"type": self.name, "seat": self.seat, "amount": self.amount}

    def expire(self, state, rules, seat, ev):
        _pay(state, rules, seat, Action("draw"), ev, self)


def _pay(state, rules, seat, move, ev, top):
    state.hands[seat].append(state.draw_pile.pop())
    state.stack.pop()
    if ev is not None:
        ev.append({"type": "toll_paid", "seat": seat})


_Toll.handlers["draw"] = _pay


def test_a_new_decision_type_lists_applies_explains_and_times_out_by_itself():
    state = arrange(3, hands=[["red 5", "blue 1"], ["green 1"], ["green 2"]], top="red 3", current=0)
    state.stack.append(_Toll(1, 3))  # owed by a seat that is not in turn
    state.seq += 1
    assert state.actor() == 1 and state.current == 0
    assert view(state, None)["pending"] == {"type": "test_toll", "seat": 1, "amount": 3}
    assert legal_actions(state, 1) == [{"type": "draw"}]
    assert owed(state) == [(1, "test_toll", "turn")]
    exc = assert_refused(state, 1, {"type": "play", "card": card(state, 1, "green 1")}, IllegalMove)
    assert exc.detail == "pay the toll of 3 first"
    assert_refused(state, 0, {"type": "draw"}, NotYourTurn)
    saved = json.loads(json.dumps(state.to_dict()))
    assert State.from_dict(saved).decision() == _Toll(1, 3)
    assert apply(state, 1, {"type": "draw"}) == [{"type": "toll_paid", "seat": 1}]
    assert state.actor() == 0  # play resumes where it was: the decision's seat was not the turn's
    state.stack.append(_Toll(2, 1))
    events = apply(state, 2, {"type": "timeout"}, system=True)
    assert events[:2] == [{"type": "timeout", "seat": 2}, {"type": "toll_paid", "seat": 2}]


class _BellWindow(StoredWindow):
    """A stored window of this test only: every seat must ring once (like a buzz).  It
    reuses ``call_uno`` as its action, so that the game's action shapes accept it."""

    __slots__ = ("rung",)
    name = "test_bell"
    fields = ("rung",)
    actions = ("call_uno",)
    timer = "bell"

    def __init__(self, rung: tuple = ()):
        self.seat = 0
        self.rung = rung

    def owed_by(self, state):
        return tuple(s for s in range(state.seats) if s not in self.rung)

    def moves(self, state, rules, seat, top, is_owner, out):
        if seat not in self.rung:
            out.append(Action("call_uno"))

    def apply(self, state, rules, seat, move, ev):
        i = state.windows.index(self)
        rung = self.rung + (seat,)
        if len(rung) == state.seats:
            del state.windows[i]
        else:
            state.windows[i] = _BellWindow(rung)

    def expire(self, state, rules, seat, ev):
        self.apply(state, rules, seat, Action("call_uno"), ev)


def test_a_stored_window_is_owed_by_several_seats_at_once():
    state = arrange(3, hands=[["red 5", "blue 1", "blue 2"], ["green 1", "green 3", "green 4"],
                              ["green 2", "green 5", "green 6"]], top="red 3", current=0)
    state.windows.append(_BellWindow())
    state.seq += 1
    assert owed(state) == [(0, "turn", "turn"), (0, "test_bell", "bell"), (1, "test_bell", "bell"),
                           (2, "test_bell", "bell")]
    assert {"type": "call_uno"} in legal_actions(state, 2)
    apply(state, 2, {"type": "call_uno"})
    assert [s for s, name, _ in owed(state) if name == "test_bell"] == [0, 1]
    assert State.from_dict(json.loads(json.dumps(state.to_dict()))).windows == [_BellWindow((2,))]
    apply(state, 1, {"type": "timeout"}, system=True)  # the timer acts for a seat that owes the window
    assert [s for s, name, _ in owed(state) if name == "test_bell"] == [0]
    apply(state, 0, {"type": "call_uno"})
    assert state.windows == [] and owed(state) == [(0, "turn", "turn")]


def test_owed_is_the_decision_on_top_and_nothing_once_over():
    state = arrange(3, hands=[["red draw_two", "red 1"], ["blue 9", "green 1"], ["green 2"]], top="red 3")
    assert owed(state) == [(0, "turn", "turn")]
    play(state, 0, "red draw_two")
    assert owed(state) == [(1, "penalty", "turn")]
    state = arrange(2, options={"rounds": 1}, hands=[["red 5"], ["blue 1"]], top="red 3")
    play(state, 0, "red 5")
    assert state.status == "finished" and owed(state) == []


# -- saved forms -------------------------------------------------------------------------------
def test_a_format_1_snapshot_loads_into_the_decision_stack():
    state = arrange(3, hands=[["wild_draw_four", "red 1", "red 2"], ["red 9", "green 9"], ["green 2"]], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    v2 = state.to_dict()
    assert v2["format"] == 2 and v2["stack"][0]["guilty"] is True
    v1 = {k: v for k, v in v2.items() if k not in ("format", "phase", "stack", "windows", "seats")}
    v1.update(status="active", drawn=[], pending={
        "type": "penalty", "seat": 1, "amount": 4, "kind": "wild_draw_four", "by": 0, "challengeable": True,
        "guilty": True, "prev_color": "red"})
    loaded = State.from_dict(v1)
    assert loaded.to_dict() == v2
    assert legal_actions(loaded, 1) == legal_actions(state, 1)
    # play_drawn took the state's ``drawn`` cards
    v1.update(pending={"type": "play_drawn", "seat": 1}, drawn=[state.hands[1][0]])
    assert State.from_dict(v1).decision() == PlayDrawn(1, (state.hands[1][0],))
    v1.update(pending={"type": "choose_color", "seat": 1}, drawn=[])
    assert State.from_dict(v1).decision() == ChooseColor(1)
    with pytest.raises(ValueError):
        State.from_dict({**v2, "format": 99})


def test_seats_have_a_status_and_an_optional_team_in_the_saved_form():
    state = new_game("standard", {}, 4, "seats")
    assert state.to_dict()["seats"] == [{"status": "active", "team": None}] * 4
    assert "team" not in view(state, 0)["players"][0]  # no field where the rules need none
    state.teams = [0, 1, 0, 1]
    state.eliminated = [1]
    again = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.teams == [0, 1, 0, 1] and again.seat_status(1) == "eliminated"
    assert again.next_seat(0) == 2 and again.next_seat(3) == 0  # eliminated seats are passed over


# -- the guilt test, once ----------------------------------------------------------------------
def test_an_observation_judges_a_sampled_wild_draw_four_with_the_same_guilt_test():
    from games.engine.uno.wild_draw_four import guilty

    state = arrange(2, hands=[["wild_draw_four", "red 1", "blue 2"], ["green 9", "yellow 9"]], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    rules = build_rules(state.config)
    assert rules.guilt is guilty
    for seed in range(30):
        obs = engine.observe(state, 1, random.Random(seed))
        p = obs.decision()
        assert p.guilty == guilty(rules, obs.hands[0], "red")


# -- the bots use only public engine names -----------------------------------------------------
def test_the_bots_import_only_public_engine_names():
    for path in sorted(Path(engine.__file__).parent.parent.joinpath("bots").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("games.engine"):
                assert node.module == "games.engine", f"{path.name} imports {node.module}"
                assert all(a.name in engine.__all__ for a in node.names), f"{path.name}: {[a.name for a in node.names]}"


# -- cards and decks ---------------------------------------------------------------------------
def test_a_deck_is_its_base_plus_the_parts_options_add():
    from games.engine.cards import PARTS, Card, build_deck, uno_card

    def test_replays(start: int) -> list[Card]:
        return [uno_card(start + i, color, "replay_test", points=20) for i, color in enumerate(engine.COLORS)]

    PARTS["test_replays"] = test_replays
    try:
        deck = build_deck("standard_108", ("test_replays",))
        assert len(deck) == 112 and deck.name == "standard_108+test_replays"
        assert deck.cards[:108] == build_deck("standard_108").cards  # the base keeps its ids
        assert [deck.rank[c] for c in range(108, 112)] == ["replay_test"] * 4 and deck.points[108] == 20
        assert deck.cards[108].to_dict() == {"id": 108, "color": "red", "rank": "replay_test"}
    finally:
        del PARTS["test_replays"]
    card = build_deck("standard_108").cards[0]
    assert (card.kind, card.rank, card.colors, card.suits, card.points, card.name) == ("number", "0", ("red",), (),
                                                                                       0, "red 0")
    decktet = Card(7, "numeral", "2", (), ("moons", "knots"), 2, "Author")
    assert decktet.to_dict() == {"id": 7, "name": "Author", "rank": "2", "suits": ["moons", "knots"]}
