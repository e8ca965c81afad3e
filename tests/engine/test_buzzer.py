"""Option ``buzzer_cards`` with ``buzzer_seconds`` (RULES.md "Options", seed 001), sentence by
sentence, then its decisions, the timer, hidden information, the saved forms, the bots, and
property tests over thousands of random games (alone and with the other options).

RULES.md: "`buzzer_cards` (seed 001): 8 colourless Buzzer cards (20 points). Played in turn
on anything; anything may follow. Playing one opens a buzz window (`buzzer_seconds`, default
10): every player must `buzz`; the last to buzz, and everyone who did not buzz before the
window closes, draws 2. Bots buzz after a human-like random delay."
RULES.md "Time": "Out-of-turn windows (UNO catch, jump-in, buzz) close with the next in-turn
action or their own timer." ... "an unbuzzed seat simply did not buzz".

Positions are arranged on the game's own 116-card deck (``helpers.arrange_game``).
"""

from __future__ import annotations

import json
import random
import statistics

import pytest

from games import bots
from games.bots import policies
from games.engine import (Action, Config, IllegalMove, InvalidAction, InvalidOptions, NotYourTurn, State, apply,
                          build_rules, deadline_seconds, legal_actions, legal_moves, new_game, observe, owed, push,
                          resolve_options, view, visible_events)
from games.engine.uno.buzzer import BuzzWindow

from . import test_properties as properties
from .helpers import arrange_game, assert_game_conserved, assert_refused, card_in, ev_types, game_deck, only, snapshot
from .test_core import random_step

OPTS = {"buzzer_cards": True}
BUZZ = {"type": "buzz"}
EXPIRE = {"type": "expire"}
# fillers that match nothing in particular (never red, never a 3, no action card)
F0, F1, F2, F3 = (["blue 1", "blue 2", "blue 4"], ["yellow 1", "yellow 2", "yellow 4"],
                  ["green 1", "green 2", "green 4"], ["blue 6", "blue 8", "blue 9"])
FILLERS = [F0, F1, F2, F3]


def position(seats: int = 3, first: list[str] | None = None, options: dict | None = None, **kw) -> State:
    """Seat 0 in turn holding a Buzzer (``first``: its hand instead), the others fillers."""
    hands = [first if first is not None else ["buzzer", *F0], *FILLERS[1:seats]]
    return arrange_game(seats, {**OPTS, **(options or {})}, hands=hands, **kw)


def play(state: State, seat: int, name: str, **extra) -> list[dict]:
    return apply(state, seat, {"type": "play", "card": card_in(state, seat, name), **extra})


def buzz(state: State, seat: int) -> list[dict]:
    return apply(state, seat, BUZZ)


def pending(state: State) -> dict | None:
    return view(state, None)["pending"]


def owing(state: State) -> list[int]:
    return [s for s, decision, _ in owed(state) if decision == "buzz"]


def sizes(state: State) -> list[int]:
    return [len(h) for h in state.hands]


def drew(events: list[dict]) -> dict[int, int]:
    """Cards drawn per seat for the buzz, from the public ``draw`` events."""
    return {e["seat"]: e["count"] for e in events if e["type"] == "draw" and e["reason"] == "buzz"}


# ==============================================================================================
# "8 colourless Buzzer cards (20 points)"
# ==============================================================================================
def test_eight_colourless_buzzer_cards_worth_20_points_are_listed_in_the_deck_description():
    deck = build_rules(new_game("standard", OPTS, 3, 1).config).deck
    buzzers = [c for c in deck.cards if c.rank == "buzzer"]
    assert len(buzzers) == 8 and len(deck) == 116
    assert all(c.colors == () and c.points == 20 and c.name == "buzzer" for c in buzzers)
    assert [c.to_dict() for c in buzzers] == [{"id": i, "color": None, "rank": "buzzer"} for i in range(108, 116)]
    described = deck.describe()
    assert described["size"] == 116 and described["ranks"]["buzzer"] == 8 and "buzzer" in described["name"]
    plain = build_rules(new_game("standard", {}, 3, 1).config).deck
    assert len(plain) == 108 and "buzzer" not in plain.describe()["ranks"]
    assert deck.cards[:108] == plain.cards  # the standard cards keep their ids


