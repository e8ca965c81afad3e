"""Options ``wild_draw_four: bluff | free``, ``wild_keeps_color``, ``replay_cards``, the
round-start options ``first_wild_draw_four`` and ``dealer``, and preset ``play_uno_com``
(RULES.md "Options", "play_uno_com"; seeds 001 and 002), sentence by sentence; then the
bots, and property tests over thousands of random games.

Positions are arranged on the game's own deck (``helpers.arrange_game``): cards are named
``"red 5"``, ``"wild"``, ``"wild_draw_four"``, ``"blue replay"``.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.bots import choose
from games.engine import (DECISIONS, IllegalMove, InvalidOptions, NotYourTurn, State, apply, build_rules, legal_actions,
                          new_game, observe, replay, resolve_options, view, visible_events)
from games.engine.uno.wild_draw_four import bluffed, guilty

from . import test_properties as properties
from .helpers import arrange_game, assert_game_conserved, assert_refused, ev_types, only, plays_of, types
from .test_core import check_copy_then_push

BLUFF = {"wild_draw_four": "bluff"}
FREE = {"wild_draw_four": "free"}
REPLAY = {"replay_cards": True}
#: fillers: never red, never a 3 (the usual top card), no action card
F0, F1, F2 = ["blue 1", "blue 2", "blue 4"], ["yellow 1", "yellow 2", "yellow 4"], ["green 6", "green 8", "green 9"]


def name(state: State, card: int) -> str:
    return build_rules(state.config).deck.cards[card].name


def cid(state: State, seat: int, card_name: str, nth: int = 0) -> int:
    found = [c for c in state.hands[seat] if name(state, c) == card_name]
    if len(found) <= nth:
        raise KeyError(f"seat {seat} holds no {card_name!r}")
    return found[nth]


def play(state: State, seat: int, card_name: str, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": cid(state, seat, card_name), **extra})


def hand_names(state: State, seat: int) -> list[str]:
    return [name(state, c) for c in state.hands[seat]]


# ==============================================================================================
# wild_draw_four: bluff (seed 001)
# "meant only when no other card can be played at all; a challenged bluffer draws 4+2; an
#  innocent player's accuser draws 4+2"
# ==============================================================================================
def test_bluff_a_wild_draw_four_may_be_played_while_other_cards_are_playable_and_is_challengeable():
    """"meant only when no other card can be played at all": meant, not enforced: the
    challenge enforces it."""
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "blue 3", *F0], F1, F2], top="red 3")
    assert "wild_draw_four" in plays_of(state, 0)
    play(state, 0, "wild_draw_four", color="green")
    assert state.pending == {"type": "penalty", "seat": 1, "amount": 4, "kind": "wild_draw_four", "by": 0,
                             "challengeable": True, "guilty": True, "prev_color": "red", "prev_rank": "3"}
    assert view(state, 1)["pending"] == {"type": "penalty", "seat": 1, "amount": 4, "kind": "wild_draw_four",
                                         "challengeable": True}
    assert "challenge" in types(state, 1)


def test_bluff_a_challenged_bluffer_draws_4_plus_2_and_the_challenger_plays_on():
    """"a challenged bluffer draws 4+2": a blue 3 (same number, another colour) could have
    been played on the red 3: guilty under bluff, though innocent under the official rule."""
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "blue 3", *F0], F1, F2], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    ev = apply(state, 1, {"type": "challenge"})
    assert only(ev, "challenge") == {"type": "challenge", "seat": 1, "target_seat": 0, "guilty": True}
    assert only(ev, "draw") == {"type": "draw", "seat": 0, "count": 6, "reason": "challenge_lost"}
    assert len(state.hands[0]) == 4 + 6 and len(state.hands[1]) == 3
    assert state.actor() == 1 and state.pending is None  # the challenger did not draw: it plays on
    revealed = only(ev, "hand_revealed")
    assert revealed["to"] == [1] and visible_events(ev, 2) == [e for e in ev if "to" not in e]
    assert_game_conserved(state)


def test_bluff_an_innocent_players_accuser_draws_4_plus_2_and_loses_the_turn():
    """"an innocent player's accuser draws 4+2": nothing but the Wild Draw Four could be
    played (another Wild Draw Four does not count: it is the same bluff)."""
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "wild_draw_four", *F0], F1, F2], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    ev = apply(state, 1, {"type": "challenge"})
    assert only(ev, "challenge")["guilty"] is False
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": 6, "reason": "challenge_lost"}
    assert len(state.hands[1]) == 3 + 6 and state.actor() == 2  # penalty_skips_turn: the turn is lost


def test_bluff_a_wild_in_hand_is_another_card_that_could_have_been_played():
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "wild", *F0], F1, F2], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    assert state.pending["guilty"] is True
    # the official rule judges the colour only: the same hand is innocent there
    official = arrange_game(3, {}, hands=[["wild_draw_four", "wild", *F0], F1, F2], top="red 3")
    play(official, 0, "wild_draw_four", color="green")
    assert official.pending["guilty"] is False and "prev_rank" not in official.pending


def test_bluff_guilt_is_judged_on_the_card_the_wild_draw_four_covered_with_the_colour_in_force():
    """A red 3 covered, green in force (named by an earlier Wild): a green card or a 3 is
    playable, a red card is not."""
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "red 5", *F0], F1, F2], top="red 3", color="green")
    play(state, 0, "wild_draw_four", color="yellow")
    assert state.pending["guilty"] is False
    rules = build_rules(state.config)
    deck = rules.deck
    green_9 = next(c for c in range(len(deck)) if deck.cards[c].name == "green 9")
    assert bluffed(rules, [green_9], "green", "3") is True
    assert bluffed(rules, [green_9], "red", "5") is False
    assert guilty(rules, [green_9], "green") is True and guilty(rules, [green_9], "red") is False


def test_bluff_stacked_the_whole_amount_plus_2_moves():
    """Seed 001: "This rule is absolutely not incompatible with the cumulation rule"."""
    state = arrange_game(3, {**BLUFF, "stacking": "same"},
                         hands=[["wild_draw_four", *F0], ["wild_draw_four", "green 5", *F1], F2], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    play(state, 1, "wild_draw_four", color="blue")  # the green 5 was playable on the green in force
    assert state.pending["amount"] == 8 and state.pending["guilty"] is True
    ev = apply(state, 2, {"type": "challenge"})
    assert only(ev, "draw") == {"type": "draw", "seat": 1, "count": 10, "reason": "challenge_lost"}
    assert state.actor() == 2


def test_bluff_an_observation_judges_a_sampled_hand_with_the_bluff_guilt_test():
    state = arrange_game(2, BLUFF, hands=[["wild_draw_four", "blue 3", "green 2"], ["green 9", "yellow 9"]],
                         top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    rules = build_rules(state.config)
    seen = set()
    for seed in range(40):
        obs = observe(state, 1, random.Random(seed))
        p = obs.decision()
        assert p.guilty == bluffed(rules, obs.hands[0], "red", "3")
        seen.add(p.guilty)
    assert seen == {True, False}  # the sampled hands differ in guilt


def test_bluff_timer_accepts_and_never_challenges():
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "blue 3", *F0], F1, F2], top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    ev = apply(state, 1, {"type": "timeout"}, system=True)
    assert "challenge" not in ev_types(ev) and only(ev, "draw")["count"] == 4 and state.actor() == 2


# ==============================================================================================
# wild_draw_four: free (seed 002): "playable on anything, no challenge"
# ==============================================================================================
def test_free_the_next_player_draws_4_and_is_skipped_and_cannot_challenge():
    state = arrange_game(3, FREE, hands=[["wild_draw_four", "red 5", *F0], F1, F2], top="red 3")
    assert "wild_draw_four" in plays_of(state, 0)  # on anything, while holding the colour too
    play(state, 0, "wild_draw_four", color="blue")
    assert state.color == "blue"  # the player names the colour
    assert state.pending == {"type": "penalty", "seat": 1, "amount": 4, "kind": "wild_draw_four", "by": 0,
                             "challengeable": False, "prev_color": "red"}  # no guilt kept: nothing to judge
    assert legal_actions(state, 1) == [{"type": "draw"}]
    exc = assert_refused(state, 1, {"type": "challenge"}, IllegalMove)
    assert exc.detail == "with wild_draw_four: free a Wild Draw Four cannot be challenged: draw the penalty"
    ev = apply(state, 1, {"type": "draw"})
    assert only(ev, "draw")["count"] == 4 and state.actor() == 2


def test_free_a_draw_two_still_cannot_be_challenged_with_the_usual_message():
    state = arrange_game(3, FREE, hands=[["red draw_two", *F0], F1, F2], top="red 3")
    play(state, 0, "red draw_two")
    exc = assert_refused(state, 1, {"type": "challenge"}, IllegalMove)
    assert exc.detail == "there is no Wild Draw Four to challenge"


def test_wild_draw_four_values():
    assert resolve_options("standard", {})["wild_draw_four"] == "official"
    for mode in ("official", "bluff", "free"):
        assert resolve_options("standard", {"wild_draw_four": mode})["wild_draw_four"] == mode
    with pytest.raises(InvalidOptions) as info:
        resolve_options("standard", {"wild_draw_four": "sometimes"})
    assert info.value.option == "wild_draw_four"


# ==============================================================================================
# wild_keeps_color: "a Wild may name the current colour (always allowed; listed for completeness)"
# ==============================================================================================
def test_wild_keeps_color_a_wild_may_name_the_colour_in_force_and_false_is_refused():
    state = arrange_game(3, {}, hands=[["wild", *F0], F1, F2], top="red 3")
    colors = [a["color"] for a in legal_actions(state, 0) if a["type"] == "play" and a.get("color")]
    assert colors == ["red", "yellow", "green", "blue"]
    play(state, 0, "wild", color="red")
    assert state.color == "red"
    with pytest.raises(InvalidOptions) as info:
        new_game("standard", {"wild_keeps_color": False}, 3, 1)
    assert info.value.option == "wild_keeps_color" and "always name the colour in force" in str(info.value)
    assert resolve_options("standard", {"wild_keeps_color": True})["wild_keeps_color"] is True


# ==============================================================================================
# replay_cards (seed 002): "two Replay per colour, 20 points. Played on its colour or on a
# Replay; the player then plays again at once: a card of the same colour, another Replay, or
# a Wild."
# ==============================================================================================
def test_replay_two_per_colour_20_points():
    rules = build_rules(new_game("standard", REPLAY, 3, 1).config)
    replays = [c for c in rules.deck.cards if c.rank == "replay"]
    assert len(rules.deck) == 116 and len(replays) == 8
    assert Counter(c.color for c in replays) == {"red": 2, "yellow": 2, "green": 2, "blue": 2}
    assert {c.points for c in replays} == {20} and {c.kind for c in replays} == {"action"}
    assert [c.id for c in replays] == list(range(108, 116))
    assert replays[0].to_dict() == {"id": 108, "color": "red", "rank": "replay"}


def test_replay_is_played_on_its_colour_or_on_a_replay_only():
    state = arrange_game(3, REPLAY, hands=[["red replay", "blue replay", *F0], F1, F2], top="red 3")
    assert plays_of(state, 0) == ["red replay"]
    exc = assert_refused(state, 0, {"type": "play", "card": cid(state, 0, "blue replay")}, IllegalMove)
    assert "does not match" in exc.detail
    on_replay = arrange_game(3, REPLAY, hands=[["blue replay", *F0], F1, F2], top="red replay")
    assert "blue replay" in plays_of(on_replay, 0)


def test_replay_the_player_then_plays_again_at_once_same_colour_another_replay_or_a_wild():
    state = arrange_game(3, REPLAY, hands=[
        ["red replay", "red 7", "blue replay", "wild", "wild_draw_four", "blue 7", "green 3", "yellow 9"], F1, F2,
    ], top="red 3")
    ev = play(state, 0, "red replay")
    assert ev_types(ev) == ["play"] and state.actor() == 0
    assert view(state, 1)["pending"] == {"type": "replay", "seat": 0}
    assert plays_of(state, 0) == ["red 7", "blue replay", "wild", "wild_draw_four"]
    assert "draw" not in types(state, 0) and legal_actions(state, 0)[-1] == {"type": "end_turn"}
    for other in ("blue 7", "green 3", "yellow 9"):
        exc = assert_refused(state, 0, {"type": "play", "card": cid(state, 0, other)}, IllegalMove)
        assert exc.detail == "after a Replay play a red card, another Replay or a Wild, or end_turn"
    assert_refused(state, 0, {"type": "draw"}, IllegalMove)
    play(state, 0, "red 7")  # the card of the same colour ends the replay: play passes on
    assert state.actor() == 1 and state.pending is None


def test_replay_on_replay_chains_and_the_colour_follows_the_last_replay():
    state = arrange_game(3, REPLAY, hands=[["red replay", "blue replay", "blue 7", "red 7", *F1], F0, F2],
                         top="red 3")
    play(state, 0, "red replay")
    play(state, 0, "blue replay")
    assert state.pending == {"type": "replay", "seat": 0} and state.color == "blue"
    assert plays_of(state, 0) == ["blue 7"]
    play(state, 0, "blue 7")
    assert state.actor() == 1


def test_replay_then_a_wild_names_the_colour_and_a_skip_skips():
    state = arrange_game(3, REPLAY, hands=[["red replay", "wild", *F0], F1, F2], top="red 3")
    play(state, 0, "red replay")
    play(state, 0, "wild", color="green")
    assert state.color == "green" and state.actor() == 1
    skip = arrange_game(3, REPLAY, hands=[["red replay", "red skip", *F0], F1, F2], top="red 3")
    play(skip, 0, "red replay")
    play(skip, 0, "red skip")
    assert skip.actor() == 2


def test_replay_end_turn_and_the_timer_end_it_without_drawing():
    """RULES.md "Time": on expiry "a sequence (straights, continuations, Replay, Duo's
    Reverse) ends"."""
    for how in ("end_turn", "timeout"):
        state = arrange_game(3, REPLAY, hands=[["red replay", "red 7", *F0], F1, F2], top="red 3")
        play(state, 0, "red replay")
        if how == "end_turn":
            ev = apply(state, 0, {"type": "end_turn"})
        else:
            ev = apply(state, 0, {"type": "timeout"}, system=True)
        assert "draw" not in ev_types(ev) and {"type": "end_turn", "seat": 0} in ev
        assert state.actor() == 1 and len(state.hands[0]) == 4


