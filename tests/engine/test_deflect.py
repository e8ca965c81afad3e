"""Option ``deflect_cards`` (RULES.md "Extra cards", seed 004 "Renvoi"), sentence by sentence,
then its interactions (stacking, the Wild Draw Four's challenge, jump-in, UNO, two players,
the timer), the saved forms, the bots, and property tests over thousands of random games.

RULES.md: "`deflect_cards` (seed 004 "Renvoi"): four, one per colour, 20 points; played by
the victim of a +2, +4 or Skip instead of suffering it, sending the effect back to the
player who played it.  Decision: with this option a Skip opens a decision for its victim
(accept it, or deflect) whether or not they hold a Renvoi, so that the pause reveals
nothing about their hand; a Renvoi may be played on a Renvoi."

The positions are arranged on the game's own 112-card deck (:func:`arrange`): cards are
named ``"red 5"``, ``"blue skip"``, ``"wild_draw_four"``, ``"green deflect"`` (a Renvoi).
"""

from __future__ import annotations

import json
import random

import pytest

from games import engine
from games.bots import choose
from games.engine import (COLORS, DECISIONS, Action, IllegalMove, InvalidOptions, NotYourTurn, State, apply,
                          build_rules, legal_actions, legal_moves, new_game, observe, owed, resolve_options, view,
                          visible_events)
from games.engine.uno.deflect import ONLY_IN_ANSWER

from . import test_properties as properties
from .helpers import (arrange_game, assert_bot_answers_legally, assert_game_conserved, assert_refused, ev_types,
                      only, touch)
from .test_core import check_copy_then_push

RENVOI = "deflect"
# fillers: never red, never a 3 (the usual top card), never an action card
F0, F1, F2, F3 = (["blue 1", "blue 2", "blue 4"], ["yellow 1", "yellow 2", "yellow 4"],
                  ["blue 6", "blue 8", "blue 9"], ["yellow 6", "yellow 8", "yellow 9"])
GREENS = ["green 1", "green 2", "green 4", "green 5", "green 6", "green 7", "green 8", "green 9"]


# ----------------------------------------------------------------------------------------------
# arranged positions on the game's deck
# ----------------------------------------------------------------------------------------------
def arrange(seats: int = 3, hands: list[list[str]] | None = None, top: str = "red 3", draw: list[str] = (),
            current: int = 0, options: dict | None = None, preset: str = "standard", color: str | None = None,
            direction: int = 1, deflect: bool = True) -> State:
    """A game with ``deflect_cards`` (unless ``deflect`` is False) in an arranged position:
    ``hands`` by name, ``top`` the discard pile, ``draw`` the next cards drawn (in order),
    every other card below them in the draw pile; round 1, nothing pending."""
    opts = {**(options or {}), **({"deflect_cards": True} if deflect else {})}
    return arrange_game(seats, opts, hands=hands, top=top, draw=draw, current=current, color=color,
                        direction=direction, preset=preset)


def name(state: State, card: int) -> str:
    return build_rules(state.config).deck.cards[card].name


def cid(state: State, seat: int, card_name: str) -> int:
    """The id of the first card called ``card_name`` in ``seat``'s hand."""
    for c in state.hands[seat]:
        if name(state, c) == card_name:
            return c
    raise KeyError(f"seat {seat} holds no {card_name!r}")


def renvoi(state: State, seat: int) -> int:
    """The id of a Renvoi in ``seat``'s hand."""
    return next(c for c in state.hands[seat] if build_rules(state.config).deck.rank[c] == RENVOI)


