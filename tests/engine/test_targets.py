"""Options ``downpour_cards`` (seed 004, UNO H2O), ``targeted_draw_cards`` (seed 004 "+2?" /
"+4?") and ``jump_in_misplay_points`` (seed 001), sentence by sentence, then their
interactions (stacking, the challenge, Renvoi, jump-in, two players, the timer), the bots,
and property tests over thousands of random games.

RULES.md: "`downpour_cards` (seed 004, UNO H2O): two Downpour +1 and two Downpour +2, wild
(the player names a colour), 50 points; every other player draws 1 / 2; the direction
continues."  "`targeted_draw_cards` (seed 004 "+2?" / "+4?"): one +2? per colour and two
+4? (wild): as +2 and +4 but the player chooses the victim (`target_seat`)."
"`jump_in_misplay_points` (seed 001: 3): a jump-in attempted with a card that does not
qualify is recorded as a misplay costing those points instead of being refused (only when
set)."

Cards are named as the game's deck names them: ``"downpour_one"``, ``"downpour_two"``,
``"red targeted_draw_two"``, ``"targeted_wild_draw_four"``.
"""

from __future__ import annotations

import json
import random

import pytest

from games import engine
from games.bots import choose
from games.engine import (
    COLORS, Action, IllegalMove, InvalidOptions, NotYourCard, NotYourTurn, State, apply, build_rules, legal_actions,
    legal_moves, new_game, observe, owed, push, replay, resolve_options, view, visible_events,
)

from . import test_properties as properties
from .helpers import (arrange_game, assert_bot_answers_legally, assert_game_conserved, assert_refused, ev_types,
                      only, snapshot, touch)
from .test_core import check_copy_then_push

DOWN1, DOWN2 = "downpour_one", "downpour_two"
T2, T4 = "targeted_draw_two", "targeted_wild_draw_four"
CARDS = {"downpour_cards": True, "targeted_draw_cards": True}
# fillers: never red, never a 3 (the usual top card), never an action card
F0, F1, F2, F3 = (["blue 1", "blue 2", "blue 4"], ["yellow 1", "yellow 2", "yellow 4"],
                  ["blue 6", "blue 8", "blue 9"], ["yellow 6", "yellow 8", "yellow 9"])


def arrange(seats: int = 4, hands=None, top: str = "red 3", draw=(), current: int = 0, options=None,
            color=None, direction: int = 1) -> State:
    return arrange_game(seats, {**CARDS, **(options or {})}, hands=hands, top=top, draw=draw, current=current,
                        color=color, direction=direction)


def deck_of(state: State):
    return build_rules(state.config).deck


def cid(state: State, seat: int, name: str) -> int:
    cards = deck_of(state).cards
    for c in state.hands[seat]:
        if cards[c].name == name:
            return c
    raise KeyError(f"seat {seat} holds no {name!r}")


