"""Options ``straights`` and ``continuations`` through the HTTP API: a game against bots of
every level played to its end by a real worker, a sequence ended by the timer, and the
create request's validation.  (The rules themselves: tests/engine/test_straights.py.)"""

from __future__ import annotations

import random
import time

import pytest

from games import robots
from games.models import Game, Move

from .celery_helpers import client_for, requires_redis, worker  # noqa: F401 (fixture)
from .games_support import walk
from .helpers import assert_problem

GAMES = "/api/v1/games"


def game_json(client, gid: int) -> dict:
    r = client.get(f"{GAMES}/{gid}")
    assert r.status_code == 200, r.content
    return r.json()


def post(client, gid: int, g: dict, action: dict):
    return client.post(f"{GAMES}/{gid}/actions", {**action, "expected_version": g["version"]}, format="json")


def assert_shows_no_hidden_card(g: dict) -> None:
    """A running game's view names no card but the viewer's own and the top card."""
    shown = {n["id"] for n in walk(g) if isinstance(n, dict) and "rank" in n and isinstance(n.get("id"), int)}
    shown |= {a["card"] for a in g["legal_actions"] if "card" in a}
    assert shown <= {c["id"] for c in g["hand"]} | {g["top_card"]["id"]}


def human_choice(g: dict, seat: int, rng: random.Random) -> dict | None:
    """A client that plays sequences: in turn, a play whenever it has one (a sequence's
    next card, UNO called with the next-to-last), else what is left (``end_turn``...);
    out of turn, a cut-in into the previous player's sequence, UNO calls and catches."""
    legal = g["legal_actions"]
    plays = [a for a in legal if a["type"] in ("play", "choose_color")]
    plays = [a for a in plays if a.get("uno")] or plays
    if g["current_seat"] == seat:
        return rng.choice(plays or legal)
    pending = g["pending"] or {}
    if pending.get("type") == "sequence" and pending["cut_in_seat"] == seat and plays:
        return rng.choice(plays)
    calls = [a for a in legal if a["type"] in ("call_uno", "catch_uno")]
    return calls[0] if calls else None


