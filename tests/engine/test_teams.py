"""Options ``teams``, ``partner_rotation``, ``scoring: elimination`` and ``scoring:
hands_won`` (RULES.md "Options", seed 004 "Team game", "Uno challenge", the Aqua
version), sentence by sentence, then the refusals, the seats out of the game
(deal, dealer, two-player rule, hand moves, views), the saved forms, the bots, and
property tests over thousands of random games.

RULES.md: "`teams` (seed 004): even player counts; partners sit opposite (seat i and
i + n/2). When a player goes out, the team scores the points in both opponents' hands;
first team to the target wins. `partner_rotation` (seed 004, 4 players): three rounds, a
different partner each round, scores kept per player."

RULES.md: "`scoring`: ... `elimination` ("Uno challenge", seed 004: as `lowest_total`,
but a player reaching the target is eliminated; the last one left wins); `hands_won`
(Aqua: first to win `hands_to_win`, default 3, rounds wins)."
"""

from __future__ import annotations

import json
import random

import pytest

from games.bots import choose, policies
from games.engine import (InvalidOptions, NotYourTurn, State, apply, build_rules, legal_actions, legal_moves, new_game,
                          push, replay, resolve_options, view)
from games.engine.uno.teams import ROTATION, fixed_teams

from . import test_properties as properties
from .helpers import arrange_game, assert_game_conserved, assert_refused, card_in, ev_types, only, play_to_the_end, touch

# fillers of known points: never red, never a 3 (the top card), never an action card
ONES, TWOS, FOURS = ["blue 1", "yellow 1"], ["blue 2", "yellow 2"], ["blue 4", "yellow 4"]


def arrange(seats: int, options: dict, hands: list[list[str]], scores: list[int] | None = None,
            round_no: int = 1, current: int = 0, top: str = "red 3", draw: list[str] = ()) -> State:
    """``helpers.arrange_game`` without its one-round default (these options end the game
    their own way), at round ``round_no`` with ``scores``."""
    state = arrange_game(seats, {"rounds": None, **options}, hands, top=top, draw=draw, current=current)
    state.round = round_no
    rules = build_rules(state.config)
    if rules.teams is not None:
        state.teams = rules.teams(state)
    state.history = [{"round": r, "winner": 0, "points": [0] * seats} for r in range(1, round_no)]
    state.scores = list(scores) if scores is not None else [0] * seats
    return touch(state)


def go_out(state: State, seat: int = 0, name: str = "red 5") -> list[dict]:
    """``seat`` plays its last card."""
    return apply(state, seat, {"type": "play", "card": card_in(state, seat, name)})


# ==============================================================================================
# teams
# ==============================================================================================
@pytest.mark.parametrize("seats", [4, 6, 8, 10])
def test_teams_even_player_counts_partners_sit_opposite(seats):
    """RULES.md: "`teams` (seed 004): even player counts; partners sit opposite (seat i and
    i + n/2)." """
    state = new_game("standard", {"teams": True}, seats, 1)
    half = seats // 2
    assert state.teams == fixed_teams(seats)
    for s in range(half):
        assert state.teams[s] == state.teams[s + half]
        assert len({state.teams[s], state.teams[(s + 1) % seats]}) == 2  # neighbours are opponents
    assert len(set(state.teams)) == half
    v = view(state, 0)
    assert [p["team"] for p in v["players"]] == state.teams
    assert "status" not in v["players"][0] and "winners" in v and v["winners"] == []


@pytest.mark.parametrize("seats", [3, 5, 7, 9, 2])
def test_teams_with_an_odd_count_or_two_players_is_refused_naming_the_option(seats):
    with pytest.raises(InvalidOptions) as info:
        new_game("standard", {"teams": True}, seats, 1)
    assert info.value.option == "teams"
    assert str(seats) in str(info.value)


def test_a_game_without_teams_shows_no_team_and_no_winners():
    """Existing games are unchanged: no ``team``/``status`` per seat, no ``winners``."""
    v = view(new_game("standard", {}, 4, 1), 0)
    assert "winners" not in v and set(v["players"][0]) == {"seat", "hand_count", "score"}


