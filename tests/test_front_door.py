"""The front door as a hostile client meets it, through the real server (gunicorn +
uvicorn, as `make run` starts it): slow and many connections, every spelling of a
path or parameter, methods a route does not serve, bodies cut short, and credentials
that end while a stream or long-poll they opened is still open."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from games.models import Game, Move
from players.models import Player
from tests.server_support import Gunicorn, call, register, served, step, two_player_game
from tests.sse_support import open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.concurrency]


@pytest.fixture(scope="module")
def roomy(django_db_setup, tmp_path_factory) -> Iterator[Gunicorn]:
    """One worker, 4 threads; long timeouts and no per-IP cap, so that slow clients
    stay connected for as long as the test keeps them."""
    yield from served(tmp_path_factory, "roomy", WEB_HEADER_TIMEOUT=60, WEB_BODY_TIMEOUT=60,
                       WEB_MAX_CONNECTIONS_PER_IP=0)


@pytest.fixture(scope="module")
def strict(django_db_setup, tmp_path_factory) -> Iterator[Gunicorn]:
    """Short timeouts and a small per-IP cap."""
    yield from served(tmp_path_factory, "strict", WEB_HEADER_TIMEOUT=1, WEB_BODY_TIMEOUT=1,
                       WEB_MAX_CONNECTIONS_PER_IP=5)


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    return sock


def read_answer(sock: socket.socket) -> tuple[int, dict, bytes]:
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = response.read()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


class Trickler:
    """Connections that send their request a little at a time and never finish it:
    ``headers`` of them stop inside the headers, ``bodies`` inside a declared body."""

    def __init__(self, port: int, headers: int, bodies: int) -> None:
        self.socks: list[socket.socket] = []
        self.stop = threading.Event()
        for i in range(headers + bodies):
            sock = connect(port)
            if i < headers:
                sock.sendall(b"GET /api/v1/players/me HTTP/1.1\r\nHost: t\r\n")
            else:
                sock.sendall(b"POST /api/v1/auth/register HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100000\r\n\r\n{")
            self.socks.append(sock)
        self.thread = threading.Thread(target=self._trickle, args=(headers,), daemon=True)
        self.thread.start()

    def _trickle(self, headers: int) -> None:
        while not self.stop.wait(0.5):
            for i, sock in enumerate(self.socks):
                try:
                    sock.sendall(b"X-Slow: 1\r\n" if i < headers else b" ")
                except OSError:
                    pass

    def open(self) -> int:
        """How many are still connected (the server closed none of them)."""
        alive = 0
        for sock in self.socks:
            sock.setblocking(False)
            try:
                alive += sock.recv(1) != b""
            except BlockingIOError:
                alive += 1
            except OSError:
                pass
            sock.setblocking(True)
        return alive

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for sock in self.socks:
            sock.close()


def test_slow_clients_hold_no_thread_while_others_play(roomy):
    """200 connections trickling their headers and 50 trickling a body, all open, while 16
    clients (each from an address of its own) play: every request of theirs is answered.
    gunicorn's threaded workers gave each half-sent request one of their 4 threads."""
    games = [two_player_game(roomy) for _ in range(8)]
    slow = Trickler(roomy.port, headers=200, bodies=50)
    try:
        time.sleep(1.5)  # every slow request has begun and trickled

        def play(i: int) -> list[float]:
            game_id, a, b = games[i // 2]
            took = []
            for _ in range(6):
                began = time.monotonic()
                conn = http.client.HTTPConnection("127.0.0.1", roomy.port, timeout=10,
                                                  source_address=(f"127.0.0.{i + 2}", 0))
                conn.request("GET", "/api/v1/players/me", headers={"Authorization": f"Token {a if i % 2 else b}"})
                assert conn.getresponse().status == 200
                conn.close()
                step(roomy, game_id, [a, b])
                took.append(time.monotonic() - began)
            return took

        with ThreadPoolExecutor(16) as pool:
            took = [t for times in pool.map(play, range(16)) for t in times]
        assert len(took) == 96
        assert slow.open() == 250  # the slow ones were all still there, holding nothing
    finally:
        slow.close()


def test_a_request_whose_headers_trickle_past_the_timeout_gets_408(strict):
    sock = connect(strict.port)
    began = time.monotonic()
    sock.sendall(b"GET /api/v1/players/me HTTP/1.1\r\nHost: t\r\n")
    try:
        for _ in range(6):
            time.sleep(0.4)
            sock.sendall(b"X-Slow: 1\r\n")
    except OSError:
        pass
    status, headers, body = read_answer(sock)
    assert status == 408 and headers["connection"] == "close"
    assert json.loads(body)["code"] == "request_timeout"
    assert time.monotonic() - began < 5


def test_a_body_that_trickles_past_the_timeout_gets_408_and_nothing_is_done(strict):
    sock = connect(strict.port)
    payload = json.dumps({"username": "slowpoke", "password": "a-long-password-1"}).encode()
    sock.sendall(b"POST /api/v1/auth/register HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(payload) + payload[:5])
    status, headers, body = read_answer(sock)
    assert status == 408 and headers["connection"] == "close"
    assert json.loads(body)["code"] == "request_timeout"
    assert not Player.objects.filter(username="slowpoke").exists()


def test_connections_past_the_per_ip_cap_get_429(strict):
    held = [connect(strict.port) for _ in range(5)]
    try:
        time.sleep(0.2)
        extra = connect(strict.port)
        status, headers, body = read_answer(extra)
        assert status == 429 and headers["retry-after"]
        assert json.loads(body)["code"] == "too_many_connections"
        # another address is not affected
        conn = http.client.HTTPConnection("127.0.0.1", strict.port, timeout=10, source_address=("127.0.0.2", 0))
        conn.request("GET", "/api/v1/health")
        assert conn.getresponse().status in (200, 503)
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)
    conn = http.client.HTTPConnection("127.0.0.1", strict.port, timeout=10)
    conn.request("GET", "/api/v1/unknown")
    assert conn.getresponse().status == 404  # the address's connections closed: it may connect again


@pytest.mark.parametrize("query", ["wait_for_version={v}", "wait_%66or_version={v}", "%77ait_for_version={v}",
                                   "wait_for_version=%3{v}"])
def test_every_spelling_of_a_long_poll_waits_on_the_loop(roomy, query):
    """20 long-polls spelled each way wait (on a server of 4 threads) while a plain
    request is answered at once; each long-poll answers when its timeout ends."""
    game_id, a, b = two_player_game(roomy)
    version = call(roomy, "GET", f"/api/v1/games/{game_id}", token=a)[1]["version"]
    # (in "=%3{v}" the encoded digit is the version's first: the tests' games start at version 1-9)
    path = f"/api/v1/games/{game_id}?" + query.format(v=version if "%3" not in query else str(version)[-1]) \
        + "&timeout=3"

    def poll(_) -> tuple[int, float]:
        began = time.monotonic()
        status, body, _ = call(roomy, "GET", path, token=a)
        return status, time.monotonic() - began

    with ThreadPoolExecutor(20) as pool:
        polls = [pool.submit(poll, i) for i in range(20)]
        time.sleep(1)
        began = time.monotonic()
        assert call(roomy, "GET", "/api/v1/players/me", token=b)[0] == 200
        assert time.monotonic() - began < 2  # not behind 20 waiting long-polls
        results = [p.result() for p in polls]
    assert all(status == 200 and seconds >= 2.5 for status, seconds in results), results


@pytest.mark.parametrize("method, authorization", [("HEAD", "Token {}"), ("GET", "Token\t{}"),
                                                   ("HEAD", "token \t {}")])
def test_every_form_of_a_long_poll_django_serves_waits_on_the_loop(roomy, method, authorization):
    """A long-poll as Django reads it, whatever the form: HEAD (served by the view's GET)
    and an Authorization header that DRF splits on any white space.  Such long-polls
    once waited in a thread: HEAD on the 4 threads that run the API (the plain request
    waited behind them), a tab in the header on asgiref's one shared thread (each
    long-poll waited after the one before, and a stream opened meanwhile with them)."""
    game_id, a, b = two_player_game(roomy)
    version = call(roomy, "GET", f"/api/v1/games/{game_id}", token=a)[1]["version"]
    path = f"/api/v1/games/{game_id}?wait_for_version={version}&timeout=3"

    def poll(_) -> tuple[int, float]:
        began = time.monotonic()
        status = call(roomy, method, path, headers={"Authorization": authorization.format(a)})[0]
        return status, time.monotonic() - began

    with ThreadPoolExecutor(12) as pool:
        polls = [pool.submit(poll, i) for i in range(12)]
        time.sleep(1)
        began = time.monotonic()
        assert call(roomy, "GET", "/api/v1/players/me", token=b)[0] == 200
        stream = open_stream(roomy.port, f"/api/v1/games/{game_id}/events", b)
        try:
            assert stream.status == 200, stream.body
        finally:
            stream.close()
        assert time.monotonic() - began < 2  # neither behind the long-polls
        results = [p.result() for p in polls]
    # each waited its own 3 s, side by side (one after another, the second would end after 6 s)
    assert all(status == 200 and 2.5 <= seconds < 6 for status, seconds in results), results


@pytest.mark.parametrize("spelling", ["/api/v1/games/{id}/events", "/api/v1/games/%3{last}/events",
                                      "/api/v1/games/{id}/event%73", "/api/v1/players/me/events",
                                      "/api/v1/players/me/event%73", "/api/v1/players/%6De/events"])
def test_every_spelling_of_a_stream_is_the_stream(roomy, spelling):
    game_id, a, _ = two_player_game(roomy)
    path = spelling.format(id=game_id, last=f"{str(game_id)[0]}{str(game_id)[1:]}")
    if "%3{last}" in spelling:
        path = f"/api/v1/games/%3{str(game_id)[0]}{str(game_id)[1:]}/events"
    stream = open_stream(roomy.port, path, a)
    try:
        assert stream.status == 200, stream.body
        assert stream.headers["content-type"].startswith("text/event-stream")
    finally:
        stream.close()


@pytest.mark.parametrize("authorization", ["Token\t{}", "token  {}", "TOKEN {} "])
def test_a_stream_reads_the_authorization_header_as_the_api_does(roomy, authorization):
    _, token = register(roomy)
    assert call(roomy, "GET", "/api/v1/players/me", headers={"Authorization": authorization.format(token)})[0] == 200
    stream = open_stream(roomy.port, "/api/v1/players/me/events", headers={"Authorization": authorization.format(token)})
    try:
        assert stream.status == 200, stream.body
    finally:
        stream.close()


def test_the_token_is_redacted_in_the_log_however_it_is_spelled(roomy):
    _, token = register(roomy)
    for path in (f"/api/v1/players/me/events?token={token}", f"/api/v1/players/me/events?%74oken={token}",
                 f"/api/v1/players/me/events?t%6Fken={token}&x=1"):
        stream = open_stream(roomy.port, path)
        assert stream.status == 200, stream.body
        stream.close()
    status, _, _ = call(roomy, "GET", f"/api/v1/games?%74oken={token}")
    assert status == 401  # a token in the query authenticates the streams only
    time.sleep(0.5)  # the access-log lines are written as the connections end
    log = roomy.log()
    assert "token=***" in log
    assert token not in log


@pytest.mark.parametrize("method", ["TRACE", "POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/v1/players/me/events", "/api/v1/games/{id}/events"])
def test_a_stream_answers_405_to_other_methods(roomy, method, path):
    game_id, a, _ = two_player_game(roomy)
    status, body, headers = call(roomy, method, path.format(id=game_id), token=a)
    assert status == 405, body
    assert body["code"] == "method_not_allowed" and headers["allow"] == "GET"


@pytest.mark.parametrize("cut", ["half-closed", "closed"])
def test_a_body_cut_short_does_nothing(roomy, cut):
    """A POST whose body ends before its Content-Length is not carried out."""
    game_id, a, b = two_player_game(roomy)
    assert call(roomy, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
    game = call(roomy, "GET", f"/api/v1/games/{game_id}", token=a)[1]
    token = a if game["legal_actions"] else b
    game = call(roomy, "GET", f"/api/v1/games/{game_id}", token=token)[1]
    action = json.dumps({**game["legal_actions"][0], "expected_version": game["version"]}).encode()
    moves = Move.objects.filter(game_id=game_id).count()

    sock = connect(roomy.port)
    sock.sendall(f"POST /api/v1/games/{game_id}/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Token {token}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(action) + 40}\r\n\r\n".encode() + action)
    if cut == "half-closed":
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(5)
        try:
            sock.recv(1000)
        except OSError:
            pass
    sock.close()
    time.sleep(1)
    assert Game.objects.get(pk=game_id).version == game["version"]
    assert Move.objects.filter(game_id=game_id).count() == moves
    # and the whole body, sent again, is carried out
    status, body, _ = call(roomy, "POST", f"/api/v1/games/{game_id}/actions", json.loads(action), token)
    assert status == 200, body


# --- Credentials end what they opened ---------------------------------------------------------


def _game_stream_and_feed(server, token: str, game_id: int):
    stream = open_stream(server.port, f"/api/v1/games/{game_id}/events?after=0", token)
    feed = open_stream(server.port, "/api/v1/players/me/events", token, query_token=True)
    assert stream.status == 200 and feed.status == 200
    stream.next()  # the moves so far: the stream runs
    return stream, feed


def _long_poll(server, game_id: int, token: str) -> dict:
    """A long-poll (30 s) in a thread: its status and how long it took, once it answers."""
    out: dict = {}

    def run() -> None:
        version = call(server, "GET", f"/api/v1/games/{game_id}", token=token)[1]["version"]
        began = time.monotonic()
        out["status"] = call(server, "GET", f"/api/v1/games/{game_id}?wait_for_version={version}&timeout=30",
                             token=token)[0]
        out["ended"] = time.monotonic()
        out["began"] = began

    threading.Thread(target=run, daemon=True).start()
    return out


@pytest.fixture(scope="module")
def second(django_db_setup, tmp_path_factory) -> Iterator[Gunicorn]:
    """Another web process, on its own port: what one revokes, the other must end."""
    yield from served(tmp_path_factory, "second")


@pytest.mark.parametrize("how", ["revoke", "password", "deactivate", "expire"])
def test_streams_and_long_polls_end_when_their_credentials_do(roomy, second, how):
    """A stream, a feed and a long-poll opened on one web process end within 2 s when the
    token they were opened with ends through another, and the stream delivers nothing
    that happened after: a move made right after the revocation is not sent."""
    game_id, a, b = two_player_game(roomy)
    assert call(roomy, "POST", f"/api/v1/games/{game_id}/start", None, a)[0] == 200
    # a second token of a's, to act with once the first is gone (and to revoke it by)
    status, issued, _ = call(roomy, "POST", "/api/v1/auth/tokens", {"name": "other"}, a)
    assert status == 201, issued
    other = issued["token"]
    status, tokens, _ = call(roomy, "GET", "/api/v1/auth/tokens", token=other)
    first_id = next(t["id"] for t in tokens if t["name"] != "other")

    while not call(roomy, "GET", f"/api/v1/games/{game_id}", token=b)[1]["legal_actions"]:
        step(roomy, game_id, [other])  # until b may move: b moves right after the credentials end
    stream, feed = _game_stream_and_feed(second, a, game_id)
    poll = _long_poll(second, game_id, a)
    time.sleep(0.5)
    before = Game.objects.get(pk=game_id).version

    ended = time.monotonic()
    if how == "revoke":
        assert call(roomy, "DELETE", f"/api/v1/auth/tokens/{first_id}", None, other)[0] == 204
    elif how == "password":
        status, body, _ = call(roomy, "POST", "/api/v1/auth/password",
                               {"old_password": "a-long-password-1", "new_password": "another-password-2"}, other)
        assert status == 200, body
    elif how == "deactivate":
        name = call(roomy, "GET", "/api/v1/players/me", token=a)[1]["username"]
        Player.objects.filter(username=name).update(is_active=False)
    else:
        from players.models import ApiToken
        from django.utils import timezone

        ApiToken.objects.filter(pk=first_id).update(expiry=timezone.now())
    step(roomy, game_id, [b])  # b moves at once: the stream must not carry it to a
    try:
        assert stream.closed.wait(3) and feed.closed.wait(3)
        assert time.monotonic() - ended < 2.5
        seen = []
        while not stream.events.empty():
            seen.append(stream.events.get())
        assert not [e for e in seen if e.data["version"] > before], seen
        deadline = time.monotonic() + 3
        while "status" not in poll and time.monotonic() < deadline:
            time.sleep(0.05)
        assert poll.get("status") == 401, poll
        assert poll["ended"] - ended < 2.5
    finally:
        stream.close()
        feed.close()