def test_a_buzzer_left_in_hand_counts_20_points():
    state = arrange_game(3, OPTS, hands=[["red 5"], ["buzzer", "blue 1"], ["yellow 2"]])
    play(state, 0, "red 5")
    assert state.status == "finished" and state.history[0]["points"] == [20 + 1 + 2, 0, 0]


# ==============================================================================================
# "Played in turn on anything"
# ==============================================================================================
@pytest.mark.parametrize("top, color", [("red 3", None), ("blue skip", None), ("green reverse", None),
                                        ("yellow draw_two", None), ("wild", "green"),
                                        ("wild_draw_four", "blue"), ("buzzer", None)])
def test_a_buzzer_is_played_in_turn_on_anything(top, color):
    state = position(top=top, color=color)
    move = {"type": "play", "card": card_in(state, 0, "buzzer")}
    assert move in legal_actions(state, 0)
    play(state, 0, "buzzer")
    assert game_deck(state).rank[state.discard[-1]] == "buzzer" and state.color is None


def test_a_buzzer_is_played_only_in_turn_never_jumped_in():
    for jump_in in ("exact", "super"):
        state = arrange_game(3, {**OPTS, "jump_in": jump_in}, hands=[F0, ["buzzer", *F1], ["buzzer", *F2]],
                             top="buzzer")
        for seat in (1, 2):
            assert not any(a["type"] == "play" for a in legal_actions(state, seat))
            assert_refused(state, seat, {"type": "play", "card": card_in(state, seat, "buzzer")}, NotYourTurn)


def test_a_buzzer_does_not_answer_a_pending_penalty():
    state = arrange_game(3, OPTS, hands=[["red draw_two", *F0], ["buzzer", *F1], F2])
    play(state, 0, "red draw_two")
    assert legal_actions(state, 1) == [{"type": "draw"}]
    exc = assert_refused(state, 1, {"type": "play", "card": card_in(state, 1, "buzzer")}, IllegalMove)
    assert exc.detail == "you must first take the 2-card penalty (draw) or answer it"


# ==============================================================================================
# "anything may follow"
# ==============================================================================================
def test_anything_may_follow_a_buzzer():
    hand = ["yellow 7", "green skip", "wild", "blue draw_two", "wild_draw_four", "buzzer"]
    state = arrange_game(3, OPTS, hands=[["buzzer", *F0], hand, F2])
    play(state, 0, "buzzer")
    assert state.current == 1 and view(state, 1)["current_color"] is None
    plays = {a["card"] for a in legal_actions(state, 1) if a["type"] == "play"}
    assert plays == set(state.hands[1])  # every card of the hand
    buzz(state, 0), buzz(state, 2), buzz(state, 1)
    play(state, 1, "yellow 7")
    assert state.color == "yellow"  # the next card gives the colour in force again


# ==============================================================================================
# "Playing one opens a buzz window (`buzzer_seconds`, default 10)"
# ==============================================================================================
def test_playing_a_buzzer_opens_a_buzz_window_of_buzzer_seconds_default_10():
    assert resolve_options("standard", OPTS)["buzzer_seconds"] == 10
    state = position()
    events = play(state, 0, "buzzer")
    assert only(events, "buzz_window") == {"type": "buzz_window", "seat": 0, "seconds": 10, "owed_by": [0, 1, 2]}
    assert state.current == 1  # play moves on as usual
    assert pending(state) == {"type": "buzz", "seat": 0, "buzzed": [], "owed_by": [0, 1, 2], "seconds": 10}
    assert owed(state) == [(1, "turn", "turn"), (0, "buzz", "buzzer_seconds"), (1, "buzz", "buzzer_seconds"),
                           (2, "buzz", "buzzer_seconds")]
    assert deadline_seconds(state, "buzz") == 10 and deadline_seconds(state, "turn") is None
    state = position(options={"buzzer_seconds": 3})
    play(state, 0, "buzzer")
    assert deadline_seconds(state, "buzz") == 3 and pending(state)["seconds"] == 3


