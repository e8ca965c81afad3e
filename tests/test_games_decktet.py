"""Preset ``decktet_uno`` (Decktet-Uno, seed 000) through the HTTP API: created for 2-4
players with its own options (UNO's refused), a whole 4-player game with ``face_down``
and ``decks: 2`` between four people (what each sees of the table, of a card set aside
face down and of the history; the score table play by play), the timer's play, bad
input, and games against a bot of each level played by a real worker, each verified
from its log.

The engine's side (each RULES.md sentence, properties over thousands of games) is
tests/engine/test_decktet.py.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, robots
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis
from .games_support import (all_moves, by_seat, fix_seeds, game_url, play_against_bots, refused, running_states,
                            start_table, true_state, verified)
from .helpers import assert_json, assert_problem
from .test_verify_standalone import public_record, run_verifier

GAMES = "/api/v1/games"
PRESET = "decktet_uno"


@pytest.mark.django_db
def test_decktet_uno_is_created_with_its_own_options_and_refuses_what_makes_no_sense(clients):
    ann, bob = clients(2)
    g = assert_json(ann.post(GAMES, {"ruleset": PRESET, "max_players": 4, "options": {"face_down": True}},
                             format="json"), 201)
    assert g["options"] == {"face_down": True, "decks": 1} and g["face_down"] is None
    for body, field in (
        ({"ruleset": PRESET, "max_players": 5}, "max_players"),
        ({"ruleset": PRESET, "options": {"stacking": "same"}}, "options.stacking"),  # a UNO option
        ({"ruleset": PRESET, "options": {"target_score": 100}}, "options.target_score"),
        ({"ruleset": PRESET, "max_players": 2, "options": {"decks": 2}}, "options.decks"),
        ({"ruleset": PRESET, "options": {"decks": 3}}, "options.decks"),
        ({"ruleset": PRESET, "options": {"face_down": "yes"}}, "options.face_down"),
        ({"ruleset": "standard", "options": {"face_down": True}}, "options.face_down"),  # Decktet's, on UNO
    ):
        problem = assert_problem(ann.post(GAMES, body, format="json"), 400, "invalid_options")
        assert list(problem["fields"]) == [field], (body, problem)
    # a second deck needs 3 or 4 players: a table of 2 cannot start with it
    gid = assert_json(ann.post(GAMES, {"ruleset": PRESET, "max_players": 3, "options": {"decks": 2}},
                               format="json"), 201)["id"]
    assert bob.post(game_url(gid, "join")).status_code == 200
    assert_problem(ann.post(game_url(gid, "start")), 409, "wrong_player_count")
    assert Game.objects.get(pk=gid).status == "waiting"


def _expect_table(g: dict, state: engine.State, viewer: int) -> None:
    """What ``viewer`` sees of the table: the top card's suits, each seat's points, the
    deck count, and a card set aside face down (its face for its owner only)."""
    deck = engine.build_rules(state.config).deck
    assert g["top_card"] == deck.card_dict(state.discard[-1]) and g["top_card"]["suits"]
    assert [p["score"] for p in g["players"]] == state.scores
    assert g["draw_pile_count"] == len(state.draw_pile)
    assert [c["id"] for c in g["hand"]] == state.hands[viewer]
    if not state.aside:
        assert g["face_down"] is None
    else:
        owner, card = state.aside[0]
        assert g["face_down"] == {"seat": owner, "card": deck.card_dict(card) if viewer == owner else None}


@pytest.mark.django_db
def test_four_people_play_a_whole_game_with_face_down_and_two_decks(clients, monkeypatch, tmp_path):
    rng = fix_seeds(monkeypatch, 11)
    players = clients(4)
    gid = start_table(players, ruleset=PRESET, options={"face_down": True, "decks": 2})
    seats = by_seat(gid, players)
    face_downs: list[int] = []  # the seqs of the moves that set a card aside
    reshuffled = False
    for state in running_states(gid, 200):
        actor = state.actor()
        g = assert_json(seats[actor].get(game_url(gid)), 200)
        _expect_table(g, state, actor)
        assert sorted(a["card"] for a in g["legal_actions"] if a["type"] == "play") == sorted(state.hands[actor])
        other = (actor + 1) % 4
        assert assert_json(seats[other].get(game_url(gid)), 200)["legal_actions"] == []
        # refusals change nothing: another seat's card, out of turn, a colour, a face-down card when one scores
        if state.hands[other]:  # (the last cards of the game: the others' hands are empty)
            refused(seats[actor], gid, {"type": "play", "card": state.hands[other][0]}, 400, "not_your_card")
            refused(seats[other], gid, {"type": "play", "card": state.hands[other][0]}, 409, "not_your_turn")
        refused(seats[actor], gid, {"type": "play", "card": state.hands[actor][0], "color": "red"}, 400,
                "illegal_move")
        face_down = [a for a in g["legal_actions"] if a["type"] == "play_face_down"]
        if not face_down:
            refused(seats[actor], gid, {"type": "play_face_down", "card": state.hands[actor][0]}, 400,
                    "illegal_move")
        action = face_down[0] if face_down and rng.random() < 0.7 else rng.choice(g["legal_actions"])
        body = assert_json(seats[actor].post(game_url(gid, "actions"), {**action, "expected_version": g["version"]},
                                             format="json"), 200)
        after = true_state(gid)
        if after.status == "active":
            _expect_table(body["game"], after, actor)
        reshuffled |= any(e["type"] == "reshuffled" for e in body["events"])
        if action["type"] == "play_face_down":
            face_downs.append(body["game"]["version"])
            for seat, client in seats.items():  # only its owner sees which card it is
                if seat != actor and after.status == "active":
                    g2 = assert_json(client.get(game_url(gid)), 200)
                    assert g2["face_down"] == {"seat": actor, "card": None}
                    shown = next(m for m in all_moves(client, gid) if m["seq"] == face_downs[-1])
                    assert shown["action"] == {"type": "play_face_down"}
        else:  # the play's points: the formula on the card it covered, added to the player's score
            (play,) = [e for e in body["events"] if e["type"] == "play"]
            assert play["points"] == engine.DECKTET_POINTS[state.discard[-1]][action["card"]]
            assert after.scores[actor] - state.scores[actor] == play["points"]
    state = true_state(gid)
    assert state.status == "finished" and face_downs and reshuffled
    g = assert_json(seats[0].get(game_url(gid)), 200)
    assert [w["seat"] for w in g["winners"]] == [s for s in range(4) if state.scores[s] == max(state.scores)]
    assert g["winner"]["seat"] == g["winners"][0]["seat"]
    # the score table, play by play: its points add up to every seat's total
    scores = assert_json(seats[1].get(game_url(gid, "scores")), 200)
    assert scores["scoring"] == "per_play" and scores["totals"] == state.scores
    assert len([p for p in scores["plays"] if p["face_down"]]) == len(face_downs)
    for s in range(4):
        assert sum(p["points"] for p in scores["plays"] if p["seat"] == s) == state.scores[s]
    assert scores["winner_seats"] == [w["seat"] for w in g["winners"]]
    # once finished, every face-down play is revealed to everyone
    moves = {m["seq"]: m for m in all_moves(seats[2], gid)}
    assert all("card" in moves[seq]["action"] for seq in face_downs)
    assert f"game {gid}: OK" in verified(gid)
    # and from its public record alone (the fair-play verifier: the engine, no database)
    checked = run_verifier(public_record(seats[2], gid), tmp_path)
    assert checked.returncode == 0 and checked.stdout.startswith(f"OK: game {gid}"), checked.stdout + checked.stderr


@pytest.mark.django_db
def test_the_scores_grow_play_by_play_while_the_game_runs(clients):
    players = clients(2)
    gid = start_table(players, ruleset=PRESET)
    seats = by_seat(gid, players)
    for _ in range(6):
        state = true_state(gid)
        g = seats[state.actor()].get(game_url(gid)).json()
        assert seats[state.actor()].post(game_url(gid, "actions"), g["legal_actions"][0],
                                         format="json").status_code == 200
    scores = assert_json(seats[0].get(game_url(gid, "scores")), 200)
    assert scores["status"] == "active" and len(scores["plays"]) == 6
    assert scores["totals"] == true_state(gid).scores and scores["rounds"] == []


@pytest.mark.django_db
def test_the_timer_plays_the_card_that_scores_most(clients):
    players = clients(2)
    gid = start_table(players, ruleset=PRESET, turn_seconds=3600)
    state = true_state(gid)
    late = state.actor()
    deck = engine.build_rules(state.config).deck
    row = engine.DECKTET_POINTS[state.discard[-1]]
    best = min(state.hands[late], key=lambda c: (-row[c], c))
    assert not robots.expire_deadline(gid)  # not due yet
    Game.objects.filter(pk=gid).update(deadline=timezone.now() - timedelta(seconds=1))
    assert robots.expire_deadline(gid)
    move = Move.objects.filter(game_id=gid).order_by("-seq").first()
    assert (move.seat, move.by, move.action) == (late, "timer", {"type": "timeout"})
    play = next(e for e in move.events if e["type"] == "play")
    assert play["card"] == deck.card_dict(best) and play["points"] == row[best]
    assert true_state(gid).actor() != late


@requires_redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_a_person_and_a_bot_play_decktet_uno_to_the_end(worker, make_player, level):
    _, token = make_player(f"dee-{level}")
    dee = client_for(token)
    rng = random.Random(level)
    _, g = play_against_bots(worker, dee, PRESET, {"face_down": True}, lambda g: rng.choice(g["legal_actions"]),
                             seconds=120, levels=[level])
    assert g["status"] == "finished" and g["winners"]
