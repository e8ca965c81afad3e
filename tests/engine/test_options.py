"""RULES.md "Options": stacking, jump_in, seven_zero, penalty_skips_turn, draw_limit,
uno_penalty, scoring, target_score / rounds, two_player_replay, and refused options."""

import pytest

from games.engine import (FINISHED, IllegalMove, InvalidOptions, NotYourTurn, legal_actions, new_game, resolve_options,
                          visible_events)

from .helpers import (DECK, act, arrange, assert_conserved, assert_refused, card, ev_types, hand_names, is_legal, only,
                      play, touch, types)

# filler cards (never red, never a 3, 5 or 7) so that nobody is down to UNO by accident
F = (["blue 1", "blue 2", "blue 4"], ["blue 1", "blue 2", "blue 4"], ["blue 6", "blue 8", "blue 9"],
     ["blue 6", "blue 8", "blue 9"])


def _play_action(state, seat, name, **extra):
    return {"type": "play", "card": card(state, seat, name), **extra}


# ==============================================================================================
# stacking
# ==============================================================================================
def _stack_state(stacking, seats=3, hands=None):
    hands = hands or [
        ["red draw_two", "wild_draw_four", *F[0]],
        ["green draw_two", "wild_draw_four", "red 7", *F[1]],
        ["yellow draw_two", "wild_draw_four", *F[2]],
    ]
    return arrange(seats, options={"stacking": stacking}, hands=hands, top="red 3",
                   draw=["green 1", "green 2", "green 3", "green 4", "green 5", "green 6", "green 7", "green 8",
                         "green 9", "yellow 1", "yellow 2", "yellow 3", "yellow 4"])


def test_stacking_off_penalty_cannot_be_answered():
    state = _stack_state("off")
    play(state, 0, "red draw_two")
    assert legal_actions(state, 1) == [{"type": "draw"}]
    assert_refused(state, 1, _play_action(state, 1, "green draw_two"), IllegalMove)
    assert_refused(state, 1, _play_action(state, 1, "wild_draw_four", color="red"), IllegalMove)


def test_stacking_same_draw_two_on_draw_two_next_draws_the_sum():
    state = _stack_state("same")
    play(state, 0, "red draw_two")
    plays = {a["card"] for a in legal_actions(state, 1) if a["type"] == "play"}
    assert plays == {card(state, 1, "green draw_two")}  # any +2, never a +4, never a matching number
    assert_refused(state, 1, _play_action(state, 1, "wild_draw_four", color="red"), IllegalMove)
    assert_refused(state, 1, _play_action(state, 1, "red 7"), IllegalMove)
    play(state, 1, "green draw_two")
    assert state.pending["seat"] == 2 and state.pending["amount"] == 4
    play(state, 2, "yellow draw_two")
    assert state.pending["seat"] == 0 and state.pending["amount"] == 6
    ev = act(state, 0, "draw")
    assert only(ev, "draw")["count"] == 6
    assert len(state.hands[0]) == 4 + 6
    assert state.actor() == 1  # the victim of the stack loses its turn


def test_stacking_same_wild_draw_four_on_wild_draw_four():
    state = _stack_state("same")
    play(state, 0, "wild_draw_four", color="blue")
    plays = {a["card"] for a in legal_actions(state, 1) if a["type"] == "play"}
    assert plays == {card(state, 1, "wild_draw_four")}
    assert "challenge" in types(state, 1)
    play(state, 1, "wild_draw_four", color="yellow")
    assert state.pending["amount"] == 8 and state.pending["seat"] == 2
    assert state.color == "yellow"  # the last Wild Draw Four's player names the colour
    assert "draw_two" not in {DECK.rank[a["card"]] for a in legal_actions(state, 2) if a["type"] == "play"}
    act(state, 2, "draw")
    assert len(state.hands[2]) == 5 + 8