def play(state: State, seat: int, name: str, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": cid(state, seat, name), **extra})


def act(state: State, seat: int, kind: str, **fields) -> list[dict]:
    return apply(state, seat, {"type": kind, **fields})


def pending(state: State) -> dict | None:
    return view(state, None)["pending"]


def counts(state: State) -> list[int]:
    return [len(h) for h in state.hands]


def refused_on(state: State, seat: int, action: dict) -> str | None:
    """The ``field`` an IllegalMove refusing ``action`` names (the state untouched)."""
    return assert_refused(state, seat, action, IllegalMove).extra.get("field")


def draws(events: list[dict]) -> list[tuple[int, int, str]]:
    return [(e["seat"], e["count"], e["reason"]) for e in events if e["type"] == "draw"]


# ==============================================================================================
# downpour_cards: "two Downpour +1 and two Downpour +2, wild (the player names a colour), 50 points"
# ==============================================================================================
def test_two_downpour_plus_one_and_two_plus_two_wild_50_points_in_the_deck():
    """RULES.md: "two Downpour +1 and two Downpour +2, wild ..., 50 points" (listed in the
    game's deck description)."""
    deck = deck_of(new_game("standard", {"downpour_cards": True}, 3, 1))
    assert len(deck) == 112 and deck.name == "standard_108+downpour_cards"
    assert deck.describe()["ranks"][DOWN1] == 2 and deck.describe()["ranks"][DOWN2] == 2
    cards = [c for c in deck.cards if c.rank in (DOWN1, DOWN2)]
    assert all(c.color is None and c.points == 50 and c.kind == "wild" for c in cards)
    assert cards[0].to_dict() == {"id": 108, "color": None, "rank": DOWN1}
    assert resolve_options("standard", {})["downpour_cards"] is False
    with pytest.raises(InvalidOptions) as exc:
        resolve_options("standard", {"downpour_cards": "yes"})
    assert exc.value.option == "downpour_cards"


def test_a_downpour_is_played_on_anything_naming_a_colour():
    """RULES.md: "wild (the player names a colour)"; seed 004: "played any time on any other
    chart because they fulfill the function of joker"."""
    state = arrange(hands=[["downpour_one", *F0], F1, F2, F3], top="red 3")
    listed = [a for a in legal_actions(state, 0) if a.get("card") == cid(state, 0, DOWN1)]
    assert sorted(a["color"] for a in listed) == sorted(COLORS)
    assert refused_on(state, 0, {"type": "play", "card": cid(state, 0, DOWN1)}) == "color"
    ev = play(state, 0, DOWN1, color="green")
    assert state.color == "green" and only(ev, "play")["color"] == "green"


@pytest.mark.parametrize("rank, amount", [(DOWN1, 1), (DOWN2, 2)])
def test_every_other_player_draws_and_the_direction_continues(rank, amount):
    """RULES.md: "every other player draws 1 / 2; the direction continues"; seed 004: "all
    the other players must draw 1 or 2 charts ... and the hand passes to the following
    player".  Decision: at once, nobody owes anything, nobody is skipped."""
    state = arrange(hands=[[rank, *F0], F1, F2, F3])
    before = counts(state)
    ev = play(state, 0, rank, color="blue")
    assert draws(ev) == [(1, amount, "downpour"), (2, amount, "downpour"), (3, amount, "downpour")]
    assert counts(state) == [before[0] - 1] + [n + amount for n in before[1:]]
    assert pending(state) is None and state.actor() == 1 and state.direction == 1  # the next player plays
    assert_game_conserved(state)


def test_counterclockwise_the_others_draw_in_the_direction_of_play_and_the_next_plays():
    state = arrange(hands=[F0, F1, [DOWN2, *F2], F3], current=2, direction=-1)
    ev = play(state, 2, DOWN2, color="red")
    assert [s for s, _, _ in draws(ev)] == [1, 0, 3]
    assert state.actor() == 1 and state.direction == -1


def test_two_players_the_opponent_draws_then_plays():
    """Decision: a Downpour is not a Skip: with two players too the opponent plays next."""
    state = arrange(2, hands=[[DOWN2, *F0], F1])
    play(state, 0, DOWN2, color="blue")
    assert counts(state) == [3, 5] and state.actor() == 1 and pending(state) is None


def test_a_last_downpour_still_makes_the_others_draw_and_those_cards_count():
    """RULES.md: "A last card of Draw Two / Wild Draw Four still makes the next player draw,
    and those cards count" — a Downpour "has the same effect as +2" (seed 004)."""
    state = arrange(3, hands=[[DOWN2], ["blue 5"], ["yellow 7"]], draw=["green 9", "green 8", "blue 7", "blue 8"])
    ev = play(state, 0, DOWN2, color="red")
    assert draws(ev) == [(1, 2, "downpour"), (2, 2, "downpour")]
    ended = only(ev, "round_ended")
    assert ended["winner"] == 0 and ended["points"][0] == (5 + 9 + 8) + (7 + 7 + 8)


def test_a_downpour_turned_up_first_is_put_back_and_another_card_turned():
    """Seed 004: "If one of it is the first chart of the heel, one draws another from them"."""
    returned = 0
    for seed in range(400):
        events: list = []
        state = new_game("standard", {"downpour_cards": True}, 3, seed, events=events)
        assert deck_of(state).rank[state.discard[-1]] not in (DOWN1, DOWN2)
        returned += sum(1 for e in events if e["type"] == "first_card_returned" and e["rank"] in (DOWN1, DOWN2))
    assert returned > 0


def test_a_downpour_is_not_stacked_not_sent_back_and_never_jumped_in():
    """Decisions: not a +2/+4 (no stacking on a penalty, nothing pending to send back with
    a Renvoi); having no colour it is never jumped in."""
    state = arrange(hands=[["red draw_two", *F0], [DOWN2, "green deflect", *F1], F2, [DOWN1, *F3]],
                    options={"stacking": "any", "deflect_cards": True, "jump_in": "super"})
    play(state, 0, "red draw_two")
    listed = {a.get("card") for a in legal_actions(state, 1)}
    assert cid(state, 1, DOWN2) not in listed and cid(state, 1, "green deflect") in listed
    act(state, 1, "draw")
    # a Downpour on top: the other Downpour is no jump-in
    state = arrange(hands=[[DOWN1, *F0], F1, F2, [DOWN1, *F3]], options={"jump_in": "super", "deflect_cards": True})
    play(state, 0, DOWN1, color="yellow")
    assert all(a["type"] != "play" for a in legal_actions(state, 3))
    assert pending(state) is None  # nothing aimed at anyone: no Renvoi to play


def test_with_piles_exhausted_the_others_draw_what_exists():
    """RULES.md: "If both are exhausted, a player who must draw simply draws what exists"."""
    state = arrange(3, hands=[[DOWN2, *F0], F1, F2], draw=["green 1"])
    state.hands[2].extend(state.draw_pile[:-1])  # one card left to draw, none to reshuffle
    state.draw_pile = state.draw_pile[-1:]
    touch(state)
    ev = play(state, 0, DOWN2, color="blue")
    # seat 1 draws the last card, then the discard pile (less the Downpour) reshuffled
    assert draws(ev) == [(1, 2, "downpour"), (2, 0, "downpour")]
    assert state.actor() == 1
    assert_game_conserved(state)


# ==============================================================================================
# targeted_draw_cards: "one +2? per colour and two +4? (wild): as +2 and +4 but the player
# chooses the victim (`target_seat`)"
# ==============================================================================================
def test_one_plus_two_per_colour_and_two_plus_four_in_the_deck():
    deck = deck_of(new_game("standard", {"targeted_draw_cards": True}, 3, 1))
    assert len(deck) == 114 and deck.name == "standard_108+targeted_draw_cards"
    twos = [c for c in deck.cards if c.rank == T2]
    fours = [c for c in deck.cards if c.rank == T4]
    assert [c.color for c in twos] == list(COLORS) and all(c.points == 20 for c in twos)
    assert len(fours) == 2 and all(c.color is None and c.points == 50 for c in fours)
    both = deck_of(new_game("standard", CARDS, 3, 1))
    assert len(both) == 118 and both.cards[:112] == deck_of(new_game("standard", {"downpour_cards": True}, 3, 1)).cards


def test_a_targeted_play_names_any_other_seat_and_a_plus_four_a_colour_too():
    state = arrange(hands=[["red targeted_draw_two", T4, *F0], F1, F2, F3])
    t2, t4 = cid(state, 0, "red targeted_draw_two"), cid(state, 0, T4)
    acts = legal_actions(state, 0)
    assert [a["target_seat"] for a in acts if a.get("card") == t2] == [1, 2, 3]
    assert {(a["color"], a["target_seat"]) for a in acts if a.get("card") == t4} == \
        {(c, t) for c in COLORS for t in (1, 2, 3)}


def test_the_chosen_victim_owes_the_penalty_and_the_next_player_then_plays():
    """"as +2 ... but the player chooses the victim".  Decision: the victim (not the next
    player) owes the penalty at once; then play passes on from the player as usual."""
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, F2, F3], draw=["green 1", "green 2"])
    ev = play(state, 0, "red targeted_draw_two", target_seat=2)
    assert only(ev, "play")["target_seat"] == 2
    assert pending(state) == {"type": "penalty", "seat": 2, "amount": 2, "kind": T2, "challengeable": False}
    assert state.actor() == 2 and state.current == 1 and view(state, 1)["current_seat"] == 2
    assert [a["type"] for a in legal_actions(state, 2)] == ["draw"]
    assert_refused(state, 1, {"type": "draw"}, NotYourTurn)
    ev = act(state, 2, "draw")
    assert draws(ev) == [(2, 2, T2)]
    assert state.actor() == 1 and pending(state) is None  # the next player plays; seat 2 keeps its turn
    assert_game_conserved(state)