def test_replay_opens_even_when_the_player_cannot_go_on_so_the_pause_reveals_nothing():
    state = arrange_game(3, REPLAY, hands=[["red replay", *F0], F1, F2], top="red 3")
    play(state, 0, "red replay")
    assert legal_actions(state, 0) == [{"type": "end_turn"}]


def test_replay_at_once_the_next_player_cannot_cut_in_even_with_straights():
    state = arrange_game(3, {**REPLAY, "straights": True}, hands=[["red replay", "red 5", *F0], ["red 8", *F1], F2],
                         top="red 3")
    play(state, 0, "red replay")
    assert legal_actions(state, 1) == []
    assert_refused(state, 1, {"type": "play", "card": cid(state, 1, "red 8")}, NotYourTurn)
    play(state, 0, "red 5")  # a number after a Replay opens a straight of its own (no direction yet)
    assert state.pending == {"type": "sequence", "seat": 0}
    assert view(state, 1)["pending"]["direction"] is None


def test_replay_the_last_card_needs_uno_called():
    state = arrange_game(3, REPLAY, hands=[["red replay", "red 7"], F1, F2], top="red 3")
    play(state, 0, "red replay")  # UNO not called: the red 7 is not listed
    assert plays_of(state, 0) == []
    exc = assert_refused(state, 0, {"type": "play", "card": cid(state, 0, "red 7")}, IllegalMove)
    assert exc.detail == "call UNO before playing your last card: no going out through a replay without it"
    apply(state, 0, {"type": "call_uno"})
    play(state, 0, "red 7")
    assert state.status == "finished" and state.winner == 0


