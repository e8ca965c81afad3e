"""Challenges (``meeting``): by name and open by link; accept, decline with a reason,
cancel, expiry by the sweeper; every refusal a clear problem with nothing changed; the
feed's events through a real gunicorn, the webhook through a real worker, and two
accepts of an open challenge's last seat at once."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Game, Seat
from meeting import services
from meeting.models import Challenge, Participant, Preferences
from notices.models import Notice
from players.models import Block

from .celery_helpers import requires_redis, wait_for, worker  # noqa: F401 (fixture)
from .helpers import assert_problem
from .server_support import call, gunicorn, register  # noqa: F401 (fixture)
from .sse_support import open_stream

pytestmark = pytest.mark.django_db


def challenge(c, **body):
    return c.post("/api/v1/challenges", {"ruleset": "standard", **body}, format="json")


def kinds(player):
    return [(n.kind, n.data) for n in Notice.objects.filter(player=player).order_by("id")]


def test_a_challenge_by_name_accepted_starts_the_game(named_clients):
    alice, bob, carol = named_clients("alice"), named_clients("bob"), named_clients("carol")
    r = challenge(alice, to=["bob", "Carol"], bots=[{"level": "easy"}], turn_seconds=600, rated=True,
                  options={"rounds": 1})
    assert r.status_code == 201, r.content
    ch = r.json()
    assert r["Location"].endswith(f"/api/v1/challenges/{ch['id']}")
    assert ch["status"] == "pending" and ch["game"] is None and ch["url"] is None and not ch["open"]
    assert ch["to"] == [{"username": "bob", "answer": "pending"}, {"username": "carol", "answer": "pending"}]
    assert ch["max_players"] == 4 and ch["bots"] == [{"level": "easy"}] and ch["rated"] is True
    assert ch["direction"] == "outgoing"
    ahead = timezone.now() + timedelta(days=1)
    assert abs((Challenge.objects.get().expires_at - ahead).total_seconds()) < 60
    (kind, data), = kinds(bob.player)
    assert kind == "challenge" and data["challenge"] == ch["id"] and data["from"] == "alice"
    assert data["to"] == ["bob", "carol"]
    # incoming and outgoing
    assert [c["id"] for c in bob.get("/api/v1/challenges?direction=incoming").json()["results"]] == [ch["id"]]
    assert bob.get("/api/v1/challenges?direction=outgoing").json()["results"] == []
    assert alice.get("/api/v1/challenges?status=pending").json()["results"][0]["id"] == ch["id"]
    assert alice.get("/api/v1/challenges?status=accepted").json()["results"] == []
    assert bob.get(f"/api/v1/challenges/{ch['id']}").json()["direction"] == "incoming"

    r = bob.post(f"/api/v1/challenges/{ch['id']}/accept")
    assert r.status_code == 200 and r.json()["status"] == "pending" and r.json()["game"] is None
    assert r.json()["to"][0]["answer"] == "accepted"
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/accept"), 409, "already_accepted")
    assert Game.objects.count() == 0
    r = carol.post(f"/api/v1/challenges/{ch['id']}/accept")
    assert r.status_code == 200, r.content
    done = r.json()
    assert done["status"] == "accepted" and done["game"]
    game = Game.objects.get(pk=done["game"])
    assert game.status == "active" and game.rated and game.turn_seconds == 600 and game.max_players == 4
    seats = list(Seat.objects.filter(game=game).order_by("seat"))
    assert [s.player.username if s.player_id else s.bot_level for s in seats] == ["alice", "bob", "carol", "easy"]
    assert game.creator.username == "alice"
    assert ("challenge_accepted", {"challenge": ch["id"], "by": "carol", "game": game.pk, "status": "accepted"}) \
        in kinds(alice.player)
    # the game is over for answers: every party gets a clear refusal
    assert_problem(carol.post(f"/api/v1/challenges/{ch['id']}/decline", {"reason": "later"}, format="json"), 409,
            "already_accepted")
    assert_problem(alice.post(f"/api/v1/challenges/{ch['id']}/cancel"), 409, "challenge_accepted")


def test_decline_with_a_reason_is_shown_to_the_challenger(named_clients):
    alice, bob, carol = named_clients("alice"), named_clients("bob"), named_clients("carol")
    ch = challenge(alice, to=["bob", "carol"]).json()
    assert bob.post(f"/api/v1/challenges/{ch['id']}/accept").status_code == 200
    body = assert_problem(carol.post(f"/api/v1/challenges/{ch['id']}/decline", {"reason": "sideways"}, format="json"),
                   400, "invalid")
    assert "reason" in body["fields"]
    r = carol.post(f"/api/v1/challenges/{ch['id']}/decline", {"reason": "too_fast"}, format="json")
    assert r.status_code == 200, r.content
    seen = alice.get(f"/api/v1/challenges/{ch['id']}").json()
    assert seen["status"] == "declined" and seen["declined"] == {"by": "carol", "reason": "too_fast"}
    assert ("challenge_declined", {"challenge": ch["id"], "by": "carol", "reason": "too_fast"}) in kinds(alice.player)
    assert ("challenge_declined", {"challenge": ch["id"], "by": "carol", "reason": "too_fast"}) in kinds(bob.player)
    # a declined challenge takes nothing more
    before = kinds(alice.player)
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/decline", {}, format="json"), 409, "already_accepted")
    assert_problem(carol.post(f"/api/v1/challenges/{ch['id']}/accept"), 409, "challenge_declined")
    assert_problem(alice.post(f"/api/v1/challenges/{ch['id']}/cancel"), 409, "challenge_declined")
    assert kinds(alice.player) == before and Game.objects.count() == 0
    # a decline without a reason is `generic`
    ch = challenge(alice, to=["bob"]).json()
    assert bob.post(f"/api/v1/challenges/{ch['id']}/decline").json()["declined"]["reason"] == "generic"


def test_cancel_only_by_the_challenger_and_then_closed(named_clients):
    alice, bob, carol = named_clients("alice"), named_clients("bob"), named_clients("carol")
    ch = challenge(alice, to=["bob"]).json()
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/cancel"), 403, "not_challenger")
    assert_problem(carol.post(f"/api/v1/challenges/{ch['id']}/cancel"), 404, "not_found")
    assert_problem(carol.get(f"/api/v1/challenges/{ch['id']}"), 404, "not_found")
    assert_problem(carol.post(f"/api/v1/challenges/{ch['id']}/accept"), 404, "not_found")
    assert_problem(alice.post(f"/api/v1/challenges/{ch['id']}/accept"), 409, "own_challenge")
    assert_problem(alice.post(f"/api/v1/challenges/{ch['id']}/decline"), 409, "own_challenge")
    assert alice.post(f"/api/v1/challenges/{ch['id']}/cancel").json()["status"] == "cancelled"
    assert ("challenge_cancelled", {"challenge": ch["id"], "by": "alice"}) in kinds(bob.player)
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/accept"), 409, "challenge_cancelled")
    assert_problem(alice.post(f"/api/v1/challenges/{ch['id']}/cancel"), 409, "challenge_cancelled")
    assert Participant.objects.get().answer == "pending" and Game.objects.count() == 0


def test_expiry_by_the_sweeper(named_clients, settings):
    alice, bob = named_clients("alice"), named_clients("bob")
    ch = challenge(alice, to=["bob"]).json()
    corr = challenge(alice, to=["bob"], turn_seconds=2 * 24 * 3600).json()
    week = Challenge.objects.get(pk=corr["id"]).expires_at - Challenge.objects.get(pk=corr["id"]).created_at
    assert timedelta(days=6, hours=23) < week <= timedelta(days=7)
    Challenge.objects.filter(pk=ch["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    # past its time, it reads expired and takes no answer, before the sweeper runs
    assert bob.get(f"/api/v1/challenges/{ch['id']}").json()["status"] == "expired"
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/accept"), 409, "challenge_expired")
    assert Participant.objects.get(challenge_id=ch["id"]).answer == "pending"
    assert services.expire_overdue() == 1
    assert services.expire_overdue() == 0  # twice: nothing more
    assert Challenge.objects.get(pk=ch["id"]).status == "expired"
    assert Challenge.objects.get(pk=corr["id"]).status == "pending"
    for c in (alice, bob):
        assert [k for k, d in kinds(c.player) if k == "challenge_expired"] == ["challenge_expired"]
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/decline"), 409, "challenge_expired")
    assert [c["id"] for c in alice.get("/api/v1/challenges?status=expired").json()["results"]] == [ch["id"]]


@pytest.mark.parametrize("rated", [0, 1, "true", "yes", None])
def test_rated_is_a_json_boolean(named_clients, rated):
    """As the schema says (boolean): DRF's BooleanField took 0, 1, "yes"... (schemathesis ST201)."""
    alice = named_clients("alice")
    body = assert_problem(challenge(alice, rated=rated), 400, "invalid")
    assert "rated" in body["fields"]
    assert not Challenge.objects.exists()