def test_the_team_scores_the_points_in_both_opponents_hands():
    """RULES.md: "When a player goes out, the team scores the points in both opponents'
    hands" (the partner's hand does not count; both partners are credited)."""
    state = arrange(4, {"teams": True}, [["red 5"], ["blue 1", "blue 2"], ["blue 9", "yellow 9"], ["yellow 4"]])
    events = go_out(state)
    ended = only(events, "round_ended")
    assert ended["hand_points"] == [0, 3, 18, 4]
    assert ended["points"] == [7, 0, 7, 0]  # 3 + 4: seat 2's 18 is the partner's
    assert state.scores == [7, 0, 7, 0]
    assert state.round == 2 and state.status == "active"


def test_six_players_a_team_scores_every_other_teams_hands():
    """Ruling (6+ players): the team scores the points in every other team's hands."""
    hands = [["red 5"], ["blue 1"], ["blue 2"], ["blue 9"], ["yellow 4"], ["yellow 1"]]
    state = arrange(6, {"teams": True}, hands)
    assert state.teams == [0, 1, 2, 0, 1, 2]
    ended = only(go_out(state), "round_ended")
    assert ended["points"] == [1 + 2 + 4 + 1, 0, 0, 8, 0, 0]


def test_first_team_to_the_target_wins_and_the_game_names_both_partners():
    """RULES.md: "first team to the target wins." The result lists every seat of the
    winning team (``winners``); ``winner`` is the seat that went out."""
    state = arrange(4, {"teams": True, "target_score": 50}, [["blue 9"], ["red 5"], ["blue 8"], ["yellow 9"]],
                    scores=[0, 40, 0, 40], current=1)
    events = go_out(state, 1)
    assert state.status == "finished"
    assert state.winners == [1, 3] and state.winner == 1
    ended = only(events, "game_ended")
    assert ended["winner"] == 1 and ended["winners"] == [1, 3]
    v = view(state, None)
    assert v["winner"] == 1 and v["winners"] == [1, 3]
    assert state.scores == [0, 57, 0, 57]


def test_teams_with_lowest_total_charge_each_team_its_own_hands():
    """Ruling: ``teams`` with ``scoring: lowest_total``: each team is charged the points
    in its two hands; when a team reaches the target the lowest team total wins."""
    state = arrange(4, {"teams": True, "scoring": "lowest_total", "target_score": 20},
                    [["red 5"], ["blue 9"], ["blue 2"], ["yellow 9", "yellow 4"]], scores=[5, 5, 5, 5])
    go_out(state)
    assert state.scores == [7, 27, 7, 27]
    assert state.status == "finished" and state.winners == [0, 2] and state.winner == 0


def test_teams_tied_at_the_target_play_another_round():
    """Ruling: a shared best total (two teams) means another round."""
    state = arrange(4, {"teams": True, "target_score": 50}, [["red 5"], ["blue 4"], ["blue 9"], ["yellow 4"]],
                    scores=[42, 50, 42, 50])
    go_out(state)
    assert state.scores == [50, 50, 50, 50]
    assert state.status == "active" and state.round == 2 and state.winners == []


# ==============================================================================================
# partner_rotation
# ==============================================================================================
def test_partner_rotation_three_rounds_a_different_partner_each_round():
    """RULES.md: "`partner_rotation` (seed 004, 4 players): three rounds, a different
    partner each round" (seat 0 with 2, then with 1, then with 3)."""
    state = new_game("standard", {"partner_rotation": True}, 4, 3)
    assert resolve_options("standard", {"partner_rotation": True})["rounds"] == 3
    partners = []
    rnd = random.Random(3)
    seen_rounds = []
    while state.status == "active":
        if state.round not in seen_rounds:
            seen_rounds.append(state.round)
            assert state.teams == list(ROTATION[state.round - 1])
            partners.append(next(s for s in (1, 2, 3) if state.teams[s] == state.teams[0]))
        actor = state.actor()
        moves = legal_moves(state, actor)
        plays = [m for m in moves if m[0] in ("play", "choose_color")]
        push(state, actor, rnd.choice(plays) if plays and rnd.random() < 0.8 else rnd.choice(moves))
    assert seen_rounds == [1, 2, 3] and state.round == 3
    assert sorted(partners) == [1, 2, 3]


