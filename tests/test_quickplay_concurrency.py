"""Quick play under concurrency, through the real stack: a gunicorn of two processes,
two Celery workers and beat (the matchmaker's sweep: bot fill-ins after the wait).
60 players ask for quick play at once in mixed compatible settings (some cancel at
once, some allow bots after a second); then every request is matched into exactly one
started game, cancelled, or still waiting with no table left to form among those
waiting; no player sits twice, no game is over-full, each match told once on the feed.
On PostgreSQL and (marked ``concurrency``) on SQLite."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.utils import timezone

from games.models import Game, GameStatus, Seat
from matchmaking import services
from matchmaking.models import QuickPlayRequest
from notices.models import Notice
from tests.celery_helpers import celery_beat, celery_worker, wait_for
from tests.games_support import clients  # noqa: F401 (fixture)
from tests.server_support import Gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]

PLAYERS = 60
BOTS = {"after_seconds": 1, "level": "easy"}
#: what player i asks for (i % len): overlapping lists, so that a request may fit several groups
SETTINGS = [
    {"rulesets": ["standard"], "seats": [2]},
    {"rulesets": ["standard", "house"], "seats": [3, 2]},
    {"rulesets": ["house"], "seats": [3]},
    {"rulesets": ["house", "standard"], "seats": [2, 4], "speed": ["realtime", "correspondence"]},
    {"rulesets": ["duo"], "seats": [2], "speed": "correspondence"},
    {"rulesets": ["decktet_uno"], "seats": [3, 4], "rated": True},
    {"rulesets": ["standard"], "seats": [4], "bots": BOTS},
    {"rulesets": ["play_uno_com", "standard_112"], "seats": [5], "speed": "correspondence"},
    {"rulesets": ["standard"], "seats": [3], "rated": True},
    # (no other list takes a 7-seat house table, and 6 at most ask for it: bots always fill one)
    {"rulesets": ["house"], "seats": [7], "bots": BOTS},
]
#: these players cancel at once (their request ends cancelled, or matched if it was first)
CANCELLERS = {7, 18, 29, 40}


def _post(url: str, token: str, body: dict) -> requests.Response:
    """POST with an Idempotency-Key, retried (same key) while the server answers 503
    (a database busy past its timeout) or the first attempt still runs."""
    key = uuid.uuid4().hex
    for _ in range(20):
        r = requests.post(url, json=body, timeout=60, headers={"Authorization": f"Token {token}", "Idempotency-Key": key})
        if r.status_code not in (503, 409) or r.json().get("code") not in ("unavailable", "idempotency_in_progress"):
            return r
        time.sleep(0.5)
    return r


def test_sixty_players_at_once(tmp_path, clients):
    players = clients(PLAYERS)
    with Gunicorn(tmp_path / "gunicorn.log", workers=2) as web, \
            celery_worker(tmp_path, "w1", UNO_BOT_THINK_SECONDS=0), \
            celery_worker(tmp_path, "w2", UNO_BOT_THINK_SECONDS=0), \
            celery_beat(tmp_path, 0.5, UNO_QUICKPLAY_SWEEP_SECONDS=0.5):
        barrier = threading.Barrier(PLAYERS)

        def ask(i: int):
            barrier.wait(timeout=60)
            r = _post(f"{web.url}/api/v1/quickplay", players[i].token, SETTINGS[i % len(SETTINGS)])
            assert r.status_code == 202, r.text
            body = r.json()
            cancel = None
            if i in CANCELLERS:
                cancel = requests.delete(f"{web.url}/api/v1/quickplay/{body['id']}", timeout=60,
                                         headers={"Authorization": f"Token {players[i].token}"})
            return body, cancel

        with ThreadPoolExecutor(PLAYERS) as pool:
            answers = list(pool.map(ask, range(PLAYERS)))

        # the bots' waits (1 s) end; the sweeper and the countdowns fill those tables
        def settled():
            now = timezone.now()
            return not QuickPlayRequest.objects.filter(status="waiting", bots_at__lte=now).exists()
        time.sleep(1.5)
        wait_for(settled, 30, 0.2, "bot fill-ins after the wait")
        time.sleep(1.0)  # a sweep or countdown still running would show below

    reqs = {r.pk: r for r in QuickPlayRequest.objects.all()}
    assert len(reqs) == PLAYERS and Counter(r.player_id for r in reqs.values()).most_common(1)[0][1] == 1
    for i, (body, cancel) in enumerate(answers):
        req = reqs[body["id"]]
        assert req.player_id == players[i].player.pk
        if cancel is not None:
            assert (cancel.status_code, req.status) in ((200, "cancelled"), (409, "matched")), cancel.text
            if cancel.status_code == 409:
                assert cancel.json()["code"] == "already_matched"
        if body["status"] == "matched":
            assert req.status == "matched" and req.game_id == body["game"]

    matched = [r for r in reqs.values() if r.status == "matched"]
    games = {g.pk: g for g in Game.objects.all()}
    seats = list(Seat.objects.all())
    # no player sits twice, in one game or across games; each matched request sits in its game, once
    humans = Counter(s.player_id for s in seats if s.player_id)
    assert humans and max(humans.values()) == 1
    seat_of = {s.player_id: s.game_id for s in seats if s.player_id}
    for r in matched:
        assert seat_of[r.player_id] == r.game_id
    assert set(seat_of) == {r.player_id for r in matched}
    # every game: started, exactly full, its requests agree on its table
    by_game = Counter(r.game_id for r in matched)
    for gid, game in games.items():
        game_seats = [s for s in seats if s.game_id == gid]
        assert game.status != GameStatus.WAITING
        assert len(game_seats) == game.max_players == len({s.seat for s in game_seats})
        assert by_game[gid] == sum(1 for s in game_seats if s.player_id)
        tables = {(r.ruleset, r.seat_count, r.speed, r.rated) for r in matched if r.game_id == gid}
        assert len(tables) == 1
        ruleset, n, speed, rated = tables.pop()
        assert (game.ruleset, game.max_players, game.rated) == (ruleset, n, rated)
        assert game.turn_seconds == services.turn_seconds(speed)
        for r in matched:
            if r.game_id == gid:
                assert ruleset in r.rulesets and n in r.seats and speed in r.speeds
    # each match told once on its player's feed
    told = Counter((n.player_id, n.data["quickplay"], n.data["game"])
                   for n in Notice.objects.filter(kind="quickplay_matched"))
    assert told == Counter((r.player_id, r.pk, r.game_id) for r in matched)
    # those still waiting: no table left to form among them (and no bots due)
    waiting = [r for r in reqs.values() if r.status == "waiting"]
    blocks = services._blocked_pairs([r.player_id for r in waiting])
    for r in waiting:
        assert services.find_table(r, [w for w in waiting if w.pk != r.pk], blocks) is None, r.pk
        assert r.bots_at is None
    assert len(matched) >= PLAYERS // 2, Counter(r.status for r in reqs.values())
    assert any(r.bot_seats for r in matched) and any(not r.bot_seats for r in matched), sorted(
        (r.status, r.rulesets, r.seats, r.bot_seats, r.game_id) for r in reqs.values() if r.bots_level)
