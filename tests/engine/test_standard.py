"""RULES.md "The standard game": turns, Wild Draw Four and its challenge, penalties,
the two-player rule, UNO, empty piles, going out and scoring."""

import pytest

from games.engine import COLORS, FINISHED, GameOver, IllegalMove, InvalidAction, NotYourTurn, legal_actions, view, visible_events

from .helpers import (DECK, act, arrange, assert_conserved, assert_refused, card, card_name, ev_types, hand_names,
                      is_legal, names, only, play, top_name, types)


def playable_names(state, seat):
    return sorted({card_name(a["card"]) for a in legal_actions(state, seat) if a["type"] == "play"})


# -- matching --------------------------------------------------------------------------------
def test_play_matches_colour_number_or_symbol():
    state = arrange(
        3,
        hands=[["red 9", "blue 3", "blue 9", "green skip", "yellow draw_two", "red reverse"], ["green 1"], ["green 2"]],
        top="red 3",
    )
    assert playable_names(state, 0) == ["blue 3", "red 9", "red reverse"]


def test_play_matches_symbol_of_action_card():
    state = arrange(
        3,
        hands=[["blue skip", "green reverse", "yellow 5", "red 1", "blue draw_two"], ["green 1"], ["green 2"]],
        top="red skip",
    )
    assert playable_names(state, 0) == ["blue skip", "red 1"]


def test_wilds_playable_at_any_time_with_a_colour():
    state = arrange(
        3, hands=[["wild", "wild_draw_four", "blue 1"], ["green 1"], ["green 2"]], top="red 3"
    )
    plays = [a for a in legal_actions(state, 0) if a["type"] == "play"]
    wild, wd4 = card(state, 0, "wild"), card(state, 0, "wild_draw_four")
    for c in (wild, wd4):
        assert sorted(a["color"] for a in plays if a["card"] == c) == sorted(COLORS)
    assert not any(a["card"] == card(state, 0, "blue 1") for a in plays)


def test_wild_names_the_colour_in_force():
    state = arrange(3, hands=[["wild", "blue 1"], ["green 1", "yellow 7", "blue 8"], ["green 2"]], top="red 3")
    ev = play(state, 0, "wild", color="yellow")
    assert only(ev, "play")["color"] == "yellow"
    assert state.color == "yellow"
    assert state.actor() == 1
    assert playable_names(state, 1) == ["yellow 7"]


def test_wild_may_keep_the_current_colour():
    state = arrange(3, hands=[["wild", "blue 1"], ["red 1"], ["green 2"]], top="red 3")
    assert is_legal(state, 0, {"type": "play", "card": card(state, 0, "wild"), "color": "red"})


def test_number_card_passes_the_turn_to_the_left():
    state = arrange(4, hands=[["red 5", "red 6"], ["blue 1"], ["blue 2"], ["blue 3"]], top="red 3")
    play(state, 0, "red 5")
    assert state.actor() == 1
    assert top_name(state) == "red 5"
    assert state.color == "red"
    assert hand_names(state, 0) == ["red 6"]


def test_skip_skips_the_next_player():
    state = arrange(4, hands=[["red skip", "red 6"], ["blue 1"], ["blue 2"], ["blue 3"]], top="red 3")
    play(state, 0, "red skip")
    assert state.actor() == 2


def test_reverse_changes_direction():
    state = arrange(4, hands=[["red reverse", "red 6"], ["blue 1"], ["blue 2"], ["red 4", "red 7"]], top="red 3")
    play(state, 0, "red reverse")
    assert state.direction == -1
    assert state.actor() == 3
    play(state, 3, "red 4")
    assert state.actor() == 2


def test_other_seats_have_no_actions_on_an_ordinary_turn():
    state = arrange(3, hands=[["red 5", "red 6"], ["red 1", "red 2"], ["red 7", "red 8"]], top="red 3")
    assert legal_actions(state, 1) == []
    assert legal_actions(state, 2) == []
    assert_refused(state, 1, {"type": "play", "card": card(state, 1, "red 1")}, NotYourTurn)
    assert_refused(state, 2, {"type": "draw"}, NotYourTurn)