# ==============================================================================================
# "every player must `buzz`"
# ==============================================================================================
def test_every_player_must_buzz_the_buzzers_player_too_and_only_once():
    state = position()
    play(state, 0, "buzzer")
    for seat in range(3):
        assert BUZZ in legal_actions(state, seat)
    assert legal_actions(state, 1)[-1] == BUZZ  # after the turn's own actions
    assert buzz(state, 2) == [{"type": "buzz", "seat": 2}]
    assert BUZZ not in legal_actions(state, 2) and owing(state) == [0, 1]
    exc = assert_refused(state, 2, BUZZ, IllegalMove)
    assert exc.detail == "you owe no buzz now (no buzz window is open, or you are done with it)"
    assert pending(state)["buzzed"] == [2] and pending(state)["owed_by"] == [0, 1]


def test_nobody_buzzes_without_a_window():
    state = position()
    for seat in range(3):
        assert BUZZ not in legal_actions(state, seat)
        assert_refused(state, seat, BUZZ, IllegalMove)


# ==============================================================================================
# "the last to buzz, and everyone who did not buzz before the window closes, draws 2"
# ==============================================================================================
def test_the_last_to_buzz_draws_2():
    state = position()
    play(state, 0, "buzzer")
    before = sizes(state)
    buzz(state, 2)
    buzz(state, 0)
    events = buzz(state, 1)  # everyone has buzzed: the window closes on the last
    assert ev_types(events)[:3] == ["buzz", "buzz_closed", "draw"]
    assert only(events, "buzz_closed") == {"type": "buzz_closed", "seat": 0, "buzzed": [2, 0, 1], "not_buzzed": [],
                                           "last": 1, "draws": [1]}
    assert drew(events) == {1: 2}
    assert sizes(state) == [before[0], before[1] + 2, before[2]]
    assert state.windows == [] and pending(state) is None and owing(state) == []
    assert_game_conserved(state)


def test_everyone_who_did_not_buzz_before_the_window_closes_draws_2_and_so_does_the_last_to_buzz():
    # the window closes with the next in-turn action: seat 1, in turn, plays without buzzing
    state = position(4)
    play(state, 0, "buzzer")
    buzz(state, 2)
    buzz(state, 0)
    before = sizes(state)
    events = play(state, 1, "yellow 1")
    assert ev_types(events).index("play") < ev_types(events).index("buzz_closed")  # closed by the play
    closed = only(events, "buzz_closed")
    assert (closed["buzzed"], closed["not_buzzed"], closed["last"], closed["draws"]) == ([2, 0], [1, 3], 0, [0, 1, 3])
    assert drew(events) == {0: 2, 1: 2, 3: 2}
    assert sizes(state) == [before[0] + 2, before[1] + 2 - 1, before[2], before[3] + 2]


def test_when_nobody_buzzed_everyone_draws_2():
    state = position()
    play(state, 0, "buzzer")
    before = sizes(state)
    events = apply(state, 1, {"type": "draw"})  # drawing is an in-turn action too
    assert only(events, "buzz_closed")["last"] is None and drew(events) == {0: 2, 1: 2, 2: 2}
    assert sizes(state)[0] == before[0] + 2 and sizes(state)[2] == before[2] + 2


# ==============================================================================================
# "Time": "Out-of-turn windows ... close with the next in-turn action or their own timer"
# ==============================================================================================
def test_out_of_turn_actions_leave_the_window_open():
    # seat 0 plays the Buzzer as its next-to-last card without calling UNO: it may be caught
    state = arrange_game(3, OPTS, hands=[["buzzer", "blue 1"], F1, F2])
    play(state, 0, "buzzer")
    assert state.uno_exposed == 0
    buzz(state, 2)
    apply(state, 2, {"type": "catch_uno", "target_seat": 0})
    assert pending(state)["type"] == "buzz" and owing(state) == [0, 1]
    apply(state, 0, BUZZ)
    assert owing(state) == [1]
    events = play(state, 1, "yellow 1")  # the next in-turn action
    assert only(events, "buzz_closed")["draws"] == [0, 1]  # 0 buzzed last, 1 did not