def test_partner_rotation_scores_are_kept_per_player():
    """RULES.md: "scores kept per player": each player adds what their team of the round
    scored; the best individual total after three rounds wins."""
    state = arrange(4, {"partner_rotation": True}, [["blue 9"], ["red 5"], ["blue 8"], ["yellow 9"]],
                    scores=[30, 10, 20, 0], round_no=3, current=1)
    assert state.teams == [0, 1, 1, 0]  # round 3: seat 1 plays with seat 2
    go_out(state, 1)
    assert state.scores == [30, 28, 38, 0]  # seats 1 and 2 are credited 9 + 9
    assert state.status == "finished" and state.winners == [2] and state.winner == 2


def test_partner_rotation_equal_best_totals_share_the_win():
    """Ruling: the game is exactly three rounds; equal best totals share the win."""
    state = arrange(4, {"partner_rotation": True}, [["blue 9"], ["red 5"], ["blue 8"], ["yellow 1"]],
                    scores=[40, 30, 20, 0], round_no=3, current=1)
    go_out(state, 1)
    assert state.scores == [40, 40, 30, 0]
    assert state.status == "finished" and state.winners == [0, 1] and state.winner == 1
    assert state.round == 3 and len(state.history) == 3  # no extra round


@pytest.mark.parametrize("options, seats, option", [
    ({"partner_rotation": True}, 6, "partner_rotation"),
    ({"partner_rotation": True}, 3, "partner_rotation"),
    ({"partner_rotation": True, "rounds": 2}, 4, "rounds"),
    ({"partner_rotation": True, "target_score": 300}, 4, "target_score"),
    ({"partner_rotation": True, "scoring": "hands_won"}, 4, "partner_rotation"),
    ({"partner_rotation": True, "scoring": "elimination"}, 4, "partner_rotation"),
    ({"teams": True, "scoring": "elimination"}, 4, "teams"),
    ({"teams": "yes"}, 4, "teams"),
    ({"partner_rotation": 1}, 4, "partner_rotation"),
    ({"hands_to_win": 2}, 4, "hands_to_win"),
    ({"hands_to_win": 0, "scoring": "hands_won"}, 4, "hands_to_win"),
    ({"scoring": "hands_won", "rounds": 3}, 4, "rounds"),
    ({"scoring": "hands_won", "target_score": 100}, 4, "target_score"),
    ({"scoring": "elimination", "rounds": 3}, 4, "rounds"),
])
def test_nonsense_combinations_are_refused_naming_the_option(options, seats, option):
    with pytest.raises(InvalidOptions) as info:
        new_game("standard", options, seats, 1)
    assert info.value.option == option and str(info.value).startswith(f"{option}:")


def test_partner_rotation_accepts_rounds_3_and_teams_true():
    state = new_game("standard", {"partner_rotation": True, "rounds": 3, "teams": True}, 4, 1)
    assert state.teams == list(ROTATION[0]) and state.options["rounds"] == 3


# ==============================================================================================
# elimination
# ==============================================================================================
def test_elimination_a_player_reaching_the_target_is_eliminated_and_the_game_goes_on():
    """RULES.md: "`elimination` ... as `lowest_total`, but a player reaching the target is
    eliminated". The next round is dealt to the seats still in, from the left of the next
    dealer still in."""
    state = arrange(4, {"scoring": "elimination", "target_score": 100},
                    [["red 5"], ["blue 9", "yellow 9"], ["blue 1"], ["blue 2"]], scores=[0, 90, 10, 20])
    state.dealer = 0
    events = go_out(state)
    assert state.scores == [0, 108, 11, 22]
    assert only(events, "seats_eliminated")["seats"] == [1]
    assert state.eliminated == [1] and state.status == "active" and state.round == 2
    assert state.dealer == 2  # the deal passes left, over seat 1
    assert state.hands[1] == [] and all(len(state.hands[s]) >= 7 for s in (0, 2, 3))
    assert only(events, "round_started")["dealer"] == 2
    assert ev_types(events).index("seats_eliminated") < ev_types(events).index("round_started")
    assert_game_conserved(state)
    v = view(state, 0)
    assert [p["status"] for p in v["players"]] == ["active", "eliminated", "active", "active"]
    assert legal_actions(state, 1) == []