# -- drawing ---------------------------------------------------------------------------------
def test_may_draw_while_holding_a_playable_card():
    state = arrange(3, hands=[["red 5", "red 6"], ["blue 1"], ["blue 2"]], top="red 3", draw=["blue 7"])
    assert {"type": "draw"} in legal_actions(state, 0)
    ev = act(state, 0, "draw")
    assert hand_names(state, 0) == ["red 5", "red 6", "blue 7"]
    assert only(ev, "draw") == {"type": "draw", "seat": 0, "count": 1, "reason": "draw"}
    # the drawn card is unplayable: the turn passes at once
    assert only(ev, "pass")["auto"] is True
    assert state.actor() == 1


def test_drawn_playable_card_may_be_played_at_once_nothing_else():
    state = arrange(3, hands=[["red 5", "wild", "blue 3"], ["blue 1"], ["blue 2"]], top="red 3", draw=["red 9"])
    act(state, 0, "draw")
    drawn = card(state, 0, "red 9")
    assert state.actor() == 0
    assert state.pending["type"] == "play_drawn"
    assert state.drawn == [drawn]
    acts = legal_actions(state, 0)
    assert {a["type"] for a in acts} == {"play", "pass"}
    assert {a["card"] for a in acts if a["type"] == "play"} == {drawn}
    for other in ("red 5", "wild", "blue 3"):
        extra = {"color": "red"} if other == "wild" else {}
        assert_refused(state, 0, {"type": "play", "card": card(state, 0, other), **extra}, IllegalMove)
    assert_refused(state, 0, {"type": "draw"}, IllegalMove)  # draw_limit 1: one card only
    play(state, 0, drawn)
    assert top_name(state) == "red 9"
    assert state.actor() == 1


