"""The cards that move hands (RULES.md "Presets", "Extra cards"; the Mattel 2015 and 2018
sheets; seed 004), sentence by sentence, then their interactions (the UNO window, the
last card, the first card, jump-in, stacking, deflect, eliminated seats, the timer),
what each seat is told, and the bots.  Property tests over random games are the
COMBOS of ``test_properties``.

RULES.md:
- "`standard_112` | Mattel 2018 sheet | 2–10 | 112: 108 + 1 Wild Shuffle Hands + 3 Wild
  Customizable"
- "The 112-card deck's wilds (Mattel): Wild Shuffle Hands: all hands are collected,
  shuffled and dealt out again one at a time starting left of the player, who names the
  colour; Wild Customizable: a Wild; each 40 points. `swap_hands_card` (Mattel 2015 deck)
  replaces the Shuffle Hands card by Wild Swap Hands: the player swaps hands with a player
  they name."
- "`hand_pass_cards` (seed 004 "Change de jeu"): two, colourless, 20 points: every player
  passes their hand to the next in the direction of play."
- "`uno_card` (seed 004): one, 100 points, playable in turn on anything: every hand passes
  against the direction of play; if it was the player's last card, they receive a hand and
  do not win."

Positions are arranged on the game's own deck (``helpers.arrange_game``); the new cards
are named by their rank: ``"wild_shuffle_hands"``, ``"wild_swap_hands"``,
``"wild_customizable"``, ``"hand_pass"``, ``"uno"``.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.bots import choose
from games.engine import (
    IllegalMove, InvalidOptions, State, apply, build_rules, legal_actions, new_game, observe, replay, resolve_options,
    view, visible_events,
)
from games.engine.catalog import OPTIONS, PRESETS

from .helpers import arrange_game, assert_game_conserved, assert_refused, card_in, ev_types, game_deck, only, play_to_the_end, touch

SHUFFLE, SWAP, CUSTOM, PASS_CARD, UNO = "wild_shuffle_hands", "wild_swap_hands", "wild_customizable", "hand_pass", "uno"
BOTH = {"hand_pass_cards": True, "uno_card": True}


def play(state: State, seat: int, name: str, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": card_in(state, seat, name), **extra})


def plays_of(state: State, seat: int, name: str) -> list[dict]:
    cards = game_deck(state).cards
    return [a for a in legal_actions(state, seat) if a["type"] == "play" and cards[a["card"]].name == name]


def private_hands(ev: list[dict]) -> dict[int, list[int]]:
    """The private ``hand`` events: seat -> its card ids (each told to that seat only)."""
    out = {}
    for e in ev:
        if e["type"] == "hand":
            assert e["to"] == [e["seat"]]
            out[e["seat"]] = [c["id"] for c in e["cards"]]
    return out


def assert_public_events_name_no_card(ev: list[dict]) -> None:
    for e in visible_events(ev, None):
        assert "cards" not in e and "hand" not in e, e
        if "card" in e:
            assert e["type"] == "play"


# ==============================================================================================
# the decks and the preset
# ==============================================================================================
def test_standard_112_is_the_108_plus_one_shuffle_hands_and_three_customizable_at_40_points():
    """RULES.md: "`standard_112` | Mattel 2018 sheet | 2–10 | 112: 108 + 1 Wild Shuffle Hands
    + 3 Wild Customizable"; "each 40 points"."""
    assert "standard_112" in PRESETS
    deck = build_rules(new_game("standard_112", {}, 4, 1).config).deck
    assert deck.name == "standard_112" and len(deck) == 112
    assert deck.describe()["ranks"][SHUFFLE] == 1 and deck.describe()["ranks"][CUSTOM] == 3
    assert [deck.rank[c] for c in range(108, 112)] == [SHUFFLE, CUSTOM, CUSTOM, CUSTOM]
    assert all(deck.points[c] == 40 and deck.color[c] is None for c in range(108, 112))
    assert deck.dicts[108] == {"id": 108, "color": None, "rank": SHUFFLE}
    standard = build_rules(new_game("standard", {}, 4, 1).config).deck
    assert deck.cards[:108] == standard.cards  # the 108 are the standard game's, same ids
    for seats in (2, 10):
        assert new_game("standard_112", {}, seats, 1).seats == seats
    for seats in (1, 11):
        with pytest.raises(InvalidOptions) as info:
            new_game("standard_112", {}, seats, 1)
        assert info.value.option == "max_players"


def test_a_dealt_standard_112_game_conserves_its_112_cards_and_deals_7():
    state = new_game("standard_112", {}, 5, "deal")
    assert [len(h) for h in state.hands] == [7] * 5
    assert_game_conserved(state)


