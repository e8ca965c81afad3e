"""Option ``buzzer_cards`` over the HTTP API, with a real Celery worker on Redis (see
celery_helpers): created and refused as documented, played to its end by a human and a bot
of every level, every buzz window shown in ``pending`` and closed, the game verified by
replay; the window's own ``buzzer_seconds`` timer, and the bots' human-like delay before
buzzing, as the server's obligations enforce them (games/obligations.py, games/robots.py).

The engine's side (each RULES.md sentence, the timer's ``expire`` action, the bots'
``reaction_delay``) is tested in tests/engine/test_buzzer.py.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta
from typing import Callable

import pytest

from games import engine, services
from games.models import Game, Move

from .celery_helpers import celery_beat, client_for, requires_redis, wait_for, worker  # noqa: F401 (fixture)
from .games_support import verified
from .helpers import assert_problem

pytestmark = [requires_redis, pytest.mark.django_db(transaction=True)]

GAMES = "/api/v1/games"
BUZZ = {"type": "buzz"}


def seed_where(options: dict, seats: int, wanted: Callable[[engine.State], bool]) -> int:
    """A seed whose deal of ``options`` for ``seats`` satisfies ``wanted``."""
    for seed in range(1, 100_000):
        if wanted(engine.new_game("standard", options, seats, str(seed))):
            return seed
    raise AssertionError("no such deal")


def holds_buzzer(state: engine.State, seat: int) -> bool:
    rank = engine.build_rules(state.config).deck.rank
    return any(rank[c] == "buzzer" for c in state.hands[seat])


def buzzer_plays(g: dict) -> list[dict]:
    """The plays of a Buzzer among the legal actions of the game view ``g``."""
    rank = {c["id"]: c["rank"] for c in g["hand"]}
    return [a for a in g["legal_actions"] if a["type"] == "play" and rank[a["card"]] == "buzzer"]


def deal_with(monkeypatch, seed: int) -> None:
    """The next game created deals from ``seed`` (the server draws its seed from secrets)."""
    monkeypatch.setattr(services.secrets, "randbits", lambda bits: seed)


def game_json(client, gid: int) -> dict:
    r = client.get(f"{GAMES}/{gid}")
    assert r.status_code == 200, r.content
    return r.json()


def events_of(gid: int) -> list[tuple[Move, dict]]:
    return [(m, e) for m in Move.objects.filter(game_id=gid).order_by("seq") for e in m.events]


def test_the_options_are_accepted_refused_and_typed(make_player):
    _, token = make_player("ann")
    ann = client_for(token)
    r = ann.post(GAMES, {"ruleset": "house", "max_players": 3, "options": {"buzzer_cards": True}}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["options"]["buzzer_cards"] is True and r.json()["options"]["buzzer_seconds"] == 10
    problem = assert_problem(ann.post(GAMES, {"ruleset": "standard", "options": {"buzzer_seconds": 30}},
                                      format="json"), 400, "invalid_options")
    assert list(problem["fields"]) == ["options.buzzer_seconds"]
    assert "only with buzzer_cards" in problem["fields"]["options.buzzer_seconds"][0]
    problem = assert_problem(ann.post(GAMES, {"ruleset": "standard", "options": {"buzzer_cards": True,
                                                                                   "buzzer_seconds": 0}},
                                      format="json"), 400, "invalid_options")
    assert list(problem["fields"]) == ["options.buzzer_seconds"]
    schema = ann.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    variants = schema["components"]["schemas"]
    assert variants["BuzzAction"]["properties"]["type"] == {"type": "string", "enum": ["buzz"]}


def test_a_human_and_a_bot_of_every_level_play_a_buzzer_game_to_its_end(worker, make_player, monkeypatch, tmp_path):
    options = {"buzzer_cards": True, "buzzer_seconds": 5, "rounds": 1}
    deal_with(monkeypatch, seed_where(options, 5, lambda s: holds_buzzer(s, 0)))  # hugo holds a Buzzer
    _, token = make_player("hugo")
    hugo = client_for(token)
    r = hugo.post(GAMES, {"ruleset": "standard", "options": options,
                          "bots": [{"level": lv} for lv in ("random", "easy", "normal", "hard")]}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert hugo.post(f"{GAMES}/{gid}/start").status_code == 200
    worker.start()
    # the sweeper runs, as beside every worker in production: it revives a robot whose step
    # was lost (its deadline, UNO_BOT_STALL_SECONDS). Without it this game once waited for
    # good on a bot's turn whose step had gone (1 run in 9 here, twice in CI; cause not found)
    with celery_beat(tmp_path, sweep_seconds=1):
        rng = random.Random(3)
        shown: list[dict] = []  # the buzz windows as the view showed them
        started = time.monotonic()
        while True:
            g = game_json(hugo, gid)
            if g["status"] == "finished":
                break
            assert time.monotonic() - started < 240, (
                "the game did not end: at version {version}, seat {current_seat} to play, pending {pending}, owed "
                "{obligations}, hugo may {legal_actions}".format(**g))
            legal = g["legal_actions"]
            if g["pending"] and g["pending"]["type"] == "buzz":
                shown.append(g["pending"])
            owes = any(o["seat"] == 0 for o in g["obligations"])  # in turn, or a decision out of turn
            if BUZZ in legal:
                action = BUZZ  # hugo buzzes at once, in turn or not
            elif (g["current_seat"] == 0 or owes) and legal:
                plays = [a for a in legal if a["type"] in ("play", "choose_color")]
                action = (buzzer_plays(g) or [rng.choice(plays or legal)])[0]
            else:
                time.sleep(0.01)
                continue
            r = hugo.post(f"{GAMES}/{gid}/actions", action, format="json")
            if r.status_code != 200:  # a bot closed the window (its play) or the round ended meanwhile
                assert r.json()["code"] in ("illegal_move", "not_your_turn", "game_finished"), r.content
    g = game_json(hugo, gid)
    assert g["winner"]["seat"] in range(5)

    # a Buzzer opened a window every seat owed, with its own seconds; the view showed it
    assert shown and shown[0]["seconds"] == 5 and set(shown[0]) == {"type", "seat", "buzzed", "owed_by", "seconds"}
    events = events_of(gid)
    opened = [(m, e) for m, e in events if e["type"] == "buzz_window"]
    assert any(m.seat == 0 for m, _ in opened)  # hugo's Buzzer
    assert all(e["owed_by"] == [0, 1, 2, 3, 4] and e["seconds"] == 5 for _, e in opened)
    # the bots buzzed (every level), and each closed window made its losers draw 2
    buzzes = Move.objects.filter(game_id=gid, action=BUZZ)
    # (every bot buzzes out of turn; in turn, hard may play instead when it is the last to owe it)
    assert len({m.seat for m in buzzes if m.by == "bot"}) >= 3
    closed = [(m, e) for m, e in events if e["type"] == "buzz_closed"]
    assert closed
    for m, e in closed:
        drawn = {x["seat"]: x["count"] for x in m.events if x["type"] == "draw" and x["reason"] == "buzz"}
        assert sorted(drawn) == e["draws"] and set(drawn.values()) <= {0, 1, 2}  # 2 each (fewer if piles ran out)
        assert set(e["draws"]) == set(e["not_buzzed"]) | ({e["last"]} if e["last"] is not None else set())
    # the stored game replays exactly
    report = verified(gid)
    assert report.startswith(f"game {gid}: OK"), report


def test_while_running_the_history_hides_the_cards_drawn_for_a_buzz_from_the_others(make_player, monkeypatch):
    options = {"buzzer_cards": True, "rounds": 1}
    deal_with(monkeypatch, seed_where(options, 3, lambda s: s.actor() == 0 and not s.stack and holds_buzzer(s, 0)))
    players = [make_player(name) for name in ("ann", "bob", "cid")]
    ann, bob, cid = (client_for(token) for _, token in players)
    gid = ann.post(GAMES, {"ruleset": "standard", "max_players": 3, "options": options}, format="json").json()["id"]
    for c in (bob, cid):
        assert c.post(f"{GAMES}/{gid}/join").status_code == 200
    assert ann.post(f"{GAMES}/{gid}/start").status_code == 200
    g = game_json(ann, gid)
    buzzer = buzzer_plays(g)[0]
    assert ann.post(f"{GAMES}/{gid}/actions", buzzer, format="json").status_code == 200
    for client in (cid, ann):
        view = game_json(client, gid)
        assert view["pending"]["type"] == "buzz" and BUZZ in view["legal_actions"]
        assert client.post(f"{GAMES}/{gid}/actions", BUZZ, format="json").status_code == 200
    bob_view = game_json(bob, gid)
    assert bob_view["pending"]["owed_by"] == [1] and bob_view["pending"]["buzzed"] == [2, 0]
    r = bob.post(f"{GAMES}/{gid}/actions", {"type": "draw"}, format="json")  # an in-turn action: it closes
    assert r.status_code == 200, r.content
    closed = next(e for e in r.json()["events"] if e["type"] == "buzz_closed")
    assert closed["draws"] == [0, 1]  # bob did not buzz, ann buzzed last
    for client, seat in ((ann, 0), (bob, 1), (cid, 2)):
        for move in client.get(f"{GAMES}/{gid}/moves?limit=500").json()["results"]:
            for e in move["events"]:
                if e["type"] in ("cards_drawn", "hand"):
                    assert e["seat"] == seat, f"seat {seat} sees {e}"
    assert_problem(ann.post(f"{GAMES}/{gid}/actions", {"type": "expire"}, format="json"), 400, "invalid")


def test_the_windows_own_timer_closes_it_for_a_seat_that_did_not_buzz(worker, make_player, monkeypatch, tmp_path):
    options = {"buzzer_cards": True, "buzzer_seconds": 1, "rounds": 1}
    deal_with(monkeypatch, seed_where(options, 2, lambda s: s.actor() == 0 and not s.stack and holds_buzzer(s, 0)))
    _, t1 = make_player("alice")
    _, t2 = make_player("bob")
    alice, bob = client_for(t1), client_for(t2)
    gid = alice.post(GAMES, {"ruleset": "standard", "max_players": 2, "options": options, "turn_seconds": 3600},
                     format="json").json()["id"]
    assert bob.post(f"{GAMES}/{gid}/join").status_code == 200
    assert alice.post(f"{GAMES}/{gid}/start").status_code == 200
    g = game_json(alice, gid)
    buzzer = buzzer_plays(g)[0]
    assert alice.post(f"{GAMES}/{gid}/actions", buzzer, format="json").status_code == 200
    assert bob.post(f"{GAMES}/{gid}/actions", BUZZ, format="json").status_code == 200  # alice never buzzes
    window_opened = Move.objects.get(game_id=gid, seq=2).created_at
    worker.start()
    with celery_beat(tmp_path, sweep_seconds=0.5):
        expired = wait_for(lambda: Move.objects.filter(game_id=gid, action={"type": "expire"}).first(), timeout=15,
                           message="the timer expiring alice's buzz")
    assert (expired.seat, expired.by) == (0, "timer")
    assert expired.created_at - window_opened >= timedelta(seconds=0.9)  # not before the window's end (1 s)
    closed = next(e for e in expired.events if e["type"] == "buzz_closed")
    assert closed["not_buzzed"] == [0] and closed["last"] == 1 and closed["draws"] == [0, 1]
    g = game_json(bob, gid)
    assert g["current_seat"] == 1 and g["pending"] is None  # bob's turn, with its own long deadline, goes on
    assert not Move.objects.filter(game_id=gid, action={"type": "timeout"}).exists()


def test_bots_buzz_after_a_human_like_delay(worker, make_player, monkeypatch):
    options = {"buzzer_cards": True, "rounds": 1}
    deal_with(monkeypatch, seed_where(options, 4, lambda s: s.actor() == 0 and not s.stack and holds_buzzer(s, 0)))
    _, token = make_player("hugo")
    hugo = client_for(token)
    gid = hugo.post(GAMES, {"ruleset": "standard", "options": options, "turn_seconds": 3600,
                            "bots": [{"level": lv} for lv in ("easy", "normal", "hard")]}, format="json").json()["id"]
    assert hugo.post(f"{GAMES}/{gid}/start").status_code == 200
    g = game_json(hugo, gid)
    r = hugo.post(f"{GAMES}/{gid}/actions", buzzer_plays(g)[0], format="json")
    assert r.status_code == 200, r.content
    opened = Game.objects.get(pk=gid).updated_at
    worker.start()  # bots think 0 s here: only their reaction delay separates the window from their buzz
    # hugo never buzzes: the window closes with the bot in turn's play (or at its end, 10 s)
    closing = wait_for(lambda: next((m for m, e in events_of(gid) if e["type"] == "buzz_closed"), None),
                       timeout=20, message="the buzz window closing")
    buzzes = list(Move.objects.filter(game_id=gid, action=BUZZ, by="bot", seq__lt=closing.seq))
    assert buzzes, "no bot buzzed"
    delays = sorted((m.created_at - opened).total_seconds() for m in buzzes)
    assert delays[0] >= 0.25  # no bot buzzes at once (policies.MIN_REACTION: 0.3 s)
    if len(delays) > 1:
        assert delays[-1] - delays[0] > 0.05  # each its own random reaction, not all together
    if closing.by == "bot":  # the bot in turn closed it with its play: it had buzzed first (hugo still owed)
        assert closing.seat in {m.seat for m in buzzes}