def test_drawn_playable_card_may_be_kept():
    state = arrange(3, hands=[["blue 5", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3", draw=["red 9"])
    act(state, 0, "draw")
    ev = act(state, 0, "pass")
    assert only(ev, "pass") == {"type": "pass", "seat": 0}
    assert hand_names(state, 0) == ["blue 5", "blue 6", "red 9"]
    assert state.actor() == 1


def test_unplayable_drawn_card_passes_automatically():
    state = arrange(3, hands=[["blue 5", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3", draw=["green 9"])
    ev = act(state, 0, "draw")
    assert ev_types(ev) == ["draw", "cards_drawn", "pass"]
    assert only(ev, "cards_drawn")["to"] == [0]
    assert state.actor() == 1 and state.pending is None and state.drawn == []


def test_pass_is_refused_before_drawing():
    state = arrange(3, hands=[["blue 5", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3")
    assert_refused(state, 0, {"type": "pass"}, IllegalMove)


# -- Wild Draw Four ----------------------------------------------------------------------------
def test_wild_draw_four_penalty_next_player_draws_four_and_loses_turn():
    state = arrange(3, hands=[["wild_draw_four", "blue 1", "blue 2"], ["green 1", "green 2", "green 5"], ["green 3"]],
                    top="red 3", draw=["yellow 1", "yellow 2", "yellow 3", "yellow 4"])
    play(state, 0, "wild_draw_four", color="blue")
    assert state.color == "blue"
    assert state.actor() == 1
    assert state.pending["amount"] == 4
    assert sorted(a["type"] for a in legal_actions(state, 1)) == ["challenge", "draw"]
    assert_refused(state, 1, {"type": "play", "card": card(state, 1, "green 1")}, IllegalMove)
    ev = act(state, 1, "draw")
    assert only(ev, "draw")["count"] == 4
    assert hand_names(state, 1) == ["green 1", "green 2", "green 5", "yellow 1", "yellow 2", "yellow 3", "yellow 4"]
    assert state.actor() == 2


def test_wild_draw_four_may_be_played_while_holding_the_colour_bluff():
    state = arrange(3, hands=[["wild_draw_four", "red 1"], ["green 1"], ["green 3"]], top="red 3")
    assert is_legal(state, 0, {"type": "play", "card": card(state, 0, "wild_draw_four"), "color": "blue"})


def test_challenge_guilty_offender_draws_four_challenger_keeps_turn():
    state = arrange(
        3,
        hands=[["wild_draw_four", "red 5", "blue 1"], ["green 1", "blue 9"], ["green 3", "green 4"]],
        top="red 3",
        draw=["yellow 1", "yellow 2", "yellow 3", "yellow 4"],
    )
    offender_hand = [DECK.dicts[c] for c in state.hands[0] if DECK.rank[c] != "wild_draw_four"]
    play(state, 0, "wild_draw_four", color="blue")
    ev = act(state, 1, "challenge")
    ch = only(ev, "challenge")
    assert ch == {"type": "challenge", "seat": 1, "target_seat": 0, "guilty": True}
    revealed = only(ev, "hand_revealed")
    assert revealed["seat"] == 0 and revealed["to"] == [1]
    assert revealed["cards"] == offender_hand
    # the hand is shown to the challenger only
    assert revealed in visible_events(ev, 1)
    for other in (0, 2, None):
        assert all(e["type"] != "hand_revealed" for e in visible_events(ev, other))
    assert hand_names(state, 0) == ["red 5", "blue 1", "yellow 1", "yellow 2", "yellow 3", "yellow 4"]
    assert only(ev, "draw") == {"type": "draw", "seat": 0, "count": 4, "reason": "challenge_lost"}
    assert hand_names(state, 1) == ["green 1", "blue 9"]
    assert state.actor() == 1 and state.pending is None
    assert state.color == "blue"
    assert "play" in types(state, 1)
    play(state, 1, "blue 9")
    assert state.actor() == 2


def test_challenge_innocent_challenger_draws_six_and_loses_turn():
    state = arrange(
        3,
        hands=[["wild_draw_four", "blue 1", "green 5"], ["green 1", "blue 9"], ["green 3", "green 4"]],
        top="red 3",
        draw=["yellow 1", "yellow 2", "yellow 3", "yellow 4", "yellow 5", "yellow 6"],
    )
    play(state, 0, "wild_draw_four", color="blue")
    ev = act(state, 1, "challenge")
    assert only(ev, "challenge")["guilty"] is False
    assert only(ev, "hand_revealed")["to"] == [1]
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": 6, "reason": "challenge_lost"}
    assert len(state.hands[1]) == 8
    assert hand_names(state, 0) == ["blue 1", "green 5"]
    assert state.actor() == 2 and state.pending is None


def test_challenge_judges_the_colour_before_the_wild_draw_four():
    # holding a card of the *new* colour, or a matching number, is not guilt; only the colour in force
    state = arrange(
        3,
        hands=[["wild_draw_four", "blue 3", "wild"], ["green 1", "blue 9"], ["green 3", "green 4"]],
        top="red 3",
    )
    play(state, 0, "wild_draw_four", color="blue")
    ev = act(state, 1, "challenge")
    assert only(ev, "challenge")["guilty"] is False


def test_challenge_only_after_a_wild_draw_four():
    state = arrange(3, hands=[["red draw_two", "blue 1"], ["green 1", "blue 9"], ["green 3"]], top="red 3")
    assert_refused(state, 0, {"type": "challenge"}, IllegalMove)
    play(state, 0, "red draw_two")
    assert "challenge" not in types(state, 1)
    assert_refused(state, 1, {"type": "challenge"}, IllegalMove)
    # and only the victim may challenge
    state = arrange(3, hands=[["wild_draw_four", "blue 1"], ["green 1", "blue 9"], ["green 3"]], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    assert_refused(state, 2, {"type": "challenge"}, NotYourTurn)


# -- Draw Two ----------------------------------------------------------------------------------
def test_draw_two_next_player_draws_two_and_loses_turn():
    state = arrange(3, hands=[["red draw_two", "blue 1", "blue 3"], ["red 1", "green 2", "blue 2"], ["green 3"]], top="red 3",
                    draw=["yellow 1", "yellow 2"])
    play(state, 0, "red draw_two")
    assert state.pending == {"type": "penalty", "seat": 1, "amount": 2, "kind": "draw_two", "by": 0}
    assert view(state)["pending"] == {"type": "penalty", "seat": 1, "amount": 2, "kind": "draw_two", "challengeable": False}
    assert legal_actions(state, 1) == [{"type": "draw"}]
    assert_refused(state, 1, {"type": "play", "card": card(state, 1, "red 1")}, IllegalMove)
    ev = act(state, 1, "draw")
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": 2, "reason": "draw_two"}
    assert hand_names(state, 1)[-2:] == ["yellow 1", "yellow 2"]
    assert state.actor() == 2
    assert top_name(state) == "red draw_two"


# -- two players -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["red skip", "red reverse"])
def test_two_players_skip_and_reverse_give_another_turn(name):
    state = arrange(2, hands=[[name, "red 7", "blue 1"], ["red 1", "red 2"]], top="red 3")
    play(state, 0, name)
    assert state.actor() == 0
    assert state.direction == 1
    assert state.pending is None
    play(state, 0, "red 7")
    assert state.actor() == 1


def test_two_players_draw_two_gives_another_turn():
    state = arrange(2, hands=[["red draw_two", "red 7", "blue 1"], ["red 1", "red 2"]], top="red 3")
    play(state, 0, "red draw_two")
    assert state.actor() == 1
    act(state, 1, "draw")
    assert len(state.hands[1]) == 4
    assert state.actor() == 0


def test_two_players_wild_draw_four_gives_another_turn():
    state = arrange(2, hands=[["wild_draw_four", "red 7", "blue 1"], ["red 1", "red 2"]], top="green 3")
    play(state, 0, "wild_draw_four", color="red")
    act(state, 1, "draw")
    assert len(state.hands[1]) == 6
    assert state.actor() == 0
    assert state.color == "red"


# -- UNO ---------------------------------------------------------------------------------------
def _uno_state(seats=3, options=None):
    hands = [["red 5", "red 6"], ["red 1", "blue 2", "green 2"], ["blue 7", "red 8", "green 9"], ["green 1", "blue 1"]]
    return arrange(seats, options=options, hands=hands[:seats], top="red 3",
                   draw=["yellow 1", "yellow 2", "yellow 3", "yellow 4", "yellow 5", "yellow 6", "yellow 7"])


def test_call_uno_before_playing_next_to_last_card():
    state = _uno_state()
    assert {"type": "call_uno"} in legal_actions(state, 0)
    ev = act(state, 0, "call_uno")
    assert ev == [{"type": "uno", "seat": 0}]
    assert {"type": "call_uno"} not in legal_actions(state, 0)
    ev = play(state, 0, "red 5")
    assert only(ev, "uno")["seat"] == 0
    assert state.uno_exposed is None
    assert "catch_uno" not in types(state, 1) | types(state, 2)
    assert_refused(state, 2, {"type": "catch_uno", "target_seat": 0}, IllegalMove)


def test_uno_flag_on_the_play():
    state = _uno_state()
    assert is_legal(state, 0, {"type": "play", "card": card(state, 0, "red 5"), "uno": True})
    ev = play(state, 0, "red 5", uno=True)
    assert ev_types(ev) == ["play", "uno"]
    assert state.uno_exposed is None
    assert "catch_uno" not in types(state, 2)


def test_uno_flag_refused_when_not_playing_the_next_to_last_card():
    state = arrange(3, hands=[["red 5", "red 6", "red 7"], ["red 1"], ["blue 2"]], top="red 3")
    assert_refused(state, 0, {"type": "play", "card": card(state, 0, "red 5"), "uno": True}, IllegalMove)
    assert_refused(state, 0, {"type": "call_uno"}, IllegalMove)


@pytest.mark.parametrize("options, penalty", [({}, 2), ({"uno_penalty": 4}, 4), ({"uno_penalty": 7}, 7)])
def test_catching_an_uncalled_player(options, penalty):
    state = _uno_state(options=options)
    ev = play(state, 0, "red 5")
    assert "uno" not in ev_types(ev)
    assert state.uno_exposed == 0
    assert view(state)["uno_catchable_seat"] == 0
    for seat in (1, 2):
        assert {"type": "catch_uno", "target_seat": 0} in legal_actions(state, seat)
    assert "catch_uno" not in types(state, 0)
    assert_refused(state, 0, {"type": "catch_uno", "target_seat": 0}, IllegalMove)
    ev = act(state, 2, "catch_uno", target_seat=0)  # any other player, not only the next one
    assert only(ev, "uno_caught") == {"type": "uno_caught", "seat": 2, "target_seat": 0}
    assert only(ev, "draw") == {"type": "draw", "seat": 0, "count": penalty, "reason": "uno_penalty"}
    assert len(state.hands[0]) == 1 + penalty
    assert state.uno_exposed is None
    assert state.actor() == 1  # the turn order is unchanged
    assert_refused(state, 1, {"type": "catch_uno", "target_seat": 0}, IllegalMove)


def test_house_preset_uno_penalty_is_four():
    state = arrange(3, preset="house", hands=[["red 5", "red 6"], ["red 1", "blue 2"], ["blue 7", "green 9"]], top="red 3")
    assert state.options["uno_penalty"] == 4
    play(state, 0, "red 5")
    act(state, 1, "catch_uno", target_seat=0)
    assert len(state.hands[0]) == 5


@pytest.mark.parametrize("next_action", ["play", "draw"])
def test_catch_window_closes_when_the_next_player_acts(next_action):
    state = _uno_state()
    play(state, 0, "red 5")
    if next_action == "play":
        play(state, 1, "red 1")
    else:
        act(state, 1, "draw")
    assert state.uno_exposed is None
    assert "catch_uno" not in types(state, 2)
    assert_refused(state, 2, {"type": "catch_uno", "target_seat": 0}, IllegalMove)
    assert len(state.hands[0]) == 1


def test_catch_window_closes_when_the_next_player_challenges():
    state = arrange(3, hands=[["wild_draw_four", "red 6"], ["red 1", "blue 2"], ["blue 7", "red 8"]], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    assert state.uno_exposed == 0
    act(state, 1, "challenge")
    assert state.uno_exposed is None
    assert_refused(state, 2, {"type": "catch_uno", "target_seat": 0}, IllegalMove)


def test_catch_window_stays_open_while_the_next_player_only_calls_uno():
    state = arrange(3, hands=[["red 5", "red 6"], ["red 1", "blue 2"], ["blue 7", "red 8", "green 9"]], top="red 3")
    play(state, 0, "red 5")
    act(state, 1, "call_uno")  # the next player prepares its own UNO: not yet a turn begun
    assert {"type": "catch_uno", "target_seat": 0} in legal_actions(state, 2)
    assert {"type": "catch_uno", "target_seat": 0} in legal_actions(state, 1)
    act(state, 1, "catch_uno", target_seat=0)
    assert len(state.hands[0]) == 3


def test_calling_uno_before_being_caught_is_safe():
    state = _uno_state()
    play(state, 0, "red 5")
    assert {"type": "call_uno"} in legal_actions(state, 0)
    ev = act(state, 0, "call_uno")
    assert ev == [{"type": "uno", "seat": 0}]
    assert state.uno_exposed is None
    assert_refused(state, 1, {"type": "catch_uno", "target_seat": 0}, IllegalMove)
    assert len(state.hands[0]) == 1


def test_catch_uno_needs_the_exposed_seat():
    state = _uno_state()
    play(state, 0, "red 5")
    assert_refused(state, 2, {"type": "catch_uno", "target_seat": 1}, IllegalMove)
    assert_refused(state, 2, {"type": "catch_uno"}, InvalidAction)


# -- empty piles -------------------------------------------------------------------------------
def test_empty_draw_pile_reshuffles_discard_except_top():
    state = arrange(3, hands=[["blue 5", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3", draw=[], rest="discard")
    assert state.draw_pile == []
    old_discard = list(state.discard)
    top = state.discard[-1]
    ev = act(state, 0, "draw")
    reshuffle = only(ev, "reshuffled")
    assert reshuffle["count"] == len(old_discard) - 1
    assert ev_types(ev).index("reshuffled") < ev_types(ev).index("draw")
    assert state.discard == [top]
    drawn = state.hands[0][-1]
    assert drawn in old_discard[:-1]
    assert sorted(state.draw_pile + [drawn]) == sorted(old_discard[:-1])
    assert_conserved(state)


def test_reshuffle_in_the_middle_of_a_penalty():
    state = arrange(3, hands=[["red draw_two", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3",
                    draw=["green 1"], rest="discard")
    play(state, 0, "red draw_two")
    below = list(state.discard[:-1])
    ev = act(state, 1, "draw")
    assert only(ev, "draw")["count"] == 2
    assert "reshuffled" in ev_types(ev)
    assert hand_names(state, 1)[:2] == ["blue 1", "green 1"]
    assert state.hands[1][2] in below
    assert names(state.discard) == ["red draw_two"]
    assert_conserved(state)


def test_both_piles_exhausted_player_draws_what_exists():
    # every card but the top and one in the draw pile is in a hand
    state = arrange(3, hands=[["red draw_two", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3",
                    draw=["green 1"], rest=2)
    play(state, 0, "red draw_two")
    assert len(state.discard) == 2  # the red 3 will be reshuffled after the green 1
    ev = act(state, 1, "draw")
    assert only(ev, "draw")["count"] == 2
    assert hand_names(state, 1) == ["blue 1", "green 1", "red 3"]
    assert state.draw_pile == [] and names(state.discard) == ["red draw_two"]
    assert_conserved(state)
    # now both piles are exhausted: a player who must draw draws nothing and the turn passes
    assert state.actor() == 2
    hand = list(state.hands[2])
    ev = act(state, 2, "draw")
    assert only(ev, "draw")["count"] == 0
    assert "cards_drawn" not in ev_types(ev) and "reshuffled" not in ev_types(ev)
    assert only(ev, "pass")["auto"] is True
    assert state.hands[2] == hand
    assert state.actor() == 0
    assert_conserved(state)


def test_penalty_with_both_piles_exhausted_draws_nothing():
    state = arrange(3, hands=[["red draw_two", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3", draw=[], rest=2)
    play(state, 0, "red draw_two")
    ev = act(state, 1, "draw")  # only the red 3 can be reshuffled
    assert only(ev, "draw")["count"] == 1
    assert hand_names(state, 1) == ["blue 1", "red 3"]
    assert state.actor() == 2
    assert_conserved(state)


# -- going out and scoring ---------------------------------------------------------------------
def test_going_out_ends_the_round():
    state = arrange(3, hands=[["red 5"], ["blue 1", "red skip"], ["wild", "green 9"]], top="red 3")
    ev = play(state, 0, "red 5")
    ended = only(ev, "round_ended")
    assert ended["winner"] == 0 and ended["round"] == 1 and ended["blocked"] is False
    assert ended["hand_points"] == [0, 21, 59]
    assert ended["points"] == [80, 0, 0]
    assert ended["scores"] == [80, 0, 0] == state.scores
    assert state.history == [{"round": 1, "winner": 0, "points": [80, 0, 0]}]
    assert state.round == 2 and state.status == "active"
    assert ev_types(ev).index("round_ended") < ev_types(ev).index("round_started")
    assert_conserved(state)


@pytest.mark.parametrize(
    "hand, points",
    [
        (["red 0", "blue 9", "green 5"], 14),
        (["red skip", "blue reverse", "green draw_two"], 60),
        (["wild", "wild_draw_four"], 100),
        (["yellow 7", "wild", "yellow skip", "red 1"], 78),
    ],
)
def test_winner_takes_scores_the_others_hands(hand, points):
    state = arrange(3, hands=[["red 5"], hand, ["blue 1", "blue 2"]], top="red 3")
    ev = play(state, 0, "red 5")
    assert only(ev, "round_ended")["hand_points"] == [0, points, 3]
    assert state.scores == [points + 3, 0, 0]


@pytest.mark.parametrize("last, drawn", [("red draw_two", 2), ("wild_draw_four", 4)])
def test_last_card_penalty_still_makes_next_player_draw_and_counts(last, drawn):
    extra = {"color": "red"} if last == "wild_draw_four" else {}
    state = arrange(3, hands=[[last], ["blue 1"], ["blue 2"]], top="red 3",
                    draw=["green 9", "yellow skip", "wild", "green 4"])
    ev = play(state, 0, last, **extra)
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": drawn, "reason": last.split()[-1]}
    assert names(c["id"] for c in only(ev, "cards_drawn")["cards"]) == ["green 9", "yellow skip", "wild", "green 4"][:drawn]
    expected_1 = 1 + sum([9, 20, 50, 4][:drawn])  # blue 1 + the cards drawn
    ended = only(ev, "round_ended")
    assert ended["winner"] == 0
    assert ended["hand_points"] == [0, expected_1, 2]
    assert ended["points"] == [expected_1 + 2, 0, 0]
    assert ev_types(ev).index("draw") < ev_types(ev).index("round_ended")
    assert "challenge" not in ev_types(ev)


def test_target_score_ends_the_game():
    state = arrange(3, options={"target_score": 50}, hands=[["red 5"], ["wild"], ["blue 1"]], top="red 3")
    ev = play(state, 0, "red 5")
    assert only(ev, "game_ended") == {"type": "game_ended", "winner": 0, "scores": [51, 0, 0]}
    assert "round_started" not in ev_types(ev)
    assert state.status == FINISHED and state.winner == 0
    assert state.actor() is None
    assert view(state)["winner"] == 0 and view(state)["status"] == "finished"
    for seat in range(3):
        assert legal_actions(state, seat) == []
    assert_refused(state, 1, {"type": "draw"}, GameOver)
    assert_refused(state, 0, {"type": "timeout"}, GameOver, apply_kw={"system": True})


def test_below_target_score_another_round_is_dealt():
    state = arrange(3, options={"target_score": 52}, hands=[["red 5"], ["wild"], ["blue 1"]], top="red 3")
    ev = play(state, 0, "red 5")
    assert "game_ended" not in ev_types(ev)
    assert state.status == "active" and state.round == 2 and state.scores == [51, 0, 0]


def test_default_target_score_is_500():
    state = arrange(2, hands=[["red 5"], ["wild"] * 1], top="red 3")
    state.scores = [449, 0]
    play(state, 0, "red 5")
    assert state.scores == [499, 0] and state.status == "active"
    state = arrange(2, hands=[["red 5"], ["wild"]], top="red 3")
    state.scores = [450, 0]
    play(state, 0, "red 5")
    assert state.scores == [500, 0] and state.status == FINISHED and state.winner == 0


def test_tie_at_the_end_plays_another_round():
    # rounds: 1 but nobody scored: the best total is shared, so another round is played
    state = arrange(2, options={"rounds": 1}, hands=[["red 5"], ["blue 0"]], top="red 3")
    ev = play(state, 0, "red 5")
    assert state.scores == [0, 0]
    assert "game_ended" not in ev_types(ev)
    assert state.status == "active" and state.round == 2


def test_view_after_draw_shows_drawn_to_the_drawer_only():
    state = arrange(3, hands=[["blue 5", "blue 6"], ["blue 1"], ["blue 2"]], top="red 3", draw=["red 9"])
    act(state, 0, "draw")
    v = view(state, 0)
    assert v["drawn"] == [card(state, 0, "red 9")]
    assert v["pending"] == {"type": "play_drawn", "seat": 0, "drawn_count": 1}
    assert "drawn" not in view(state, 1)
    assert "hand" not in view(state) and "drawn" not in view(state)
    assert [c["id"] for c in view(state, 1)["hand"]] == state.hands[1]


def test_pending_wild_draw_four_does_not_reveal_guilt():
    state = arrange(3, hands=[["wild_draw_four", "red 1", "red 2"], ["red 9", "green 9", "red 4"], ["green 2", "green 3"]],
                    top="red 3")
    ev = play(state, 0, "wild_draw_four", color="green")
    assert state.pending["guilty"] is True  # kept internally for the challenge ...
    for seat in (None, 0, 1, 2):
        v = view(state, seat)
        assert v["pending"] == {"type": "penalty", "seat": 1, "amount": 4, "kind": "wild_draw_four", "challengeable": True}
        assert "guilty" not in str(v)
    assert all("guilty" not in e for e in ev)  # ... and told nobody


def test_jumper_may_call_uno_with_the_jump_in():
    state = arrange(3, options={"jump_in": "exact"},
                    hands=[["red 9", "blue 1", "blue 2"], ["green 9", "blue 4", "blue 6"], ["red 5", "green 1"]],
                    top="red 5", current=1)
    five = card(state, 2, "red 5")
    acts = legal_actions(state, 2)
    assert {"type": "play", "card": five, "uno": True} in acts
    ev = play(state, 2, five, uno=True)
    assert ev_types(ev) == ["jump_in", "play", "uno"]
    assert state.uno_exposed is None
    assert state.actor() == 0


def test_spectator_events_hold_no_private_event():
    state = arrange(3, options={"seven_zero": True},
                    hands=[["red 7", "blue 1", "blue 2"], ["green 9", "blue 4"], ["green 1", "green 2"]], top="red 3")
    ev = play(state, 0, "red 7", target_seat=1)
    assert [e["type"] for e in visible_events(ev, None)] == ["play", "hands_swapped"]
    assert len(visible_events(ev, None, reveal_all=True)) == len(ev) == 4
    assert [e["type"] for e in visible_events(ev, 2)] == ["play", "hands_swapped"]
    assert [e["type"] for e in visible_events(ev, 1)] == ["play", "hands_swapped", "hand"]
