"""The ``duo`` preset (RULES.md "duo", seed 003, UNO Duo), sentence by sentence, then the
timer, hidden information, bad inputs, the bots, and property tests over thousands of
random games.

Positions are arranged on the game's own 112-card deck: cards are named ``"red 5"``,
``"blue reverse"``, ``"wild"``, ``"wild_draw_four"``, ``"wild_customizable"``.  Player 1
(the first drafter) is the round's dealer; Player 2, the other seat, goes first.
"""

from __future__ import annotations

import json
import random

import pytest

from games import engine
from games.bots import choose
from games.engine import (IllegalMove, InvalidAction, InvalidOptions, NotYourCard, NotYourTurn, State, apply,
                          build_rules, legal_actions, new_game, observe, owed, public_pending, push, view,
                          visible_events)
from games.engine.catalog import PRESETS
from games.engine.state import PLAY, SETUP
from games.engine.uno import duo

from . import test_properties as properties
from .helpers import (arrange_game, assert_game_conserved, assert_refused, card_in, ev_types, game_deck, only, plays_of,
                      touch)
from .test_core import check_copy_then_push, random_step

# fillers: no red, no 3, no action card, nobody near UNO
FILL = ["blue 1", "blue 2", "yellow 4", "green 6", "yellow 8"]
FILL2 = ["blue 6", "green 2", "yellow 1", "green 9", "blue 8"]


# ----------------------------------------------------------------------------------------------
# arranged positions
# ----------------------------------------------------------------------------------------------
def name(state: State, card: int) -> str:
    return game_deck(state).cards[card].name


def names(state: State, cards) -> list[str]:
    return [name(state, c) for c in cards]


def hand(state: State, seat: int) -> list[str]:
    return names(state, state.hands[seat])


def drafting(order: list[str], dealer: int = 0, options: dict | None = None) -> State:
    """A Duo game at the start of its draft: the next cards of the draw pile are
    ``order`` (names, the first drawn first; every other card lies below them), Player 1
    (``dealer``) has drawn the first of them and owes the choice."""
    state = new_game("duo", {"rounds": 1, **(options or {})}, 2, "drafting")
    deck = game_deck(state)
    free: dict[str, list[int]] = {}
    for c in deck.cards:
        free.setdefault(c.name, []).append(c.id)
    named = [free[n].pop(0) for n in order]
    state.hands, state.discard = [[], []], []
    state.draw_pile = sorted(c for ids in free.values() for c in ids) + named[::-1]
    state.stack, state.windows, state.color = [], [], None
    state.dealer = dealer
    state.phase = SETUP
    duo._offer(state, build_rules(state.config), dealer, False, None)
    touch(state)
    assert_game_conserved(state)
    return state


def drafted(p1: list[str], p2: list[str], first: str, dealer: int = 0, options: dict | None = None,
            after: list[str] = ()) -> tuple[State, list[dict]]:
    """The last keep of a draft in which Player 1 (``dealer``) drew ``p1`` and Player 2
    ``p2`` (7 each, kept), then ``first`` is turned; ``after``: the next cards drawn.
    Returns the state and the events of the last keep."""
    order = [c for pair in zip(p1, p2) for c in pair] + [first, *after]
    state = drafting(order, dealer, options)
    for _ in range(13):
        keep(state)
    return state, keep(state)


def keep(state: State) -> list[dict]:
    return apply(state, state.stack[-1].seat, {"type": "draft_keep"})


def discard(state: State) -> list[dict]:
    return apply(state, state.stack[-1].seat, {"type": "draft_discard"})


def arrange(hands: list[list[str]], top: str = "red 3", draw: list[str] = (), current: int = 1,
            options: dict | None = None, color: str | None = None) -> State:
    """A Duo position in play (round 1 of a one-round game, nothing pending), seat
    ``current`` in turn (the dealer, Player 1, is the other seat)."""
    state = arrange_game(2, options, hands, top, draw, current, color, preset="duo")
    state.phase = PLAY
    return touch(state)