@pytest.mark.parametrize("skips", [True, False])
def test_aimed_at_the_next_player_it_is_exactly_a_plus_two(skips):
    """"as +2": the next player draws 2 and (``penalty_skips_turn``) loses the turn."""
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, F2, F3], options={"penalty_skips_turn": skips})
    play(state, 0, "red targeted_draw_two", target_seat=1)
    assert pending(state)["seat"] == 1 and state.current == 1
    act(state, 1, "draw")
    assert state.actor() == (2 if skips else 1)


@pytest.mark.parametrize("skips", [True, False])
def test_a_victim_past_the_next_player_loses_no_turn_either_way(skips):
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, F2, F3], options={"penalty_skips_turn": skips})
    play(state, 0, "red targeted_draw_two", target_seat=3)
    act(state, 3, "draw")
    assert state.actor() == 1  # the next player, not skipped
    act(state, 1, "draw")
    if "pass" in {a["type"] for a in legal_actions(state, 1)}:
        act(state, 1, "pass")
    assert state.actor() == 2  # and seat 3 comes in its turn after
    act(state, 2, "draw")
    if "pass" in {a["type"] for a in legal_actions(state, 2)}:
        act(state, 2, "pass")
    assert state.actor() == 3


def test_a_plus_four_names_a_colour_and_its_victim_may_challenge_a_bluff():
    """"as ... +4": the colour rule and the challenge (by the victim: "the challenged hand is
    shown to the challenger only"; guilty: "the player who played it draws 4 and the
    challenger does not")."""
    state = arrange(hands=[[T4, "red 5", *F0], F1, F2, F3])
    play(state, 0, T4, color="blue", target_seat=2)
    assert pending(state) == {"type": "penalty", "seat": 2, "amount": 4, "kind": T4, "challengeable": True}
    assert state.color == "blue"
    ev = act(state, 2, "challenge")
    assert only(ev, "challenge")["guilty"] is True and only(ev, "hand_revealed")["to"] == [2]
    assert visible_events(ev, 1) == [e for e in ev if "to" not in e]
    assert draws(ev) == [(0, 4, "challenge_lost")]
    assert state.actor() == 1 and pending(state) is None