@requires_redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("options", [{"straights": True, "jump_in": "exact"}, {"continuations": True}])
def test_a_game_with_sequences_is_played_to_the_end_over_http_with_bots_of_every_level(worker, make_player,
                                                                                    options):
    _, token = make_player("hugo")
    hugo = client_for(token)
    worker.start()
    r = hugo.post(GAMES, {"ruleset": "standard", "options": {**options, "rounds": 1},
                          "bots": [{"level": lv} for lv in ("random", "easy", "normal", "hard")]}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert all(r.json()["options"][k] == v for k, v in options.items())
    assert hugo.post(f"{GAMES}/{gid}/start").status_code == 200
    rng = random.Random(5)
    seen_sequence = 0
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < 120, "the game did not finish"
        g = game_json(hugo, gid)
        if g["status"] == "finished":
            break
        assert_shows_no_hidden_card(g)
        pending = g["pending"] or {}
        if pending.get("type") == "sequence":
            seen_sequence += 1
            assert set(pending) == {"type", "seat", "rule", "direction", "cut_in_seat"}
            assert pending["rule"] == ("straights" if "straights" in options else "continuations")
            if pending["seat"] == 0:
                assert {"type": "end_turn"} in g["legal_actions"]
                assert "draw" not in {a["type"] for a in g["legal_actions"]}
        action = human_choice(g, 0, rng)
        if action is None:
            time.sleep(0.02)
            continue
        r = post(hugo, gid, g, action)
        if r.status_code == 409:  # a bot acted meanwhile: look again
            continue
        assert r.status_code == 200, r.content
    assert g["winner"]["seat"] in range(5)
    moves = list(Move.objects.filter(game_id=gid).order_by("seq").values("seat", "action", "by", "events"))
    assert {m["seat"] for m in moves if m["by"] == "bot"} == {1, 2, 3, 4}  # every level acted
    ends = [m for m in moves if m["action"]["type"] == "end_turn"]
    assert {m["seat"] for m in ends} & {1, 2, 3, 4}, "no bot ever ended a sequence"
    assert all(m["events"][0] == {"type": "end_turn", "seat": m["seat"]} for m in ends)
    assert seen_sequence > 0


def _two_humans(make_player, **body) -> tuple[int, dict]:
    _, ta = make_player("alice")
    _, tb = make_player("bob")
    alice, bob = client_for(ta), client_for(tb)
    r = alice.post(GAMES, {"ruleset": "standard", "max_players": 2, **body}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"{GAMES}/{gid}/join").status_code == 200
    assert alice.post(f"{GAMES}/{gid}/start").status_code == 200
    return gid, {0: alice, 1: bob}


def _until_a_sequence(gid: int, clients: dict, rng: random.Random, cut_in: bool = False) -> dict:
    """Play (numbers first) until a sequence is open (and, with ``cut_in``, the other
    player holds a card that cuts in); the game as the sequence's player sees it."""
    for _ in range(300):
        seat = Game.objects.get(pk=gid).current_seat
        g = game_json(clients[seat], gid)
        assert g["status"] == "active"
        pending = g["pending"] or {}
        if pending.get("type") == "sequence":
            other = game_json(clients[pending["cut_in_seat"]], gid)
            if not cut_in or any(a["type"] == "play" for a in other["legal_actions"]):
                return g
        legal = g["legal_actions"]
        numbers = [a for a in legal if a["type"] == "play" and
                   next(c for c in g["hand"] if c["id"] == a["card"])["rank"].isdigit()]
        r = post(clients[seat], gid, g, rng.choice(numbers or legal))
        assert r.status_code == 200, r.content
    pytest.fail("no sequence opened")


@pytest.mark.django_db
def test_the_next_player_cuts_in_over_http(make_player):
    gid, clients = _two_humans(make_player, options={"straights": True, "rounds": 1})
    g = _until_a_sequence(gid, clients, random.Random(8), cut_in=True)
    owner, other = g["pending"]["seat"], g["pending"]["cut_in_seat"]
    theirs = game_json(clients[other], gid)
    assert theirs["current_seat"] == owner  # not their turn, yet they may play on the top card
    cut = next(a for a in theirs["legal_actions"] if a["type"] == "play")
    assert {a["type"] for a in theirs["legal_actions"]} <= {"play", "call_uno", "catch_uno"}
    r = post(clients[other], gid, theirs, cut)
    assert r.status_code == 200, r.content
    events = r.json()["events"]
    assert events[0] == {"type": "cut_in", "seat": other, "target_seat": owner}
    assert events[1]["type"] == "play" and events[1]["card"]["id"] == cut["card"]
    g = game_json(clients[owner], gid)
    pending = g["pending"] or {}
    assert not (pending.get("type") == "sequence" and pending["seat"] == owner), "the cut sequence is over"
    assert {"type": "end_turn"} not in g["legal_actions"]
    move = Move.objects.get(game_id=gid, seq=theirs["version"] + 1)
    assert move.seat == other and move.by == "player" and move.action == cut


@pytest.mark.django_db
def test_the_timer_ends_a_sequence_that_its_player_leaves_open(make_player):
    """RULES.md "Time": "a sequence (straights, continuations, ...) ends"."""
    gid, clients = _two_humans(make_player, options={"continuations": True, "rounds": 1}, turn_seconds=1)
    g = _until_a_sequence(gid, clients, random.Random(2))
    owner = g["pending"]["seat"]
    assert g["current_seat"] == owner and g["deadline"] is not None
    version = g["version"]
    # the other player may only cut in (or wait): no draw, no end_turn of theirs
    other = 1 - owner
    refused = post(clients[other], gid, game_json(clients[other], gid), {"type": "end_turn"})
    assert_problem(refused, 409, "not_your_turn")
    time.sleep(1.1)  # the turn's deadline passes; beat's sweep is the timer
    assert robots.sweep_deadlines() >= 1
    move = Move.objects.get(game_id=gid, seq=version + 1)
    assert move.by == "timer" and move.seat == owner and move.action == {"type": "timeout"}
    assert [e["type"] for e in move.events] == ["timeout", "end_turn"]
    g = game_json(clients[other], gid)
    assert g["current_seat"] == other and g["pending"] is None


@pytest.mark.django_db
def test_create_accepts_each_option_and_refuses_both(make_player):
    _, token = make_player("alice")
    alice = client_for(token)
    for name in ("straights", "continuations"):
        r = alice.post(GAMES, {"ruleset": "house", "options": {name: True}}, format="json")
        assert r.status_code == 201, r.content
        assert r.json()["options"][name] is True
    r = alice.post(GAMES, {"ruleset": "standard", "options": {"straights": True, "continuations": True}},
                   format="json")
    body = assert_problem(r, 400, "invalid_options")
    assert list(body["fields"]) == ["options.continuations"]
    assert "not both" in body["fields"]["options.continuations"][0]