def test_stacking_plus4_on_plus2():
    state = _stack_state("plus4_on_plus2")
    play(state, 0, "red draw_two")
    plays = {DECK.rank[a["card"]] for a in legal_actions(state, 1) if a["type"] == "play"}
    assert plays == {"draw_two", "wild_draw_four"}
    play(state, 1, "wild_draw_four", color="green")
    assert state.pending["amount"] == 6 and state.pending["kind"] == "wild_draw_four"
    # a +2 may not go on a +4
    plays = {DECK.rank[a["card"]] for a in legal_actions(state, 2) if a["type"] == "play"}
    assert plays == {"wild_draw_four"}
    assert_refused(state, 2, _play_action(state, 2, "yellow draw_two"), IllegalMove)
    act(state, 2, "draw")
    assert len(state.hands[2]) == 5 + 6


def test_stacking_any_draw_two_on_wild_draw_four():
    state = _stack_state("any")
    play(state, 0, "wild_draw_four", color="red")
    plays = {DECK.rank[a["card"]] for a in legal_actions(state, 1) if a["type"] == "play"}
    assert plays == {"draw_two", "wild_draw_four"}
    play(state, 1, "green draw_two")
    assert state.pending == {"type": "penalty", "seat": 2, "amount": 6, "kind": "draw_two", "by": 1}
    assert "challenge" not in types(state, 2)
    act(state, 2, "draw")
    assert len(state.hands[2]) == 5 + 6


def test_stacking_resets_after_a_draw():
    state = _stack_state("same", seats=3, hands=[
        ["red draw_two", "blue draw_two", *F[0]],
        ["green draw_two", *F[1]],
        ["yellow 5", *F[2]],
    ])
    play(state, 0, "red draw_two")
    play(state, 1, "green draw_two")
    act(state, 2, "draw")  # draws 4: the pile resets
    assert len(state.hands[2]) == 4 + 4
    assert state.actor() == 0 and state.pending is None
    play(state, 0, "blue draw_two")  # matches the green +2 by symbol
    assert state.pending["amount"] == 2  # counts 2 again
    act(state, 1, "draw")
    assert len(state.hands[1]) == 3 + 2


def test_challenge_of_stacked_wild_draw_four_moves_the_whole_amount_guilty():
    state = _stack_state("same", hands=[
        ["wild_draw_four", *F[0]],  # innocent: holds no red
        ["wild_draw_four", "green 5", *F[1]],  # guilty: holds green, the colour in force
        ["yellow 9", *F[2]],
    ])
    state.color = "red"
    play(state, 0, "wild_draw_four", color="green")
    play(state, 1, "wild_draw_four", color="blue")
    ev = act(state, 2, "challenge")
    assert only(ev, "challenge") == {"type": "challenge", "seat": 2, "target_seat": 1, "guilty": True}
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": 8, "reason": "challenge_lost"}
    assert len(state.hands[1]) == 4 + 8
    assert len(state.hands[2]) == 4
    assert state.actor() == 2 and state.pending is None


def test_challenge_of_stacked_wild_draw_four_innocent_challenger_draws_sum_plus_two():
    state = _stack_state("same", hands=[
        ["wild_draw_four", *F[0]],
        ["wild_draw_four", "red 5", *F[1]],  # holds red, but green is in force when it plays
        ["yellow 9", *F[2]],
    ])
    play(state, 0, "wild_draw_four", color="green")
    play(state, 1, "wild_draw_four", color="blue")
    ev = act(state, 2, "challenge")
    assert only(ev, "challenge")["guilty"] is False
    assert only(ev, "draw") == {"type": "draw", "seat": 2, "count": 10, "reason": "challenge_lost"}
    assert state.actor() == 0


# ==============================================================================================
# jump_in
# ==============================================================================================
def _jump_state(mode, seats=3, hands=None, top="red 5", **kw):
    hands = hands or [
        ["red 9", *F[0]],
        ["green 9", *F[1]],
        ["red 5", "blue 5", "wild", *F[2]],
    ]
    return arrange(seats, options={"jump_in": mode}, hands=hands, top=top, current=1, **kw)