def test_replay_played_after_drawing_still_plays_again():
    state = arrange_game(3, REPLAY, hands=[[*F0], F1, F2], top="red 3", draw=["red replay"])
    apply(state, 0, {"type": "draw"})
    play(state, 0, "red replay")
    assert state.pending == {"type": "replay", "seat": 0}


def test_replay_with_two_players_and_jumped_in():
    two = arrange_game(2, REPLAY, hands=[["red replay", "red 7", *F0], F1], top="red 3")
    play(two, 0, "red replay")
    play(two, 0, "red 7")
    assert two.actor() == 1
    state = arrange_game(3, {**REPLAY, "jump_in": "exact"},
                         hands=[["red replay", *F0], F1, ["red replay", "red 9", *F2]], top="red 3")
    play(state, 0, "red replay")
    ev = play(state, 2, "red replay")  # an identical Replay jumped in: the jumper replays
    assert "jump_in" in ev_types(ev) and state.pending == {"type": "replay", "seat": 2}


def test_replay_turned_up_first_is_a_plain_card_and_as_a_last_card_ends_the_round_worth_20():
    for seed in range(400):
        state = new_game("standard", {**REPLAY, "rounds": 1}, 3, seed)
        if name(state, state.discard[-1]).endswith("replay"):
            break
    else:
        raise AssertionError("no first Replay in 400 deals")
    assert state.pending is None and state.actor() == state.next_seat(state.dealer)
    end = arrange_game(3, REPLAY, hands=[["red replay"], ["blue replay", "yellow 4"], F2], top="red 3")
    ev = play(end, 0, "red replay")
    ended = only(ev, "round_ended")
    assert ended["winner"] == 0 and ended["hand_points"] == [0, 24, 23] and end.scores[0] == 47


