"""Option ``deflect_cards`` (Renvoi) through the HTTP API: accepted by POST /api/v1/games,
its decisions listed in ``legal_actions`` ready to post and accepted by the actions
endpoint, what others see of them, and a game with bots of every level played to the end
by a real worker."""

from __future__ import annotations

import random

import pytest

from games import engine
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis
from .games_support import by_seat, chooser, fix_seeds, game_url, play_against_bots, refused, start_table, verified

OPTIONS = {"deflect_cards": True, "stacking": "same", "rounds": 1}


def renvoi_ids(gid: int) -> set[int]:
    deck = engine.build_rules(engine.State.from_dict(Game.objects.get(pk=gid).state).config).deck
    return {c.id for c in deck.cards if c.rank == "deflect"}


def answered_by_bots(gid: int) -> dict[str, int]:
    """How many decisions of each type aiming an effect at a bot seat the bot answered
    (the log replayed through the engine)."""
    game = Game.objects.get(pk=gid)
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    state = engine.replay(engine.State.from_dict(game.state).config, [])
    counts = {"penalty": 0, "skip": 0, "deflected": 0}
    for m in moves[1:]:  # the first move is the deal
        p = state.pending
        if p is not None and p["type"] in counts and m.seat == state.actor() and m.by == "bot":
            counts[p["type"]] += 1
        engine.apply(state, m.seat, m.action, system=True)
    assert state.to_dict() == game.state
    return counts


def pick(legal: list[dict], renvois: set[int], rng: random.Random) -> dict:
    """A client that sends every effect back when it can, and otherwise plays when it can."""
    back = [a for a in legal if a.get("card") in renvois]
    plays = [a for a in legal if a["type"] in ("play", "choose_color")]
    return back[0] if back else rng.choice(plays or legal)


@pytest.mark.django_db
def test_two_players_play_a_game_with_renvoi_over_http(clients, monkeypatch):
    fix_seeds(monkeypatch, 5)
    players = clients(2)
    r = players[0].post("/api/v1/games", {"ruleset": "standard", "max_players": 2,
                                          "options": {"deflect_cards": "yes"}}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid_options"
    gid = start_table(players, options=OPTIONS)
    seats = by_seat(gid, players)
    renvois = renvoi_ids(gid)
    assert len(renvois) == 4
    rng = random.Random(2)
    seen = {"skip": 0, "deflected": 0, "penalty": 0}
    for _ in range(3000):
        g = seats[0].get(game_url(gid)).json()
        if g["status"] == "finished":
            break
        assert g["options"]["deflect_cards"] is True
        seat = g["current_seat"]
        other = 1 - seat
        mine = seats[seat].get(game_url(gid)).json()
        p = mine["pending"]
        if p is not None and p["type"] in seen:
            seen[p["type"]] += 1
            accept = {"type": "pass"} if p["type"] == "skip" or p.get("kind") == "skip" else {"type": "draw"}
            assert p["seat"] == seat and accept in mine["legal_actions"]
            listed_renvois = {a["card"] for a in mine["legal_actions"] if a["type"] == "play"} & renvois
            held = {c["id"] for c in mine["hand"]} & renvois
            # every Renvoi held is listed, except on a penalty nobody played (the first card)
            assert listed_renvois == held or (p["type"] == "penalty" and p.get("by") is None)
            theirs = seats[other].get(game_url(gid)).json()
            assert theirs["pending"] == p and theirs["current_seat"] == seat  # the same pause for all
            if p["type"] == "skip":
                assert set(p) == {"type", "seat", "by"}  # nothing about the victim's hand
            if p["type"] == "deflected":
                # the decision of a seat that is not in turn: it owns the listed accept only
                refused(seats[other], gid, {"type": "draw"}, 409, "not_your_turn")
        action = pick(mine["legal_actions"], renvois, rng)
        r = seats[seat].post(game_url(gid, "actions"), {**action, "expected_version": mine["version"]},
                             format="json")
        assert r.status_code == 200, r.content
    g = seats[0].get(game_url(gid)).json()
    assert g["status"] == "finished" and g["winner"]["seat"] in (0, 1)
    assert seen["skip"] and seen["deflected"], seen  # the option's decisions were played
    moves = seats[1].get(game_url(gid, "moves") + "?limit=500").json()["results"]
    kinds = {e["type"] for m in moves for e in m["events"]}
    assert {"deflected", "skipped"} <= kinds
    assert f"game {gid}: OK" in verified(gid)


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_one_human_and_bots_of_every_level_play_a_game_with_renvoi_to_the_end(worker, make_player, monkeypatch):
    """The bots (random, easy, normal, hard) act on every decision of the option, in turn
    and out of turn, with no call but the human's; the game ends.  (One deal: a random one
    once ended before any +2, +4 or Skip was aimed at a bot.)"""
    fix_seeds(monkeypatch, 3)
    _, token = make_player("hugo")
    hugo = client_for(token)
    gid, g = play_against_bots(worker, hugo, "standard", OPTIONS, chooser(pick, renvoi_ids, 3), seconds=90)
    assert g["winner"]["seat"] in range(5)
    answered = answered_by_bots(gid)
    assert answered["penalty"] + answered["skip"] > 0, answered  # +2, +4 or Skip aimed at a bot