def test_elimination_the_last_one_left_wins():
    """RULES.md: "the last one left wins" (seed 004: "When it does not remain any more than
    2 players, they play in duet, until one of both exceeds the fateful threshold")."""
    state = arrange(3, {"scoring": "elimination", "target_score": 100},
                    [["blue 9"], ["red 5"], ["yellow 9"]], scores=[95, 0, 120], current=1)
    state.eliminated = [2]
    state.draw_pile.extend(state.hands[2])  # (an eliminated seat holds nothing)
    state.hands[2] = []
    touch(state)
    events = go_out(state, 1)
    assert state.status == "finished" and state.winners == [1] and state.winner == 1
    assert state.eliminated == [0, 2]
    assert only(events, "game_ended")["winner"] == 1


def test_elimination_when_every_seat_left_reaches_the_target_the_lowest_total_stays():
    """Ruling: if every seat still in reaches the target in one round, those with the
    lowest total stay in (one: the winner)."""
    state = arrange(3, {"scoring": "elimination", "target_score": 100},
                    [["red 5"], ["blue 9"], ["yellow 9", "blue 8"]], scores=[100, 95, 90])
    go_out(state)
    assert state.scores == [100, 104, 107]
    assert state.status == "finished" and state.winners == [0] and state.eliminated == [1, 2]


def test_elimination_two_seats_left_play_the_two_player_rule():
    """RULES.md: "Two players: Reverse acts as Skip" - with two seats left of four, a
    Reverse gives its player another turn."""
    state = arrange(4, {"scoring": "elimination"}, [["red reverse", "red 5"], [], ["blue 1", "blue 2"], []])
    state.eliminated = [1, 3]
    touch(state)
    apply(state, 0, {"type": "play", "card": card_in(state, 0, "red reverse"), "uno": True})
    assert state.actor() == 0 and state.direction == 1


def test_elimination_three_seats_left_a_reverse_reverses():
    state = arrange(4, {"scoring": "elimination"}, [["red reverse", "red 5"], [], ["blue 1"], ["blue 2"]])
    state.eliminated = [1]
    touch(state)
    apply(state, 0, {"type": "play", "card": card_in(state, 0, "red reverse"), "uno": True})
    assert state.direction == -1 and state.actor() == 3


def test_elimination_play_passes_over_eliminated_seats_and_a_skip_skips_a_seat_still_in():
    state = arrange(4, {"scoring": "elimination"},
                    [["red skip", "red 5", "red 6"], [], ["blue 1"], ["blue 2"]])
    state.eliminated = [1]
    touch(state)
    apply(state, 0, {"type": "play", "card": card_in(state, 0, "red skip")})
    assert state.actor() == 3  # seat 1 is out, seat 2 skipped


def test_elimination_a_seven_never_names_an_eliminated_seat_and_a_zero_passes_over_it():
    """Hand moves among the seats still in (``seven_zero``)."""
    state = arrange(4, {"scoring": "elimination", "seven_zero": True},
                    [["red 7", "red 0", "red 5"], [], ["blue 1", "blue 2"], ["blue 4"]])
    state.eliminated = [1]
    touch(state)
    targets = {a.get("target_seat") for a in legal_actions(state, 0) if a["type"] == "play"}
    assert targets == {None, 2, 3}
    assert_refused(state, 0, {"type": "play", "card": card_in(state, 0, "red 7"), "target_seat": 1})
    zero = card_in(state, 0, "red 0")
    before = [list(h) for h in state.hands]
    apply(state, 0, {"type": "play", "card": zero})
    # every hand passes to the next seat still in: 0 -> 2 -> 3 -> 0; seat 1 gets none
    assert state.hands[1] == []
    assert state.hands[2] == [c for c in before[0] if c != zero]
    assert state.hands[3] == before[2] and state.hands[0] == before[3]
    assert_game_conserved(state)