def test_refusals_change_nothing(named_clients, make_player, settings):
    alice, bob, carol = named_clients("alice"), named_clients("bob"), named_clients("carol")
    make_player("robby", is_bot=True)

    def refused(status, code, **body):
        before = (Challenge.objects.count(), Notice.objects.count())
        out = assert_problem(challenge(alice, **body), status, code)
        assert (Challenge.objects.count(), Notice.objects.count()) == before
        return out

    refused(400, "cannot_challenge_self", to=["alice"])
    assert refused(400, "unknown_player", to=["bob", "nobody-here"])["fields"] == {"to": ["unknown: nobody-here"]}
    refused(400, "cannot_challenge_bot", to=["robby"])
    refused(400, "invalid", to=["bob", "BOB"])
    refused(400, "invalid", to=["bob"], max_players=3)
    refused(400, "invalid", max_players=2, bots=[{"level": "easy"}])  # an open one with no free seat
    refused(400, "invalid_options", to=["bob"], options={"no_such_option": 1})
    refused(400, "invalid_options", ruleset="duo", to=["bob", "carol"])  # duo: two players
    refused(400, "invalid_options", to=["bob"], options={"teams": True}, bots=[{"level": "easy"}])  # teams: even
    # a player who takes no challenges; one who blocked the challenger (the same words)
    Preferences.objects.create(player=carol.player, challenges="nobody")
    assert refused(403, "not_accepting_challenges", to=["carol"])["username"] == "carol"
    Block.objects.create(blocker=bob.player, blocked=alice.player)
    body = refused(403, "not_accepting_challenges", to=["bob"])
    assert "block" not in body["detail"]
    # the cap on pending challenges
    settings.UNO_MAX_PENDING_CHALLENGES = 2
    assert challenge(alice).status_code == 201 and challenge(alice).status_code == 201
    assert refused(409, "too_many_challenges")["limit"] == 2