def test_swap_hands_card_replaces_the_shuffle_hands_card():
    """RULES.md: "`swap_hands_card` (Mattel 2015 deck) replaces the Shuffle Hands card by
    Wild Swap Hands"."""
    deck = build_rules(new_game("standard_112", {"swap_hands_card": True}, 3, 1).config).deck
    assert len(deck) == 112 and deck.name == "standard_112_swap"
    assert [deck.rank[c] for c in range(108, 112)] == [SWAP, CUSTOM, CUSTOM, CUSTOM]
    assert SHUFFLE not in deck.rank and deck.points[108] == 40


@pytest.mark.parametrize("preset", ["standard", "house"])
def test_swap_hands_card_without_a_shuffle_hands_card_is_refused_naming_the_option(preset):
    """Decision: on a deck with no Wild Shuffle Hands to replace, ``swap_hands_card`` makes
    no sense and is refused (HTTP 400) naming the option."""
    with pytest.raises(InvalidOptions) as info:
        resolve_options(preset, {"swap_hands_card": True})
    assert info.value.option == "swap_hands_card" and "standard_112" in str(info.value)
    assert resolve_options(preset, {"swap_hands_card": False})["swap_hands_card"] is False


def test_the_options_are_played_and_default_off():
    assert {"swap_hands_card", "hand_pass_cards", "uno_card"} <= set(OPTIONS)
    opts = resolve_options("standard", {})
    assert (opts["swap_hands_card"], opts["hand_pass_cards"], opts["uno_card"]) == (False, False, False)
    assert len(build_rules(new_game("standard", {}, 2, 1).config).deck) == 108  # defaults: nothing changes


def test_hand_pass_cards_add_two_colourless_cards_of_20_points_and_uno_card_one_of_100():
    """RULES.md: "`hand_pass_cards` ...: two, colourless, 20 points"; "`uno_card` (seed 004):
    one, 100 points"."""
    deck = build_rules(new_game("standard", BOTH, 3, 1).config).deck
    assert len(deck) == 111 and deck.describe()["ranks"][PASS_CARD] == 2 and deck.describe()["ranks"][UNO] == 1
    assert [(deck.rank[c], deck.color[c], deck.points[c]) for c in range(108, 111)] == [
        (PASS_CARD, None, 20), (PASS_CARD, None, 20), (UNO, None, 100)]
    deck112 = build_rules(new_game("standard_112", BOTH, 3, 1).config).deck
    assert len(deck112) == 115 and [deck112.rank[c] for c in range(108, 115)] == [
        SHUFFLE, CUSTOM, CUSTOM, CUSTOM, PASS_CARD, PASS_CARD, UNO]


def test_the_new_cards_are_scored_at_their_points():
    """Each 40 points (the Mattel wilds); 20 (a Change de jeu); 100 (the UNO card)."""
    state = arrange_game(2, {"uno_card": True, "hand_pass_cards": True}, preset="standard_112",
                         hands=[["red 5"], [SHUFFLE, CUSTOM, PASS_CARD, UNO, "blue 2"]])
    ev = play(state, 0, "red 5")
    assert only(ev, "round_ended")["points"] == [40 + 40 + 20 + 100 + 2, 0]


# ==============================================================================================
# Wild Shuffle Hands
# ==============================================================================================
def test_shuffle_hands_collects_shuffles_and_deals_again_from_the_players_left():
    """RULES.md: "Wild Shuffle Hands: all hands are collected, shuffled and dealt out again
    one at a time starting left of the player, who names the colour"."""
    hands = [[SHUFFLE, "blue 1", "blue 2", "blue 4"], ["green 1", "green 2", "green 4"],
             ["yellow 1", "yellow 2", "yellow 4", "yellow 5", "yellow 6"]]
    state = arrange_game(3, {}, preset="standard_112", hands=hands, current=0)
    pool = Counter(c for h in state.hands for c in h) - Counter([card_in(state, 0, SHUFFLE)])
    shuffles = state.shuffles
    ev = play(state, 0, SHUFFLE)
    # 3 + 3 + 5 = 11 cards, dealt one at a time from seat 1: seats 1 and 2 get 4, the player 3
    assert [len(h) for h in state.hands] == [3, 4, 4]
    assert Counter(c for h in state.hands for c in h) == pool
    assert state.shuffles == shuffles + 1  # one shuffle of the game: a replay deals the same
    assert ev_types(ev)[:2] == ["play", "hands_shuffled"]
    assert only(ev, "hands_shuffled") == {"type": "hands_shuffled", "seat": 0}
    assert private_hands(ev) == {s: state.hands[s] for s in range(3)}
    assert_public_events_name_no_card(ev)
    # the player names the colour now, knowing the new hand
    assert only(ev, "play")["color"] is None and state.color is None
    assert view(state, 1)["pending"] == {"type": "choose_color", "seat": 0}
    assert view(state, 1)["current_seat"] == 0
    assert [a["type"] for a in legal_actions(state, 0)] == ["choose_color"] * 4
    assert legal_actions(state, 1) == [] and legal_actions(state, 2) == []
    ev = apply(state, 0, {"type": "choose_color", "color": "green"})
    assert only(ev, "color_chosen") == {"type": "color_chosen", "seat": 0, "color": "green"}
    assert state.color == "green" and state.actor() == 1
    assert_game_conserved(state)