def test_the_windows_own_timer_each_seat_that_still_owes_it_simply_did_not_buzz():
    state = position()
    play(state, 0, "buzzer")
    buzz(state, 2)
    assert apply(state, 0, EXPIRE, system=True) == [{"type": "expired", "seat": 0}]
    assert BUZZ not in legal_actions(state, 0) and owing(state) == [1]  # too late for seat 0 now
    assert_refused(state, 0, BUZZ, IllegalMove)
    hand_1, current = sizes(state)[1], state.current
    events = apply(state, 1, EXPIRE, system=True)  # seat 1 is in turn: only its buzz expires
    closed = only(events, "buzz_closed")
    assert (closed["not_buzzed"], closed["last"], closed["draws"]) == ([0, 1], 2, [0, 1, 2])
    assert state.current == current == 1 and sizes(state)[1] == hand_1 + 2  # its turn is still its own
    assert owed(state) == [(1, "turn", "turn")]


def test_the_timer_expires_a_buzz_only_for_a_seat_that_owes_one():
    state = position()
    play(state, 0, "buzzer")
    assert_refused(state, 0, EXPIRE, InvalidAction)  # a system action: never from a player
    buzz(state, 0)
    assert_refused(state, 0, EXPIRE, NotYourTurn, apply_kw={"system": True})


def test_the_turns_timeout_is_an_in_turn_action_that_closes_the_window():
    state = position()
    play(state, 0, "buzzer")
    buzz(state, 0)
    buzz(state, 2)
    events = apply(state, 1, {"type": "timeout"}, system=True)
    kinds = ev_types(events)
    assert kinds[:2] == ["timeout", "draw"] and events[1]["reason"] == "draw"  # the timer draws (and passes)
    assert only(events, "buzz_closed")["draws"] == [1, 2]  # then: seat 1 did not buzz, seat 2 buzzed last
    assert state.windows == [] and drew(events) == {1: 2, 2: 2}


# ==============================================================================================
# decisions where the sources are silent
# ==============================================================================================
def test_a_buzzer_as_the_last_card_ends_the_round_and_opens_no_window():
    state = arrange_game(3, OPTS, hands=[["buzzer"], F1, F2])
    events = play(state, 0, "buzzer")
    assert state.status == "finished" and "buzz_window" not in ev_types(events) and state.windows == []


def test_an_in_turn_action_is_applied_as_listed_then_the_window_closes():
    # seat 1 holds one card, a 7 (seven_zero): listed as a last card, with no seat to swap with
    state = arrange_game(3, {**OPTS, "seven_zero": True}, hands=[["buzzer", *F0], ["yellow 7"], F2])
    play(state, 0, "buzzer")
    buzz(state, 2)
    assert legal_actions(state, 1)[0] == {"type": "play", "card": card_in(state, 1, "yellow 7")}
    events = play(state, 1, "yellow 7")  # it goes out: the round ends, and the window with it
    assert state.status == "finished" and state.history[0]["winner"] == 1
    assert "buzz_closed" not in ev_types(events) and drew(events) == {}


def test_a_buzzer_turned_up_first_opens_no_window_and_anything_may_follow():
    for seed in range(400):
        events: list = []
        state = new_game("standard", OPTS, 3, seed, events=events)
        if game_deck(state).rank[state.discard[0]] == "buzzer":
            break
    else:
        raise AssertionError("no deal turned a Buzzer up first")
    assert state.windows == [] and pending(state) is None and "buzz_window" not in ev_types(events)
    seat = state.actor()
    assert {a["card"] for a in legal_actions(state, seat) if a["type"] == "play"} == set(state.hands[seat])


def test_a_buzzer_played_in_an_open_window_closes_it_then_opens_a_new_one():
    state = arrange_game(3, OPTS, hands=[["buzzer", *F0], ["buzzer", *F1], F2])
    play(state, 0, "buzzer")
    first = state.windows[0]
    buzz(state, 2)
    events = play(state, 1, "buzzer")
    kinds = ev_types(events)
    assert kinds.index("play") < kinds.index("buzz_window") < kinds.index("buzz_closed")
    assert only(events, "buzz_closed")["draws"] == [0, 1, 2]  # 0 and 1 did not buzz, 2 buzzed last
    (second,) = state.windows
    assert second.seat == 1 and second.opened > first.opened and owing(state) == [0, 1, 2]


