"""Action validation (malformed, unknown card, another's card, wrong turn, wrong
parameters, game over), the server's ``timeout`` action (RULES.md "Time"),
serialisation and replay."""

import json

import pytest

from games.engine import (
    GameOver,
    IllegalMove,
    InvalidAction,
    NotYourCard,
    NotYourTurn,
    State,
    UnknownCard,
    apply,
    legal_actions,
    new_game,
    replay,
    view,
)

from .helpers import act, arrange, assert_refused, card, ev_types, hand_names, only, play, snapshot

FILL = ["blue 1", "blue 2", "blue 4"]


def _state():
    return arrange(3, hands=[["red 5", "wild", "blue 9", "red draw_two"], ["red 1", "green 2", "yellow 2"],
                             ["green 7", "green 8", "yellow 9"]], top="red 3")


# -- malformed actions -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "action",
    [
        "draw",
        None,
        ["draw"],
        42,
        {},
        {"type": None},
        {"type": "discard"},
        {"type": "PLAY", "card": 0},
        {"type": 3},
        {"type": "draw", "card": 5},
        {"type": "draw", "extra": True},
        {"type": "pass", "color": "red"},
        {"type": "call_uno", "target_seat": 1},
        {"type": "play"},
        {"type": "play", "card": None},
        {"type": "play", "card": "5"},
        {"type": "play", "card": 5.0},
        {"type": "play", "card": True},
        {"type": "play", "card": False},
        {"type": "play", "card": 9, "color": "purple"},
        {"type": "play", "card": 9, "color": 1},
        {"type": "play", "card": 9, "uno": "yes"},
        {"type": "play", "card": 9, "uno": 1},
        {"type": "play", "card": 9, "target_seat": "1"},
        {"type": "play", "card": 9, "target_seat": True},
        {"type": "play", "card": 9, "seat": 0},
        {"type": "choose_color"},
        {"type": "choose_color", "color": "Red"},
        {"type": "catch_uno"},
        {"type": "catch_uno", "target_seat": 1.0},
    ],
)
def test_malformed_actions_are_invalid(action):
    state = _state()
    exc = assert_refused(state, 0, action, InvalidAction)
    assert exc.code == "invalid"


@pytest.mark.parametrize("kind", [["play"], {"t": 1}])
def test_unhashable_action_type_is_invalid(kind):
    state = _state()
    assert_refused(state, 0, {"type": kind}, InvalidAction)


@pytest.mark.parametrize("seat", [-1, 3, 100, "0", None, True, 0.0])
def test_bad_seat_is_invalid(seat):
    state = _state()
    assert_refused(state, seat, {"type": "draw"}, InvalidAction)
    with pytest.raises(InvalidAction):
        legal_actions(state, seat)


def test_unknown_card_id():
    state = _state()
    for cid in (108, 1000, -1):
        exc = assert_refused(state, 0, {"type": "play", "card": cid}, UnknownCard)
        assert exc.code == "unknown_card"


def test_another_players_card():
    state = _state()
    theirs = card(state, 1, "red 1")
    exc = assert_refused(state, 0, {"type": "play", "card": theirs}, NotYourCard)
    assert exc.code == "not_your_card"
    on_pile = state.discard[-1]
    assert_refused(state, 0, {"type": "play", "card": on_pile}, NotYourCard)
    in_pile = state.draw_pile[-1]
    assert_refused(state, 0, {"type": "play", "card": in_pile}, NotYourCard)


def test_wrong_turn():
    state = _state()
    for action in ({"type": "play", "card": card(state, 1, "red 1")}, {"type": "draw"}, {"type": "pass"},
                   {"type": "challenge"}, {"type": "choose_color", "color": "red"}):
        exc = assert_refused(state, 1, action, NotYourTurn)
        assert exc.code == "not_your_turn"


def test_wild_without_colour_and_colour_on_non_wild():
    state = _state()
    exc = assert_refused(state, 0, {"type": "play", "card": card(state, 0, "wild")}, IllegalMove)
    assert exc.code == "illegal_move"
    assert_refused(state, 0, {"type": "play", "card": card(state, 0, "red 5"), "color": "red"}, IllegalMove)
    assert_refused(state, 0, {"type": "play", "card": card(state, 0, "red 5"), "target_seat": 1}, IllegalMove)


