"""A whole two-player game through the HTTP API, as a client plays it."""

import random

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def client_for(token):
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return c


def test_two_players_play_a_whole_game_over_http(make_player):
    _, t1 = make_player("alice")
    _, t2 = make_player("bob")
    alice, bob = client_for(t1), client_for(t2)
    r = alice.post("/api/v1/games", {"ruleset": "standard", "max_players": 2, "options": {"rounds": 1}}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert r.json()["status"] == "waiting" and r.json()["seat"] == 0
    assert bob.post(f"/api/v1/games/{gid}/join").status_code == 200
    r = alice.post(f"/api/v1/games/{gid}/start")
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "active" and r.json()["version"] == 1
    clients = {0: alice, 1: bob}
    rng = random.Random(1)
    for _ in range(3000):
        g = alice.get(f"/api/v1/games/{gid}").json()
        if g["status"] == "finished":
            break
        seat = g["current_seat"]
        state = clients[seat].get(f"/api/v1/games/{gid}").json()
        plays = [a for a in state["legal_actions"] if a["type"] in ("play", "choose_color")]
        action = rng.choice(plays or state["legal_actions"])
        r = clients[seat].post(
            f"/api/v1/games/{gid}/actions", {**action, "expected_version": state["version"]}, format="json"
        )
        assert r.status_code == 200, r.content
        assert r.json()["game"]["version"] == state["version"] + 1
    g = alice.get(f"/api/v1/games/{gid}").json()
    assert g["status"] == "finished"
    assert g["winner"]["username"] in ("alice", "bob")
    scores = alice.get(f"/api/v1/games/{gid}/scores").json()
    assert len(scores["rounds"]) == 1 and scores["winner_seat"] == g["winner"]["seat"]
    moves = bob.get(f"/api/v1/games/{gid}/moves?limit=500").json()
    assert moves["results"][0]["seq"] == 1 and moves["results"][-1]["seq"] == g["version"]