def test_an_innocent_plus_four_costs_its_challenger_six_but_no_turn_unless_in_turn():
    """RULES.md: "innocent: the challenger draws 6.  Either way the challenger's turn is
    lost only when the challenger draws" — a victim past the next player has no turn to lose."""
    state = arrange(hands=[[T4, *F0], F1, F2, F3])
    play(state, 0, T4, color="green", target_seat=2)
    ev = act(state, 2, "challenge")
    assert only(ev, "challenge")["guilty"] is False and draws(ev) == [(2, 6, "challenge_lost")]
    assert state.actor() == 1
    state = arrange(hands=[[T4, *F0], F1, F2, F3])
    play(state, 0, T4, color="green", target_seat=1)
    act(state, 1, "challenge")
    assert state.actor() == 2  # the next player, in turn, lost it


def test_a_last_targeted_card_still_makes_its_victim_draw_and_those_cards_count():
    state = arrange(3, hands=[["red targeted_draw_two"], ["blue 5"], ["yellow 7"]], draw=["green 9", "green 8"])
    assert {a.get("target_seat") for a in legal_actions(state, 0) if a["type"] == "play"} == {1, 2}
    ev = play(state, 0, "red targeted_draw_two", target_seat=2)
    assert draws(ev) == [(2, 2, T2)]
    assert only(ev, "round_ended")["points"][0] == 5 + 7 + 9 + 8


def test_refusals_name_the_target_seat_clearly():
    """A play aiming at its own player, a seat that does not exist or none is refused."""
    state = arrange(hands=[["red targeted_draw_two", T4, *F0], F1, F2, F3])
    t2 = cid(state, 0, "red targeted_draw_two")
    exc = assert_refused(state, 0, {"type": "play", "card": t2, "target_seat": 0}, IllegalMove)
    assert exc.extra["field"] == "target_seat"
    assert "not yourself" in str(exc)
    exc = assert_refused(state, 0, {"type": "play", "card": t2, "target_seat": 7}, IllegalMove)
    assert exc.extra["field"] == "target_seat"
    assert "no seat 7" in str(exc)
    assert refused_on(state, 0, {"type": "play", "card": t2}) == "target_seat"
    t4 = cid(state, 0, T4)
    assert refused_on(state, 0, {"type": "play", "card": t4, "target_seat": 1}) == "color"
    assert refused_on(state, 0, {"type": "play", "card": t4, "color": "red"}) == "target_seat"
    # a card of another seat, and out of turn
    assert_refused(state, 1, {"type": "play", "card": t2, "target_seat": 2}, NotYourCard)


def test_a_seat_out_of_the_game_is_never_a_victim():
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, F2, F3])
    state.eliminated = [2]
    touch(state)
    t2 = cid(state, 0, "red targeted_draw_two")
    assert [a["target_seat"] for a in legal_actions(state, 0) if a.get("card") == t2] == [1, 3]
    exc = assert_refused(state, 0, {"type": "play", "card": t2, "target_seat": 2}, IllegalMove)
    assert exc.extra["field"] == "target_seat"
    assert "out of the game" in str(exc)


def test_stacking_a_victim_in_turn_answers_a_victim_past_it_may_only_draw():
    """Decision: for stacking a +2? is a +2 (both ways); only a victim in turn plays on."""
    opts = {"stacking": "same"}
    state = arrange(hands=[["red targeted_draw_two", *F0], ["blue draw_two", *F1], ["green draw_two", *F2], F3],
                    options=opts)
    play(state, 0, "red targeted_draw_two", target_seat=2)
    assert [a["type"] for a in legal_actions(state, 2)] == ["draw"]  # not its turn: no answer
    # aimed at the next player, a +2 answers it, and the sum goes on
    state = arrange(hands=[["red targeted_draw_two", *F0], ["red draw_two", *F1], F2, F3], options=opts)
    play(state, 0, "red targeted_draw_two", target_seat=1)
    play(state, 1, "red draw_two")
    assert pending(state) == {"type": "penalty", "seat": 2, "amount": 4, "kind": "draw_two", "challengeable": False}
    # a +2? answers a +2 and names the victim of the sum
    state = arrange(hands=[["red draw_two", *F0], ["blue targeted_draw_two", *F1], F2, F3], options=opts)
    play(state, 0, "red draw_two")
    play(state, 1, "blue targeted_draw_two", target_seat=3)
    assert pending(state) == {"type": "penalty", "seat": 3, "amount": 4, "kind": T2, "challengeable": False}
    act(state, 3, "draw")
    assert state.actor() == 2 and counts(state)[3] == 7