def test_unplayable_card_is_illegal():
    state = _state()
    assert_refused(state, 0, {"type": "play", "card": card(state, 0, "blue 9")}, IllegalMove)


def test_out_of_place_actions_are_illegal():
    state = _state()
    for action in ({"type": "pass"}, {"type": "challenge"}, {"type": "choose_color", "color": "red"},
                   {"type": "call_uno"}, {"type": "catch_uno", "target_seat": 1}):
        assert_refused(state, 0, action, IllegalMove)


def test_uno_false_is_the_same_as_no_flag():
    state = _state()
    play(state, 0, "red 5", uno=False)
    assert state.actor() == 1


def test_actions_after_game_over():
    state = arrange(2, options={"target_score": 1}, hands=[["red 5"], ["blue 1"]], top="red 3")
    play(state, 0, "red 5")
    assert state.status == "finished"
    for seat, action in ((0, {"type": "draw"}), (1, {"type": "draw"}), (1, "garbage"), (7, {"type": "draw"}),
                         (1, {"type": "play", "card": 500})):
        exc = assert_refused(state, seat, action, GameOver)
        assert exc.code == "game_over"


def test_refused_actions_leave_the_state_untouched_deeply():
    state = _state()
    play(state, 0, "red draw_two")
    before = snapshot(state)
    for seat, action in [(1, {"type": "play", "card": card(state, 1, "red 1")}), (1, {"type": "pass"}),
                         (2, {"type": "draw"}), (1, {"type": "challenge"}), (0, {"type": "timeout"}),
                         (1, {"type": "timeout"})]:
        with pytest.raises(Exception):
            apply(state, seat, action)
        assert snapshot(state) == before
    assert legal_actions(state, 1) == [{"type": "draw"}]


# -- timeout (RULES.md "Time") ------------------------------------------------------------------
def test_timeout_is_refused_from_a_player():
    state = _state()
    exc = assert_refused(state, 0, {"type": "timeout"}, InvalidAction)
    assert exc.code == "invalid"
    assert {"type": "timeout"} not in legal_actions(state, 0)


def test_timeout_only_for_the_seat_that_owes_a_decision():
    state = _state()
    assert_refused(state, 1, {"type": "timeout"}, NotYourTurn, apply_kw={"system": True})


def test_timeout_ordinary_turn_draws_and_passes():
    state = arrange(3, hands=[["red 5", "blue 6"], FILL, ["green 1", "green 2"]], top="red 3", draw=["green 9"])
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert ev[0] == {"type": "timeout", "seat": 0}
    assert only(ev, "draw") == {"type": "draw", "seat": 0, "count": 1, "reason": "draw"}
    assert hand_names(state, 0) == ["red 5", "blue 6", "green 9"]
    assert state.actor() == 1 and state.pending is None
    assert ev_types(ev).count("pass") == 1


def test_timeout_passes_even_when_the_drawn_card_is_playable():
    state = arrange(3, hands=[["blue 5", "blue 6"], FILL, ["green 1", "green 2"]], top="red 3", draw=["red 9"])
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert hand_names(state, 0) == ["blue 5", "blue 6", "red 9"]
    assert only(ev, "pass")["seat"] == 0
    assert state.actor() == 1


def test_timeout_accepts_a_pending_penalty():
    state = arrange(3, hands=[["red draw_two", *FILL], ["red 9", "green 9", "red 1"], ["green 2", "green 3"]],
                    top="red 3", draw=["yellow 1", "yellow 2", "yellow 3"])
    play(state, 0, "red draw_two")
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": 2, "reason": "draw_two"}
    assert hand_names(state, 1) == ["red 9", "green 9", "red 1", "yellow 1", "yellow 2"]
    assert state.actor() == 2
    assert "challenge" not in ev_types(ev)