def test_an_eliminated_seat_may_not_act_nor_catch():
    state = arrange(4, {"scoring": "elimination"}, [["red 5", "red 6"], [], ["blue 1"], ["blue 2"]])
    state.eliminated = [1]
    touch(state)
    apply(state, 0, {"type": "play", "card": card_in(state, 0, "red 5")})  # no UNO called
    assert state.uno_exposed == 0
    assert any(a["type"] == "catch_uno" for a in legal_actions(state, 3))
    assert legal_actions(state, 1) == []
    assert_refused(state, 1, {"type": "catch_uno", "target_seat": 0}, NotYourTurn)
    assert_refused(state, 1, {"type": "draw"}, NotYourTurn)


# ==============================================================================================
# hands_won
# ==============================================================================================
def test_hands_won_a_round_won_scores_one_and_the_first_to_hands_to_win_wins():
    """RULES.md: "`hands_won` (Aqua: first to win `hands_to_win`, default 3, rounds wins)"."""
    assert resolve_options("standard", {"scoring": "hands_won"})["hands_to_win"] == 3
    state = arrange(3, {"scoring": "hands_won"}, [["red 5"], ["blue 9"], ["yellow 9"]], scores=[1, 2, 0])
    go_out(state)
    assert state.scores == [2, 2, 0] and state.status == "active"
    state = arrange(3, {"scoring": "hands_won"}, [["red 5"], ["blue 9"], ["yellow 9"]], scores=[2, 2, 0])
    events = go_out(state)
    assert state.scores == [3, 2, 0] and state.status == "finished" and state.winners == [0]
    assert only(events, "round_ended")["hand_points"] == [0, 9, 9]


def test_hands_won_counts_rounds_not_points_and_teams_win_them_together():
    state = arrange(4, {"scoring": "hands_won", "hands_to_win": 2, "teams": True},
                    [["blue 9"], ["red 5"], ["blue 8"], ["yellow 9"]], scores=[0, 1, 0, 1], current=1)
    go_out(state, 1)
    assert state.scores == [0, 2, 0, 2] and state.winners == [1, 3]


# ==============================================================================================
# saved forms, replay
# ==============================================================================================
def test_teams_eliminated_and_winners_survive_the_saved_form():
    state = arrange(4, {"teams": True, "target_score": 50}, [["blue 9"], ["red 5"], ["blue 8"], ["yellow 9"]],
                    scores=[0, 40, 0, 40], current=1)
    go_out(state, 1)
    d = json.loads(json.dumps(state.to_dict()))
    again = State.from_dict(d)
    assert again.to_dict() == state.to_dict() and again.winners == [1, 3] and again.teams == [0, 1, 0, 1]
    old = dict(d)
    del old["winners"]  # saved before teams: the one winner
    assert State.from_dict(old).winners == [1]


@pytest.mark.parametrize("options, seats", [({"teams": True, "target_score": 150}, 4),
                                            ({"scoring": "elimination", "target_score": 60}, 3),
                                            ({"partner_rotation": True}, 4)])
def test_a_whole_game_replays_identically(options, seats):
    state = new_game("standard", options, seats, 5)
    log = play_to_the_end(state, random.Random(5))
    assert replay(state.config, log).to_dict() == state.to_dict()
    assert state.winners and state.winner in state.winners


# ==============================================================================================
# bots
# ==============================================================================================
def test_normal_never_skips_its_partner_when_something_else_will_do():
    """Team play: never a +2/+4/Skip on the partner when it can be avoided (partner
    rotation, round 2: seat 0's partner is seat 1, next in turn)."""
    state = arrange(4, {"partner_rotation": True}, [["red skip", "red draw_two", "red 7", "blue 5"],
                                                    ["blue 1"], ["blue 2", "blue 6"], ["yellow 4", "yellow 6"]],
                    round_no=2)
    assert state.teams == [0, 0, 1, 1]
    pick = choose("normal", state, 0, legal_actions(state, 0), random.Random(1))
    assert pick["type"] == "play" and pick["card"] == card_in(state, 0, "red 7")