def play(state: State, seat: int, card_name: str, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": card_in(state, seat, card_name), **extra})


def act(state: State, seat: int, kind: str, **fields) -> list[dict]:
    return apply(state, seat, {"type": kind, **fields})


def kinds(state: State, seat: int) -> list[str]:
    return [a["type"] for a in legal_actions(state, seat)]


# ==============================================================================================
# "Two players, the 112-card deck."
# ==============================================================================================
def test_duo_is_played_by_exactly_two_players():
    assert "duo" in PRESETS
    new_game("duo", {}, 2, 1)
    for seats in (1, 3, 4):
        with pytest.raises(InvalidOptions) as exc:
            new_game("duo", {}, seats, 1)
        assert exc.value.option == "max_players"
        assert "duo is played by exactly 2 players" in str(exc.value)


def test_duo_plays_the_112_card_deck_of_standard_112():
    """RULES.md's table: ``duo`` ... 112; ``standard_112``: 108 + 1 Wild Shuffle Hands + 3
    Wild Customizable (40 points each): the same deck, card for card."""
    deck = build_rules(new_game("duo", {}, 2, 1).config).deck
    assert len(deck) == 112
    assert deck.describe() == build_rules(new_game("standard_112", {}, 2, 1).config).deck.describe()
    ranks = deck.describe()["ranks"]
    assert ranks["wild_shuffle_hands"] == 1 and ranks["wild_customizable"] == 3
    assert ranks["reverse"] == 8 and ranks["0"] == 4 and ranks["wild_draw_four"] == 4
    assert {deck.points[c] for c in range(108, 112)} == {40}


def test_the_preset_is_standard_play_with_stacking_same_lowest_total_and_uno_penalty_2():
    opts = new_game("duo", {}, 2, 1).options
    assert opts["stacking"] == "same" and opts["scoring"] == "lowest_total"
    assert opts["uno_penalty"] == 2 and opts["target_score"] == 500 and opts["draw_limit"] == 1


def test_options_that_make_no_sense_with_duo_are_refused_naming_them():
    with pytest.raises(InvalidOptions) as exc:
        new_game("duo", {"two_player_replay": False}, 2, 1)
    assert exc.value.option == "two_player_replay"
    new_game("duo", {"two_player_replay": True}, 2, 1)  # the default: changes nothing, accepted (replays pass it)
    for option, value in (("dealer", "random"), ("first_wild_draw_four", "name_color")):
        if option in engine.OPTIONS:
            with pytest.raises(InvalidOptions) as exc:
                new_game("duo", {option: value}, 2, 1)
            assert exc.value.option == option
    if "teams" in engine.OPTIONS:
        with pytest.raises(InvalidOptions) as exc:
            new_game("duo", {"teams": True}, 2, 1)
        assert exc.value.option == "teams"
    # house rules on top are fine
    new_game("duo", {"jump_in": "exact", "straights": True, "uno_penalty": 4, "target_score": 200}, 2, 1)


# ==============================================================================================
# "Drafting instead of dealing: Player 1 draws the top card and keeps it, or discards it and
#  must keep the next; then Player 2; alternating until both hold 7."
# ==============================================================================================
def test_a_round_starts_in_setup_with_player_1_drawing_the_top_card_instead_of_a_deal():
    events: list = []
    state = new_game("duo", {}, 2, 5, events=events)
    p1 = state.dealer
    assert state.phase == SETUP and state.round == 1
    assert state.discard == [] and state.color is None
    assert [len(h) for h in state.hands] == [1 if s == p1 else 0 for s in range(2)]
    assert len(state.draw_pile) == 111
    card = state.hands[p1][0]
    assert public_pending(state) == {"type": "draft", "seat": p1, "must_keep": False}
    assert state.actor() == p1
    assert legal_actions(state, p1) == [{"type": "draft_keep"}, {"type": "draft_discard"}]
    assert view(state, p1)["drawn"] == [card] and view(state, p1)["hand"][0]["id"] == card
    assert legal_actions(state, 1 - p1) == []
    assert ev_types(events) == ["dealer_chosen", "round_started", "hand", "hand", "draw", "cards_drawn"]
    assert only(events, "draw") == {"type": "draw", "seat": p1, "count": 1, "reason": "draft"}
    assert only(events, "cards_drawn")["to"] == [p1]
    assert owed(state) == [(p1, "draft", "turn")]
    v = view(state, None)
    assert v["top_card"] is None and v["current_color"] is None and v["current_seat"] == p1


def test_player_1_keeps_the_card_then_player_2_draws():
    state = drafting(["red 5", "blue 7", "green 1"])
    assert hand(state, 0) == ["red 5"]
    ev = keep(state)
    assert ev_types(ev) == ["draft_keep", "draw", "cards_drawn"]
    assert hand(state, 0) == ["red 5"] and hand(state, 1) == ["blue 7"]
    assert public_pending(state) == {"type": "draft", "seat": 1, "must_keep": False}
    assert state.actor() == 1 and legal_actions(state, 0) == []


def test_player_1_discards_the_card_and_must_keep_the_next():
    state = drafting(["red 5", "blue 7", "green 1"])
    red5 = state.hands[0][0]
    ev = discard(state)
    assert ev_types(ev) == ["draft_discard", "hand", "draw", "cards_drawn"]
    assert hand(state, 0) == ["blue 7"]
    assert state.draw_pile[0] == red5  # face down, under the draw pile
    assert public_pending(state) == {"type": "draft", "seat": 0, "must_keep": True}
    assert legal_actions(state, 0) == [{"type": "draft_keep"}]
    exc = assert_refused(state, 0, {"type": "draft_discard"}, IllegalMove)
    assert exc.detail == "the card drawn after a discard must be kept (draft_keep)"
    keep(state)
    assert hand(state, 0) == ["blue 7"] and hand(state, 1) == ["green 1"]  # then Player 2
    assert public_pending(state) == {"type": "draft", "seat": 1, "must_keep": False}


def test_the_drafters_alternate_until_both_hold_7_then_the_play_begins():
    p1 = ["red 1", "red 2", "red 4", "red 5", "red 6", "red 7", "red 8"]
    p2 = ["blue 1", "blue 2", "blue 4", "blue 5", "blue 6", "blue 7", "blue 8"]
    order = [c for pair in zip(p1, p2) for c in pair] + ["green 9"]
    state = drafting(order)
    drafters = []
    for k in range(14):
        assert state.phase == SETUP
        drafters.append(state.actor())
        ev = keep(state)
    assert drafters == [0, 1] * 7
    assert hand(state, 0) == p1 and hand(state, 1) == p2
    assert state.phase == PLAY
    assert names(state, state.discard) == ["green 9"]  # "The top card is then turned."
    assert ev_types(ev) == ["draft_keep", "hand", "hand", "first_card"]
    assert [e["to"] for e in ev if e["type"] == "hand"] == [[0], [1]]
    assert state.actor() == 1 and public_pending(state) is None  # Player 2 goes first
    assert len(state.draw_pile) == 112 - 15
    assert_game_conserved(state)


def test_discarded_cards_14_at_most_go_face_down_under_the_draw_pile():
    """"Discarded cards (14 at most with passes) go face down under the draw pile.""" """"""
    # each drafter discards each first card: 28 cards drawn, 14 discarded
    order = [f"{color} {n}" for n in range(1, 8) for color in ("red", "blue", "green", "yellow")] + ["green 0"]
    state = drafting(order)
    discarded = []
    while state.phase == SETUP:
        if public_pending(state)["must_keep"]:
            keep(state)
        else:
            discarded.append(state.stack[-1].card)
            discard(state)
    assert len(discarded) == 14
    assert state.draw_pile[:14] == discarded[::-1]  # under the pile, face down (never in the discard pile)
    assert names(state, state.discard) == ["green 0"]
    assert [len(h) for h in state.hands] == [7, 7]
    # Player 1 kept the 2nd, 6th, 10th ... card drawn, Player 2 the 4th, 8th ...
    assert hand(state, 0) == order[1:28:4] and hand(state, 1) == order[3:28:4]
    assert_game_conserved(state)


def test_the_first_drafter_alternates_each_round():
    """"The first drafter alternates each round": Player 1 is the dealer, who alternates;
    Player 2 (the other seat) goes first in each round."""
    rnd = random.Random(3)
    state = new_game("duo", {"rounds": 4}, 2, "alternates")
    dealers = []
    while state.status == "active":
        if state.phase == SETUP and (not dealers or dealers[-1][0] != state.round):
            assert public_pending(state)["seat"] == state.dealer and len(state.hands[state.dealer]) == 1
            assert len(state.hands[1 - state.dealer]) == 0
            dealers.append((state.round, state.dealer))
        push(state, *random_step(state, rnd))
    assert [r for r, _ in dealers] == [1, 2, 3, 4]
    assert [d for _, d in dealers][1:] == [1 - d for _, d in dealers][:-1]


# ==============================================================================================
# What the opponent sees of the draft: nothing but counts (the drafting player sees the card)
# ==============================================================================================
def test_the_opponent_never_sees_the_drafted_or_the_discarded_card():
    events: list = []
    state = new_game("duo", {}, 2, 9, events=events)
    p1 = state.dealer
    p2 = 1 - p1
    for step in range(20):
        d = state.stack[-1]
        drafter, card = d.seat, d.card
        mine, theirs = view(state, drafter), view(state, 1 - drafter)
        assert card in [c["id"] for c in mine["hand"]] and mine["drawn"] == [card]
        assert "drawn" not in theirs and card not in [c["id"] for c in theirs["hand"]]
        assert json.dumps(theirs["pending"]) == json.dumps({"type": "draft", "seat": drafter,
                                                            "must_keep": bool(d.must_keep)})
        for seen in (json.dumps(theirs), json.dumps(view(state, None))):
            assert f'"id": {card},' not in seen and f'"card": {card}' not in seen
        assert legal_actions(state, 1 - drafter) == []
        events += apply(state, drafter, {"type": "draft_discard" if step % 3 == 0 and not d.must_keep
                                          else "draft_keep"})
    for seat in (p1, p2):
        for e in visible_events(events, 1 - seat):
            if e.get("seat") == seat and e["type"] in ("draw", "draft_keep", "draft_discard"):
                assert set(e) <= {"type", "seat", "count", "reason"}, e  # the card never
            if "to" in e:
                assert e["to"] == [1 - seat]
    # a bot of the opponent's sees a consistent world: the drafted card is some card of the drafter's
    d = state.stack[-1]
    obs = observe(state, 1 - d.seat, random.Random(1))
    assert obs.stack[-1].card == obs.hands[d.seat][-1]
    assert obs.hands[1 - d.seat] == state.hands[1 - d.seat]
    assert observe(state, d.seat, random.Random(1)).stack[-1] == d


# ==============================================================================================
# "Time": "the draft keeps the drawn card"
# ==============================================================================================
def test_the_timer_keeps_the_drawn_card():
    state = drafting(["red 5", "blue 7", "green 1", "yellow 2"])
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert ev_types(ev)[:2] == ["timeout", "draft_keep"]
    assert hand(state, 0) == ["red 5"] and hand(state, 1) == ["blue 7"]
    discard(state)  # Player 2 discards the blue 7 and must keep the green 1
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert ev_types(ev)[:2] == ["timeout", "draft_keep"]
    assert hand(state, 1) == ["green 1"] and hand(state, 0) == ["red 5", "yellow 2"]


def test_decision_the_timer_that_keeps_the_last_card_also_acts_for_player_2s_first_turn():
    """The timer acts for a seat while it owes a decision of the round (``core.timeout``):
    Player 2's last keep by the timer is followed by Player 2's first turn, which it times
    out too (draws, then passes), as a first Wild's colour named by the timer is."""
    order = [c for pair in zip(P1, P2) for c in pair] + ["green 5", "blue 3"]
    state = drafting(order)
    for _ in range(13):
        keep(state)
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert ev_types(ev)[:2] == ["timeout", "draft_keep"] and "first_card" in ev_types(ev)
    assert only(ev, "draw")["reason"] == "draw" and state.actor() == 0 and len(state.hands[1]) == 8


# ==============================================================================================
# Bad inputs
# ==============================================================================================
def test_draft_refusals_wrong_card_wrong_seat_wrong_phase():
    state = drafting(["red 5", "blue 7", "green 1", "yellow 2"])
    keep(state)
    keep(state)  # Player 1 holds the red 5 and drafts the green 1
    red5, blue7 = card_in(state, 0, "red 5"), card_in(state, 1, "blue 7")
    # the actions name no card (an action is public: the moves feed shows it to every seat)
    exc = assert_refused(state, 0, {"type": "draft_keep", "card": red5}, InvalidAction)
    assert exc.detail == "'draft_keep' takes no field 'card'"
    assert_refused(state, 0, {"type": "draft_discard", "card": blue7}, InvalidAction)
    assert_refused(state, 1, {"type": "draft_keep"}, NotYourTurn)
    assert_refused(state, 1, {"type": "draft_discard"}, NotYourTurn)
    assert_refused(state, 0, {"type": "play", "card": blue7}, NotYourCard)
    for action in ({"type": "play", "card": red5}, {"type": "draw"}, {"type": "call_uno"}, {"type": "end_turn"}):
        exc = assert_refused(state, 0, action, IllegalMove)
        assert exc.detail == "the round has not begun: draft your hand first (draft_keep / draft_discard)"
    # out of the setup phase
    state = arrange([["red 5", *FILL], ["blue 7", *FILL2]])
    exc = assert_refused(state, 1, {"type": "draft_keep"}, IllegalMove)
    assert exc.detail == "no card is being drafted now"
    exc = assert_refused(state, 1, {"type": "draft_discard"}, IllegalMove)
    assert exc.detail == "no card may be discarded from the draft now"
    # in a game of another preset there is no such action
    std = new_game("standard", {}, 2, 1)
    exc = assert_refused(std, std.actor(), {"type": "draft_keep"}, InvalidAction)
    assert "unknown action type 'draft_keep'" in exc.detail


# ==============================================================================================
# "The top card is then turned.  Player 2 goes first: on a Draw Two / Wild Draw Four Player 2
#  draws and ends the turn; on a Skip Player 1 goes first instead; on a Reverse the first
#  player may play all of their cards of that colour; on a Wild / Wild Draw Four Player 1
#  names the colour."
# ==============================================================================================
P1 = ["red 1", "red 2", "blue 4", "blue 5", "green 6", "green 7", "yellow 8"]
P2 = ["red 4", "red 6", "blue 1", "yellow 7", "green 2", "yellow 9", "red skip"]


@pytest.mark.parametrize("dealer", [0, 1])
def test_a_number_player_2_goes_first(dealer):
    state, ev = drafted(P1, P2, "green 5", dealer)
    p2 = 1 - dealer
    assert ev[-1] == {"type": "first_card", "card": game_deck(state).card_dict(state.discard[-1])}
    assert state.actor() == p2 and state.current == p2 and public_pending(state) is None
    assert "draw" in kinds(state, p2) and legal_actions(state, dealer) == []
    assert plays_of(state, p2) == ["green 2"]


def test_a_draw_two_player_2_draws_and_ends_the_turn():
    state, _ = drafted(P1, P2, "green draw_two")
    assert public_pending(state) == {"type": "penalty", "seat": 1, "amount": 2, "kind": "draw_two",
                                     "challengeable": False}
    act(state, 1, "draw")
    assert len(state.hands[1]) == 9 and state.actor() == 0 and public_pending(state) is None


def test_a_wild_draw_four_player_1_names_the_colour_then_player_2_draws_4_and_ends_the_turn():
    state, ev = drafted(P1, P2, "wild_draw_four")
    assert name(state, state.discard[-1]) == "wild_draw_four"  # not put back (the standard game redraws it)
    assert "first_card_returned" not in ev_types(ev)
    assert public_pending(state) == {"type": "choose_color", "seat": 0}
    assert kinds(state, 0) == ["choose_color"] * 4 and legal_actions(state, 1) == []
    act(state, 0, "choose_color", color="blue")
    assert state.color == "blue"
    assert public_pending(state) == {"type": "penalty", "seat": 1, "amount": 4, "kind": "wild_draw_four",
                                     "challengeable": False}
    assert "challenge" not in kinds(state, 1)
    act(state, 1, "draw")
    assert len(state.hands[1]) == 11 and state.actor() == 0 and public_pending(state) is None


def test_a_skip_player_1_goes_first_instead():
    state, _ = drafted(P1, P2, "green skip", dealer=1)
    assert state.actor() == 1 and public_pending(state) is None  # Player 1 (the dealer, seat 1)


def test_a_reverse_player_2_may_play_all_of_their_cards_of_that_colour():
    state, _ = drafted(P1, P2, "red reverse")
    assert public_pending(state) == {"type": "duo_reverse", "seat": 1, "color": "red", "opening": True}
    assert plays_of(state, 1) == ["red 4", "red 6", "red skip"]  # in any order, nothing else
    assert kinds(state, 1)[-1] == "draw" and "end_turn" not in kinds(state, 1)
    play(state, 1, "red skip")  # no effect of its own here
    assert public_pending(state) == {"type": "duo_reverse", "seat": 1, "color": "red", "opening": False}
    play(state, 1, "red 4")
    play(state, 1, "red 6")
    assert legal_actions(state, 1) == [{"type": "end_turn"}]
    act(state, 1, "end_turn")
    assert state.actor() == 0 and public_pending(state) is None and len(state.hands[1]) == 4


def test_a_reverse_turned_up_player_2_may_draw_instead():
    state, _ = drafted(P1, P2, "red reverse", after=["red 3", "blue 3"])
    exc = assert_refused(state, 1, {"type": "end_turn"}, IllegalMove)
    assert exc.detail == "play a card of the Reverse's colour or draw: the turn has not begun"
    act(state, 1, "draw")  # an ordinary turn's draw: the drawn card may be played
    assert public_pending(state) == {"type": "play_drawn", "seat": 1, "drawn_count": 1}
    assert plays_of(state, 1) == ["red 3"] and kinds(state, 1) == ["play", "pass"]
    act(state, 1, "pass")
    assert state.actor() == 0 and public_pending(state) is None
    # a drawn card that does not play passes the turn at once
    state, _ = drafted(P1, P2, "red reverse", after=["blue 3"])
    act(state, 1, "draw")
    assert state.actor() == 0 and public_pending(state) is None and len(state.hands[1]) == 8


@pytest.mark.parametrize("wild", ["wild", "wild_customizable", "wild_shuffle_hands"])
def test_a_wild_player_1_names_the_colour_then_player_2_plays(wild):
    state, _ = drafted(P1, P2, wild)
    assert public_pending(state) == {"type": "choose_color", "seat": 0}
    act(state, 0, "choose_color", color="yellow")
    assert state.actor() == 1 and public_pending(state) is None
    assert plays_of(state, 1) == ["yellow 7", "yellow 9"]


# ==============================================================================================
# "A player is never required to play: they may draw one card, and may play it if it is
#  playable."
# ==============================================================================================
def test_a_player_may_draw_instead_of_playing_and_play_the_drawn_card():
    state = arrange([["red 9", *FILL], ["red 5", *FILL2]], draw=["red 7", "blue 3"])
    assert plays_of(state, 1) == ["red 5"] and "draw" in kinds(state, 1)
    act(state, 1, "draw")
    assert plays_of(state, 1) == ["red 7"] and kinds(state, 1) == ["play", "pass"]  # one card only
    play(state, 1, "red 7")
    assert state.actor() == 0
    act(state, 0, "draw")  # the blue 3 does not play on the red 7: the turn passes
    assert state.actor() == 1 and public_pending(state) is None and len(state.hands[0]) == 7


# ==============================================================================================
# "Draw Twos stack (stacking: same for +2)."
# ==============================================================================================
def test_draw_twos_stack_and_the_next_player_draws_the_sum():
    state = arrange([["red draw_two", *FILL], ["blue draw_two", *FILL2]], current=0)
    play(state, 0, "red draw_two")
    assert public_pending(state)["amount"] == 2
    play(state, 1, "blue draw_two")
    assert public_pending(state) == {"type": "penalty", "seat": 0, "amount": 4, "kind": "draw_two",
                                     "challengeable": False}
    act(state, 0, "draw")
    assert len(state.hands[0]) == 9


def test_decision_a_wild_draw_four_stacks_on_a_wild_draw_four_too_stacking_same():
    state = arrange([["wild_draw_four", *FILL], ["wild_draw_four", *FILL2]], current=0, top="green 3")
    play(state, 0, "wild_draw_four", color="blue")
    play(state, 1, "wild_draw_four", color="red")
    assert public_pending(state)["amount"] == 8 and public_pending(state)["seat"] == 0


# ==============================================================================================
# "Reverse: the player who plays it may then play every other card of that colour from their
#  hand, one at a time (decision: in any order, each must be of that colour), then the turn
#  passes."
# ==============================================================================================
def test_after_a_reverse_its_player_plays_the_other_cards_of_its_colour_in_any_order():
    state = arrange([["red reverse", "red 9", "red 2", "red draw_two", "red skip", "blue 5", "wild", "green 3"],
                     FILL2], current=0)
    play(state, 0, "red reverse")
    assert public_pending(state) == {"type": "duo_reverse", "seat": 0, "color": "red", "opening": False}
    assert plays_of(state, 0) == ["red 9", "red 2", "red draw_two", "red skip"]  # not the wild, not blue
    exc = assert_refused(state, 0, {"type": "play", "card": card_in(state, 0, "blue 5")}, IllegalMove)
    assert exc.detail == "after a Reverse only the other red cards may be played, one at a time, then end_turn"
    assert_refused(state, 0, {"type": "draw"}, IllegalMove)
    play(state, 0, "red 9")
    play(state, 0, "red 2")  # not next to the 9: any order
    ev = play(state, 0, "red draw_two")
    assert ev_types(ev) == ["play"] and public_pending(state)["type"] == "duo_reverse"  # nobody draws
    play(state, 0, "red skip")
    assert state.actor() == 0 and legal_actions(state, 0) == [{"type": "end_turn"}]
    act(state, 0, "end_turn")
    assert state.actor() == 1 and public_pending(state) is None  # "then the turn passes": not a Skip
    assert hand(state, 0) == ["blue 5", "wild", "green 3"] and len(state.hands[1]) == 5


def test_the_reverse_sequence_opens_even_without_a_card_of_its_colour_and_may_stop_any_time():
    state = arrange([["red reverse", "blue 5", "green 3", "yellow 9"], ["red 4", *FILL2]], current=0)
    play(state, 0, "red reverse")
    assert legal_actions(state, 0) == [{"type": "end_turn"}]  # the pause reveals nothing
    state = arrange([["red reverse", "red 5", "red 8", "green 3"], FILL2], current=0)
    play(state, 0, "red reverse")
    play(state, 0, "red 5")
    act(state, 0, "end_turn")  # stops with the red 8 still held
    assert state.actor() == 1 and "red 8" in hand(state, 0)


def test_a_drawn_reverse_played_opens_its_sequence_too():
    state = arrange([["red 5", *FILL], ["blue 9", "red 7", "green 3", "yellow 2"]], draw=["red reverse"])
    act(state, 1, "draw")
    play(state, 1, "red reverse")
    assert public_pending(state)["type"] == "duo_reverse" and plays_of(state, 1) == ["red 7"]


def test_nobody_cuts_into_a_reverse_sequence_even_with_straights():
    state = arrange([["red reverse", "red 9", "red 2", "blue 1"], ["red 2", "red 3", "green 9", "red reverse"]],
                    current=0, options={"straights": True})
    play(state, 0, "red reverse")
    assert legal_actions(state, 1) == []
    assert_refused(state, 1, {"type": "play", "card": card_in(state, 1, "red 3")}, NotYourTurn)


def test_a_last_card_in_the_sequence_needs_uno_and_its_draw_two_makes_nobody_draw():
    state = arrange([["red reverse", "red 9", "red draw_two"], ["blue 4", *FILL2]], current=0)
    play(state, 0, "red reverse")
    play(state, 0, "red 9")  # the next-to-last card, UNO not called
    assert plays_of(state, 0) == []
    exc = assert_refused(state, 0, {"type": "play", "card": card_in(state, 0, "red draw_two")}, IllegalMove)
    assert "call UNO" in exc.detail
    act(state, 0, "call_uno")
    ev = play(state, 0, "red draw_two")
    ended = only(ev, "round_ended")
    assert ended["winner"] == 0 and "draw" not in ev_types(ev)  # no last-card penalty in the sequence
    assert ended["points"] == [0, 4 + 6 + 2 + 1 + 9 + 8]


def test_the_timer_ends_the_reverse_sequence():
    state = arrange([["red reverse", "red 9", "red 2", "blue 1"], FILL2], current=0)
    play(state, 0, "red reverse")
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert ev_types(ev) == ["timeout", "end_turn"]
    assert state.actor() == 1 and len(state.hands[0]) == 3


def test_the_timer_draws_for_an_opening_reverse_sequence_with_nothing_played():
    state, _ = drafted(P1, P2, "red reverse", after=["blue 3"])
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert "draw" in ev_types(ev) and state.actor() == 0 and len(state.hands[1]) == 8


# ==============================================================================================
# "UNO: an uncalled next-to-last card caught by the opponent costs 2 cards."
# ==============================================================================================
def test_an_uncalled_next_to_last_card_caught_costs_2_cards():
    state = arrange([["red 5", "blue 9"], ["green 1", *FILL2]], current=0)
    play(state, 0, "red 5")
    act(state, 1, "catch_uno", target_seat=0)
    assert len(state.hands[0]) == 3


# ==============================================================================================
# "Scoring (scoring: lowest_total): when a player goes out, the loser is charged the points in
#  their own hand.  Decision: the game ends when a player reaches 500; the lowest total wins."
# ==============================================================================================
def test_the_loser_is_charged_their_own_hand_and_the_next_round_drafts():
    state = arrange([["red 5"], ["wild", "red skip", "blue 9", "wild_customizable"]], current=0,
                    options={"rounds": None, "target_score": 500})
    state.config = engine.make_config("duo", {}, 2, "scoring")
    state.scores = [120, 300]
    touch(state)
    ev = play(state, 0, "red 5")
    assert only(ev, "round_ended")["points"] == [0, 50 + 20 + 9 + 40]
    assert state.scores == [120, 419] and state.status == "active"
    # the dealer (Player 1) was seat 1: seat 0 drafts first now
    assert state.round == 2 and state.phase == SETUP and state.dealer == 0
    assert public_pending(state)["seat"] == 0


def test_the_game_ends_when_a_player_reaches_500_and_the_lowest_total_wins():
    state = arrange([["red 5"], ["wild", "blue 9"]], current=0)
    state.config = engine.make_config("duo", {}, 2, "scoring")
    state.scores = [480, 450]
    touch(state)
    ev = play(state, 0, "red 5")
    assert state.scores == [480, 509] and state.status == "finished"
    assert state.winner == 0 and only(ev, "game_ended")["winner"] == 0


# ==============================================================================================
# Saved forms and the schema of ``pending``
# ==============================================================================================
def test_the_decisions_save_and_load():
    state = drafting(["red 5", "blue 7", "green 1"])
    discard(state)
    assert state.pending == {"type": "draft", "seat": 0, "card": state.hands[0][0], "must_keep": True}  # (saved)
    assert State.from_dict(json.loads(json.dumps(state.to_dict()))).to_dict() == state.to_dict()
    state, _ = drafted(P1, P2, "red reverse")
    assert state.pending == {"type": "duo_reverse", "seat": 1, "opening": True}
    loaded = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert loaded.to_dict() == state.to_dict() and legal_actions(loaded, 1) == legal_actions(state, 1)


def test_the_new_action_types_are_registered_and_typed():
    schemas = engine.json_schemas()
    for kind in ("draft_keep", "draft_discard"):
        assert schemas[kind]["required"] == ["type"] and set(schemas[kind]["properties"]) == {"type"}
        assert engine.ACTION_FIELDS[kind] == {}
    assert {"draft", "duo_reverse"} <= set(engine.DECISIONS)
    assert set(engine.DECISIONS["draft"].public_schema) == {"must_keep"}
    assert set(engine.DECISIONS["duo_reverse"].public_schema) == {"color", "opening"}


# ==============================================================================================
# Bots
# ==============================================================================================
def _pick(level: str, state: State, seat: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    return choose(level, observe(state, seat, rng), seat, legal_actions(state, seat), rng, max_samples=8)


def test_normal_and_hard_keep_good_cards_and_discard_weak_ones():
    for level in ("normal", "hard"):
        for order, want in ((["wild"], "draft_keep"), (["red skip"], "draft_keep"), (["red 5"], "draft_discard")):
            state = drafting(order + ["blue 1"])
            assert _pick(level, state, 0)["type"] == want, (level, order)
        state = drafting(["red 5", "blue 1", "red 7", "blue 2"])
        keep(state)
        keep(state)  # Player 1 holds a red 5 and drafts the red 7: a colour it holds
        assert _pick(level, state, 0)["type"] == "draft_keep"
        discard(state)  # must keep the next
        assert _pick(level, state, 0)["type"] == "draft_keep"


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_every_level_drafts_and_plays_the_reverse_sequence(level):
    state = drafting(["red 5", "blue 1"])
    assert _pick(level, state, 0)["type"] in ("draft_keep", "draft_discard")
    state = arrange([["red reverse", "red 9", "red 2", "blue 1"], FILL2], current=0)
    play(state, 0, "red reverse")
    pick = _pick(level, state, 0)
    assert pick in legal_actions(state, 0)
    if level in ("normal", "hard"):
        assert pick["type"] == "play"  # sheds its red cards


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_a_whole_duo_game_between_bots(level):
    state = new_game("duo", {"target_score": 150}, 2, f"bots-{level}")
    rng = random.Random(level)
    steps = 0
    seen = set()
    while state.status == "active":
        seat = state.actor()
        lv = level if seat == 0 else "normal"
        pick = choose(lv, observe(state, seat, rng), seat, legal_actions(state, seat), rng, max_samples=2)
        seen.add(pick["type"])
        apply(state, seat, pick)
        steps += 1
        assert steps < 20000
    assert state.winner is not None and {"draft_keep", "play"} <= seen
    assert min(state.scores) == state.scores[state.winner]


# ==============================================================================================
# Property tests over random games (the machinery of test_properties on the 112-card deck)
# ==============================================================================================
COMBOS = [
    ("duo", "duo", {}, 2),
    ("duo-jump_in-straights", "duo", {"jump_in": "exact", "straights": True}, 2),
    ("duo-no-skip-draw-null-any", "duo", {"penalty_skips_turn": False, "draw_limit": None, "stacking": "any"}, 2),
    ("duo-seven_zero-deflect-buzzer", "duo",
     {"seven_zero": True, "deflect_cards": True, "buzzer_cards": True, "jump_in": "super"}, 2),
]
CHECKED_GAMES = 5 * properties.SCALE
BULK_GAMES = 600 * properties.SCALE


@properties.by_option_set(COMBOS)
def test_checked_random_games(name, preset, options, seats):
    """After every action: cards conserved (the draft included); every listed action
    accepted (validated and fast path, to the same state), unlisted ones refused with the
    state untouched; views and events hide every card a seat may not see; then the game
    ends consistently, survives a JSON round trip and replays exactly."""
    properties.play_checked_games(preset, options, seats, CHECKED_GAMES)


@properties.by_option_set(COMBOS[:2])
def test_checked_multi_round_game(name, preset, options, seats):
    state = properties.play_checked_whole_game(preset, options, seats, 11, target_score=150)
    assert state.round >= 2


@properties.by_option_set(COMBOS)
def test_bulk_random_games(name, preset, options, seats):
    """Hundreds of random games per combination: cards conserved after every action, the
    seat owing a decision always has a legal action, the draft always ends with 7 cards
    each, every game ends consistently and survives a JSON round trip."""
    seen = {"draft_discard": 0, "duo_reverse": 0}

    def after(state: State, seat: int, action: dict, events: list, before: properties.Before) -> None:
        if before.phase == SETUP and state.phase == PLAY:
            assert len(state.discard) == 1 or state.status != "active" or state.round > 1
        if action["type"] == "draft_discard":
            seen["draft_discard"] += 1
        p = state.pending
        if p is not None and p["type"] == "duo_reverse":
            seen["duo_reverse"] += 1

    properties.play_random_games(preset, options, seats, BULK_GAMES, random.Random(name), after=after)
    assert all(seen.values()), seen  # the draft's discard and the Reverse were exercised


def test_every_draft_ends_with_seven_cards_each_and_the_first_card_turned():
    rnd = random.Random("drafts")
    for g in range(300):
        state = new_game("duo", {"rounds": 1}, 2, g)
        while state.phase == SETUP:
            seat, action, system = properties.next_move(state, rnd)
            if system:  # (the timer's keep of the last card would also time the first turn out)
                seat, action = state.actor(), legal_actions(state, state.actor())[0]
            apply(state, seat, action)
        assert [len(h) for h in state.hands] == [7, 7]
        assert len(state.discard) == 1 and len(state.draw_pile) == 112 - 15
        assert_game_conserved(state)


@properties.by_option_set(COMBOS)
def test_copy_then_push_leaves_the_original_exactly_as_it_was(name, preset, options, seats):
    """A copy is deep and exact (``test_core.check_copy_then_push``)."""
    check_copy_then_push(f"copy:{name}", preset, options, seats, 1200)