def test_shuffle_hands_deals_from_the_left_whatever_the_direction():
    """"dealt out again one at a time starting left of the player": left is the seat after
    the player (as the deal goes), also when play goes right."""
    hands = [["blue 1", "blue 2"], [SHUFFLE, "green 1"], ["yellow 1", "yellow 2"], ["red 1", "red 2"]]
    state = arrange_game(4, {}, preset="standard_112", hands=hands, current=1, direction=-1)
    play(state, 1, SHUFFLE)
    # 2 + 1 + 2 + 2 = 7 cards from seat 2: seats 2, 3, 0 get 2, the player 1
    assert [len(h) for h in state.hands] == [2, 1, 2, 2]
    apply(state, 1, {"type": "choose_color", "color": "red"})
    assert state.actor() == 0  # play goes on to the right


def test_shuffle_hands_is_the_games_shuffle_replayed_exactly():
    """The redeal derives from the game's seed (``State.shuffle``): the same position and
    the same action deal the same hands; another seed deals others."""
    hands = [[SHUFFLE] + ["blue 1", "blue 2", "blue 4", "blue 5"], ["green 1", "green 2", "green 4", "green 5"],
             ["yellow 1", "yellow 2", "yellow 4", "yellow 5"]]
    a = arrange_game(3, {}, preset="standard_112", hands=hands)
    b = State.from_dict(json.loads(json.dumps(a.to_dict())))
    play(a, 0, SHUFFLE)
    play(b, 0, SHUFFLE)
    assert a.hands == b.hands
    dealt = []
    for shuffles in range(8):
        c = arrange_game(3, {}, preset="standard_112", hands=hands)
        c.shuffles = shuffles
        play(c, 0, SHUFFLE)
        dealt.append(json.dumps(c.hands))
    assert len(set(dealt)) > 1


def test_the_timer_names_the_colour_the_player_holds_most_after_the_shuffle():
    """RULES.md "Time": "a colour still owed is the colour the player holds most of"."""
    hands = [[SHUFFLE, "blue 1"], ["green 1", "green 2", "green 4"]]
    state = arrange_game(2, {}, preset="standard_112", hands=hands)
    play(state, 0, SHUFFLE)
    mine = Counter(game_deck(state).color[c] for c in state.hands[0])
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    named = only(ev, "color_chosen")["color"]
    assert mine[named] == max(mine.values())
    assert state.color == named and state.actor() == 1


def test_going_out_with_shuffle_hands_ends_the_round_and_moves_no_hand():
    """Decision (as a 0 or a 7 with seven_zero): going out with a hand-moving card ends the
    round; no hands change."""
    state = arrange_game(3, {}, preset="standard_112", hands=[[SHUFFLE], ["green 1", "green 2"], ["blue 1"]])
    before = [list(h) for h in state.hands[1:]]
    listed = plays_of(state, 0, SHUFFLE)
    assert listed == [{"type": "play", "card": card_in(state, 0, SHUFFLE)}]  # no colour: named after the shuffle
    ev = play(state, 0, SHUFFLE)
    assert "hands_shuffled" not in ev_types(ev) and "choose_color" not in json.dumps(ev)
    assert only(ev, "round_ended")["winner"] == 0
    assert state.hands[1:] == before and state.status == "finished"


def test_a_shuffle_hands_turned_up_first_is_a_wild_the_first_player_names_the_colour():
    """Decision: nobody played it, so no hands move; as a Wild turned up first, the first
    player names the colour."""
    for seed in range(400):
        events: list = []
        state = new_game("standard_112", {}, 3, seed, events=events)
        first = only(events, "first_card")["card"]
        if first["rank"] == SHUFFLE:
            break
    else:
        pytest.skip("no seed turned a Wild Shuffle Hands up first")
    assert "hands_shuffled" not in ev_types(events)
    assert state.pending == {"type": "choose_color", "seat": (state.dealer + 1) % 3}


