"""Preset ``duo`` (UNO Duo, seed 003) through the HTTP API: created for exactly two players,
its refusals (another seat count, an option that makes no sense, draft actions out of the
draft, play during it), the draft between two people (what each sees), and whole games
between a person and a bot of each level played by a real worker, then ``verify_game``.

The engine's side (each RULES.md sentence, the bots' choices, property tests) is
tests/engine/test_duo.py.
"""

from __future__ import annotations

import json
import random

import pytest

from games import engine
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis
from .games_support import (by_seat, create_game, fix_seeds, game_url, options_refused, play_against_bots, refused,
                            start_table, verified)

def state_of(gid: int) -> engine.State:
    return engine.State.from_dict(Game.objects.get(pk=gid).state)


@pytest.mark.django_db
def test_duo_is_created_for_two_players_and_refuses_what_makes_no_sense(clients):
    (ann,) = clients(1)
    opts = create_game(ann, ruleset="duo", max_players=2)["options"]
    assert (opts["scoring"], opts["stacking"], opts["uno_penalty"], opts["target_score"]) == (
        "lowest_total", "same", 2, 500)
    for body, field in (({"ruleset": "duo", "max_players": 3}, "max_players"),
                        ({"ruleset": "duo", "max_players": 2, "options": {"two_player_replay": False}},
                         "options.two_player_replay")):
        assert options_refused(ann, body) == [field]


@pytest.mark.django_db
def test_two_people_draft_over_http_and_only_the_drafter_sees_the_card(clients, monkeypatch):
    fix_seeds(monkeypatch, 3)
    players = clients(2)
    gid = start_table(players, ruleset="duo", options={"rounds": 1})
    seats = by_seat(gid, players)
    state = state_of(gid)
    p1 = state.dealer
    drafter, other = seats[p1], seats[1 - p1]
    g = drafter.get(game_url(gid)).json()
    card = g["hand"][0]["id"]
    assert g["status"] == "active" and g["top_card"] is None and g["current_seat"] == p1
    assert g["pending"] == {"type": "draft", "seat": p1, "must_keep": False}
    assert g["legal_actions"] == [{"type": "draft_keep"}, {"type": "draft_discard"}]  # no card: actions are public
    assert [o["seat"] for o in g["obligations"]] == [p1]
    seen = other.get(game_url(gid)).json()
    assert seen["hand"] == [] and seen["legal_actions"] == [] and seen["pending"] == g["pending"]
    assert f'"id": {card},' not in json.dumps(seen)
    # refusals: the other seat, a card that is not the drafted one, play during the draft
    refused(other, gid, {"type": "draft_keep"}, 409, "not_your_turn")
    refused(drafter, gid, {"type": "draft_keep", "card": card}, 400, "invalid")
    problem = refused(drafter, gid, {"type": "play", "card": card}, 400, "illegal_move")
    assert "draft your hand first" in problem["detail"]
    # the whole draft over HTTP: discard every first card, keep the next
    for _ in range(100):
        g = seats[0].get(game_url(gid)).json()
        if g["pending"] is None or g["pending"]["type"] != "draft":
            break
        seat = g["current_seat"]
        mine = seats[seat].get(game_url(gid)).json()
        action = mine["legal_actions"][-1]  # discard when allowed
        r = seats[seat].post(game_url(gid, "actions"), {**action, "expected_version": mine["version"]},
                             format="json")
        assert r.status_code == 200, r.content
        assert all(e.get("seat") == seat or "cards" not in e for e in r.json()["events"])
    after = state_of(gid)
    assert after.phase == "play" and [len(h) for h in after.hands] == [7, 7]
    assert len(after.draw_pile) == 112 - 15
    # what the other seat saw of the draft: counts only, never a card of the drafter's
    for seat in (0, 1):
        moves = seats[seat].get(game_url(gid, "moves") + "?limit=500").json()["results"]
        assert len(moves) > 28
        for m in moves:
            assert "card" not in m["action"]
            for e in m["events"]:
                if e["type"] in ("cards_drawn", "hand"):
                    assert e["seat"] == seat
    # draft actions out of the draft
    g = seats[after.actor()].get(game_url(gid)).json()
    problem = refused(seats[after.actor()], gid, {"type": "draft_keep"}, 400, "illegal_move")
    assert problem["detail"] == "no card is being drafted now"
    assert f"game {gid}: OK" in verified(gid)


@requires_redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_a_person_and_a_bot_play_a_duo_game_to_the_end(worker, make_player, level):
    """The bot drafts, plays the Reverse's sequence and every other decision of Duo with no
    call but the person's; the game is verified from its log."""
    _, token = make_player(f"dora-{level}")
    dora = client_for(token)
    rng = random.Random(level)
    def choose(g: dict) -> dict:
        legal = g["legal_actions"]
        plays = [a for a in legal if a["type"] in ("play", "choose_color", "draft_keep")]
        return rng.choice(plays or legal)

    gid, g = play_against_bots(worker, dora, "duo", {"target_score": 60}, choose, seconds=200, levels=[level])
    assert g["winner"]["seat"] in (0, 1)
    moves = list(Move.objects.filter(game_id=gid).order_by("seq"))
    game = Game.objects.get(pk=gid)
    state = engine.replay(engine.State.from_dict(game.state).config, [])
    answered: dict[str, set] = {}
    for m in moves[1:]:  # the first move is the deal (here: the first draft card)
        p = state.pending
        if p is not None and m.seat == state.actor():
            answered.setdefault(p["type"], set()).add(m.by)
        engine.apply(state, m.seat, m.action, system=True)
    assert state.to_dict() == game.state
    assert "bot" in answered["draft"] and "player" in answered["draft"], answered
    assert min(state.scores) == state.scores[state.winner] and max(state.scores) >= 60