def test_replay_saved_form_and_schema():
    state = arrange_game(3, REPLAY, hands=[["red replay", "red 7", *F0], F1, F2], top="red 3")
    play(state, 0, "red replay")
    again = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.to_dict() == state.to_dict() and again.pending == {"type": "replay", "seat": 0}
    assert DECISIONS["replay"].public_schema == {}


# ==============================================================================================
# play_uno_com (seed 002)
# ==============================================================================================
def test_play_uno_com_120_cards_a_second_zero_per_colour_and_two_replay_per_colour():
    """"120 cards: the standard 108, a second 0 per colour ... and two Replay per colour"."""
    state = new_game("play_uno_com", {}, 4, 1)
    deck = build_rules(state.config).deck
    assert len(deck) == 120
    ranks = Counter((c.color, c.rank) for c in deck.cards)
    for color in ("red", "yellow", "green", "blue"):
        assert ranks[(color, "0")] == 2 and ranks[(color, "replay")] == 2 and ranks[(color, "7")] == 2
    assert ranks[(None, "wild")] == 4 and ranks[(None, "wild_draw_four")] == 4
    assert sum(len(h) for h in state.hands) + len(state.draw_pile) + len(state.discard) == 120


def test_play_uno_com_options():
    """"Wild Draw Four: playable on anything (wild_draw_four: free) ... Scoring
    winner_takes, Replay 20."  2-10 players."""
    opts = resolve_options("play_uno_com", {})
    assert opts["replay_cards"] is True and opts["wild_draw_four"] == "free"
    assert opts["first_wild_draw_four"] == "name_color" and opts["dealer"] == "random"
    assert opts["scoring"] == "winner_takes" and opts["stacking"] == "off" and opts["wild_keeps_color"] is True
    for seats in (2, 10):
        new_game("play_uno_com", {}, seats, 1)
    for seats in (1, 11):
        with pytest.raises(InvalidOptions) as info:
            new_game("play_uno_com", {}, seats, 1)
        assert info.value.option == "max_players"
    defaults = resolve_options("standard", {})
    assert (defaults["first_wild_draw_four"], defaults["dealer"], defaults["replay_cards"]) == ("redraw", "rotates",
                                                                                               False)