@pytest.mark.parametrize("rank", [SHUFFLE, SWAP, CUSTOM])
def test_the_mattel_wilds_turned_up_first_are_wilds(rank):
    opts = {"swap_hands_card": True} if rank == SWAP else {}
    state = arrange_game(3, opts, preset="standard_112", hands=[["red 1"], ["red 2"], ["red 4"]])
    rules = build_rules(state.config)
    assert rules.first_card[rank](state, rules, None) == 1
    assert state.stack[-1].name == "choose_color" and state.stack[-1].seat == (state.dealer + 1) % 3


def test_wild_customizable_is_a_wild():
    """RULES.md: "Wild Customizable: a Wild"."""
    state = arrange_game(3, {}, preset="standard_112", hands=[[CUSTOM, "blue 1"], ["green 1", "green 2"], ["blue 2"]],
                         top="red 3")
    listed = plays_of(state, 0, CUSTOM)
    assert {a["color"] for a in listed} == {"blue", "green", "red", "yellow"}
    assert_refused(state, 0, {"type": "play", "card": card_in(state, 0, CUSTOM)}, IllegalMove,
                   extra={"field": "color"})
    ev = play(state, 0, CUSTOM, color="yellow")
    assert state.color == "yellow" and state.actor() == 1 and state.stack == []
    assert "hand" not in ev_types(ev)


def test_shuffle_hands_closes_the_uno_window():
    """README: "The UNO catch window closes ... when hands change owners": a player who
    plays Shuffle Hands as the next-to-last card without calling UNO cannot be caught."""
    state = arrange_game(3, {}, preset="standard_112", hands=[[SHUFFLE, "blue 1"], ["green 1", "green 2"], ["blue 2"]])
    play(state, 0, SHUFFLE)
    assert state.uno_exposed is None and view(state, 1)["uno_catchable_seat"] is None
    assert all(a["type"] != "catch_uno" for s in (1, 2) for a in legal_actions(state, s))


def test_shuffle_hands_is_never_jumped_in():
    """jump_in: identical wilds are not jumped in (RULES.md: "not Wilds")."""
    state = arrange_game(3, {"jump_in": "exact"}, preset="standard_112",
                         hands=[[CUSTOM, "blue 1"], [CUSTOM, "green 2"], ["blue 2", "blue 4"]])
    play(state, 0, CUSTOM, color="green")
    assert not [a for a in legal_actions(state, 2) if a["type"] == "play"]
    assert state.actor() == 1


def test_the_mattel_wilds_never_answer_a_penalty_even_with_stacking():
    state = arrange_game(3, {"stacking": "any"}, preset="standard_112",
                         hands=[["red draw_two", "blue 1", "blue 4"], [SHUFFLE, CUSTOM, "green 2"], ["blue 2"]])
    play(state, 0, "red draw_two")
    assert state.pending["type"] == "penalty"
    assert {a["type"] for a in legal_actions(state, 1)} == {"draw"}


def test_shuffle_hands_skips_eliminated_seats():
    """Eliminated seats (``State.eliminated``) hold no hand: the redeal deals to the active
    seats only, from the player's left."""
    hands = [[SHUFFLE, "blue 1", "blue 2"], [], ["green 1", "green 2"], ["yellow 1", "yellow 2", "yellow 4"]]
    state = arrange_game(4, {}, preset="standard_112", hands=hands)
    state.eliminated = [1]
    touch(state)
    ev = play(state, 0, SHUFFLE)
    # 2 + 2 + 3 = 7 cards dealt from seat 2 (seat 1 passed over): 3, 2, and the player 2
    assert [len(h) for h in state.hands] == [2, 0, 3, 2]
    assert sorted(private_hands(ev)) == [0, 2, 3]


# ==============================================================================================
# Wild Swap Hands (swap_hands_card)
# ==============================================================================================
SWAP_OPTS = {"swap_hands_card": True}