def test_stacking_off_a_plus_two_question_is_never_answered_with_a_card():
    state = arrange(hands=[["red targeted_draw_two", *F0], ["blue targeted_draw_two", "red draw_two", *F1], F2, F3])
    play(state, 0, "red targeted_draw_two", target_seat=1)
    assert [a["type"] for a in legal_actions(state, 1)] == ["draw"]


def test_a_renvoi_sends_a_targeted_penalty_back_to_its_player():
    """With ``deflect_cards``: the victim (past the next player) sends it back; the player
    draws; play stays with the seat in turn."""
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, ["green deflect", *F2], F3],
                    options={"deflect_cards": True})
    play(state, 0, "red targeted_draw_two", target_seat=2)
    play(state, 2, "green deflect")
    assert pending(state) == {"type": "deflected", "seat": 0, "by": 2, "kind": T2, "amount": 2}
    ev = act(state, 0, "draw")
    assert draws(ev) == [(0, 2, T2)] and state.actor() == 1
    assert_game_conserved(state)


def test_super_jump_in_of_a_plus_two_question_cancels_the_pending_one_and_names_its_own_victim():
    """RULES.md: "A jumped-in action card cancels the pending effect of the one beneath it;
    its own effect follows from the jumper"."""
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, F2, ["blue targeted_draw_two", *F3]],
                    options={"jump_in": "super"})
    play(state, 0, "red targeted_draw_two", target_seat=2)
    jumps = [a for a in legal_actions(state, 3) if a["type"] == "play"]
    assert [a["target_seat"] for a in jumps] == [0, 1, 2]
    ev = play(state, 3, "blue targeted_draw_two", target_seat=1)
    assert "jump_in" in ev_types(ev)
    assert pending(state) == {"type": "penalty", "seat": 1, "amount": 2, "kind": T2, "challengeable": False}
    assert state.current == 0  # play goes on from the jumper


def test_first_card_a_plus_two_question_is_a_draw_two_nobody_played_a_plus_four_question_is_put_back():
    seen_t2 = returned = 0
    for seed in range(600):
        events: list = []
        state = new_game("standard", {"targeted_draw_cards": True}, 3, seed, events=events)
        rank = deck_of(state).rank[state.discard[-1]]
        assert rank != T4
        returned += sum(1 for e in events if e["type"] == "first_card_returned" and e["rank"] == T4)
        if rank == T2:
            seen_t2 += 1
            first = state.next_seat(state.dealer)
            assert pending(state) == {"type": "penalty", "seat": first, "amount": 2, "kind": "draw_two",
                                      "challengeable": False}
    assert seen_t2 and returned


def test_two_players_a_plus_two_question_gives_its_player_another_turn():
    """RULES.md: "Two players: ... Draw Two and Wild Draw Four give the player another turn"."""
    state = arrange(2, hands=[["red targeted_draw_two", *F0], F1])
    assert {a.get("target_seat") for a in legal_actions(state, 0) if a["type"] == "play" and "target_seat" in a} == {1}
    play(state, 0, "red targeted_draw_two", target_seat=1)
    act(state, 1, "draw")
    assert state.actor() == 0


def test_the_timer_accepts_the_penalty_for_its_victim_then_the_next_player_is_in_turn():
    """RULES.md "Time": "accepts a pending penalty".  The target is part of the play: no
    decision ever waits for one."""
    state = arrange(hands=[["red targeted_draw_two", *F0], F1, F2, F3])
    play(state, 0, "red targeted_draw_two", target_seat=3)
    assert owed(state)[0] == (3, "penalty", "turn")
    ev = apply(state, 3, {"type": "timeout"}, system=True)
    assert draws(ev) == [(3, 2, T2)] and state.actor() == 1 and counts(state)[3] == 5


def test_normal_and_hard_aim_at_the_fewest_cards():
    state = arrange(hands=[["red targeted_draw_two", "red 9"], ["blue 1", "blue 2", "blue 4", "blue 5"],
                           ["yellow 1", "yellow 2"], F3])
    for level in ("normal", "hard"):
        rng = random.Random(1)
        pick = choose(level, observe(state, 0, rng), 0, legal_actions(state, 0), rng, max_samples=8)
        if pick["type"] == "play" and pick["card"] == cid(state, 0, "red targeted_draw_two"):
            assert pick["target_seat"] == 2, (level, pick)
    rng = random.Random(0)
    pick = choose("normal", observe(state, 0, rng), 0, legal_actions(state, 0), rng)
    assert pick == {"type": "play", "card": cid(state, 0, "red targeted_draw_two"), "target_seat": 2, "uno": True}


def test_normal_never_aims_at_a_partner_while_an_opponent_may_be_aimed_at():
    state = arrange(hands=[["red targeted_draw_two", "red 9", "red 8"], ["blue 1", "blue 2", "blue 4", "blue 5"],
                           ["yellow 1"], ["yellow 2", "yellow 4", "yellow 6"]])
    state.teams = [0, 1, 0, 1]
    touch(state)
    rng = random.Random(0)
    legal = legal_actions(state, 0)
    from games.bots.policies import _aim
    aimed = _aim(state, 0, [Action.from_json(a) for a in legal])
    assert {a.target_seat for a in aimed if a.type == "play" and a.card == cid(state, 0, "red targeted_draw_two")} \
        == {3}
    pick = choose("normal", observe(state, 0, rng), 0, legal, rng)
    assert pick.get("target_seat") in (None, 3)