def test_play_uno_com_draw_two_next_draws_2_and_is_skipped_playable_on_its_colour_or_a_draw_two():
    state = arrange_game(3, preset="play_uno_com", hands=[["red draw_two", "blue draw_two", *F0], F1, F2],
                         top="red 3")
    assert plays_of(state, 0) == ["red draw_two"]
    assert_refused(state, 0, {"type": "play", "card": cid(state, 0, "blue draw_two")}, IllegalMove)
    play(state, 0, "red draw_two")
    assert legal_actions(state, 1) == [{"type": "draw"}]  # no stacking
    apply(state, 1, {"type": "draw"})
    assert len(state.hands[1]) == 5 and state.actor() == 2
    on_draw_two = arrange_game(3, preset="play_uno_com", hands=[["blue draw_two", *F0], F1, F2],
                               top="red draw_two")
    assert plays_of(on_draw_two, 0) == ["blue draw_two"]


def test_play_uno_com_wild_draw_four_on_anything_next_draws_4_and_is_skipped():
    state = arrange_game(3, preset="play_uno_com", hands=[["wild_draw_four", "red 5", *F0], F1, F2], top="red 3")
    play(state, 0, "wild_draw_four", color="red")  # the colour may be kept
    assert state.color == "red" and legal_actions(state, 1) == [{"type": "draw"}]
    apply(state, 1, {"type": "draw"})
    assert len(state.hands[1]) == 7 and state.actor() == 2