def test_jump_in_off_refuses_out_of_turn_play():
    state = _jump_state("off")
    assert legal_actions(state, 2) == []
    assert_refused(state, 2, _play_action(state, 2, "red 5"), NotYourTurn)


def test_jump_in_exact_identical_card_only():
    state = _jump_state("exact")
    plays = [a for a in legal_actions(state, 2) if a["type"] == "play"]
    assert plays == [{"type": "play", "card": card(state, 2, "red 5")}]
    assert_refused(state, 2, _play_action(state, 2, "blue 5"), NotYourTurn)
    assert_refused(state, 2, _play_action(state, 2, "wild", color="red"), NotYourTurn)
    assert legal_actions(state, 0) == []  # seat 0 holds nothing identical
    ev = play(state, 2, "red 5")
    assert ev_types(ev)[:2] == ["jump_in", "play"]
    assert only(ev, "jump_in")["seat"] == 2
    # play continues from the jumper, who took that as its turn: seat 1 lost its turn
    assert state.actor() == 0
    assert hand_names(state, 1) == ["green 9", *F[1]]


def test_jump_in_super_same_rank_any_colour_but_not_wilds():
    state = _jump_state("super")
    plays = {a["card"] for a in legal_actions(state, 2) if a["type"] == "play"}
    assert plays == {card(state, 2, "red 5"), card(state, 2, "blue 5")}
    assert_refused(state, 2, _play_action(state, 2, "wild", color="red"), NotYourTurn)
    play(state, 2, "blue 5")
    assert state.color == "blue"
    assert state.actor() == 0


@pytest.mark.parametrize("mode", ["exact", "super"])
def test_no_jump_in_on_a_wild(mode):
    state = _jump_state(mode, hands=[["red 9", *F[0]], ["green 9", *F[1]], ["wild", "wild_draw_four", *F[2]]],
                        top="wild", color="red")
    assert legal_actions(state, 2) == []


def test_jump_in_cancels_a_skip():
    # seat 0 played a red skip: seat 1 is skipped and seat 2 is to play; seat 1 jumps in with the
    # identical skip: play continues from seat 1, so its skip skips seat 2
    state = arrange(4, options={"jump_in": "exact"},
                    hands=[["red skip", *F[0]], ["red skip", *F[1]], ["red 9", *F[2]], ["green 9", *F[3]]],
                    top="red 3", current=0)
    play(state, 0, "red skip")
    assert state.actor() == 2
    assert is_legal(state, 1, _play_action(state, 1, "red skip"))
    play(state, 1, "red skip")
    assert state.actor() == 3
    assert len(state.hands[2]) == 4


def test_jump_in_cancels_a_pending_draw_two():
    state = arrange(3, options={"jump_in": "exact"},
                    hands=[["red draw_two", *F[0]], ["green 9", *F[1]], ["red draw_two", *F[2]]],
                    top="red 3", current=0, draw=["yellow 1", "yellow 2", "yellow 3", "yellow 4"])
    play(state, 0, "red draw_two")
    assert state.pending["seat"] == 1
    play(state, 2, "red draw_two")
    # seat 1 escapes; the jumper's own +2 hits the player after the jumper, counting 2 only
    assert len(state.hands[1]) == 4
    assert state.pending == {"type": "penalty", "seat": 0, "amount": 2, "kind": "draw_two", "by": 2}
    act(state, 0, "draw")
    assert hand_names(state, 0)[-2:] == ["yellow 1", "yellow 2"]
    assert state.actor() == 1


def test_jump_in_during_play_drawn_cancels_the_drawers_turn():
    state = _jump_state("exact", draw=["red 1"])
    act(state, 1, "draw")
    assert state.pending["type"] == "play_drawn"
    play(state, 2, "red 5")
    assert state.pending is None and state.drawn == []
    assert state.actor() == 0
    assert "red 1" in hand_names(state, 1)