def test_preferences(named_clients):
    alice, bob = named_clients("alice"), named_clients("bob")
    assert bob.get("/api/v1/players/me/preferences").json() == {"challenges": "everyone"}
    assert_problem(bob.patch("/api/v1/players/me/preferences", {"challenges": "some"}, format="json"), 400, "invalid")
    assert bob.patch("/api/v1/players/me/preferences", {"challenges": "nobody"}, format="json").json() == \
        {"challenges": "nobody"}
    assert_problem(challenge(alice, to=["bob"]), 403, "not_accepting_challenges")
    bob.patch("/api/v1/players/me/preferences", {"challenges": "everyone"}, format="json")
    assert challenge(alice, to=["bob"]).status_code == 201


def test_an_open_challenge_by_its_link(named_clients, make_player):
    alice, bob, carol, dave = named_clients("alice"), named_clients("bob"), named_clients("carol"), named_clients("dave")
    r = challenge(alice, max_players=4, bots=[{"level": "normal"}])
    ch = r.json()
    assert ch["open"] and ch["status"] == "pending" and ch["to"] == [] and ch["max_players"] == 4
    url = ch["url"]
    assert url.startswith("http://testserver/api/v1/challenges/open/")
    token = url.rsplit("/", 1)[1]
    assert len(token) >= 32 and token not in str(kinds(alice.player))
    path = url.removeprefix("http://testserver")
    assert bob.get(path).json()["id"] == ch["id"]
    assert_problem(bob.get(path + "x"), 404, "not_found")
    assert_problem(bob.post(path + "x/accept"), 404, "not_found")
    assert_problem(alice.post(path + "/accept"), 409, "own_challenge")
    _, robot_token = make_player("robby", is_bot=True)
    robot = APIClient()
    robot.credentials(HTTP_AUTHORIZATION=f"Token {robot_token}")
    assert_problem(robot.post(path + "/accept"), 403, "cannot_challenge_bot")
    Block.objects.create(blocker=alice.player, blocked=dave.player)
    assert_problem(dave.post(path + "/accept"), 403, "not_accepting_challenges")
    r = bob.post(path + "/accept")
    assert r.status_code == 200 and r.json()["joined"] == ["bob"] and r.json()["game"] is None
    assert_problem(bob.post(path + "/accept"), 409, "already_accepted")
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/accept"), 409, "already_accepted")
    assert_problem(bob.post(f"/api/v1/challenges/{ch['id']}/decline"), 409, "already_accepted")
    assert bob.get("/api/v1/challenges?direction=incoming").json()["results"][0]["id"] == ch["id"]
    r = carol.post(path + "/accept")
    assert r.status_code == 200 and r.json()["status"] == "accepted"
    game = Game.objects.get(pk=r.json()["game"])
    seats = list(Seat.objects.filter(game=game).order_by("seat"))
    assert [s.player.username if s.player_id else s.bot_level for s in seats] == ["alice", "bob", "carol", "normal"]
    assert_problem(dave.post(path + "/accept"), 409, "challenge_full")
    assert Game.objects.count() == 1