def _first(preset: str, options: dict, rank: str, seats: int = 3) -> tuple[State, list[dict]]:
    for seed in range(3000):
        events: list = []
        state = new_game(preset, {**options, "rounds": 1}, seats, seed, events=events)
        first = only(events, "first_card")["card"]
        if first["rank"] == rank:
            return state, events
    raise AssertionError(f"no first {rank} in 3000 deals")


@pytest.mark.parametrize("rank", ["wild", "wild_draw_four"])
def test_play_uno_com_a_wild_or_wild_draw_four_turned_up_first_the_first_player_names_the_colour(rank):
    """"A Wild or Wild Draw Four turned up first: the first player names the colour (no
    redraw)."""
    state, events = _first("play_uno_com", {}, rank)
    assert "first_card_returned" not in ev_types(events)
    first = state.next_seat(state.dealer)
    assert state.pending == {"type": "choose_color", "seat": first}
    assert state.color is None and [len(h) for h in state.hands] == [7, 7, 7]
    apply(state, first, {"type": "choose_color", "color": "blue"})
    assert state.color == "blue" and state.actor() == first and state.pending is None  # then plays
    assert_game_conserved(state)


def test_first_wild_draw_four_is_redrawn_by_default_and_named_with_the_option_on_standard():
    for seed in range(300):
        events = []
        new_game("standard", {}, 3, seed, events=events)
        assert only(events, "first_card")["card"]["rank"] != "wild_draw_four"  # returned, another turned
    state, _ = _first("standard", {"first_wild_draw_four": "name_color"}, "wild_draw_four")
    assert state.pending["type"] == "choose_color"