def test_jump_in_closes_the_uno_window():
    state = arrange(3, options={"jump_in": "exact"},
                    hands=[["red 5", "green 2"], ["green 9", *F[1]], ["red 5", *F[2]]], top="red 3", current=0)
    play(state, 0, "red 5")
    assert state.uno_exposed == 0
    play(state, 2, "red 5")
    assert state.uno_exposed is None
    assert_refused(state, 1, {"type": "catch_uno", "target_seat": 0}, IllegalMove)


# ==============================================================================================
# seven_zero
# ==============================================================================================
HANDS_7_0 = [
    ["red 0", "red 7", "blue 1"],
    ["green 1", "green 2"],
    ["yellow 1", "yellow 2", "yellow 3", "yellow 4"],
    ["blue 9", "blue 8", "blue 7", "blue 6", "blue 5"],
]


def test_zero_passes_every_hand_clockwise():
    state = arrange(4, options={"seven_zero": True}, hands=HANDS_7_0, top="red 3")
    before = [list(h) for h in state.hands]
    ev = play(state, 0, "red 0")
    rest0 = [c for c in before[0] if DECK.rank[c] != "0"]
    assert state.hands == [before[3], rest0, before[1], before[2]]
    assert only(ev, "hands_rotated") == {"type": "hands_rotated", "seat": 0, "direction": "clockwise"}
    hands_ev = [e for e in ev if e["type"] == "hand"]
    assert sorted(e["seat"] for e in hands_ev) == [0, 1, 2, 3]
    for e in hands_ev:
        assert e["to"] == [e["seat"]]
        assert [c["id"] for c in e["cards"]] == state.hands[e["seat"]]
    assert state.actor() == 1
    assert_conserved(state)


def test_zero_passes_every_hand_counterclockwise():
    state = arrange(4, options={"seven_zero": True}, hands=HANDS_7_0, top="red 3", direction=-1)
    before = [list(h) for h in state.hands]
    ev = play(state, 0, "red 0")
    rest0 = [c for c in before[0] if DECK.rank[c] != "0"]
    assert state.hands == [before[1], before[2], before[3], rest0]
    assert only(ev, "hands_rotated")["direction"] == "counterclockwise"
    assert state.actor() == 3


def test_seven_swaps_with_the_named_player():
    state = arrange(4, options={"seven_zero": True}, hands=HANDS_7_0, top="red 3")
    before = [list(h) for h in state.hands]
    plays = [a for a in legal_actions(state, 0) if a["type"] == "play" and DECK.rank[a["card"]] == "7"]
    assert sorted(a["target_seat"] for a in plays) == [1, 2, 3]
    ev = play(state, 0, "red 7", target_seat=2)
    assert only(ev, "hands_swapped") == {"type": "hands_swapped", "seat": 0, "target_seat": 2}
    assert only(ev, "play")["target_seat"] == 2
    rest0 = [c for c in before[0] if DECK.rank[c] != "7"]
    assert state.hands == [before[2], before[1], rest0, before[3]]
    hands_ev = [e for e in ev if e["type"] == "hand"]
    assert sorted(e["seat"] for e in hands_ev) == [0, 2]
    # seats 1 and 3 are not told anybody's cards
    for seat in (1, 3, None):
        assert all("to" not in e for e in visible_events(ev, seat))
    assert state.actor() == 1


def test_seven_needs_a_valid_target_seat():
    state = arrange(4, options={"seven_zero": True}, hands=HANDS_7_0, top="red 3")
    seven = card(state, 0, "red 7")
    assert_refused(state, 0, {"type": "play", "card": seven}, IllegalMove)
    assert_refused(state, 0, {"type": "play", "card": seven, "target_seat": 0}, IllegalMove)
    assert_refused(state, 0, {"type": "play", "card": seven, "target_seat": 4}, IllegalMove)