def test_idempotency_key_on_create_and_accept(named_clients):
    alice, bob = named_clients("alice"), named_clients("bob")
    headers = {"HTTP_IDEMPOTENCY_KEY": "k-1"}
    first = alice.post("/api/v1/challenges", {"ruleset": "standard", "to": ["bob"]}, format="json", **headers)
    again = alice.post("/api/v1/challenges", {"ruleset": "standard", "to": ["bob"]}, format="json", **headers)
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert Challenge.objects.count() == 1 and Notice.objects.filter(kind="challenge").count() == 1
    assert_problem(alice.post("/api/v1/challenges", {"ruleset": "house", "to": ["bob"]}, format="json", **headers),
            422, "idempotency_key_reused")
    ch = first.json()["id"]
    a = bob.post(f"/api/v1/challenges/{ch}/accept", **headers)
    b = bob.post(f"/api/v1/challenges/{ch}/accept", **headers)
    assert a.status_code == b.status_code == 200 and a.json() == b.json() and a.json()["game"]
    assert Game.objects.count() == 1


def test_a_share_limit_refuses_the_accept_and_changes_nothing(named_clients, settings):
    alice, bob = named_clients("alice"), named_clients("bob")
    settings.UNO_MAX_GAMES = 1
    ch1 = challenge(alice, to=["bob"]).json()
    ch2 = challenge(alice, to=["bob"]).json()
    assert bob.post(f"/api/v1/challenges/{ch1['id']}/accept").json()["game"]
    assert_problem(bob.post(f"/api/v1/challenges/{ch2['id']}/accept"), 409, "too_many_games")
    assert Participant.objects.get(challenge_id=ch2["id"]).answer == "pending"
    assert Game.objects.count() == 1 and Challenge.objects.get(pk=ch2["id"]).status == "pending"


# --- through the real server -----------------------------------------------------------
def until_all(stream, wanted: set[str]) -> dict:
    """Read ``stream`` until an event of each kind in ``wanted`` came (in any order: the
    hub sends a game's change and the notices of one commit in either order); the last of
    each kind."""
    got: dict = {}

    def done(e):
        got[e.event] = e.data
        return wanted <= set(got)

    stream.until(done)
    return got