def _bot_positions() -> list[tuple[State, int]]:
    out = []
    state = arrange(hands=[["red targeted_draw_two", T4, DOWN1, *F0], F1, F2, F3])
    out.append((state.copy(), 0))
    play(state, 0, "red targeted_draw_two", target_seat=2)
    out.append((state.copy(), 2))
    state = arrange(hands=[[T4, *F0], F1, F2, F3])
    play(state, 0, T4, color="blue", target_seat=3)
    out.append((state, 3))
    return out


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_every_bot_level_answers_each_position_with_a_legal_action(level):
    assert_bot_answers_legally(level, _bot_positions())


# ==============================================================================================
# jump_in_misplay_points: "a jump-in attempted with a card that does not qualify is recorded as
# a misplay costing those points instead of being refused (only when set)"
# ==============================================================================================
MISPLAY = {"jump_in": "exact", "jump_in_misplay_points": 3}


def misplay_game(seats: int = 3, options=None, hands=None, top: str = "red 3", **kw) -> State:
    return arrange_game(seats, {**MISPLAY, **(options or {})}, hands=hands or [F0, F1, F2][:seats], top=top, **kw)


def test_the_option_is_off_by_default_an_integer_and_needs_jump_in():
    assert resolve_options("standard", {})["jump_in_misplay_points"] is None
    for bad in (0, -3, "3", True, 3.5, 1001):
        with pytest.raises(InvalidOptions) as exc:
            resolve_options("standard", {"jump_in": "exact", "jump_in_misplay_points": bad})
        assert exc.value.option == "jump_in_misplay_points"
    with pytest.raises(InvalidOptions) as exc:
        resolve_options("standard", {"jump_in_misplay_points": 3})
    assert exc.value.option == "jump_in_misplay_points" and "jump_in" in str(exc.value)
    assert resolve_options("house", {"jump_in": "super", "jump_in_misplay_points": 3})["jump_in_misplay_points"] == 3
    try:
        resolve_options("standard", {"scoring": "hands_won"})
    except InvalidOptions:
        return  # not played by this engine
    with pytest.raises(InvalidOptions) as exc:
        resolve_options("standard", {"jump_in": "exact", "jump_in_misplay_points": 3, "scoring": "hands_won"})
    assert exc.value.option == "jump_in_misplay_points"


def test_a_play_out_of_turn_that_is_no_jump_in_costs_the_points_and_the_card_stays():
    """"recorded as a misplay costing those points instead of being refused"."""
    state = misplay_game(hands=[F0, ["blue 7", *F1], F2])
    before = snapshot(state)
    card = cid(state, 1, "blue 7")
    assert all(a["type"] != "play" for a in legal_actions(state, 1))  # never listed
    ev = apply(state, 1, {"type": "play", "card": card})
    assert ev == [{"type": "misplay", "seat": 1, "points": 3}]
    assert card in state.hands[1] and state.actor() == 0 and state.discard[-1] == json.loads(before)["discard"][-1]
    assert state.scores == [0, -3, 0]  # winner_takes: taken off the total
    assert view(state, 0)["players"][1]["score"] == -3
    after = json.loads(snapshot(state))
    was = json.loads(before)
    for key in ("hands", "draw_pile", "discard", "current", "stack", "color", "uno_exposed"):
        assert after[key] == was[key], key


def test_lowest_total_adds_the_points_against_the_misplayer():
    state = misplay_game(options={"scoring": "lowest_total"}, hands=[F0, ["blue 7", *F1], F2])
    apply(state, 1, {"type": "play", "card": cid(state, 1, "blue 7")})
    assert state.scores == [0, 3, 0]


def test_without_the_option_the_same_attempt_is_refused():
    state = arrange_game(3, {"jump_in": "exact"}, hands=[F0, ["blue 7", *F1], F2])
    assert_refused(state, 1, {"type": "play", "card": cid(state, 1, "blue 7")}, NotYourTurn)