def test_swap_hands_swaps_with_the_named_player_who_alone_learns_the_hand():
    """RULES.md: "Wild Swap Hands: the player swaps hands with a player they name"."""
    hands = [[SWAP, "blue 1", "blue 2"], ["green 1"], ["yellow 1", "yellow 2", "yellow 4", "yellow 5"]]
    state = arrange_game(3, SWAP_OPTS, preset="standard_112", hands=hands)
    card = card_in(state, 0, SWAP)
    assert sorted(a["target_seat"] for a in plays_of(state, 0, SWAP)) == [1, 2]
    assert all("color" not in a for a in plays_of(state, 0, SWAP))
    mine, theirs, third = [c for c in state.hands[0] if c != card], list(state.hands[1]), list(state.hands[2])
    ev = play(state, 0, SWAP, target_seat=1)
    assert only(ev, "play")["target_seat"] == 1
    assert only(ev, "hands_swapped") == {"type": "hands_swapped", "seat": 0, "target_seat": 1}
    assert state.hands == [theirs, mine, third]
    assert private_hands(ev) == {0: theirs, 1: mine}
    for seat in (2, None):
        assert all("to" not in e for e in visible_events(ev, seat))
    assert_public_events_name_no_card(ev)
    assert state.pending == {"type": "choose_color", "seat": 0}
    apply(state, 0, {"type": "choose_color", "color": "green"})
    assert state.actor() == 1 and state.color == "green"


def test_swap_hands_needs_a_valid_target_seat():
    state = arrange_game(3, SWAP_OPTS, preset="standard_112", hands=[[SWAP, "blue 1"], ["green 1"], ["yellow 1"]])
    card = card_in(state, 0, SWAP)
    for bad in ({}, {"target_seat": 0}, {"target_seat": 3}, {"target_seat": -1}):
        assert_refused(state, 0, {"type": "play", "card": card, **bad})
    assert_refused(state, 0, {"type": "play", "card": card, "target_seat": 1, "color": "red"}, IllegalMove,
                   extra={"field": "color"})
    # not in turn, or a card not yours
    assert_refused(state, 1, {"type": "play", "card": card, "target_seat": 0})
    assert_refused(state, 1, {"type": "play", "card": card_in(state, 1, "green 1")})


def test_a_last_swap_hands_names_nobody_and_ends_the_round():
    state = arrange_game(3, SWAP_OPTS, preset="standard_112", hands=[[SWAP], ["green 1"], ["yellow 1", "yellow 2"]])
    assert plays_of(state, 0, SWAP) == [{"type": "play", "card": card_in(state, 0, SWAP)}]
    before = [list(h) for h in state.hands[1:]]
    ev = play(state, 0, SWAP)
    assert "hands_swapped" not in ev_types(ev) and only(ev, "round_ended")["winner"] == 0
    assert state.hands[1:] == before


def test_the_timer_never_plays_a_swap_and_names_the_colour_after_one():
    """A target is named with the play, so the timer never has one to choose (it never
    plays a card); a colour still owed after the swap is the colour held most."""
    state = arrange_game(2, SWAP_OPTS, preset="standard_112", hands=[[SWAP, "blue 1"], ["green 1", "green 2", "red 1"]])
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert "play" not in ev_types(ev) and ev_types(ev)[:2] == ["timeout", "draw"]
    state = arrange_game(2, SWAP_OPTS, preset="standard_112", hands=[[SWAP, "blue 1"], ["green 1", "green 2", "red 1"]])
    play(state, 0, SWAP, target_seat=1)
    ev = apply(state, 0, {"type": "timeout"}, system=True)
    assert only(ev, "color_chosen")["color"] == "green"


# ==============================================================================================
# Change de jeu (hand_pass_cards)
# ==============================================================================================
PASS_OPTS = {"hand_pass_cards": True}
HANDS4 = [[PASS_CARD, "blue 1", "blue 2"], ["green 1"], ["yellow 1", "yellow 2"], ["red 1", "red 2", "red 4", "red 5"]]


@pytest.mark.parametrize("direction", [1, -1])
def test_hand_pass_passes_every_hand_to_the_next_in_the_direction_of_play(direction):
    """RULES.md: "every player passes their hand to the next in the direction of play"."""
    state = arrange_game(4, PASS_OPTS, hands=HANDS4, direction=direction)
    card = card_in(state, 0, PASS_CARD)
    before = [[c for c in h if c != card] for h in state.hands]
    ev = play(state, 0, PASS_CARD)
    assert state.hands == [before[(s - direction) % 4] for s in range(4)]
    assert only(ev, "hands_rotated") == {"type": "hands_rotated", "seat": 0,
                                         "direction": "clockwise" if direction == 1 else "counterclockwise"}
    assert private_hands(ev) == {s: state.hands[s] for s in range(4)}
    assert_public_events_name_no_card(ev)
    assert state.actor() == direction % 4 and state.stack == []