def test_normal_never_feeds_its_partner_a_draw_four():
    state = arrange(4, {"partner_rotation": True}, [["wild_draw_four", "blue 5", "blue 7"],
                                                    ["blue 1"], ["blue 2", "blue 6"], ["yellow 4", "yellow 6"]],
                    round_no=2, draw=["green 1"])
    pick = choose("normal", state, 0, legal_actions(state, 0), random.Random(1))
    assert pick == {"type": "draw"}


def test_normal_skips_the_opponent_before_a_partner_about_to_go_out():
    """Prefer helping the partner go out: seat 2 (partner) holds 1 card, seat 1 is next."""
    state = arrange(4, {"teams": True}, [["red skip", "red 9", "blue 5"], ["blue 1", "blue 3", "blue 4"],
                                         ["yellow 4"], ["yellow 6", "yellow 7", "yellow 8"]])
    pick = choose("normal", state, 0, legal_actions(state, 0), random.Random(1))
    assert pick["card"] == card_in(state, 0, "red skip")


def test_normal_does_not_catch_its_partner():
    state = arrange(4, {"teams": True}, [["blue 1", "blue 2"], ["red 5", "red 6"], ["blue 4"], ["yellow 4"]],
                    current=1)
    apply(state, 1, {"type": "play", "card": card_in(state, 1, "red 5")})  # no UNO
    assert state.uno_exposed == 1
    catch = {"type": "catch_uno", "target_seat": 1}
    assert catch in legal_actions(state, 3)
    assert choose("normal", state, 3, legal_actions(state, 3), random.Random(1)) != catch
    assert choose("normal", state, 0, legal_actions(state, 0), random.Random(1)) == catch


def test_hard_values_a_round_its_partner_wins_as_its_own():
    state = arrange(4, {"teams": True, "rounds": 2}, [["blue 9"], ["red 5"], ["blue 8"], ["yellow 9"]],
                    current=1)
    teams = list(state.teams)
    go_out(state, 1)
    assert policies._round_result(state, 3, teams) == 1.0
    assert policies._round_result(state, 0, teams) == 0.0
    assert policies._round_result(state, 3, None) == 0.0


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
@pytest.mark.parametrize("options, seats", [({"teams": True, "target_score": 100}, 4),
                                            ({"scoring": "elimination", "target_score": 60}, 3),
                                            ({"partner_rotation": True}, 4),
                                            ({"scoring": "hands_won", "hands_to_win": 1}, 3)])
def test_every_level_plays_these_games_to_the_end(level, options, seats):
    state = new_game("standard", options, seats, 11)
    rnd = random.Random(11)
    steps = 0
    while state.status == "active" and steps < 5000:
        actor = state.actor()
        pick = choose(level, state, actor, legal_actions(state, actor), rnd, max_samples=2)
        if pick is None:  # (random, out of turn only)
            pick = legal_actions(state, actor)[0]
        apply(state, actor, pick)
        steps += 1
    assert state.status == "finished" and state.winner in state.winners


# ==============================================================================================
# properties over random games
# ==============================================================================================
COMBOS = [
    ("teams-4p", "standard", {"teams": True, "target_score": 150}, 4),
    ("teams-6p-stacking-jump_in", "standard", {"teams": True, "target_score": 150, "stacking": "any",
                                               "jump_in": "exact"}, 6),
    ("teams-4p-seven_zero-lowest", "standard", {"teams": True, "seven_zero": True, "scoring": "lowest_total",
                                                "target_score": 150}, 4),
    ("partner_rotation", "standard", {"partner_rotation": True}, 4),
    ("elimination-3p", "standard", {"scoring": "elimination", "target_score": 60}, 3),
    ("elimination-5p-seven_zero-jump_in", "standard", {"scoring": "elimination", "target_score": 120,
                                                       "seven_zero": True, "jump_in": "super"}, 5),
    ("hands_won-3p", "standard", {"scoring": "hands_won", "hands_to_win": 2}, 3),
    ("hands_won-teams-4p", "standard", {"scoring": "hands_won", "hands_to_win": 2, "teams": True}, 4),
]