# ==============================================================================================
# hidden information
# ==============================================================================================
def test_a_buzz_window_shows_no_hidden_card():
    state = position(4)
    events = play(state, 0, "buzzer")
    for seat in (3, 2):
        events += buzz(state, seat)
    events += play(state, 1, "yellow 1")
    for e in events:
        if e["type"] == "cards_drawn":
            assert e["to"] == [e["seat"]]
        elif "to" not in e:
            assert e["type"] == "play" or not any(k in e for k in ("cards", "card")), e
    for seat in range(4):
        seen = visible_events(events, seat)
        assert all(e["seat"] == seat for e in seen if e["type"] == "cards_drawn")
    state = position()
    play(state, 0, "buzzer")
    spectator = view(state, None)
    assert "hand" not in spectator and json.dumps(spectator["pending"]).count("card") == 0


# ==============================================================================================
# the options
# ==============================================================================================
@pytest.mark.parametrize("options, option", [
    ({"buzzer_cards": "yes"}, "buzzer_cards"),
    ({"buzzer_cards": 1}, "buzzer_cards"),
    ({"buzzer_cards": True, "buzzer_seconds": 0}, "buzzer_seconds"),
    ({"buzzer_cards": True, "buzzer_seconds": 14 * 86400 + 1}, "buzzer_seconds"),
    ({"buzzer_cards": True, "buzzer_seconds": True}, "buzzer_seconds"),
    ({"buzzer_cards": True, "buzzer_seconds": "10"}, "buzzer_seconds"),
    ({"buzzer_cards": True, "buzzer_seconds": 2.5}, "buzzer_seconds"),
    ({"buzzer_seconds": 5}, "buzzer_seconds"),  # a window length without the cards that open windows
    ({"buzzer_cards": False, "buzzer_seconds": 30}, "buzzer_seconds"),
])
def test_nonsense_is_refused_naming_the_option(options, option):
    with pytest.raises(InvalidOptions) as info:
        new_game("standard", options, 3, 1)
    assert info.value.option == option and str(info.value).startswith(f"{option}:")


def test_the_options_on_any_uno_preset():
    assert resolve_options("house", {"buzzer_cards": True, "buzzer_seconds": 60})["buzzer_seconds"] == 60
    assert resolve_options("standard", {"buzzer_cards": True, "buzzer_seconds": 14 * 86400})["buzzer_cards"] is True
    assert resolve_options("standard", {})["buzzer_cards"] is False


def test_a_config_saved_before_the_option_existed_loads_with_it_off():
    saved = new_game("standard", {}, 3, 1).config.to_dict()
    del saved["options"]["buzzer_cards"], saved["options"]["buzzer_seconds"]
    config = Config.from_dict(saved)
    assert config.options["buzzer_cards"] is False and len(build_rules(config).deck) == 108


# ==============================================================================================
# saved forms, copies, observations
# ==============================================================================================
def test_an_open_window_survives_a_json_round_trip_a_copy_and_an_observation():
    state = position()
    play(state, 0, "buzzer")
    buzz(state, 2)
    apply(state, 0, EXPIRE, system=True)
    saved = json.loads(json.dumps(state.to_dict()))
    assert saved["windows"] == [{"type": "buzz", "seat": 0, "buzzed": [2], "missed": [0],
                                 "opened": state.windows[0].opened}]
    loaded = State.from_dict(saved)
    assert loaded.to_dict() == state.to_dict() and loaded.windows == [BuzzWindow(0, state.windows[0].opened, (2,),
                                                                                 (0,))]
    assert legal_actions(loaded, 1) == legal_actions(state, 1)
    before = snapshot(state)
    trial = state.copy()
    push(trial, 1, Action("buzz"))
    assert trial.windows == [] and snapshot(state) == before
    obs = observe(state, 1, random.Random(3))
    assert obs.windows == state.windows and legal_moves(obs, 1) == legal_moves(state, 1)


@pytest.mark.parametrize("seats", [2, 4])
def test_push_and_apply_agree_and_a_copy_is_exact_over_random_buzzer_games(seats):
    rnd = random.Random(f"buzz-copy:{seats}")
    steps = 0
    for game in range(40):
        state = new_game("standard", {**OPTS, "rounds": 1}, seats, f"copy-{game}")
        while state.status == "active" and steps < 3000 * (game + 1):
            before = snapshot(state)
            seat, move = random_step(state, rnd)
            if state.windows and rnd.random() < 0.1:  # now and then the window's timer
                seat, move = rnd.choice(owing(state)), Action("expire")
            trial = state.copy()
            events = push(trial, seat, move, [])
            assert snapshot(state) == before, "pushing on a copy changed the original"
            assert apply(state, seat, move.to_json(), system=move.type in ("timeout", "expire")) == events
            assert snapshot(trial) == snapshot(state)
            steps += 1
    assert steps > 1000