def test_hand_pass_is_colourless_played_on_anything_and_anything_follows():
    """Decision (seed 004 says no more): colourless, a Change de jeu is played in turn on any
    card and names no colour; any card may be played on it (as on a Buzzer)."""
    state = arrange_game(3, PASS_OPTS, hands=[[PASS_CARD, "green 1", "green 4"], ["yellow 5", "blue 7"], ["red 1"]],
                         top="blue skip", color="blue")
    assert plays_of(state, 0, PASS_CARD) == [{"type": "play", "card": card_in(state, 0, PASS_CARD)}]
    assert_refused(state, 0, {"type": "play", "card": card_in(state, 0, PASS_CARD), "color": "red"}, IllegalMove,
                   extra={"field": "color"})
    ev = play(state, 0, PASS_CARD)
    assert only(ev, "play")["color"] is None and state.color is None
    # seat 1 now holds seat 0's greens (hands went clockwise), playable on the Change de jeu
    assert [game_deck(state).cards[c].name for c in state.hands[1]] == ["green 1", "green 4"]
    playable = {game_deck(state).cards[a["card"]].name for a in legal_actions(state, 1) if a["type"] == "play"}
    assert playable == {"green 1", "green 4"}


def test_anything_may_be_played_on_a_hand_pass():
    state = arrange_game(2, PASS_OPTS, hands=[["green 5", "yellow 7", "wild", "blue skip"], ["red 1", "red 2"]],
                         top=PASS_CARD, color=None)
    playable = {game_deck(state).cards[a["card"]].name for a in legal_actions(state, 0) if a["type"] == "play"}
    assert playable == {"green 5", "yellow 7", "wild", "blue skip"}


def test_going_out_with_a_hand_pass_ends_the_round_and_moves_no_hand():
    state = arrange_game(3, PASS_OPTS, hands=[[PASS_CARD], ["green 1", "green 2"], ["blue 1"]])
    before = [list(h) for h in state.hands[1:]]
    ev = play(state, 0, PASS_CARD)
    assert "hands_rotated" not in ev_types(ev) and only(ev, "round_ended")["winner"] == 0
    assert state.hands[1:] == before


def test_a_hand_pass_turned_up_first_moves_nothing_and_anything_follows():
    for seed in range(300):
        events: list = []
        state = new_game("standard", {**PASS_OPTS, "rounds": 1}, 3, seed, events=events)
        if only(events, "first_card")["card"]["rank"] == PASS_CARD:
            break
    else:
        pytest.skip("no seed turned a Change de jeu up first")
    assert "hands_rotated" not in ev_types(events) and state.color is None and state.stack == []
    seat = state.actor()
    assert {a["card"] for a in legal_actions(state, seat) if a["type"] == "play"} == set(state.hands[seat])


def test_hand_pass_skips_eliminated_seats():
    hands = [[PASS_CARD, "blue 1"], ["green 1", "green 2"], [], ["red 1", "red 2", "red 4"]]
    state = arrange_game(4, PASS_OPTS, hands=hands)
    state.eliminated = [2]
    touch(state)
    card = card_in(state, 0, PASS_CARD)
    before = [[c for c in h if c != card] for h in state.hands]
    ev = play(state, 0, PASS_CARD)
    assert state.hands == [before[3], before[0], [], before[1]]
    assert sorted(private_hands(ev)) == [0, 1, 3]


def test_hand_pass_is_not_jumped_in_and_answers_no_penalty_nor_skip():
    state = arrange_game(3, {**PASS_OPTS, "jump_in": "exact", "stacking": "any", "deflect_cards": True},
                         hands=[[PASS_CARD, "blue 1", "red skip"], [PASS_CARD, "green 2"], ["blue 2", "blue 4"]])
    play(state, 0, PASS_CARD)
    assert not [a for s in (2, 0) for a in legal_actions(state, s) if a["type"] == "play"]
    state = arrange_game(3, {**PASS_OPTS, "deflect_cards": True},
                         hands=[["red skip", "blue 1", "blue 5"], [PASS_CARD, "green 2"], ["blue 2", "blue 4"]])
    play(state, 0, "red skip")
    assert state.pending["type"] == "skip"
    assert {a["type"] for a in legal_actions(state, 1)} - {"call_uno"} == {"pass"}  # no play: no Change de jeu


# ==============================================================================================
# the UNO card (uno_card)
# ==============================================================================================
UNO_OPTS = {"uno_card": True}