def test_timeout_accepts_a_wild_draw_four_without_challenging():
    state = arrange(3, hands=[["wild_draw_four", "red 1", "red 2"], ["red 9", "green 9", "red 4"], ["green 2", "green 3"]],
                    top="red 3")
    play(state, 0, "wild_draw_four", color="green")  # guilty, but the timer never challenges
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert only(ev, "draw")["count"] == 4 and only(ev, "draw")["seat"] == 1
    assert len(state.hands[0]) == 2
    assert state.actor() == 2


def test_timeout_after_drawing_passes():
    state = arrange(3, hands=[["blue 5", "blue 6"], FILL, ["green 1", "green 2"]], top="red 3", draw=["red 9"])
    act(state, 0, "draw")
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert "draw" not in ev_types(ev)
    assert only(ev, "pass")["seat"] == 0
    assert len(state.hands[0]) == 3 and state.actor() == 1


def test_timeout_with_penalty_skips_turn_false_takes_penalty_then_draws_and_passes():
    state = arrange(3, options={"penalty_skips_turn": False},
                    hands=[["red draw_two", *FILL], ["red 9", "green 9", "red 1"], ["green 2", "green 3"]],
                    top="red 3", draw=["yellow 1", "yellow 2", "yellow 3"])
    play(state, 0, "red draw_two")
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert [e["count"] for e in ev if e["type"] == "draw"] == [2, 1]
    assert len(state.hands[1]) == 6
    assert state.actor() == 2


def test_timeout_with_draw_limit_draws_as_the_rules_demand():
    state = arrange(3, options={"draw_limit": None}, hands=[["blue 5", "blue 6"], FILL, ["green 1", "green 2"]],
                    top="red 3", draw=["green 4", "yellow 4", "red 9", "green 5"])
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert sum(e["count"] for e in ev if e["type"] == "draw") == 3  # until the playable red 9
    assert hand_names(state, 0) == ["blue 5", "blue 6", "green 4", "yellow 4", "red 9"]
    assert state.actor() == 1


def test_timeout_names_a_colour_for_a_first_wild():
    for seed in range(3000):
        state = new_game("standard", {}, 3, seed)
        if state.pending and state.pending["type"] == "choose_color":
            break
    else:
        raise AssertionError("no seed turns up a Wild first")
    first = state.actor()
    ev = apply(state, first, {"type": "timeout"}, system=True)
    chosen = only(ev, "color_chosen")
    assert chosen["seat"] == first and chosen["color"] in ("red", "yellow", "green", "blue")
    assert state.actor() != first


def test_timeout_is_replayed():
    game = new_game("standard", {}, 3, seed=7)
    log = []
    for _ in range(5):
        seat = game.actor()
        apply(game, seat, {"type": "timeout"}, system=True)
        log.append((seat, {"type": "timeout"}))
    assert sum(map(len, game.hands)) > 21
    assert replay(game.config, log).to_dict() == game.to_dict()


# -- serialisation -----------------------------------------------------------------------------
def test_state_round_trips_through_json():
    state = _state()
    play(state, 0, "red draw_two")
    d = state.to_dict()
    again = State.from_dict(json.loads(json.dumps(d)))
    assert again == state
    assert again.to_dict() == d
    assert legal_actions(again, 1) == legal_actions(state, 1)
    assert view(again, 1) == view(state, 1)


def test_to_dict_is_a_deep_copy():
    state = _state()
    d = state.to_dict()
    d["hands"][0].clear()
    d["config"]["options"]["stacking"] = "any"
    assert len(state.hands[0]) == 4
    assert state.options["stacking"] == "off"
    copy = state.copy()
    copy.hands[0].pop()
    assert len(state.hands[0]) == 4


def test_replay_reproduces_a_game():
    state = new_game("standard", {"stacking": "any", "jump_in": "super"}, 4, seed="replay-me")
    log = []
    for step in range(60):
        seat = state.actor()
        acts = legal_actions(state, seat)
        action = acts[step * 7 % len(acts)]
        apply(state, seat, action)
        log.append((seat, action))
        if state.status != "active":
            break
    again = replay(state.config, log)
    assert again.to_dict() == state.to_dict()
    again2 = replay(state.config.to_dict(), log)
    assert again2.to_dict() == state.to_dict()