# ==============================================================================================
# "Bots buzz after a human-like random delay"
# ==============================================================================================
@pytest.mark.parametrize("level", bots.LEVELS)
def test_every_bot_level_buzzes_out_of_turn_and_in_turn_before_playing(level):
    state = position()
    play(state, 0, "buzzer")
    rng = random.Random(5)
    assert bots.decide(level, state, 2, rng, max_samples=2) == BUZZ  # out of turn
    buzz(state, 2)
    assert bots.decide(level, state, 1, rng, max_samples=2) == BUZZ  # in turn, seat 0 still owes it
    buzz(state, 1)
    assert bots.decide(level, state, 0, rng, max_samples=2) == BUZZ  # the Buzzer's player, out of turn


@pytest.mark.parametrize("level", bots.LEVELS)
def test_a_bots_buzz_comes_after_a_human_like_random_delay_inside_the_window(level):
    state = position()
    play(state, 0, "buzzer")
    rng = random.Random(level)
    delays = [bots.reaction_delay(level, state, BUZZ, rng) for _ in range(400)]
    assert min(delays) >= policies.MIN_REACTION and max(delays) <= policies.REACTION_SHARE * 10
    assert len(set(delays)) > 300  # random, not a fixed pause
    assert 0.5 < statistics.median(delays) < 4.0  # about a person's reaction to a cue on screen
    assert bots.reaction_delay(level, state, {"type": "play", "card": 1}, rng) == 0.0
    quick = position(options={"buzzer_seconds": 1})
    play(quick, 0, "buzzer")
    assert all(bots.reaction_delay(level, quick, BUZZ, rng) <= 0.8 for _ in range(100))


def test_better_bots_react_faster():
    state = position()
    play(state, 0, "buzzer")
    rng = random.Random(1)
    median = {lv: statistics.median(bots.reaction_delay(lv, state, BUZZ, rng) for _ in range(2000))
              for lv in ("easy", "normal", "hard")}
    assert median["hard"] < median["normal"] < median["easy"]


def test_hard_in_turn_and_last_to_owe_the_buzz_searches_buzz_against_its_plays():
    state = arrange_game(3, OPTS, hands=[["buzzer", *F0], ["yellow 7", "yellow 8", *F1], F2])
    play(state, 0, "buzzer")
    buzz(state, 0)
    buzz(state, 2)
    legal = legal_actions(state, 1)
    action = policies.choose("hard", observe(state, 1, random.Random(2)), 1, legal, random.Random(2), max_samples=8)
    assert action in legal
    assert policies.LAST_SEARCH["candidates"] >= 3  # its distinct plays, the draw and the buzz


def test_normal_keeps_a_buzzer_for_when_nothing_else_plays():
    state = arrange_game(3, OPTS, hands=[["buzzer", "red 7", *F0], F1, F2])
    pick = bots.decide("normal", state, 0, random.Random(1))
    assert pick == {"type": "play", "card": card_in(state, 0, "red 7")}
    state = arrange_game(3, OPTS, hands=[["buzzer", *F0], F1, F2])
    assert bots.decide("normal", state, 0, random.Random(1)) == {"type": "play", "card": card_in(state, 0, "buzzer")}