def test_play_uno_com_the_starting_player_is_chosen_at_random_every_round():
    """"The starting player is chosen at random" (seed 002: "at the beginning of every
    game"): the dealer is drawn each round, the player on their left starts."""
    steps: Counter = Counter()
    for seed in range(40):
        events: list = []
        state = new_game("play_uno_com", {"rounds": 2}, 4, seed, events=events)
        rnd = random.Random(seed)
        log = []
        while state.round == 1 and state.status == "active":
            seat, action, system = properties.next_move(state, rnd)
            events += apply(state, seat, action, system=system)
            log.append((seat, action))
        if state.round == 2:
            dealers = [e["dealer"] for e in events if e["type"] == "round_started"]
            steps[(dealers[1] - dealers[0]) % 4] += 1
            assert [e["seat"] for e in events if e["type"] == "dealer_chosen"] == dealers
        assert replay(state.config, log).to_dict() == state.to_dict()
    assert len(steps) >= 3, steps  # not always the next seat (the standard rotation)
    rotating = new_game("standard", {"rounds": 2}, 4, 5)
    assert rotating.options["dealer"] == "rotates"


def test_play_uno_com_a_replay_round_ends_with_replay_worth_20():
    state = arrange_game(2, preset="play_uno_com", hands=[["red 0"], ["red replay", "red 0"]], top="red 3")
    ev = play(state, 0, "red 0")
    assert only(ev, "round_ended")["points"] == [20, 0]