@pytest.mark.django_db(transaction=True)
@pytest.mark.concurrency
def test_the_feed_tells_every_step_and_game_started(gunicorn):
    (alice, a), (bob, b) = register(gunicorn), register(gunicorn)
    feeds = {t: open_stream(gunicorn.port, "/api/v1/players/me/events", t) for t in (a, b)}
    try:
        call(gunicorn, "GET", "/api/v1/players/me", token=a)  # (the hub's first look)
        status, ch, _ = call(gunicorn, "POST", "/api/v1/challenges", {"ruleset": "standard", "to": [bob]}, a)
        assert status == 201, ch
        got = feeds[b].until(lambda e: e.event == "challenge")[-1].data
        assert got["challenge"] == ch["id"] and got["from"] == alice and isinstance(got["notice"], int)
        status, done, _ = call(gunicorn, "POST", f"/api/v1/challenges/{ch['id']}/accept", None, b)
        assert status == 200 and done["game"]
        seen = {a: until_all(feeds[a], {"game_started", "challenge_accepted"}), b: until_all(feeds[b], {"game_started"})}
        accepted = seen[a]["challenge_accepted"]
        assert accepted["by"] == bob and accepted["game"] == done["game"]
        for t in (a, b):
            assert seen[t]["game_started"]["game"] == done["game"]
        status, ch2, _ = call(gunicorn, "POST", "/api/v1/challenges", {"ruleset": "standard", "to": [bob]}, a)
        call(gunicorn, "POST", f"/api/v1/challenges/{ch2['id']}/decline", {"reason": "later"}, b)
        declined = feeds[a].until(lambda e: e.event == "challenge_declined")[-1].data
        assert declined == {"challenge": ch2["id"], "by": bob, "reason": "later", "notice": declined["notice"]}
        status, ch3, _ = call(gunicorn, "POST", "/api/v1/challenges", {"ruleset": "standard", "to": [bob]}, a)
        call(gunicorn, "POST", f"/api/v1/challenges/{ch3['id']}/cancel", None, a)
        cancelled = feeds[b].until(lambda e: e.event == "challenge_cancelled")[-1].data
        assert cancelled["challenge"] == ch3["id"] and cancelled["by"] == alice
    finally:
        for f in feeds.values():
            f.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.concurrency
def test_two_accepts_of_the_last_open_seat_make_one_game(gunicorn):
    _, a = register(gunicorn)
    takers = [register(gunicorn) for _ in range(7)]  # the first, then two racing for each last seat
    for _round in range(3):
        status, ch, _ = call(gunicorn, "POST", "/api/v1/challenges", {"ruleset": "standard", "max_players": 3}, a)
        assert status == 201, ch
        path = "/api/v1/challenges/open/" + ch["url"].rsplit("/", 1)[1] + "/accept"
        assert call(gunicorn, "POST", path, None, takers[0][1])[0] == 200
        answers = []
        barrier = threading.Barrier(2, timeout=30)

        def take(token):
            barrier.wait()
            answers.append(call(gunicorn, "POST", path, None, token))

        threads = [threading.Thread(target=take, args=(t,)) for _, t in takers[1 + 2 * _round:3 + 2 * _round]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(s for s, _, _ in answers)
        assert statuses == [200, 409], answers
        loser = next(body for s, body, _ in answers if s == 409)
        assert loser["code"] in ("challenge_full", "challenge_accepted")
        games = Game.objects.filter(pk__in=[b["game"] for s, b, _ in answers if s == 200])
        assert games.count() == 1
        assert Seat.objects.filter(game=games.get()).count() == 3
        assert Participant.objects.filter(challenge_id=ch["id"]).count() == 2
    assert Game.objects.count() == 3


# --- the webhook ---------------------------------------------------------------------------
@requires_redis
@pytest.mark.django_db(transaction=True)
def test_the_challenged_get_it_on_their_webhook(worker, named_clients, settings):
    from .test_webhooks import HookServer, assert_signed

    settings.UNO_WEBHOOK_ALLOW_PRIVATE = True
    hooks = HookServer()
    try:
        worker.start()
        alice, bob = named_clients("alice"), named_clients("bob")
        secret = bob.put("/api/v1/players/me/webhook", {"url": hooks.url + "/bob"}, format="json").json()["secret"]
        ch = challenge(alice, to=["bob"]).json()
        wait_for(lambda: hooks.received("/bob", "challenge"), timeout=10, message="the challenge's webhook")
        (got,) = hooks.received("/bob", "challenge")
        assert_signed(got, secret)
        assert got["json"]["challenge"] == ch["id"] and got["json"]["from"] == "alice"
        assert got["json"]["notice"] == Notice.objects.get(kind="challenge").pk
        alice.post(f"/api/v1/challenges/{ch['id']}/cancel")
        wait_for(lambda: hooks.received("/bob", "challenge_cancelled"), timeout=10, message="the cancel's webhook")
        assert len({r["headers"]["X-Uno-Delivery"] for r in hooks.requests}) == len(hooks.requests)
    finally:
        hooks.close()