def play(state: State, seat: int, card_name: str, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": cid(state, seat, card_name), **extra})


def deflect(state: State, seat: int, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": renvoi(state, seat), **extra})


def act(state: State, seat: int, kind: str, **fields) -> list[dict]:
    return apply(state, seat, {"type": kind, **fields})


def pending(state: State) -> dict | None:
    return view(state, None)["pending"]


# ==============================================================================================
# "four, one per colour, 20 points"
# ==============================================================================================
def test_four_renvoi_one_per_colour_worth_20_points_listed_in_the_deck_description():
    """RULES.md: "four, one per colour, 20 points" (and "each adds to the deck and is listed
    in the game's deck description")."""
    deck = build_rules(new_game("standard", {"deflect_cards": True}, 3, 1).config).deck
    assert len(deck) == 112 and deck.name == "standard_108+deflect_cards"
    assert deck.describe()["ranks"]["deflect"] == 4 and deck.describe()["size"] == 112
    renvois = [c for c in deck.cards if c.rank == RENVOI]
    assert [c.color for c in renvois] == list(COLORS)
    assert all(c.points == 20 and c.kind == "action" for c in renvois)
    assert renvois[0].to_dict() == {"id": 108, "color": "red", "rank": "deflect"}
    assert deck.cards[:108] == build_rules(new_game("standard", {}, 3, 1).config).deck.cards  # ids kept
    # off by default: the standard deck, and a Skip skips at once
    assert resolve_options("standard", {})["deflect_cards"] is False
    assert len(build_rules(new_game("standard", {}, 3, 1).config).deck) == 108
    state = arrange(3, hands=[["red skip", *F0], F1, F2], deflect=False)
    play(state, 0, "red skip")
    assert state.pending is None and state.actor() == 2


def test_a_renvoi_left_in_hand_counts_20_points():
    state = arrange(3, hands=[["red 5"], ["green deflect", "blue 1"], ["yellow 2"]])
    ev = play(state, 0, "red 5")
    ended = only(ev, "round_ended")
    assert ended["hand_points"] == [0, 21, 2] and ended["points"] == [23, 0, 0]


@pytest.mark.parametrize("value", [1, "true", None, "yes"])
def test_the_option_is_a_boolean_refused_otherwise_naming_it(value):
    with pytest.raises(InvalidOptions) as info:
        new_game("standard", {"deflect_cards": value}, 3, 1)
    assert info.value.option == "deflect_cards" and str(info.value) == "deflect_cards: must be true or false"
    assert resolve_options("house", {"deflect_cards": True})["deflect_cards"] is True


# ==============================================================================================
# "played by the victim of a +2, +4 or Skip instead of suffering it, sending the effect back
# to the player who played it"
# ==============================================================================================
def test_the_victim_of_a_draw_two_sends_it_back_to_its_player():
    """"played by the victim of a +2 ... instead of suffering it, sending the effect back to
    the player who played it": who decides (the player of the +2) and where play resumes
    (the victim, who escaped) are separate."""
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", *F1], F2], draw=GREENS[:2])
    play(state, 0, "red draw_two")
    r = renvoi(state, 1)
    assert legal_actions(state, 1) == [{"type": "draw"}, {"type": "play", "card": r}]
    ev = deflect(state, 1)
    assert ev_types(ev) == ["play", "deflected"]
    assert only(ev, "deflected") == {"type": "deflected", "seat": 1, "target_seat": 0, "kind": "draw_two",
                                     "amount": 2}
    assert pending(state) == {"type": "deflected", "seat": 0, "by": 1, "kind": "draw_two", "amount": 2}
    assert state.actor() == 0 and state.current == 1  # the decision is owed by a seat not in turn
    assert view(state, 2)["current_seat"] == 0
    assert owed(state) == [(0, "deflected", "turn")]
    assert legal_actions(state, 0) == [{"type": "draw"}]
    assert legal_actions(state, 1) == [] and legal_actions(state, 2) == []
    assert_refused(state, 1, {"type": "draw"}, NotYourTurn)
    assert state.color == "green"  # the Renvoi is the top card: its colour is in force
    ev = act(state, 0, "draw")
    assert only(ev, "draw") == {"type": "draw", "seat": 0, "count": 2, "reason": "draw_two"}
    assert len(state.hands[0]) == 3 + 2 and len(state.hands[1]) == 3
    assert state.actor() == 1 and state.pending is None  # the first victim plays
    assert_game_conserved(state)


def test_the_victim_of_a_wild_draw_four_sends_it_back_instead_of_challenging():
    """"played by the victim of a ... +4": the victim may challenge, or deflect; sent back,
    the Wild Draw Four can no longer be challenged."""
    state = arrange(3, hands=[["wild_draw_four", *F0], ["yellow deflect", *F1], F2], draw=GREENS[:4])
    play(state, 0, "wild_draw_four", color="green")
    assert {a["type"] for a in legal_actions(state, 1)} == {"draw", "challenge", "play"}
    deflect(state, 1)
    assert pending(state) == {"type": "deflected", "seat": 0, "by": 1, "kind": "wild_draw_four", "amount": 4}
    assert legal_actions(state, 0) == [{"type": "draw"}]
    exc = assert_refused(state, 0, {"type": "challenge"}, IllegalMove)
    assert exc.detail == "a Wild Draw Four sent back cannot be challenged"
    act(state, 0, "draw")
    assert len(state.hands[0]) == 3 + 4 and state.actor() == 1 and state.color == "yellow"


def test_the_victim_of_a_skip_sends_it_back_and_plays():
    """"played by the victim of a ... Skip": sent back, the Skip's player is the one skipped,
    which leaves play with the first victim."""
    state = arrange(3, hands=[["red skip", *F0], ["blue deflect", *F1], F2])
    play(state, 0, "red skip")
    assert pending(state) == {"type": "skip", "seat": 1, "by": 0}
    assert legal_actions(state, 1) == [{"type": "pass"}, {"type": "play", "card": renvoi(state, 1)}]
    ev = deflect(state, 1)
    assert only(ev, "deflected") == {"type": "deflected", "seat": 1, "target_seat": 0, "kind": "skip", "amount": 0}
    assert pending(state) == {"type": "deflected", "seat": 0, "by": 1, "kind": "skip", "amount": 0}
    assert legal_actions(state, 0) == [{"type": "pass"}]
    exc = assert_refused(state, 0, {"type": "draw"}, IllegalMove)
    assert exc.detail == "seat 1 sent it back to you: accept the Skip (pass) or send it back with a Renvoi"
    assert act(state, 0, "pass") == [{"type": "skipped", "seat": 0}]
    assert state.actor() == 1 and state.pending is None and state.hands[0] == [cid(state, 0, n) for n in F0]


def test_a_skip_accepted_skips_its_victim():
    state = arrange(3, hands=[["red skip", *F0], ["blue deflect", *F1], F2])
    play(state, 0, "red skip")
    assert act(state, 1, "pass") == [{"type": "skipped", "seat": 1}]
    assert state.actor() == 2 and state.pending is None and len(state.hands[1]) == 4


def test_a_renvoi_is_played_only_in_answer_never_in_an_ordinary_turn_nor_jumped_in():
    """"played by the victim of a +2, +4 or Skip": no other use (a decision where the rules
    are silent): not by the matching rule, not after drawing, never jumped in."""
    state = arrange(3, hands=[["red deflect", "red 5", *F0], ["yellow deflect", *F1], ["green deflect", *F2]],
                    draw=["blue deflect"], options={"jump_in": "super"})
    assert [a for a in legal_actions(state, 0) if a["type"] == "play"] == [
        {"type": "play", "card": cid(state, 0, "red 5")}]
    exc = assert_refused(state, 0, {"type": "play", "card": cid(state, 0, "red deflect")}, IllegalMove)
    assert exc.detail == ONLY_IN_ANSWER
    ev = act(state, 0, "draw")  # draws the blue Renvoi: not playable, the turn passes
    assert ev_types(ev)[-1] == "pass" and ev[-1]["auto"] is True and state.actor() == 1
    # a Renvoi on top (after a deflection): nobody may jump in with another, even with super
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", *F1], ["yellow deflect", *F2]],
                    options={"jump_in": "super"})
    play(state, 0, "red draw_two")
    deflect(state, 1)
    assert legal_actions(state, 2) == []
    assert_refused(state, 2, {"type": "play", "card": renvoi(state, 2)}, NotYourTurn)


def test_a_renvoi_turned_up_first_is_a_plain_card_of_its_colour():
    state = arrange(3, hands=[["red 5", *F0], F1, F2], top="red deflect")
    assert {"type": "play", "card": cid(state, 0, "red 5")} in legal_actions(state, 0)
    play(state, 0, "red 5")
    assert state.actor() == 1


# ==============================================================================================
# "Decision: with this option a Skip opens a decision for its victim (accept it, or deflect)
# whether or not they hold a Renvoi, so that the pause reveals nothing about their hand"
# ==============================================================================================
def _skip_position(victim_holds_renvoi: bool) -> State:
    return arrange(3, hands=[["red skip", *F0], ["blue deflect" if victim_holds_renvoi else "green 7", *F1], F2])


def test_a_skip_opens_a_decision_for_its_victim_whether_or_not_they_hold_a_renvoi():
    """"a Skip opens a decision for its victim (accept it, or deflect) whether or not they
    hold a Renvoi"."""
    for holds in (True, False):
        state = _skip_position(holds)
        play(state, 0, "red skip")
        assert pending(state) == {"type": "skip", "seat": 1, "by": 0}
        assert state.actor() == 1 and owed(state) == [(1, "skip", "turn")]
        listed = legal_actions(state, 1)
        assert listed[0] == {"type": "pass"} and len(listed) == (2 if holds else 1)


def test_the_pause_reveals_nothing_about_the_victims_hand():
    """"so that the pause reveals nothing about their hand": what every other seat and a
    spectator see of a Skip's victim, and what is owed (hence the victim's deadline), is
    the same whether or not the victim holds a Renvoi; so is the pause of the player a
    Renvoi sends an effect back to."""
    seen: list = []
    for holds in (True, False):
        state = _skip_position(holds)
        ev = play(state, 0, "red skip")
        seen.append((
            [view(state, s) for s in (None, 0, 2)],
            [legal_actions(state, s) for s in (0, 2)],
            owed(state),
            [visible_events(ev, s) for s in (None, 0, 2)],
        ))
    assert seen[0] == seen[1]
    for holds in (True, False):  # sent back: the Skip's player owes the decision all the same
        state = arrange(3, hands=[["red skip", "red deflect" if holds else "red 7", *F0], ["blue deflect", *F1], F2])
        play(state, 0, "red skip")
        deflect(state, 1)
        assert owed(state) == [(0, "deflected", "turn")] and pending(state)["seat"] == 0


# ==============================================================================================
# "a Renvoi may be played on a Renvoi"
# ==============================================================================================
def test_a_renvoi_may_be_played_on_a_renvoi():
    """"a Renvoi may be played on a Renvoi": sent back again, the effect falls on the first
    victim, who is in turn: it draws and loses the turn."""
    state = arrange(3, hands=[["red draw_two", "red deflect", *F0], ["green deflect", *F1], F2], draw=GREENS[:2])
    play(state, 0, "red draw_two")
    deflect(state, 1)
    assert legal_actions(state, 0) == [{"type": "draw"}, {"type": "play", "card": renvoi(state, 0)}]
    ev = deflect(state, 0)
    assert only(ev, "deflected") == {"type": "deflected", "seat": 0, "target_seat": 1, "kind": "draw_two",
                                     "amount": 2}
    assert pending(state) == {"type": "deflected", "seat": 1, "by": 0, "kind": "draw_two", "amount": 2}
    assert state.current == 1 and state.color == "red"
    assert legal_actions(state, 1) == [{"type": "draw"}]
    act(state, 1, "draw")
    assert len(state.hands[1]) == 3 + 2 and state.actor() == 2  # it lost its turn


def test_renvoi_after_renvoi_until_someone_accepts():
    state = arrange(3, hands=[["red skip", "red deflect", *F0], ["green deflect", "yellow deflect", *F1], F2])
    play(state, 0, "red skip")
    deflect(state, 1)
    deflect(state, 0)
    deflect(state, 1)
    assert pending(state) == {"type": "deflected", "seat": 0, "by": 1, "kind": "skip", "amount": 0}
    act(state, 0, "pass")
    assert state.actor() == 1 and state.pending is None


# ==============================================================================================
# stacking, the challenge, penalty_skips_turn
# ==============================================================================================
def test_a_stacked_penalty_goes_back_whole_to_the_last_player_who_added_to_it():
    state = arrange(3, hands=[["red draw_two", *F0], ["green draw_two", *F1], ["yellow deflect", *F2]],
                    draw=GREENS[:4], options={"stacking": "same"})
    play(state, 0, "red draw_two")
    play(state, 1, "green draw_two")
    assert legal_actions(state, 2) == [{"type": "draw"}, {"type": "play", "card": renvoi(state, 2)}]
    deflect(state, 2)
    assert pending(state) == {"type": "deflected", "seat": 1, "by": 2, "kind": "draw_two", "amount": 4}
    act(state, 1, "draw")
    assert len(state.hands[1]) == 3 + 4 and state.actor() == 2  # the first victim of the +4 plays


def test_an_effect_sent_back_cannot_be_stacked_on():
    state = arrange(3, hands=[["red draw_two", "blue draw_two", "wild_draw_four", *F0], ["green deflect", *F1], F2],
                    options={"stacking": "any"})
    play(state, 0, "red draw_two")
    deflect(state, 1)
    assert legal_actions(state, 0) == [{"type": "draw"}]
    exc = assert_refused(state, 0, {"type": "play", "card": cid(state, 0, "blue draw_two")}, IllegalMove)
    assert exc.detail == ("seat 1 sent it back to you: accept the 2-card penalty (draw) or send it back with a "
                          "Renvoi")


def test_the_first_victim_may_still_stack_or_challenge_instead():
    state = arrange(3, hands=[["wild_draw_four", *F0], ["wild_draw_four", "green deflect", *F1], F2],
                    options={"stacking": "same"})
    play(state, 0, "wild_draw_four", color="blue")
    kinds = [(a["type"], name(state, a["card"]) if "card" in a else None) for a in legal_actions(state, 1)]
    assert ("draw", None) in kinds and ("challenge", None) in kinds
    assert ("play", "wild_draw_four") in kinds and ("play", "green deflect") in kinds


@pytest.mark.parametrize("skips", [True, False])
def test_penalty_skips_turn_only_matters_to_a_victim_in_turn(skips):
    """Sent back, the +2's player draws and the first victim plays either way; sent back
    again, the first victim draws and loses the turn only with ``penalty_skips_turn``."""
    opts = {"penalty_skips_turn": skips}
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", *F1], F2], options=opts)
    play(state, 0, "red draw_two")
    deflect(state, 1)
    act(state, 0, "draw")
    assert state.actor() == 1
    state = arrange(3, hands=[["red draw_two", "red deflect", *F0], ["green deflect", *F1], F2], options=opts)
    play(state, 0, "red draw_two")
    deflect(state, 1)
    deflect(state, 0)
    act(state, 1, "draw")
    assert state.actor() == (2 if skips else 1)


# ==============================================================================================
# two players
# ==============================================================================================
def test_two_players_skip_accepted_gives_its_player_another_turn_deflected_gives_it_back():
    state = arrange(2, hands=[["red skip", *F0], ["blue deflect", *F1]])
    play(state, 0, "red skip")
    act(state, 1, "pass")
    assert state.actor() == 0  # RULES.md: Skip gives the player another turn at once
    state = arrange(2, hands=[["red skip", *F0], ["blue deflect", *F1]])
    play(state, 0, "red skip")
    deflect(state, 1)
    assert state.actor() == 0 and state.current == 1
    act(state, 0, "pass")
    assert state.actor() == 1
    state = arrange(2, hands=[["red draw_two", *F0], ["blue deflect", *F1]])
    play(state, 0, "red draw_two")
    deflect(state, 1)
    act(state, 0, "draw")
    assert state.actor() == 1 and len(state.hands[0]) == 5


def test_two_players_a_reverse_acting_as_skip_is_not_deflected():
    state = arrange(2, hands=[["red reverse", *F0], ["blue deflect", *F1]])
    play(state, 0, "red reverse")
    assert state.pending is None and state.actor() == 0


# ==============================================================================================
# UNO: calling, catching, going out with a Renvoi
# ==============================================================================================
def test_a_renvoi_as_next_to_last_card_calls_uno_with_the_play():
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", "yellow 1"], F2])
    play(state, 0, "red draw_two")
    r = renvoi(state, 1)
    assert legal_actions(state, 1) == [{"type": "draw"}, {"type": "play", "card": r},
                                       {"type": "play", "card": r, "uno": True}, {"type": "call_uno"}]
    ev = deflect(state, 1, uno=True)
    assert "uno" in ev_types(ev) and view(state, None)["uno_catchable_seat"] is None


def test_an_uncalled_renvoi_may_be_caught_until_the_player_it_went_back_to_accepts():
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", "yellow 1"], F2])
    play(state, 0, "red draw_two")
    deflect(state, 1)
    assert view(state, None)["uno_catchable_seat"] == 1
    assert {"type": "catch_uno", "target_seat": 1} in legal_actions(state, 0)
    assert legal_actions(state, 2) == [{"type": "catch_uno", "target_seat": 1}]
    act(state, 0, "draw")  # accepting closes the window, as accepting any penalty does
    assert view(state, None)["uno_catchable_seat"] is None and legal_actions(state, 2) == []
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", "yellow 1"], F2])
    play(state, 0, "red draw_two")
    deflect(state, 1)
    ev = act(state, 2, "catch_uno", target_seat=1)
    assert only(ev, "draw")["count"] == 2 and len(state.hands[1]) == 3
    assert state.actor() == 0  # the catch changes nothing of what is owed


def test_the_player_an_effect_went_back_to_calls_no_uno_ahead():
    state = arrange(3, hands=[["red draw_two", "blue 1", "blue 2"], ["green deflect", *F1], F2])
    play(state, 0, "red draw_two")
    deflect(state, 1)
    assert legal_actions(state, 0) == [{"type": "draw"}]  # not in turn: nothing to call ahead of


def test_going_out_with_a_renvoi_still_sends_a_penalty_back():
    """As a last Draw Two still makes the next player draw, a last Renvoi still sends the
    penalty back; those cards count."""
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect"], F2], draw=["green 9", "green 8"])
    play(state, 0, "red draw_two")
    ev = deflect(state, 1)
    assert ev_types(ev)[:4] == ["play", "deflected", "draw", "cards_drawn"]
    ended = only(ev, "round_ended")
    assert ended["winner"] == 1 and ended["hand_points"][0] == 1 + 2 + 4 + 9 + 8
    assert state.status == "finished" and state.winner == 1


def test_going_out_with_a_renvoi_on_a_skip_ends_the_round():
    state = arrange(3, hands=[["red skip", *F0], ["green deflect"], F2])
    play(state, 0, "red skip")
    ev = deflect(state, 1)
    assert "draw" not in ev_types(ev) and only(ev, "round_ended")["winner"] == 1


def test_a_last_card_effect_is_not_deflected():
    state = arrange(3, hands=[["red draw_two"], ["green deflect", *F1], F2])
    ev = play(state, 0, "red draw_two")
    assert only(ev, "round_ended")["winner"] == 0 and len(state.hands[1]) == 4 + 2


# ==============================================================================================
# jump-in
# ==============================================================================================
def test_a_jump_in_on_a_skip_cancels_its_victims_decision():
    state = arrange(3, hands=[["red skip", *F0], ["blue skip", "blue deflect", *F1], ["red skip", *F2]],
                    options={"jump_in": "super"})
    play(state, 0, "red skip")
    # the victim answers the Skip (accept or deflect); it does not jump in on it
    assert legal_actions(state, 1) == [{"type": "pass"}, {"type": "play", "card": renvoi(state, 1)}]
    assert {"type": "play", "card": cid(state, 2, "red skip")} in legal_actions(state, 2)
    ev = play(state, 2, "red skip")
    assert ev_types(ev)[:2] == ["jump_in", "play"]
    assert pending(state) == {"type": "skip", "seat": 0, "by": 2}  # its own effect follows from the jumper
    assert len(state.hands[1]) == 5


# ==============================================================================================
# the timer: the victim's deadline; the timer accepts the effect
# ==============================================================================================
def test_the_timer_accepts_a_skip_for_its_victim_and_never_deflects():
    state = arrange(3, hands=[["red skip", *F0], ["blue deflect", *F1], F2])
    play(state, 0, "red skip")
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert ev == [{"type": "timeout", "seat": 1}, {"type": "skipped", "seat": 1}]
    assert state.actor() == 2 and renvoi(state, 1) in state.hands[1]


def test_the_timer_accepts_an_effect_sent_back_for_the_player_it_went_back_to():
    state = arrange(3, hands=[["red draw_two", "red deflect", *F0], ["green deflect", *F1], F2])
    play(state, 0, "red draw_two")
    ev = apply(state, 1, {"type": "timeout"}, system=True)  # the timer accepts: it never deflects
    assert only(ev, "draw")["count"] == 2 and state.actor() == 2
    state = arrange(3, hands=[["red draw_two", "red deflect", *F0], ["green deflect", *F1], F2])
    play(state, 0, "red draw_two")
    deflect(state, 1)
    assert owed(state) == [(0, "deflected", "turn")]  # the deadline is the victim's
    assert_refused(state, 1, {"type": "timeout"}, NotYourTurn, apply_kw={"system": True})
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert ev_types(ev) == ["timeout", "draw", "cards_drawn"] and len(state.hands[0]) == 4 + 2
    assert state.actor() == 1 and state.pending is None  # the timer's work ends: seat 0 owes nothing


# ==============================================================================================
# effects nobody played: the first card
# ==============================================================================================
def _first(rank: str) -> State:
    for seed in range(2000):
        state = new_game("standard", {"deflect_cards": True}, 3, f"first-{seed}")
        if build_rules(state.config).deck.rank[state.discard[-1]] == rank:
            return state
    raise AssertionError(f"no first {rank} in 2000 deals")


def test_a_first_skip_opens_no_decision_and_a_first_draw_two_cannot_be_sent_back():
    state = _first("skip")
    assert state.pending is None and state.actor() == (state.dealer + 2) % 3
    state = _first("draw_two")
    victim = state.actor()
    assert pending(state)["type"] == "penalty" and state.pending["by"] is None
    deck = build_rules(state.config).deck
    r = next(c for c in range(108, 112) if c not in state.hands[victim])
    holder = next((h for h in state.hands if r in h), state.draw_pile)
    i = holder.index(r)
    holder[i], state.hands[victim][0] = state.hands[victim][0], r  # give the victim a Renvoi
    touch(state)
    assert_game_conserved(state)
    assert deck.rank[r] == RENVOI and legal_actions(state, victim) == [{"type": "draw"}]
    assert_refused(state, victim, {"type": "play", "card": r}, IllegalMove)


# ==============================================================================================
# saved forms, registries, old games
# ==============================================================================================
def test_the_decisions_are_registered_saved_and_loaded():
    assert {"skip", "deflected"} <= set(DECISIONS)
    state = arrange(3, hands=[["red skip", *F0], ["blue deflect", *F1], F2])
    play(state, 0, "red skip")
    saved = json.loads(json.dumps(state.to_dict()))
    assert saved["stack"] == [{"type": "skip", "seat": 1, "kind": "skip", "amount": 0, "by": 0}]
    loaded = State.from_dict(saved)
    assert loaded.to_dict() == state.to_dict() and legal_actions(loaded, 1) == legal_actions(state, 1)
    deflect(state, 1)
    loaded = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert loaded.decision() == state.decision() and pending(loaded) == pending(state)
    assert act(loaded, 0, "pass") == act(state, 0, "pass") and loaded.to_dict() == state.to_dict()


def test_a_game_stored_before_the_option_existed_loads_with_it_off():
    """A new option takes its default when an older game (whose options lack it) loads."""
    state = new_game("standard", {"stacking": "any"}, 3, "old")
    live = state.to_dict()
    old = json.loads(json.dumps(live))
    del old["config"]["options"]["deflect_cards"]
    loaded = State.from_dict(old)
    assert loaded.to_dict() == live and json.dumps(loaded.to_dict()) == json.dumps(live)
    rnd = random.Random(1)
    for _ in range(200):
        if state.status != "active":
            break
        seat = state.actor()
        action = rnd.choice(legal_actions(state, seat))
        assert apply(loaded, seat, action) == apply(state, seat, action)
    assert loaded.to_dict() == state.to_dict()


# ==============================================================================================
# bots
# ==============================================================================================
def _bot_positions() -> list[tuple[State, int]]:
    """Positions where a seat owes each decision of the option, with and without a Renvoi."""
    out = []
    for holds in (True, False):
        state = _skip_position(holds)
        play(state, 0, "red skip")
        out.append((state, 1))
    state = arrange(3, hands=[["red draw_two", "red deflect", *F0], ["green deflect", *F1], F2])
    play(state, 0, "red draw_two")
    out.append((state.copy(), 1))
    deflect(state, 1)
    out.append((state, 0))
    return out


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_every_bot_level_answers_each_decision_with_a_legal_action(level):
    assert_bot_answers_legally(level, _bot_positions())


def test_normal_sends_every_effect_back_when_it_holds_a_renvoi_and_accepts_otherwise():
    picks = []
    for state, seat in _bot_positions():
        rng = random.Random(0)
        pick = choose("normal", observe(state, seat, rng), seat, legal_actions(state, seat), rng)
        picks.append(name(state, pick["card"]) if pick["type"] == "play" else pick["type"])
    assert picks == ["blue deflect", "pass", "green deflect", "red deflect"]


# ==============================================================================================
# property tests over random games
# ==============================================================================================
# (id, preset, options, seats): the option alone and combined with every other option
COMBOS = [
    ("deflect-2p", "standard", {"deflect_cards": True}, 2),
    ("deflect-3p", "standard", {"deflect_cards": True}, 3),
    ("deflect-stacking-any-jump-super", "standard", {"deflect_cards": True, "stacking": "any", "jump_in": "super"}, 4),
    ("deflect-jump-exact-uno7", "standard", {"deflect_cards": True, "jump_in": "exact", "uno_penalty": 7}, 3),
    ("deflect-2p-no-skip-no-replay", "standard",
     {"deflect_cards": True, "penalty_skips_turn": False, "two_player_replay": False, "stacking": "plus4_on_plus2"}, 2),
    ("deflect-house-everything", "house",
     {"deflect_cards": True, "stacking": "same", "seven_zero": True, "draw_limit": None, "jump_in": "exact"}, 5),
    ("deflect-draw3-lowest", "standard",
     {"deflect_cards": True, "draw_limit": 3, "scoring": "lowest_total", "stacking": "any"}, 6),
]
# with the options of issue 9's other proofs, where this engine plays them
if {"continuations", "buzzer_cards"} <= set(engine.OPTIONS):
    COMBOS.append(("deflect-continuations-buzzer", "standard",
                   {"deflect_cards": True, "continuations": True, "buzzer_cards": True, "stacking": "any",
                    "jump_in": "super"}, 4))
CHECKED_GAMES = 6 * properties.SCALE
BULK_GAMES = 1000 * properties.SCALE


@properties.by_option_set(COMBOS)
def test_checked_random_games(name, preset, options, seats):
    """After every action: cards conserved; every listed action accepted (validated and
    through the fast path, to the same state) and unlisted ones refused with the state
    untouched; views and events show no hidden card; then the game ends with a
    consistent result, survives a JSON round trip and replays exactly."""
    properties.play_checked_games(preset, options, seats, CHECKED_GAMES)


@properties.by_option_set(COMBOS[:4])
def test_checked_multi_round_game(name, preset, options, seats):
    properties.play_checked_whole_game(preset, options, seats, 7, target_score=200)


def _pause_is_owed(state: State, events: list[dict], round_before: int) -> None:
    """The property of "the pause": a Skip played (the round going on) always leaves its
    victim a decision, and an effect sent back always leaves one to whom it went."""
    if state.status != "active" or state.round != round_before:
        return
    rank = build_rules(state.config).deck.rank
    for e in events:
        if e["type"] == "play" and rank[e["card"]["id"]] == "skip":
            assert pending(state) == {"type": "skip", "seat": state.next_seat(e["seat"]), "by": e["seat"]}
        if e["type"] == "deflected":
            assert pending(state)["type"] == "deflected" and state.actor() == e["target_seat"]


@properties.by_option_set(COMBOS)
def test_bulk_random_games(name, preset, options, seats):
    """Thousands of random games (in all): cards conserved after every action, the seat
    owing a decision always has a legal action, every Skip and every deflection pauses
    for its victim, every game ends consistently and survives a JSON round trip."""
    seen = {"skip": 0, "deflected": 0}

    def after(state: State, seat: int, action: dict, events: list, before: properties.Before) -> None:
        _pause_is_owed(state, events, before.round)
        p = state.pending
        if p is not None and p["type"] in seen:
            seen[p["type"]] += 1

    properties.play_random_games(preset, options, seats, BULK_GAMES, random.Random(name), after=after)
    assert seen["skip"] > 0 and seen["deflected"] > 0, seen  # the option was exercised


@properties.by_option_set(COMBOS)
def test_copy_then_push_leaves_the_original_exactly_as_it_was(name, preset, options, seats):
    """A copy is deep and exact (``test_core.check_copy_then_push``)."""
    check_copy_then_push(f"copy:{name}", preset, options, seats, 1500)


@pytest.mark.parametrize("levels", [("random", "easy", "normal", "hard"), ("hard", "normal")])
def test_bots_of_every_level_play_games_with_the_option_to_the_end(levels):
    """Each bot decides from its observation only, through the public engine, every
    decision of the option included; the games end."""
    rnd = random.Random(len(levels))
    decided = {"skip": 0, "deflected": 0, "penalty": 0}
    for g in range(6):
        state = new_game("standard", {"deflect_cards": True, "stacking": "same", "rounds": 1}, len(levels), g)
        for _ in range(3000):
            if state.status != "active":
                break
            seat = state.actor()
            p = state.pending
            if p is not None and p["type"] in decided:
                decided[p["type"]] += 1
            legal = legal_actions(state, seat)
            pick = choose(levels[seat], observe(state, seat, rnd), seat, legal, rnd, max_samples=2)
            assert pick in legal
            apply(state, seat, pick)
        assert state.status == "finished"
    assert decided["skip"] and decided["penalty"], decided


def test_legal_moves_are_the_listed_actions_as_values():
    state = arrange(3, hands=[["red draw_two", *F0], ["green deflect", "yellow 1"], F2])
    play(state, 0, "red draw_two")
    assert [m.to_json() for m in legal_moves(state, 1)] == legal_actions(state, 1)
    assert all(isinstance(m, Action) for m in legal_moves(state, 1))
    assert engine.public_pending(state) == {"type": "penalty", "seat": 1, "amount": 2, "kind": "draw_two",
                                            "challengeable": False}