@pytest.mark.parametrize("direction", [1, -1])
def test_the_uno_card_passes_every_hand_against_the_direction_of_play(direction):
    """RULES.md: "playable in turn on anything: every hand passes against the direction of
    play"."""
    hands = [[UNO, "blue 1", "blue 2"], ["green 1"], ["yellow 1", "yellow 2"], ["red 1", "red 2", "red 4", "red 5"]]
    state = arrange_game(4, UNO_OPTS, hands=hands, direction=direction, top="green skip", color="green")
    assert plays_of(state, 0, UNO)  # on anything
    card = card_in(state, 0, UNO)
    before = [[c for c in h if c != card] for h in state.hands]
    ev = play(state, 0, UNO)
    assert state.hands == [before[(s + direction) % 4] for s in range(4)]
    assert only(ev, "hands_rotated")["direction"] == ("counterclockwise" if direction == 1 else "clockwise")
    assert private_hands(ev) == {s: state.hands[s] for s in range(4)}
    assert state.actor() == direction % 4 and state.color is None


def test_a_last_uno_card_gives_its_player_a_hand_and_the_empty_hand_wins():
    """RULES.md: "if it was the player's last card, they receive a hand and do not win";
    seed 004: "the charts of the players nevertheless turn… thus it is the other player who
    gains the part": whoever receives the empty hand has gone out and wins the round."""
    hands = [[UNO], ["green 1", "green 2"], ["yellow 1", "yellow 2", "yellow 4"]]
    state = arrange_game(3, UNO_OPTS, hands=hands)
    ev = play(state, 0, UNO)
    # against the direction (clockwise play): seat 0 gets seat 1's hand, seat 2 the empty one
    assert only(ev, "hands_rotated")["direction"] == "counterclockwise"
    ended = only(ev, "round_ended")
    assert ended["winner"] == 2
    assert ended["hand_points"] == [1 + 2, 1 + 2 + 4, 0]
    assert ended["points"] == [0, 0, 3 + 7]
    assert state.history[-1]["winner"] == 2


def test_a_last_uno_card_between_two_players_makes_the_other_win():
    state = arrange_game(2, UNO_OPTS, hands=[[UNO], ["green 1", "green 2"]])
    ev = play(state, 0, UNO)
    assert only(ev, "round_ended")["winner"] == 1 and only(ev, "round_ended")["points"] == [0, 3]


def test_the_uno_card_still_needs_an_uno_call_as_the_next_to_last_card_but_the_window_closes():
    state = arrange_game(3, UNO_OPTS, hands=[[UNO, "blue 1"], ["green 1", "green 2"], ["blue 2"]])
    card = card_in(state, 0, UNO)
    assert {"type": "play", "card": card, "uno": True} in legal_actions(state, 0)
    play(state, 0, UNO)  # no call: but the hands changed owners, nobody holds the uncalled card
    assert state.uno_exposed is None
    assert all(a["type"] != "catch_uno" for s in (1, 2) for a in legal_actions(state, s))


def test_the_uno_card_skips_eliminated_seats_and_the_empty_hand_may_go_to_the_seat_before():
    hands = [[UNO], [], ["green 1", "green 2"], ["red 1", "red 2", "red 4"]]
    state = arrange_game(4, UNO_OPTS, hands=hands)
    state.eliminated = [1]
    touch(state)
    ev = play(state, 0, UNO)
    assert only(ev, "round_ended")["winner"] == 3  # the seat before seat 0 (seat 1 is out)
    assert [len(h) for h in state.hands] == [2, 0, 3, 0]


# ==============================================================================================
# views, saved forms, the bots
# ==============================================================================================
def test_no_view_shows_another_seats_cards_after_a_hand_move():
    hands = [[SHUFFLE, "blue 1", "blue 2"], ["green 1", "green 2"], ["yellow 1", "yellow 2", "yellow 4"]]
    state = arrange_game(3, BOTH, preset="standard_112", hands=hands)
    play(state, 0, SHUFFLE)
    top = state.discard[-1]
    for seat in [*range(3), None]:
        v = view(state, seat)
        ids = {c["id"] for c in v.get("hand", [])}
        assert ids == (set(state.hands[seat]) if seat is not None else set())
        rest = json.dumps({k: x for k, x in v.items() if k not in ("hand", "top_card")})
        assert '"id"' not in rest and v["top_card"]["id"] == top
    d = state.to_dict()
    assert State.from_dict(json.loads(json.dumps(d))).to_dict() == d


def test_a_game_with_every_hand_moving_card_replays_identically():
    rnd = random.Random(5)
    state = new_game("standard_112", {**BOTH, "rounds": 2, "seven_zero": True}, 4, "replay")
    log = play_to_the_end(state, rnd)
    assert replay(state.config, log).to_dict() == state.to_dict()


def _bot_pick(level: str, state: State, seat: int) -> dict:
    rng = random.Random(1)
    return choose(level, observe(state, seat, rng), seat, legal_actions(state, seat), rng, max_samples=8)