def test_without_seven_zero_seven_and_zero_are_plain_numbers():
    state = arrange(4, hands=HANDS_7_0, top="red 3")
    before = [list(h) for h in state.hands]
    assert_refused(state, 0, _play_action(state, 0, "red 7", target_seat=2), IllegalMove)
    ev = play(state, 0, "red 0")
    assert "hands_rotated" not in ev_types(ev)
    assert state.hands[1:] == before[1:]


@pytest.mark.parametrize("last", ["red 7", "red 0"])
def test_going_out_with_seven_or_zero_swaps_nothing(last):
    state = arrange(3, options={"seven_zero": True},
                    hands=[[last], ["green 1", "green 2"], ["yellow 1", "yellow 2", "yellow 3"]], top="red 3")
    assert legal_actions(state, 0)[0] == {"type": "play", "card": card(state, 0, last)}
    ev = play(state, 0, last)
    assert "hands_swapped" not in ev_types(ev) and "hands_rotated" not in ev_types(ev)
    ended = only(ev, "round_ended")
    assert ended["winner"] == 0
    assert ended["hand_points"] == [0, 3, 6]


# ==============================================================================================
# penalty_skips_turn
# ==============================================================================================
def test_penalty_skips_turn_false_victim_draws_then_plays():
    state = arrange(3, options={"penalty_skips_turn": False},
                    hands=[["red draw_two", *F[0]], ["red 9", "green 9", "yellow 1"], ["green 2", *F[2]]],
                    top="red 3", draw=["yellow 5", "yellow 6"])
    play(state, 0, "red draw_two")
    act(state, 1, "draw")
    assert hand_names(state, 1) == ["red 9", "green 9", "yellow 1", "yellow 5", "yellow 6"]
    assert state.actor() == 1 and state.pending is None
    play(state, 1, "red 9")
    assert state.actor() == 2


