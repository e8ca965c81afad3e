"""Live events against the real web server (gunicorn as `make run` starts it): the game's
event stream, the player's feed and the long-poll, on PostgreSQL (with Redis fan-out when
REDIS_URL is set, as `make test` runs it: ``LIVE_FANOUT``'s default; LISTEN/NOTIFY without;
tests/test_live_fanout.py runs both across two web processes) and, marked ``concurrency``,
again on the embedded default (SQLite's data_version).

What each viewer receives is compared with what ``/moves`` and ``GET`` show that
viewer: the same redaction, event for event."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from tests.celery_helpers import requires_redis, worker  # noqa: F401 (fixture)
from tests.server_support import call, gunicorn, register, step, two_player_game  # noqa: F401 (fixture)
from tests.sse_support import open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]


def moves_seen_by(server, game_id: int, token: str | None) -> list[dict]:
    status, page, _ = call(server, "GET", f"/api/v1/games/{game_id}/moves?limit=500", token=token)
    assert status == 200, page
    return page["results"]


def test_each_viewer_receives_every_move_as_moves_shows_it_to_them(gunicorn):
    game_id, a, b = two_player_game(gunicorn)
    _, spectator = register(gunicorn)
    streams = {
        "a": open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a),
        "b": open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", b, query_token=True),
        "spectator": open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", spectator),
    }
    tokens = {"a": a, "b": b, "spectator": spectator}
    try:
        for s in streams.values():
            assert s.status == 200
            assert s.headers["content-type"].startswith("text/event-stream")
            assert s.headers["cache-control"] == "no-cache"
        assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
        version = 1
        while version < 25:
            version = step(gunicorn, game_id, [a, b])
        for who, stream in streams.items():
            got = stream.until(lambda e: e.event == "message" and e.data["version"] >= version)
            moves = [e for e in got if e.event == "message"]
            expected = moves_seen_by(gunicorn, game_id, tokens[who])[: len(moves)]
            assert [m.id for m in moves] == [str(m["seq"]) for m in expected]
            for event, move in zip(moves, expected):
                shown = {k: v for k, v in event.data.items() if k not in ("version", "game")}
                assert shown == move, who
                assert event.data["version"] == move["seq"]
            # the newest move of a delivery carries the viewer's game, as GET shows it
            last = moves[-1].data
            _, game, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}", token=tokens[who])
            if game["version"] == last["version"]:
                assert last["game"] == game
            assert ("hand" in last["game"]) == (who != "spectator")
    finally:
        for s in streams.values():
            s.close()


def test_a_stream_resumes_after_last_event_id_or_after(gunicorn):
    game_id, a, b = two_player_game(gunicorn)
    assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
    version = 1
    while version < 6:
        version = step(gunicorn, game_id, [a, b])
    expected = moves_seen_by(gunicorn, game_id, a)
    resumed = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a, headers={"Last-Event-ID": "2"})
    after = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events?after=4", a)
    current = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events?after={version}", a)
    try:
        got = resumed.until(lambda e: e.data["version"] == version)
        assert [int(e.id) for e in got] == [m["seq"] for m in expected if m["seq"] > 2]
        got = after.until(lambda e: e.data["version"] == version)
        assert [int(e.id) for e in got] == [m["seq"] for m in expected if m["seq"] > 4]
        assert current.nothing_within(1.0)  # nothing after the version it has
        new = step(gunicorn, game_id, [a, b])
        assert [int(e.id) for e in current.until(lambda e: e.data["version"] == new)] == list(range(version + 1, new + 1))
    finally:
        for s in (resumed, after, current):
            s.close()


def test_joins_show_as_game_events_and_the_feed_tells_the_player(gunicorn):
    (_, a), (b_name, b) = register(gunicorn), register(gunicorn)
    _, game, _ = call(gunicorn, "POST", "/api/v1/games",
                      {"ruleset": "standard", "max_players": 2, "options": {"rounds": 1}}, a)
    game_id = game["id"]
    stream = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a)
    feed = open_stream(gunicorn.port, "/api/v1/players/me/events", a, query_token=True)
    feed_b = open_stream(gunicorn.port, "/api/v1/players/me/events", b)
    try:
        time.sleep(0.5)  # (both subscribed before the join)
        assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/join", None, b)[0] == 200
        joined = stream.next()
        assert joined.event == "game" and joined.id is None
        assert [p["username"] for p in joined.data["game"]["players"]][1] == b_name
        assert (joined.data["seq"], joined.data["version"]) == (0, 0)
        event = feed.next()
        assert (event.event, event.data["game"], event.data["seat"], event.data["username"]) == \
            ("joined", game_id, 1, b_name)
        assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
        for f, seat in ((feed, 0), (feed_b, 1)):
            started = f.until(lambda e: e.event == "game_started")[-1]
            assert started.data == {"game": game_id, "version": 1, "seat": seat}
        _, view, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}", token=a)
        owes = {o["seat"] for o in view["obligations"]}
        # whoever owes the first decision is told so
        f = feed if 0 in owes else feed_b
        turn = f.until(lambda e: e.event == "your_turn")[-1]
        assert turn.data["game"] == game_id and turn.data["seat"] in owes
        # a new connection is told at once of every decision it owes now
        again = open_stream(gunicorn.port, "/api/v1/players/me/events", a if 0 in owes else b)
        try:
            first = again.next()
            assert first.event == "your_turn" and first.data["game"] == game_id
        finally:
            again.close()
        # the end, to both
        while True:
            step(gunicorn, game_id, [a, b])
            _, view, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}", token=a)
            if view["status"] == "finished":
                break
        for f in (feed, feed_b):
            end = f.until(lambda e: e.event == "game_finished", timeout=60)[-1]
            assert end.data["game"] == game_id and end.data["winner_seat"] == view["winner"]["seat"]
    finally:
        for s in (stream, feed, feed_b):
            s.close()


def test_a_stream_ends_when_its_game_is_deleted(gunicorn):
    """The last player leaving a waiting game deletes it: its streams end, and a long-poll
    on it answers 404."""
    _, a = register(gunicorn)
    _, game, _ = call(gunicorn, "POST", "/api/v1/games", {"ruleset": "standard", "max_players": 2}, a)
    stream = open_stream(gunicorn.port, f"/api/v1/games/{game['id']}/events", a)
    answers = []
    poll = threading.Thread(target=lambda: answers.append(
        call(gunicorn, "GET", f"/api/v1/games/{game['id']}?wait_for_version=0&timeout=30", token=a)))
    try:
        poll.start()
        time.sleep(0.5)
        assert call(gunicorn, "POST", f"/api/v1/games/{game['id']}/leave", None, a)[0] == 204
        assert stream.closed.wait(20), "the stream stayed open"
        poll.join(20)
        assert answers and answers[0][0] == 404
        # the server goes on serving streams
        game_id, a2, b2 = two_player_game(gunicorn)
        again = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a2)
        assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a2)[0] == 200
        assert again.next().data["version"] == 1
        again.close()
    finally:
        stream.close()


def test_the_long_poll_answers_at_the_next_version_or_at_its_timeout(gunicorn):
    game_id, a, b = two_player_game(gunicorn)
    assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
    # already past it: at once
    status, game, headers = call(gunicorn, "GET", f"/api/v1/games/{game_id}?wait_for_version=0", token=a)
    assert status == 200 and game["version"] == 1 and headers["etag"]
    # the timeout: the game as it is
    started = time.monotonic()
    status, game, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}?wait_for_version=1&timeout=1", token=b)
    assert status == 200 and game["version"] == 1 and time.monotonic() - started >= 0.9
    # a move meanwhile: answered with it
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(
        call(gunicorn, "GET", f"/api/v1/games/{game_id}?wait_for_version=1&timeout=60", token=b)))
    waiting.start()
    time.sleep(0.5)
    assert not answers
    new = step(gunicorn, game_id, [a, b])
    waiting.join(30)
    assert answers and answers[0][0] == 200 and answers[0][1]["version"] == new
    assert "hand" in answers[0][1]


def test_streams_and_long_polls_hold_none_of_the_workers_threads(gunicorn):
    """One worker of four threads (tests/server_support.py): twelve open streams and four
    long-polls, and the API still answers."""
    game_id, a, b = two_player_game(gunicorn)
    streams = [open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a) for _ in range(12)]
    answers: list[int] = []
    polls = [threading.Thread(target=lambda: answers.append(
        call(gunicorn, "GET", f"/api/v1/games/{game_id}?wait_for_version=5&timeout=5", token=b)[0]))
        for _ in range(4)]
    for t in polls:
        t.start()
    try:
        assert all(s.status == 200 for s in streams)
        conn = http.client.HTTPConnection("127.0.0.1", gunicorn.port, timeout=10)
        conn.request("GET", f"/api/v1/games/{game_id}", headers={"Authorization": f"Token {a}"})
        assert conn.getresponse().status == 200
        conn.close()
        assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
        for s in streams:
            assert s.next().data["version"] == 1
        for t in polls:
            t.join(30)
        assert answers == [200] * 4  # (at their timeout: the game is at version 1)
    finally:
        for s in streams:
            s.close()


@pytest.mark.parametrize("path, headers, status, code", [
    ("/api/v1/games/{id}/events", {}, 401, "not_authenticated"),
    ("/api/v1/games/{id}/events?token=nope", {}, 401, "authentication_failed"),
    ("/api/v1/games/{id}/events", {"Authorization": "Bearer x"}, 401, "not_authenticated"),
    ("/api/v1/players/me/events", {}, 401, "not_authenticated"),
    ("/api/v1/games/999999/events", "auth", 404, "not_found"),
    ("/api/v1/games/{id}/events?after=-1", "auth", 400, "invalid"),
    ("/api/v1/games/{id}/events?after=x", "auth", 400, "invalid"),
    ("/api/v1/games/{id}/events", {"Last-Event-ID": "abc"}, 400, "invalid"),
    ("/api/v1/games/{id}?wait_for_version=x", "auth", 400, "invalid"),
    ("/api/v1/games/{id}?wait_for_version=1&timeout=61", "auth", 400, "invalid"),
    ("/api/v1/games/{id}?wait_for_version=1&timeout=-1", "auth", 400, "invalid"),
    ("/api/v1/games/{id}?timeout=5", "auth", 400, "invalid"),
    ("/api/v1/games/{id}?wait_for_version=1", {}, 401, "not_authenticated"),
    ("/api/v1/games/999999?wait_for_version=1", "auth", 404, "not_found"),
])
def test_bad_live_requests_are_problems_and_change_nothing(gunicorn, path, headers, status, code):
    game_id, a, b = two_player_game(gunicorn)
    if headers == "auth":
        headers = {"Authorization": f"Token {a}"}
    elif "Last-Event-ID" in headers:
        headers = {**headers, "Authorization": f"Token {a}"}
    got, body, answer = call(gunicorn, "GET", path.format(id=game_id), headers=headers)
    assert got == status, body
    assert answer["content-type"] == "application/problem+json"
    assert body["code"] == code and body["status"] == status
    if status == 401:
        assert answer["www-authenticate"].startswith("Token")
    _, game, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}", token=a)
    assert game["version"] == 0 and game["status"] == "waiting"


def test_a_player_holds_at_most_twenty_streams_and_gets_a_new_one_once_one_closes(gunicorn):
    """One player's streams (game streams and feeds together) on one web process stop at
    LIVE_MAX_STREAMS_PER_PLAYER (20): one more is a 429 ``too_many_streams`` problem with
    Retry-After; closing one makes room again; other players are not affected."""
    game_id, a, b = two_player_game(gunicorn)
    paths = [f"/api/v1/games/{game_id}/events", "/api/v1/players/me/events"]
    held = [open_stream(gunicorn.port, paths[i % 2], a, query_token=i % 3 == 0) for i in range(20)]
    try:
        assert [s.status for s in held] == [200] * 20
        for path in paths:
            refused = open_stream(gunicorn.port, path, a)
            assert refused.status == 429, refused.body
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.headers["retry-after"] == "10"
            body = json.loads(refused.body)
            assert (body["code"], body["status"], body["limit"], body["retry_after"]) == ("too_many_streams", 429, 20, 10)
        other = open_stream(gunicorn.port, paths[0], b)  # another player: not counted with a's
        assert other.status == 200
        other.close()
        # a closed stream makes room (once the server has seen it close)
        held.pop().close()
        deadline = time.monotonic() + 10
        while (again := open_stream(gunicorn.port, paths[0], a)).status == 429:
            assert time.monotonic() < deadline, "the closed stream was never given back"
            time.sleep(0.1)
        held.append(again)
        assert again.status == 200
        assert open_stream(gunicorn.port, paths[1], a).status == 429  # full again
        # ... and the game did not change
        _, game, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}", token=a)
        assert game["version"] == 0 and game["status"] == "waiting"
    finally:
        for s in held:
            s.close()


def test_streams_whose_clients_leave_at_once_are_given_back(gunicorn):
    """Clients that send a stream's request and hang up before (or as) it starts leave
    no subscription behind: afterwards the player still gets all 20 streams."""
    game_id, a, _ = two_player_game(gunicorn)
    request = (f"GET /api/v1/games/{game_id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Token {a}\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()
    for i in range(60):
        with socket.create_connection(("127.0.0.1", gunicorn.port)) as sock:
            sock.sendall(request)
            if i % 2:
                sock.recv(1)  # (half of them once the answer has begun)
    deadline = time.monotonic() + 10
    held: list = []
    try:
        while len(held) < 20:
            stream = open_stream(gunicorn.port, "/api/v1/players/me/events", a)
            if stream.status == 200:
                held.append(stream)
            else:
                assert time.monotonic() < deadline, f"only {len(held)} streams: the others were never given back"
                time.sleep(0.1)
    finally:
        for s in held:
            s.close()


def test_the_access_log_never_shows_a_token(gunicorn):
    game_id, a, _ = two_player_game(gunicorn)
    stream = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a, query_token=True)
    stream.close()
    deadline = time.monotonic() + 10
    while f"/api/v1/games/{game_id}/events?token=***" not in gunicorn.output() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert f"/api/v1/games/{game_id}/events?token=***" in gunicorn.output()
    assert a not in gunicorn.log()


@requires_redis
def test_a_bots_moves_made_by_the_worker_reach_the_stream(gunicorn, worker, make_player):
    """The bot's moves commit in another process than the stream's (a Celery worker):
    they reach it through the database's notifications."""
    _, a = register(gunicorn)
    status, game, _ = call(gunicorn, "POST", "/api/v1/games",
                           {"ruleset": "standard", "max_players": 2, "bots": [{"level": "easy"}]}, a)
    assert status == 201
    game_id = game["id"]
    stream = open_stream(gunicorn.port, f"/api/v1/games/{game_id}/events", a)
    worker.start()
    try:
        assert call(gunicorn, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
        bot_moves = []
        deadline = time.monotonic() + 120
        while len(bot_moves) < 3 and time.monotonic() < deadline:
            _, view, _ = call(gunicorn, "GET", f"/api/v1/games/{game_id}", token=a)
            if view["status"] == "finished":
                break
            if view["legal_actions"]:
                step(gunicorn, game_id, [a])
            event = stream.next(60)
            if event.data.get("by") == "bot":
                bot_moves.append(event.data)
        assert bot_moves, "no bot move reached the stream"
        seen = {m["seq"]: m for m in moves_seen_by(gunicorn, game_id, a)}
        for m in bot_moves:
            assert {k: v for k, v in m.items() if k not in ("version", "game")} == seen[m["seq"]]
    finally:
        stream.close()


def test_the_schema_documents_the_streams_and_the_long_poll(gunicorn):
    status, schema, _ = call(gunicorn, "GET", "/api/schema/?format=json")
    assert status == 200
    for path, op_id in (("/api/v1/games/{game_id}/events", "games_events"),
                        ("/api/v1/players/me/events", "players_events")):
        op = schema["paths"][path]["get"]
        assert op["operationId"] == op_id and "text/event-stream" in op["responses"]["200"]["content"]
        assert {"401", "503"} <= set(op["responses"])
        assert "token" in {p["name"] for p in op["parameters"]}
    names = {p["name"] for p in schema["paths"]["/api/v1/games/{game_id}"]["get"]["parameters"]}
    assert {"wait_for_version", "timeout"} <= names
    assert {"GameStreamMove", "GameStreamChange", "FeedEvent"} <= set(schema["components"]["schemas"])


def test_an_idle_stream_gets_a_heartbeat_comment(tmp_path):
    from tests.server_support import Gunicorn

    with Gunicorn(tmp_path / "gunicorn.log", LIVE_HEARTBEAT_SECONDS="0.5") as server:
        game_id, a, _ = two_player_game(server)
        streams = [open_stream(server.port, f"/api/v1/games/{game_id}/events", a) for _ in range(3)]
        time.sleep(2.6)
        for s in streams:
            assert s.comments.count("keepalive") >= 3, s.comments  # one a tick (0.5 s), none missed
            assert s.events.empty()  # comments only: no event for a client to handle
            s.close()