def test_normal_swaps_with_the_smallest_hand():
    hands = [[SWAP, "blue 1", "blue 2", "blue 4", "blue 5"], ["green 1", "green 2", "green 4"], ["yellow 1"],
             ["red 1", "red 2"]]
    state = arrange_game(4, SWAP_OPTS, preset="standard_112", hands=hands, top="green 9", color="green")
    pick = _bot_pick("normal", state, 0)
    assert pick == {"type": "play", "card": card_in(state, 0, SWAP), "target_seat": 2}


def test_normal_never_swaps_pointlessly_while_it_holds_fewest():
    hands = [[SWAP, "blue 1", "blue 2"], ["green 1", "green 2", "green 4", "green 5"], ["yellow 1", "yellow 2", "red 1"]]
    state = arrange_game(3, SWAP_OPTS, preset="standard_112", hands=hands, top="green 9", color="green")
    assert _bot_pick("normal", state, 0) == {"type": "draw"}
    state.draw_pile += [state.hands[2].pop(), state.hands[2].pop()]  # seat 2 now holds 1 card: worth a swap
    touch(state)
    assert _bot_pick("normal", state, 0) == {"type": "play", "card": card_in(state, 0, SWAP), "target_seat": 2}


def test_normal_keeps_an_uno_card_rather_than_lose_with_it_and_passes_hands_when_it_pays():
    state = arrange_game(3, UNO_OPTS, hands=[[UNO], ["green 1", "green 2"], ["yellow 1", "yellow 2"]],
                         top="green 9", color="green")
    assert _bot_pick("normal", state, 0) == {"type": "draw"}
    # a big hand, the next player's small one comes back with the UNO card
    state = arrange_game(3, UNO_OPTS, hands=[[UNO, "blue 1", "blue 2", "blue 4", "blue 5", "blue 6"], ["green 1"],
                                             ["yellow 1", "yellow 2", "yellow 4", "yellow 5", "yellow 6", "yellow 7"]],
                         top="red 9", color="red")
    assert _bot_pick("normal", state, 0) == {"type": "play", "card": card_in(state, 0, UNO)}


def test_normal_goes_out_with_a_last_hand_moving_card():
    for name, opts, preset in ((SHUFFLE, {}, "standard_112"), (PASS_CARD, PASS_OPTS, "standard")):
        state = arrange_game(3, opts, preset=preset, hands=[[name], ["green 1", "green 2"], ["yellow 1"]],
                             top="green 9", color="green")
        assert _bot_pick("normal", state, 0) == {"type": "play", "card": card_in(state, 0, name)}


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_every_bot_level_plays_the_hand_moving_cards_to_the_end(level):
    """Every level plays every decision these cards add (the plays, the targets, the colour
    after a shuffle or a swap), a whole game against ``normal`` seats.  ``hard`` searches a
    fixed number of worlds, not a time budget, so the games are the same on any machine."""
    seen: Counter = Counter()
    for preset, opts in (("standard_112", BOTH), ("standard_112", {**SWAP_OPTS, **BOTH})):
        for g in range(2 if level == "hard" else 6):
            state = new_game(preset, {**opts, "rounds": 2}, 3, f"{level}-{g}")
            rng = random.Random(g)
            steps = 0
            while state.status == "active":
                seat = state.actor()
                who = level if seat == 0 else "normal"
                pick = choose(who, observe(state, seat, rng), seat, legal_actions(state, seat), rng, max_samples=3)
                if pick["type"] == "play":
                    seen[(seat == 0, build_rules(state.config).deck.rank[pick["card"]])] += 1
                seen[(seat == 0, pick["type"])] += 1
                apply(state, seat, pick)
                steps += 1
                assert steps < 4000
            assert state.winner is not None
    assert seen[(True, "play")] > 0 and seen[(True, "choose_color")] + seen[(False, "choose_color")] > 0
    assert sum(seen[(w, r)] for w in (True, False) for r in (SHUFFLE, SWAP, PASS_CARD, UNO)) > 0


def test_an_eliminated_seat_is_no_swap_target():
    """A seat out of the game (``scoring: elimination``) holds no hand to swap with."""
    hands = [[SWAP, "blue 1", "blue 2"], ["green 1"], [], ["yellow 1", "yellow 2"]]
    state = arrange_game(4, SWAP_OPTS, preset="standard_112", hands=hands)
    state.eliminated = [2]
    touch(state)
    assert sorted(a["target_seat"] for a in plays_of(state, 0, SWAP)) == [1, 3]
    assert_refused(state, 0, {"type": "play", "card": card_in(state, 0, SWAP), "target_seat": 2})