def test_penalty_skips_turn_false_after_wild_draw_four_and_lost_challenge():
    state = arrange(3, options={"penalty_skips_turn": False},
                    hands=[["wild_draw_four", "wild_draw_four", "blue 1", "blue 2"], ["red 9", "green 9", "yellow 1"],
                           ["green 2", *F[2]]],
                    top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    act(state, 1, "draw")
    assert len(state.hands[1]) == 7 and state.actor() == 1
    play(state, 1, "green 9")
    play(state, 2, "green 2")
    play(state, 0, "wild_draw_four", color="yellow")
    act(state, 1, "challenge")  # innocent: seat 1 draws 6, then plays
    assert len(state.hands[1]) == 12 and state.actor() == 1
    play(state, 1, "yellow 1")


def test_house_preset_victim_draws_then_plays():
    state = arrange(3, preset="house",
                    hands=[["red draw_two", *F[0]], ["red 9", "green 9", "yellow 1"], ["green 2", *F[2]]], top="red 3")
    play(state, 0, "red draw_two")
    act(state, 1, "draw")
    assert state.actor() == 1


# ==============================================================================================
# draw_limit
# ==============================================================================================
def test_draw_limit_three_draws_until_playable_or_limit():
    state = arrange(3, options={"draw_limit": 3}, hands=[["blue 5", "blue 6"], F[1], F[2]],
                    top="red 3", draw=["green 1", "green 2", "green 4", "red 9"])
    act(state, 0, "draw")
    assert legal_actions(state, 0) == [{"type": "draw"}]  # nothing playable drawn: no pass
    assert_refused(state, 0, {"type": "pass"}, IllegalMove)
    act(state, 0, "draw")
    assert legal_actions(state, 0) == [{"type": "draw"}]
    ev = act(state, 0, "draw")  # the third card, still unplayable: the turn passes
    assert only(ev, "pass")["auto"] is True
    assert len(state.hands[0]) == 5
    assert state.actor() == 1


def test_draw_limit_three_may_stop_after_drawing_a_playable_card():
    state = arrange(3, options={"draw_limit": 3}, hands=[["blue 5", "red 6"], F[1], F[2]],
                    top="red 3", draw=["green 1", "red 9", "green 4"])
    act(state, 0, "draw")
    act(state, 0, "draw")
    red9 = card(state, 0, "red 9")
    acts = legal_actions(state, 0)
    # seed 004's "pickaxe": a playable card drawn need not be played; drawing on to the limit is allowed
    assert {a["type"] for a in acts} == {"play", "draw", "pass"}
    assert {a["card"] for a in acts if a["type"] == "play"} == {red9}  # not the red 6 held before
    assert_refused(state, 0, _play_action(state, 0, "red 6"), IllegalMove)
    act(state, 0, "pass")
    assert state.actor() == 1 and len(state.hands[0]) == 4


def test_draw_limit_null_draws_until_playable():
    unplayable = ["green 1", "green 2", "green 4", "yellow 1", "yellow 2", "yellow 4", "green 5", "green 6"]
    state = arrange(3, options={"draw_limit": None}, hands=[["blue 5", "blue 6"], F[1], F[2]],
                    top="red 3", draw=[*unplayable, "wild"])
    for _ in unplayable:
        act(state, 0, "draw")
        assert legal_actions(state, 0) == [{"type": "draw"}]
        assert state.actor() == 0
    act(state, 0, "draw")
    wild = card(state, 0, "wild")
    acts = legal_actions(state, 0)
    assert {a["card"] for a in acts if a["type"] == "play"} == {wild}
    assert {"type": "pass"} in acts
    play(state, 0, "wild", color="blue")
    assert len(state.hands[0]) == 2 + len(unplayable)
    assert state.actor() == 1


def test_draw_limit_null_stops_when_piles_are_exhausted():
    state = arrange(3, options={"draw_limit": None}, hands=[["blue 5", "blue 6"], ["blue 1", "blue 2"], F[2]],
                    top="red 3", draw=["green 1", "green 2"], rest=2)
    act(state, 0, "draw")
    ev = act(state, 0, "draw")
    assert only(ev, "pass")["auto"] is True  # nothing left to draw
    assert state.actor() == 1
    assert_conserved(state)


def test_draw_limit_one_is_the_default():
    state = arrange(3, hands=[["blue 5", "blue 6"], F[1], F[2]], top="red 3", draw=["red 1"])
    assert state.options["draw_limit"] == 1
    act(state, 0, "draw")
    assert sorted(a["type"] for a in legal_actions(state, 0)) == ["pass", "play"]


# ==============================================================================================
# scoring, target_score, rounds
# ==============================================================================================
def test_lowest_total_each_player_charged_own_hand():
    state = arrange(3, options={"scoring": "lowest_total"},
                    hands=[["red 5"], ["wild", "blue 9"], ["green skip", "yellow 3"]], top="red 3")
    ev = play(state, 0, "red 5")
    assert only(ev, "round_ended")["points"] == [0, 59, 23]
    assert state.scores == [0, 59, 23]
    assert state.status == "active"


def test_lowest_total_lowest_wins_when_someone_reaches_target():
    state = arrange(3, options={"scoring": "lowest_total", "target_score": 100},
                    hands=[["red 5"], ["wild", "wild"], ["yellow 1"]], top="red 3")
    state.scores = [90, 0, 20]
    ev = play(state, 0, "red 5")
    assert state.scores == [90, 100, 21]
    assert state.status == FINISHED
    assert state.winner == 2  # not the player who went out: the lowest total
    assert only(ev, "game_ended") == {"type": "game_ended", "winner": 2, "scores": [90, 100, 21]}


def test_house_preset_scores_lowest_total():
    state = arrange(2, preset="house", hands=[["red 5"], ["blue 9"]], top="red 3")
    play(state, 0, "red 5")
    assert state.scores == [0, 9]


def test_rounds_option_plays_a_fixed_number_of_rounds():
    state = arrange(2, options={"rounds": 2}, hands=[["red 5"], ["wild"]], top="red 3")
    ev = play(state, 0, "red 5")
    assert state.scores == [50, 0] and state.round == 2
    assert state.status == "active" and "game_ended" not in ev_types(ev)
    # the last round: whoever leads after it wins, even far below the target score
    state = arrange(2, options={"rounds": 2}, hands=[["red 5"], ["blue 1", "red skip"]], top="red 3")
    state.round, state.scores = 2, [50, 60]
    touch(state)
    ev = play(state, 0, "red 5")
    assert state.scores == [71, 60]
    assert state.status == FINISHED and state.winner == 0
    assert only(ev, "game_ended")["winner"] == 0
    assert "round_started" not in ev_types(ev)


def test_rounds_ignore_the_target_score():
    state = arrange(2, options={"rounds": 3}, hands=[["red 5"], ["wild"]], top="red 3")
    state.scores = [10_000, 0]
    play(state, 0, "red 5")
    assert state.status == "active" and state.round == 2


def test_lowest_total_tie_plays_another_round():
    state = arrange(2, options={"scoring": "lowest_total", "rounds": 1}, hands=[["red 5"], ["blue 0"]], top="red 3")
    play(state, 0, "red 5")
    assert state.scores == [0, 0]
    assert state.status == "active" and state.round == 2


# ==============================================================================================
# two_player_replay
# ==============================================================================================
def test_two_player_replay_false_reverse_passes_the_turn():
    state = arrange(2, options={"two_player_replay": False},
                    hands=[["red reverse", *F[0]], ["red 1", *F[1]]], top="red 3")
    play(state, 0, "red reverse")
    assert state.direction == -1
    assert state.actor() == 1


def test_two_player_replay_true_reverse_keeps_direction_and_turn():
    state = arrange(2, hands=[["red reverse", *F[0]], ["red 1", *F[1]]], top="red 3")
    play(state, 0, "red reverse")
    assert state.actor() == 0


def test_reverse_with_three_players_ignores_two_player_rule():
    state = arrange(3, hands=[["red reverse", *F[0]], ["red 1", *F[1]], ["red 2", *F[2]]], top="red 3")
    play(state, 0, "red reverse")
    assert state.actor() == 2


# ==============================================================================================
# refused options
# ==============================================================================================
@pytest.mark.parametrize(
    "preset, options, seats, option",
    [
        ("standard", {"colour_blind": True}, 4, "colour_blind"),
        ("standard", {"stacking": "sometimes"}, 4, "stacking"),
        ("standard", {"stacking": True}, 4, "stacking"),
        ("standard", {"jump_in": "yes"}, 4, "jump_in"),
        ("standard", {"seven_zero": 1}, 4, "seven_zero"),
        ("standard", {"penalty_skips_turn": "false"}, 4, "penalty_skips_turn"),
        ("standard", {"draw_limit": 0}, 4, "draw_limit"),
        ("standard", {"draw_limit": 2.5}, 4, "draw_limit"),
        ("standard", {"draw_limit": True}, 4, "draw_limit"),
        ("standard", {"uno_penalty": 0}, 4, "uno_penalty"),
        ("standard", {"uno_penalty": "4"}, 4, "uno_penalty"),
        ("standard", {"target_score": 0}, 4, "target_score"),
        ("standard", {"target_score": None}, 4, "target_score"),
        ("standard", {"rounds": 0}, 4, "rounds"),
        ("standard", {"rounds": 2, "target_score": 300}, 4, "rounds"),
        ("standard", {"scoring": "most_points"}, 4, "scoring"),
        ("standard", {"scoring": "elimination", "rounds": 2}, 4, "rounds"),
        ("standard", {"wild_draw_four": "sometimes"}, 4, "wild_draw_four"),
        ("standard", {"wild_keeps_color": False}, 4, "wild_keeps_color"),
        ("standard", {"first_wild_draw_four": "shuffle"}, 4, "first_wild_draw_four"),
        ("standard", {"dealer": "left"}, 4, "dealer"),
        ("standard", {"replay_cards": 1}, 4, "replay_cards"),
        ("standard", {"straights": "yes"}, 4, "straights"),
        ("standard", {"teams": True}, 5, "teams"),
        ("standard", {"two_player_replay": None}, 4, "two_player_replay"),
        ("standard", ["stacking"], 4, "options"),
        ("decktet_uno", {"decks": 2}, 2, "decks"),  # a second deck is for 3-4 players
        ("decktet_uno", {"decks": 3}, 3, "decks"),
        ("decktet_uno", {"face_down": "yes"}, 2, "face_down"),
        ("decktet_uno", {"stacking": "same"}, 2, "stacking"),  # a UNO option
        ("decktet_uno", {}, 5, "max_players"),
        ("decktet_uno", {}, 1, "max_players"),
        ("standard", {"swap_hands_card": True}, 4, "swap_hands_card"),  # no Shuffle Hands card to replace
        ("house", {"swap_hands_card": True}, 4, "swap_hands_card"),
        ("standard_112", {"uno_card": 1}, 4, "uno_card"),
        ("standard_112", {"hand_pass_cards": "yes"}, 4, "hand_pass_cards"),
        ("standard_112", {}, 11, "max_players"),
        ("no_such_game", {}, 4, "ruleset"),
        ("standard", {}, 1, "max_players"),
        ("standard", {}, 11, "max_players"),
        ("standard", {}, 0, "max_players"),
        ("standard", {}, True, "max_players"),
        ("standard", {}, "4", "max_players"),
        ("house", {}, 11, "max_players"),
    ],
)
def test_invalid_options_are_refused_naming_the_option(preset, options, seats, option):
    with pytest.raises(InvalidOptions) as info:
        new_game(preset, options, seats, seed=1)
    assert info.value.option == option
    assert info.value.code == "invalid_options"
    assert str(info.value).startswith(f"{option}:")


def test_an_option_of_another_family_is_refused_naming_it():
    """Each family has its own options: Decktet-Uno's are refused on a UNO preset and
    UNO's on decktet_uno (a 400 naming the option, not silently ignored)."""
    for preset, option, value in [("standard", "face_down", True), ("duo", "decks", 2),
                                  ("decktet_uno", "stacking", "same"), ("decktet_uno", "target_score", 100)]:
        with pytest.raises(InvalidOptions, match=f"not one of {preset}'s") as info:
            resolve_options(preset, {option: value})
        assert info.value.option == option
    assert "face_down" not in resolve_options("standard", {}) and "stacking" not in resolve_options("decktet_uno", {})


@pytest.mark.parametrize(
    "options",
    [
        {}, None, {"stacking": "same"}, {"stacking": "plus4_on_plus2"}, {"stacking": "any"},
        {"jump_in": "exact"}, {"jump_in": "super"}, {"seven_zero": True}, {"penalty_skips_turn": False},
        {"draw_limit": 3}, {"draw_limit": None}, {"uno_penalty": 7}, {"scoring": "lowest_total"},
        {"target_score": 1000}, {"rounds": 3}, {"rounds": None, "target_score": 1500}, {"two_player_replay": False},
    ],
)
def test_valid_options_are_resolved(options):
    state = new_game("standard", options, 2, seed=1)
    for k, v in (options or {}).items():
        assert state.options[k] == v
    assert set(state.options) == set(resolve_options("standard", {}))


def test_seat_range_accepted():
    for seats in (2, 10):
        assert new_game("standard", {}, seats, seed=3).seats == seats


def test_house_preset_options_and_overrides():
    opts = resolve_options("house", {})
    assert opts["uno_penalty"] == 4 and opts["penalty_skips_turn"] is False and opts["scoring"] == "lowest_total"
    assert resolve_options("house", {"uno_penalty": 2})["uno_penalty"] == 2


def test_config_keeps_its_own_copy_of_the_options():
    options = {"stacking": "same"}
    state = new_game("standard", options, 2, seed=1)
    options["stacking"] = "off"
    assert state.options["stacking"] == "same"