def check_result(state: State, step_bound: int, steps: int) -> None:
    """``test_properties.check_result`` for these scorings: a finished game names its
    winners (a team's seats, the last seat left, the first to hands_to_win)."""
    assert steps < step_bound, f"game not over after {steps} actions"
    assert state.status == "finished" and state.actor() is None
    assert all(legal_actions(state, s) == [] for s in range(state.seats))
    assert [sum(row["points"][s] for row in state.history) for s in range(state.seats)] == state.scores
    assert len(state.history) == state.round
    assert state.winners and state.winner in state.winners
    opts = state.options
    scores, winners = state.scores, state.winners
    if opts["scoring"] == "elimination":
        assert len(state.eliminated) == state.seats - 1 and winners == [s for s in range(state.seats)
                                                                         if s not in state.eliminated]
        return
    if opts["partner_rotation"]:
        assert state.round >= 3 and winners == [s for s in range(4) if scores[s] == max(scores)]
        return
    best = max(scores) if opts["scoring"] != "lowest_total" else min(scores)
    assert winners == [s for s in range(state.seats) if scores[s] == best]
    if state.teams is not None:
        assert len({state.teams[s] for s in winners}) == 1 and len(winners) == 2
        for t in set(state.teams):  # partners always share a total
            assert len({scores[s] for s in range(state.seats) if state.teams[s] == t}) == 1
    if opts["scoring"] == "hands_won":
        assert max(scores) == opts["hands_to_win"]
        assert all(sum(row["points"]) == (2 if state.teams else 1) for row in state.history)
    else:
        assert max(scores) >= opts["target_score"]


@properties.by_option_set(COMBOS)
def test_checked_random_whole_games(name, preset, options, seats):
    """After every 10th action: views and events hide what they must, every listed action
    is accepted (apply and push agree), unlisted ones refused with the state untouched;
    after every action cards are conserved; at the end: one result (:func:`check_result`),
    JSON round trip, replay exact (``test_properties.play_checked_game``, whole games)."""
    rnd = random.Random(name)
    for _ in range(6 * properties.SCALE):
        state = properties.play_checked_game(preset, options, seats, rnd.getrandbits(64), full=True,
                                             result=check_result)
        if state.teams is not None:
            assert all(p["team"] == state.teams[p["seat"]] for p in view(state, None)["players"])


BULK_GAMES = 1000 * properties.SCALE


def fast_move(state: State, rnd: random.Random) -> tuple[int, tuple, bool]:
    """(seat, move, False) on the fast path (``legal_moves``): the owing seat always has a
    legal move, an eliminated seat never has one (nor cards, nor the turn); now and then
    somebody else's move (a catch, a jump-in); plays preferred."""
    actor = state.actor()
    moves = legal_moves(state, actor)
    assert moves, f"seat {actor} owes a decision but has no legal move"
    for s in state.eliminated:
        assert legal_moves(state, s) == [] and state.hands[s] == [] and actor != s
    r = rnd.random()
    if r < 0.1:  # somebody else (a catch, a jump-in)
        other = rnd.randrange(state.seats)
        others = legal_moves(state, other)
        if others and other != actor:
            actor, moves = other, others
    plays = [m for m in moves if m[0] in ("play", "choose_color", "challenge")]
    return actor, rnd.choice(plays) if plays and r < 0.85 else rnd.choice(moves), False


@properties.by_option_set(COMBOS)
def test_bulk_random_whole_games_end_with_cards_conserved(name, preset, options, seats):
    """Thousands of whole games (fast path: legal_moves / push, and copies): cards
    conserved with the deck's actual size, the owing seat always has a legal move, an
    eliminated seat never has one, every game ends with its winners, JSON round trip."""
    pushed = 0

    def push_and_compare(state: State, seat: int, move: tuple, system: bool = False) -> list:
        nonlocal pushed
        if pushed % 50 == 0:  # copy/push consistency
            copy = state.copy()
            push(copy, seat, move)
            push(state, seat, move)
            assert copy.to_dict() == state.to_dict()
        else:
            push(state, seat, move)
        pushed += 1
        return []

    properties.play_random_games(preset, options, seats, BULK_GAMES, random.Random(f"bulk:{name}"), full=True,
                                 move=fast_move, play=push_and_compare, result=check_result)