def test_games_of_every_bot_level_with_buzzers_end():
    levels = ["random", "easy", "normal", "hard"]
    kinds: list[str] = []
    for game in range(6):
        state = new_game("standard", {**OPTS, "rounds": 1}, 4, f"bots-{game}")
        rng = random.Random(game)
        for _ in range(3000):
            if state.status != "active":
                break
            for seat in bots.acting_order(state.actor(), list(range(4)), rng):
                action = bots.decide(levels[seat], state, seat, rng, max_samples=2)
                if action is not None or seat == state.actor():
                    kinds += ev_types(apply(state, seat, action))
                    break
        assert state.status == "finished"
        assert_game_conserved(state)
    windows = kinds.count("buzz_window")
    assert windows > 0
    # every window opened was closed, or ended with the round (its player's next action went
    # out); a Buzzer played on an open window opens the next before the open one closes (the
    # play applies first, then the close rule): never more than those two at once
    flow = [k for k in kinds if k in ("buzz_window", "buzz_closed", "round_ended")]
    open_now = 0
    for i, kind in enumerate(flow):
        if kind == "buzz_window":
            open_now += 1
            assert open_now <= 2, flow[max(0, i - 3):i + 3]
        elif kind == "buzz_closed":
            open_now -= 1
            assert open_now >= 0, flow[max(0, i - 3):i + 3]
        else:  # the round ended: its windows with it
            open_now = 0
    assert open_now == 0 and flow[-1] == "round_ended"
    # the seats out of turn always buzz; the seat in turn does unless it is hard and the last to owe it
    assert kinds.count("buzz") >= 3 * windows


# ==============================================================================================
# properties over random games, alone and with the other options
# ==============================================================================================
COMBOS = [
    ("buzzer-2p", "standard", {"buzzer_cards": True}, 2),
    ("buzzer-4p", "standard", {"buzzer_cards": True, "buzzer_seconds": 3}, 4),
    ("buzzer-house-everything", "house",
     {"buzzer_cards": True, "stacking": "any", "jump_in": "super", "seven_zero": True, "draw_limit": None,
      "uno_penalty": 7}, 5),
    ("buzzer-straights-jump_in", "standard", {"buzzer_cards": True, "straights": True, "jump_in": "exact"}, 3),
    ("buzzer-continuations-deflect", "standard",
     {"buzzer_cards": True, "continuations": True, "deflect_cards": True, "stacking": "same"}, 4),
    ("buzzer-penalty_no_skip-lowest", "standard",
     {"buzzer_cards": True, "penalty_skips_turn": False, "scoring": "lowest_total", "draw_limit": 3}, 3),
]
CHECKED_GAMES = 6 * properties.SCALE
BULK_GAMES = 1000 * properties.SCALE


def next_move(state: State, rnd: random.Random) -> tuple[int, dict, bool]:
    """``test_properties.next_move``, and now and then the window's own timer (``expire``)
    for a seat that still owes a buzz."""
    if state.windows and rnd.random() < 0.08:
        seats = owing(state)
        if seats:
            return rnd.choice(seats), EXPIRE, True
    return properties.next_move(state, rnd)


def perturbations(state: State, seat: int, acts: list[dict], all_acts: list[dict], rnd: random.Random) -> list:
    """``test_properties.perturbations``, and a buzz and the window's timer from a player."""
    return [*properties.perturbations(state, seat, acts, all_acts, rnd), BUZZ, EXPIRE]


@properties.by_option_set(COMBOS)
def test_checked_random_games(name, preset, options, seats):
    """After every action: views and events hide what they must, every listed action is
    accepted (apply and push agree), unlisted ones are refused with the state untouched,
    cards are conserved; at the end: JSON round trip and replay exact (the checks of
    ``test_properties`` on a combination's own deck, driven by :func:`next_move`, the
    timer of the buzz windows included)."""
    rnd = random.Random(name)
    for _ in range(CHECKED_GAMES):
        properties.play_checked_game(preset, options, seats, rnd.getrandbits(64), move=next_move,
                                     probes=perturbations)


@properties.by_option_set([c for c in COMBOS if c[0] in ("buzzer-4p", "buzzer-house-everything")])
def test_full_multi_round_games(name, preset, options, seats):
    state = properties.play_checked_game(preset, options, seats, 11, full=True, move=next_move, probes=perturbations)
    assert state.winner is not None


@properties.by_option_set(COMBOS)
def test_bulk_random_games_end_with_cards_conserved(name, preset, options, seats):
    windows = 0

    def after(state: State, seat: int, action: dict, events: list, before: properties.Before) -> None:
        nonlocal windows
        windows += "buzz_window" in ev_types(events)

    properties.play_random_games(preset, options, seats, BULK_GAMES, random.Random(f"bulk:{name}"), move=next_move,
                                 after=after)
    assert windows > BULK_GAMES // 2  # the Buzzers were played
