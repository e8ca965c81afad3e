"""Webhook notifications end to end: registered through the API, delivered by a real
Celery worker (see celery_helpers) to a real HTTP server on 127.0.0.1, which only the
development switch UNO_WEBHOOK_ALLOW_PRIVATE lets webhooks call (the ``hooks`` fixture
turns it on)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest

from games.models import Game

from .celery_helpers import client_for, requires_redis, wait_for, worker  # noqa: F401 (fixture)
from .loopback_http import LoopbackServer

pytestmark = [requires_redis, pytest.mark.django_db(transaction=True)]


class HookServer(LoopbackServer):
    """Records every POST with its JSON; answers the statuses of ``script`` in order, then 204."""

    def __init__(self):
        self.script: list[int] = []
        super().__init__()

    def record(self, request: dict) -> None:
        request["json"] = json.loads(request["body"])
        request["status"] = self.script.pop(0) if self.script else 204
        super().record(request)

    def respond(self, handler, request: dict) -> None:
        handler.send_response(request["status"])
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def received(self, path=None, event=None) -> list[dict]:
        with self.lock:
            return [r for r in self.requests if (path is None or r["path"] == path)
                    and (event is None or r["json"]["event"] == event)]


@pytest.fixture
def hooks(settings):
    """The receiving server.  It listens on 127.0.0.1, a loopback address that webhooks
    may only call with the development switch on (tests/test_outbound.py tests it off)."""
    settings.UNO_WEBHOOK_ALLOW_PRIVATE = True
    server = HookServer()
    yield server
    server.close()


def register(client, url) -> str:
    r = client.put("/api/v1/players/me/webhook", {"url": url}, format="json")
    assert r.status_code == 200, r.content
    secret = r.json()["secret"]
    assert len(secret) >= 32
    return secret


def assert_signed(request: dict, secret: str) -> None:
    expected = "sha256=" + hmac.new(secret.encode(), request["body"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request["headers"]["X-Uno-Signature"], expected)
    assert request["headers"]["X-Uno-Event"] == request["json"]["event"]
    assert request["headers"]["Content-Type"] == "application/json"


def test_h_the_secret_is_shown_once(make_player, hooks):
    _, token = make_player("alice")
    alice = client_for(token)
    secret = register(alice, hooks.url + "/a")
    r = alice.get("/api/v1/players/me/webhook")
    assert r.status_code == 200 and r.json()["url"] == hooks.url + "/a" and "secret" not in r.json()
    assert secret not in r.content.decode()
    assert register(alice, hooks.url + "/a") != secret  # PUT again: a new secret


def test_h_game_started_and_your_turn_arrive_signed(worker, make_player, hooks):
    worker.start()
    _, ta = make_player("alice")
    _, tb = make_player("bob")
    clients = {0: client_for(ta), 1: client_for(tb)}
    secrets = {0: register(clients[0], hooks.url + "/alice"), 1: register(clients[1], hooks.url + "/bob")}
    paths = {0: "/alice", 1: "/bob"}
    gid = clients[0].post("/api/v1/games", {"ruleset": "standard", "max_players": 2, "turn_seconds": 3600},
                          format="json").json()["id"]
    clients[1].post(f"/api/v1/games/{gid}/join")
    g = clients[0].post(f"/api/v1/games/{gid}/start").json()
    first = g["current_seat"]
    wait_for(lambda: len(hooks.requests) >= 3, timeout=5, message="3 notifications")
    for seat in (0, 1):
        (started,) = hooks.received(paths[seat], "game_started")
        assert_signed(started, secrets[seat])
        assert started["json"]["game"] == gid and started["json"]["version"] == 1
        assert started["json"]["status"] == "active"
    (turn,) = hooks.received(paths[first], "your_turn")
    assert_signed(turn, secrets[first])
    assert turn["json"]["seat"] == first and turn["json"]["deadline"] == g["deadline"].replace("Z", "+00:00")
    assert not hooks.received(paths[1 - first], "your_turn")

    # The player in turn moves until the turn passes: one your_turn for the other.
    c = clients[first]
    while (g := c.get(f"/api/v1/games/{gid}").json())["current_seat"] == first:
        kinds = {a["type"]: a for a in g["legal_actions"]}
        r = c.post(f"/api/v1/games/{gid}/actions", kinds.get("pass") or kinds.get("draw") or g["legal_actions"][0], format="json")
        assert r.status_code == 200
    wait_for(lambda: hooks.received(paths[1 - first], "your_turn"), timeout=5)
    time.sleep(0.3)
    (turn,) = hooks.received(paths[1 - first], "your_turn")
    assert_signed(turn, secrets[1 - first])
    assert turn["json"]["version"] == g["version"]
    assert len(hooks.received(paths[first], "your_turn")) == 1  # the drawer was not told again
    assert len({r["headers"]["X-Uno-Delivery"] for r in hooks.requests}) == len(hooks.requests)
    # the running game's seed is in no notification (its shuffles derive from it)
    seed = Game.objects.get(pk=gid).seed.encode()
    assert not any(seed in r["body"] or seed in repr(r["headers"]).encode() for r in hooks.requests)


def test_h_a_failing_endpoint_is_retried_and_a_refusing_one_is_not(worker, make_player, hooks, settings):
    settings.UNO_WEBHOOK_RETRY_BACKOFF_SECONDS = 0.2
    worker.start()
    _, token = make_player("hugo")
    hugo = client_for(token)
    secret = register(hugo, hooks.url + "/hugo")
    hooks.script = [500]  # the first delivery fails
    gid = hugo.post("/api/v1/games", {"ruleset": "standard", "bots": [{"level": "normal"}], "turn_seconds": 3600,
                                      "options": {"rounds": 1}}, format="json").json()["id"]
    hugo.post(f"/api/v1/games/{gid}/start")
    attempts = wait_for(lambda: (lambda r: r if len(r) >= 2 else None)(hooks.received("/hugo", "game_started")),
                        timeout=5, message="game_started, retried")
    assert [a["status"] for a in attempts] == [500, 204]
    assert attempts[0]["body"] == attempts[1]["body"]
    assert attempts[0]["headers"]["X-Uno-Delivery"] == attempts[1]["headers"]["X-Uno-Delivery"]
    assert_signed(attempts[1], secret)

    # A 4xx answer is final: no retry.
    hooks.script = [410] * 5
    register(hugo, hooks.url + "/gone")
    gid2 = hugo.post("/api/v1/games", {"ruleset": "standard", "bots": [{"level": "normal"}]},
                     format="json").json()["id"]
    hugo.post(f"/api/v1/games/{gid2}/start")
    wait_for(lambda: hooks.received("/gone", "game_started"), timeout=5)
    time.sleep(0.8)  # several retry delays
    assert len(hooks.received("/gone", "game_started")) == 1


def test_h_leaving_sends_nothing_twice_and_game_finished_arrives(worker, make_player, hooks):
    worker.start()
    _, token = make_player("hugo")
    hugo = client_for(token)
    secret = register(hugo, hooks.url + "/hugo")
    gid = hugo.post("/api/v1/games", {"ruleset": "standard", "bots": [{"level": "normal"}, {"level": "easy"}],
                                      "options": {"rounds": 1}}, format="json").json()["id"]
    hugo.post(f"/api/v1/games/{gid}/start")
    wait_for(lambda: hooks.received("/hugo", "game_started"), timeout=5)
    r = hugo.post(f"/api/v1/games/{gid}/leave")  # the autopilot plays on
    assert r.status_code == 200
    left_at = r.json()["version"]
    (finished,) = wait_for(lambda: hooks.received("/hugo", "game_finished"), timeout=30, interval=0.1)
    assert_signed(finished, secret)
    g = hugo.get(f"/api/v1/games/{gid}").json()
    assert finished["json"]["winner_seat"] == g["winner"]["seat"] and finished["json"]["version"] == g["version"]
    time.sleep(0.3)
    assert len(hooks.received("/hugo", "game_started")) == 1  # leaving re-ran version 1's follow-ups
    turns = [t["json"]["version"] for t in hooks.received("/hugo", "your_turn")]
    assert len(turns) == len(set(turns)) and all(v <= left_at for v in turns)  # none on autopilot


def test_h_leaving_a_game_does_not_repeat_its_notifications(worker, make_player, hooks):
    worker.start()
    _, ta = make_player("alice")
    _, tb = make_player("bob")
    clients = {0: client_for(ta), 1: client_for(tb)}
    register(clients[0], hooks.url + "/alice")
    register(clients[1], hooks.url + "/bob")
    gid = clients[0].post("/api/v1/games", {"ruleset": "standard", "max_players": 2}, format="json").json()["id"]
    clients[1].post(f"/api/v1/games/{gid}/join")
    first = clients[0].post(f"/api/v1/games/{gid}/start").json()["current_seat"]
    wait_for(lambda: len(hooks.requests) >= 3, timeout=5, message="game_started x2, your_turn")
    # the player not in turn leaves: the follow-ups of version 1 run again
    r = clients[1 - first].post(f"/api/v1/games/{gid}/leave")
    assert r.status_code == 200 and r.json()["version"] == 1
    time.sleep(0.5)
    assert sorted(r["json"]["event"] for r in hooks.requests) == ["game_started", "game_started", "your_turn"]


def test_h_an_out_of_turn_catch_is_not_a_new_turn(worker, make_player, hooks):
    from games import services, tasks
    from games.models import Game, Move
    from tests.engine.helpers import arrange, play

    player, token = make_player("hugo")
    register(client_for(token), hooks.url + "/hugo")
    game = services.create_game(creator=player, ruleset="standard", max_players=3,
                                bots=[{"level": "normal"}, {"level": "normal"}])
    services.start_game(player=player, game_id=game.pk)
    # seat 2 (a bot) played its next-to-last card without calling UNO; hugo (seat 0) is to play
    state = arrange(seats=3, hands=[["red 5", "blue 7", "green 1"], ["green 2", "yellow 4", "green 9"],
                                    ["blue 2", "yellow 8"]], top="red 3", current=2)
    state.color = "blue"
    play(state, 2, "blue 2")
    assert state.uno_exposed == 2 and state.actor() == 0
    # (obligations null: what the arranged state owes, as a game stored before them)
    Game.objects.filter(pk=game.pk).update(state=state.to_dict(), current_seat=0, round=1, version=5, obligations=None)
    worker.start()
    tasks.bot_step.delay(game.pk, 5)
    wait_for(lambda: Move.objects.filter(game_id=game.pk, seq=6).exists(), timeout=5)
    time.sleep(0.5)  # the other bot's chance too
    out_of_turn = list(Move.objects.filter(game_id=game.pk, seq__gt=5).values_list("seat", "action"))
    assert out_of_turn and all(seat in (1, 2) and a["type"] in ("call_uno", "catch_uno") for seat, a in out_of_turn)
    assert Game.objects.get(pk=game.pk).current_seat == 0
    # still the same turn of hugo's: no new your_turn (those of version 1 were queued at the start)
    assert not [r for r in hooks.received("/hugo", "your_turn") if r["json"]["version"] > 5]


def test_h_a_decktet_uno_game_notifies_each_turn_and_the_end(worker, make_player, hooks):
    """Decktet-Uno (another family of game) through the same notifications: a
    ``your_turn`` for each of the person's turns (decision ``turn``), ``game_finished``
    with the winner."""
    worker.start()
    _, token = make_player("dora")
    dora = client_for(token)
    secret = register(dora, hooks.url + "/dora")
    gid = dora.post("/api/v1/games", {"ruleset": "decktet_uno", "bots": [{"level": "normal"}],
                                      "turn_seconds": 3600}, format="json").json()["id"]
    dora.post(f"/api/v1/games/{gid}/start")
    played = []
    for _ in range(60):
        g = wait_for(lambda: (lambda g: g if g["status"] == "finished" or g["current_seat"] == 0 else None)(
            dora.get(f"/api/v1/games/{gid}").json()), timeout=15, interval=0.05)
        if g["status"] == "finished":
            break
        turn = wait_for(lambda: [t for t in hooks.received("/dora", "your_turn")
                                 if t["json"]["version"] == g["version"]], timeout=10, interval=0.05)
        assert turn[0]["json"]["decision"] == "turn" and turn[0]["json"]["seat"] == 0
        assert_signed(turn[0], secret)
        r = dora.post(f"/api/v1/games/{gid}/actions", {**g["legal_actions"][0], "expected_version": g["version"]},
                      format="json")
        assert r.status_code == 200, r.content
        played.append(g["version"])
    (finished,) = wait_for(lambda: hooks.received("/dora", "game_finished"), timeout=15, interval=0.1)
    g = dora.get(f"/api/v1/games/{gid}").json()
    assert g["status"] == "finished" and finished["json"]["winner_seat"] == g["winner"]["seat"]
    assert len(played) in (21, 22)  # 43 plays between two seats
    assert sorted(t["json"]["version"] for t in hooks.received("/dora", "your_turn")) == played