def test_what_is_not_a_jump_in_attempt_is_still_refused():
    """In turn a card that does not match is refused as always; a card not held, a wild
    without its colour, or a play while a colour is being named is no attempt."""
    state = misplay_game(hands=[["blue 7", *F0], ["wild", *F1], F2])
    assert_refused(state, 0, {"type": "play", "card": cid(state, 0, "blue 7")}, IllegalMove)
    assert_refused(state, 1, {"type": "play", "card": cid(state, 0, "blue 7")}, NotYourCard)
    assert_refused(state, 1, {"type": "play", "card": cid(state, 1, "wild")})  # no colour named
    assert_refused(state, 1, {"type": "play", "card": cid(state, 1, "wild"), "color": "red", "uno": True})
    ev = apply(state, 1, {"type": "play", "card": cid(state, 1, "wild"), "color": "red"})
    assert ev[0]["type"] == "misplay" and "card" not in ev[0]
    # while a colour is named (a Wild turned up first) nobody may jump in: nor misplay
    state = misplay_game(hands=[F0, ["blue 7", *F1], F2], top="wild")
    from games.engine.uno.turn import ChooseColor
    state.stack = [ChooseColor(0)]
    touch(state)
    assert_refused(state, 1, {"type": "play", "card": cid(state, 1, "blue 7")}, NotYourTurn)


def test_a_qualifying_card_is_still_a_jump_in():
    state = misplay_game(hands=[F0, ["red 3", *F1], F2])
    ev = apply(state, 1, {"type": "play", "card": cid(state, 1, "red 3")})
    assert "jump_in" in ev_types(ev) and "misplay" not in ev_types(ev) and state.scores == [0, 0, 0]


def test_the_round_row_includes_the_misplays_and_totals_stay_the_sum_of_the_rows():
    state = misplay_game(2, options={"scoring": "lowest_total", "jump_in_misplay_points": 5},
                         hands=[["red 5"], ["blue 7", "green 2"]])
    apply(state, 1, {"type": "play", "card": cid(state, 1, "blue 7")})
    apply(state, 1, {"type": "play", "card": cid(state, 1, "blue 7")})
    assert state.scores == [0, 10]
    ev = play(state, 0, "red 5")
    ended = only(ev, "round_ended")
    assert ended["points"] == [0, 10 + 7 + 2] and ended["scores"] == [0, 19]
    assert state.history[-1]["points"] == [0, 19] and state.scores == [0, 19]


def test_a_misplay_replays_exactly_and_the_fast_path_agrees():
    state = new_game("standard", {**MISPLAY, "rounds": 1}, 3, 11)
    log = []
    actor = state.actor()
    other = next(s for s in range(3) if s != actor)
    card = next(c for c in state.hands[other]
                if Action("play", c) not in legal_moves(state, other)
                and deck_of(state).color[c] is not None)
    fast = state.copy()
    ev = apply(state, other, {"type": "play", "card": card})
    push(fast, other, Action("play", card))
    assert fast.to_dict() == state.to_dict() and ev[0]["type"] == "misplay"
    log.append((other, {"type": "play", "card": card}))
    assert replay(state.config, log).to_dict() == state.to_dict()


def test_teams_charge_the_team():
    if "teams" not in engine.OPTIONS:
        pytest.skip("teams not in this engine")
    state = arrange_game(4, {**MISPLAY, "teams": True}, hands=[F0, ["blue 7", *F1], F2, F3])
    apply(state, 1, {"type": "play", "card": cid(state, 1, "blue 7")})
    team = state.teams
    assert state.scores == [-3 if team[s] == team[1] else 0 for s in range(4)]


# ==============================================================================================
# property tests over random games
# ==============================================================================================
COMBOS = [
    ("downpour-3p", "standard", {"downpour_cards": True}, 3),
    ("downpour-4p-stacking-jump", "standard", {"downpour_cards": True, "stacking": "any", "jump_in": "exact"}, 4),
    ("targeted-3p", "standard", {"targeted_draw_cards": True}, 3),
    ("targeted-4p-stacking-same-deflect", "standard",
     {"targeted_draw_cards": True, "stacking": "same", "deflect_cards": True}, 4),
    ("targeted-2p", "standard", {"targeted_draw_cards": True, "stacking": "any"}, 2),
    ("both-4p-super-deflect-any", "standard",
     {**CARDS, "stacking": "any", "jump_in": "super", "deflect_cards": True}, 4),
    ("both-house-5p", "house", {**CARDS, "stacking": "plus4_on_plus2", "seven_zero": True, "jump_in": "super"}, 5),
]
CHECKED_GAMES = 5 * properties.SCALE
BULK_GAMES = 500 * properties.SCALE


@properties.by_option_set(COMBOS)
def test_checked_random_games(name, preset, options, seats):
    """After every action: cards conserved (the deck's own size); every listed action
    accepted (validated and fast path, same state), unlisted ones refused untouched; views
    and events hide every card; the game ends consistently, round-trips JSON, replays."""
    properties.play_checked_games(preset, options, seats, CHECKED_GAMES)