# ==============================================================================================
# the bots
# ==============================================================================================
def _pick(level: str, state: State, seat: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    return choose(level, observe(state, seat, rng), seat, legal_actions(state, seat), rng, max_samples=8)


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_every_level_plays_a_replay_sequence(level):
    state = arrange_game(3, REPLAY, hands=[["red replay", "red 7", "red 8", *F0], F1, F2], top="red 3")
    play(state, 0, "red replay")
    for seed in range(5):
        pick = _pick(level, state, 0, seed)
        assert pick in legal_actions(state, 0)
    if level in ("normal", "hard"):
        assert _pick(level, state, 0)["type"] == "play"  # it goes on with a red card
    empty = arrange_game(3, REPLAY, hands=[["red replay", *F0], F1, F2], top="red 3")
    play(empty, 0, "red replay")
    assert _pick(level, empty, 0) == {"type": "end_turn"}


def test_normal_never_bluffs_under_bluff_but_does_under_official_and_free():
    hands = [["wild_draw_four", "blue 3", "blue 5", "yellow 1"], ["green 1"], ["green 2", "yellow 4"]]
    for opts, bluffs in ((BLUFF, False), ({}, True), (FREE, True)):
        state = arrange_game(3, opts, hands=hands, top="red 3")
        pick = _pick("normal", state, 0)
        assert (pick["type"] == "play" and name(state, pick["card"]) == "wild_draw_four") == bluffs, opts
    alone = arrange_game(3, BLUFF, hands=[["wild_draw_four", "green 5", "blue 5"], ["green 1"], ["green 2"]],
                         top="red 3")
    assert name(alone, _pick("normal", alone, 0)["card"]) == "wild_draw_four"  # nothing else: no bluff


def test_normal_challenges_under_bluff_from_a_hand_of_4():
    hands = [["wild_draw_four", "blue 1", "blue 2", "blue 4", "yellow 5"], [*F1, "green 5"], F2]
    for opts, challenges in ((BLUFF, True), ({}, False)):
        state = arrange_game(3, opts, hands=hands, top="red 3")
        play(state, 0, "wild_draw_four", color="green")
        assert (_pick("normal", state, 1) == {"type": "challenge"}) == challenges, opts
    state = arrange_game(3, FREE, hands=hands, top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    for level in ("random", "easy", "normal", "hard"):
        assert _pick(level, state, 1) == {"type": "draw"}


def test_hard_searches_a_challenge_under_bluff():
    state = arrange_game(3, BLUFF, hands=[["wild_draw_four", "blue 3", "blue 1", "blue 2"], [*F1, "green 5"], F2],
                         top="red 3")
    play(state, 0, "wild_draw_four", color="green")
    assert _pick("hard", state, 1)["type"] in ("challenge", "draw")


# ==============================================================================================
# property tests over random games
# ==============================================================================================
COMBOS = [
    ("play_uno_com-2p", "play_uno_com", {}, 2),
    ("play_uno_com-4p", "play_uno_com", {}, 4),
    ("play_uno_com-jump-straights", "play_uno_com", {"jump_in": "exact", "straights": True, "stacking": "any"}, 3),
    ("bluff-3p", "standard", {**BLUFF, "stacking": "same"}, 3),
    ("free-4p", "standard", FREE, 4),
    ("replay-standard-3p", "standard", REPLAY, 3),
    ("replay-bluff-deflect-2p", "standard", {**REPLAY, **BLUFF, "deflect_cards": True, "seven_zero": True}, 2),
]
CHECKED_GAMES = 5 * properties.SCALE
BULK_GAMES = 1500 * properties.SCALE


@properties.by_option_set(COMBOS)
def test_checked_random_games(name, preset, options, seats):
    """After every action: cards conserved (the deck's own size); every listed action
    accepted, validated and through the fast path, to the same state; unlisted ones
    refused with the state untouched; views and events hide; the game ends consistently,
    survives a JSON round trip and replays exactly."""
    properties.play_checked_games(preset, options, seats, CHECKED_GAMES)


@properties.by_option_set(COMBOS[:2])
def test_checked_multi_round_game(name, preset, options, seats):
    properties.play_checked_whole_game(preset, options, seats, 11, target_score=200)


@properties.by_option_set(COMBOS)
def test_bulk_random_games(name, preset, options, seats):
    """Many random games: cards conserved after every action, the owing seat always has a
    legal action, every game ends consistently and survives a JSON round trip; the options
    were exercised (replays opened, challenges settled)."""
    seen: Counter = Counter()

    def after(state: State, seat: int, action: dict, events: list, before: properties.Before) -> None:
        seen.update(e["type"] for e in events if e["type"] in ("challenge", "end_turn"))
        if state.pending is not None:
            seen[state.pending["type"]] += 1

    properties.play_random_games(preset, options, seats, BULK_GAMES, random.Random(name), after=after)
    if options.get("replay_cards") or preset == "play_uno_com":
        assert seen["replay"] > 0 and seen["end_turn"] > 0, seen
    if options.get("wild_draw_four") == "bluff":
        assert seen["challenge"] > 0, seen
    if options.get("wild_draw_four") == "free" or preset == "play_uno_com":
        assert seen["challenge"] == 0, seen


@properties.by_option_set(COMBOS)
def test_copy_then_push_leaves_the_original_exactly_as_it_was(name, preset, options, seats):
    """A copy is deep and exact (``test_core.check_copy_then_push``)."""
    check_copy_then_push(f"copy:{name}", preset, options, seats, 1000)


@properties.by_option_set(COMBOS[:2] + COMBOS[3:5])
def test_bots_of_every_level_finish_games(name, preset, options, seats):
    """Every level plays every decision of these games (replays, free and bluffed Wild
    Draw Fours, challenges) to the end of a round."""
    levels = ["random", "easy", "normal", "hard"]
    for game in range(2):
        state = new_game(preset, {**options, "rounds": 1}, seats, f"bots-{game}")
        rng = random.Random(game)
        steps = 0
        while state.status == "active":
            seat = state.actor()
            level = levels[(seat + game) % 4]
            pick = choose(level, observe(state, seat, rng), seat, legal_actions(state, seat), rng, max_samples=2)
            assert pick is not None
            apply(state, seat, pick)
            steps += 1
            assert steps < 3000
        assert state.winner is not None