@properties.by_option_set(COMBOS)
def test_bulk_random_games(name, preset, options, seats):
    """Hundreds of games per combination: conserved, the owing seat can always act, every
    targeted penalty is owed by the seat it names, every game ends, JSON round trip."""
    seen = {"targeted": 0, "downpour": 0}

    def after(state: State, seat: int, action: dict, events: list, before: properties.Before) -> None:
        if state.status == "active" and state.round == before.round and action["type"] == "play" \
                and "misplay" not in ev_types(events):
            r = deck_of(state).rank[action["card"]]
            if r in (T2, T4):
                p = pending(state)
                assert p is not None and p["seat"] == action["target_seat"] and p["kind"] == r
                seen["targeted"] += 1
            if r in (DOWN1, DOWN2):
                assert sum(1 for e in events if e["type"] == "draw" and e["reason"] == "downpour") == seats - 1
                seen["downpour"] += 1

    properties.play_random_games(preset, options, seats, BULK_GAMES, random.Random(name), after=after)
    if "targeted_draw_cards" in options:
        assert seen["targeted"] > 0
    if "downpour_cards" in options:
        assert seen["downpour"] > 0


@properties.by_option_set(COMBOS)
def test_copy_then_push_leaves_the_original_exactly_as_it_was(name, preset, options, seats):
    """A copy is deep and exact (``test_core.check_copy_then_push``)."""
    check_copy_then_push(f"copy:{name}", preset, options, seats, 1000)


MISPLAY_COMBOS = [
    ("misplay-exact-3p", "standard", {**MISPLAY}, 3),
    ("misplay-super-lowest-4p", "standard", {"jump_in": "super", "jump_in_misplay_points": 5,
                                            "scoring": "lowest_total"}, 4),
    ("misplay-everything-4p", "house", {**MISPLAY, **CARDS, "stacking": "any", "deflect_cards": True}, 4),
]


@properties.by_option_set(MISPLAY_COMBOS)
def test_random_games_with_misplays(name, preset, options, seats):
    """Random games where seats now and then post a play out of turn with any card they hold:
    each is a jump-in (listed) or a misplay (charged, the card kept) or refused untouched;
    cards conserved; the totals are the sum of the score rows at the end; the log replays
    to the same state; views never show another's card."""
    rnd = random.Random(name)
    size = len(deck_of(new_game(preset, options, seats, 0)))
    sign = 1 if options.get("scoring", "lowest_total" if preset == "house" else "winner_takes") != "winner_takes" \
        else -1
    misplays = 0
    for g in range(60 * properties.SCALE):
        state = new_game(preset, {**options, "rounds": 1}, seats, f"mis-{g}")
        log = []
        steps = 0
        while state.status == "active" and steps < properties.STEP_BOUND_ONE_ROUND:
            if rnd.random() < 0.15:
                seat = rnd.randrange(seats)
                hand = state.hands[seat]
                if hand and seat != state.actor():
                    card = rnd.choice(hand)
                    moves = [m for m in legal_moves(state, seat) if m.card == card]
                    action = {"type": "play", "card": card}
                    if deck_of(state).color[card] is None:
                        action["color"] = rnd.choice(COLORS)
                    if deck_of(state).rank[card] in (T2, T4):
                        action["target_seat"] = (seat + 1) % seats
                    before = snapshot(state)
                    scores = list(state.scores)
                    try:
                        ev = apply(state, seat, action)
                    except engine.EngineError:
                        assert snapshot(state) == before
                    else:
                        log.append((seat, action))
                        if ev and ev[0]["type"] == "misplay":
                            misplays += 1
                            assert card in state.hands[seat] and ev == [{"type": "misplay", "seat": seat,
                                                                        "points": options["jump_in_misplay_points"]}]
                            assert state.scores[seat] == scores[seat] + sign * options["jump_in_misplay_points"]
                        else:
                            assert any(Action.from_json(action) == m for m in moves)
                    continue
            seat, action, system = properties.next_move(state, rnd)
            apply(state, seat, action, system=system)
            log.append((seat, action))
            steps += 1
            every = [c for h in state.hands for c in h] + state.draw_pile + state.discard
            assert sorted(every) == list(range(size))
        assert state.status == "finished"
        assert [sum(row["points"][s] for row in state.history) for s in range(seats)] == state.scores
        d = state.to_dict()
        assert State.from_dict(json.loads(json.dumps(d))).to_dict() == d
        assert replay(state.config, log).to_dict() == d
    assert misplays > 0


@pytest.mark.parametrize("levels", [("random", "easy", "normal", "hard"), ("hard", "normal", "easy")])
def test_bots_of_every_level_play_games_with_the_options_to_the_end(levels):
    rnd = random.Random(len(levels))
    seen = {"targeted": 0}
    for g in range(5):
        state = new_game("standard", {**CARDS, **MISPLAY, "stacking": "same", "rounds": 1}, len(levels), g)
        for _ in range(3000):
            if state.status != "active":
                break
            seat = state.actor()
            p = state.pending
            if p is not None and p.get("kind") in (T2, T4):
                seen["targeted"] += 1
            legal = legal_actions(state, seat)
            pick = choose(levels[seat], observe(state, seat, rnd), seat, legal, rnd, max_samples=2)
            assert pick in legal
            apply(state, seat, pick)
        assert state.status == "finished"
    assert seen["targeted"], seen
