"""Quick play (``matchmaking``): every state of a request (waiting, matched, cancelled,
expired), the refusals (each a problem document, nothing changed), bots after a wait
(the sweeper and the countdown's fast path through a real worker), the Idempotency-Key,
and the feed's ``quickplay_matched`` through a real gunicorn."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Game, GameStatus, Seat
from matchmaking import services
from matchmaking.models import QuickPlayRequest
from notices.models import Notice
from players.models import Block
from tests.celery_helpers import wait_for
from tests.server_support import call, gunicorn, register  # noqa: F401 (fixture)
from tests.sse_support import open_stream

URL = "/api/v1/quickplay"
TWO = {"rulesets": ["standard"], "seats": [2]}


def ask(client, body, status=202, **headers):
    r = client.post(URL, body, format="json", **headers)
    assert r.status_code == status, r.content
    return r.json()


def read(client, rid):
    r = client.get(f"{URL}/{rid}")
    assert r.status_code == 200, r.content
    return r.json()


def assert_problem(r, status, code):
    assert r.status_code == status, r.content
    assert r["Content-Type"] == "application/problem+json"
    body = r.json()
    assert body["code"] == code and body["status"] == status
    return body


def seated(game_id):
    rows = Seat.objects.filter(game_id=game_id).order_by("seat").values_list("player_id", "bot_level")
    return [(p, level or None) for p, level in rows]


def feed_notices(player, kind="quickplay_matched"):
    return list(Notice.objects.filter(player=player, kind=kind).values_list("data", flat=True))


@pytest.mark.django_db
def test_two_compatible_requests_are_seated_together_and_told(clients):
    a, b = clients(2)
    first = ask(a, {**TWO, "rulesets": ["house", "standard"], "seats": [3, 2]})
    assert first["status"] == "waiting" and first["game"] is None and first["table"] is None
    assert first["speed"] == ["realtime"] and first["rated"] is False and first["bots"] is None
    assert read(a, first["id"])["status"] == "waiting"
    second = ask(b, TWO)
    assert second["status"] == "matched"
    game = Game.objects.get(pk=second["game"])
    assert (game.status, game.ruleset, game.max_players, game.turn_seconds, game.rated) == (
        GameStatus.ACTIVE, "standard", 2, 30, False)
    assert sorted(p for p, _ in seated(game.pk)) == sorted([a.player.pk, b.player.pk])
    again = read(a, first["id"])
    assert again["status"] == "matched" and again["game"] == game.pk and again["ended_at"]
    assert again["table"] == {"ruleset": "standard", "seats": 2, "speed": "realtime", "turn_seconds": 30, "bots": 0}
    assert feed_notices(a.player) == [{"quickplay": first["id"], "game": game.pk}]
    assert feed_notices(b.player) == [{"quickplay": second["id"], "game": game.pk}]


@pytest.mark.django_db
def test_a_table_forms_once_enough_wait_in_the_first_preference_that_fills(clients):
    a, b, c = clients(3)
    ra = ask(a, {"rulesets": ["house"], "seats": [3], "speed": "correspondence"})
    rb = ask(b, {"rulesets": ["house", "standard"], "seats": [3, 2], "speed": ["realtime", "correspondence"]})
    assert rb["status"] == "waiting"  # house 3: two of three; standard 2: nobody
    rc = ask(c, {"rulesets": ["house"], "seats": [3], "speed": ["correspondence"]})
    assert rc["status"] == "matched"
    game = Game.objects.get(pk=rc["game"])
    assert (game.ruleset, game.max_players, game.turn_seconds) == ("house", 3, 86400)
    assert {read(a, ra["id"])["game"], read(b, rb["id"])["game"]} == {game.pk}
    assert read(b, rb["id"])["table"]["speed"] == "correspondence"


@pytest.mark.django_db
def test_incompatible_requests_keep_waiting(clients):
    a, b, c, d, e = clients(5)
    ask(a, {"rulesets": ["standard"], "seats": [2]})
    waiting = [ask(b, {"rulesets": ["house"], "seats": [2]}),                      # another preset
               ask(c, {"rulesets": ["standard"], "seats": [3]}),                   # another seat count
               ask(d, {"rulesets": ["standard"], "seats": [2], "rated": True}),    # rated
               ask(e, {"rulesets": ["standard"], "seats": [2], "speed": "correspondence"})]
    assert [w["status"] for w in waiting] == ["waiting"] * 4
    assert not Game.objects.exists()
    assert QuickPlayRequest.objects.filter(status="waiting").count() == 5


@pytest.mark.django_db
def test_players_who_blocked_each_other_are_not_seated_together(clients):
    a, b, c = clients(3)
    Block.objects.create(blocker=a.player, blocked=b.player)
    ra = ask(a, TWO)
    assert ask(b, TWO)["status"] == "waiting"
    rc = ask(c, TWO)
    assert rc["status"] == "matched" and read(a, ra["id"])["game"] == rc["game"]


@pytest.mark.django_db
def test_cancel_then_never_matched_and_a_new_request_is_allowed(clients):
    a, b = clients(2)
    ra = ask(a, TWO)
    r = a.delete(f"{URL}/{ra['id']}")
    assert r.status_code == 200 and r.json()["status"] == "cancelled" and r.json()["ended_at"]
    r2 = a.delete(f"{URL}/{ra['id']}")  # again: unchanged
    assert r2.status_code == 200 and r2.json() == r.json()
    assert ask(b, TWO)["status"] == "waiting"  # the cancelled one is not a partner
    again = ask(a, TWO)
    assert again["status"] == "matched" and again["id"] != ra["id"]
    assert read(a, ra["id"])["status"] == "cancelled"


@pytest.mark.django_db
def test_refusals_of_cancel_and_read(clients):
    a, b, c = clients(3)
    ra = ask(a, TWO)
    rb = ask(b, TWO)
    before = list(QuickPlayRequest.objects.order_by("pk").values())
    body = assert_problem(a.delete(f"{URL}/{ra['id']}"), 409, "already_matched")
    assert body["game"] == rb["game"]
    ask(c, {"rulesets": ["duo"], "seats": [2]})
    rc = QuickPlayRequest.objects.get(player=c.player)
    assert_problem(a.delete(f"{URL}/{rc.pk}"), 404, "not_found")  # someone else's
    assert_problem(a.get(f"{URL}/{rc.pk}"), 404, "not_found")
    assert_problem(a.get(f"{URL}/999999"), 404, "not_found")
    assert list(QuickPlayRequest.objects.filter(pk__in=[ra["id"], rb["id"]]).order_by("pk").values()) == before
    assert QuickPlayRequest.objects.get(pk=rc.pk).status == "waiting"
    from rest_framework.test import APIClient

    assert_problem(APIClient().post(URL, TWO, format="json"), 401, "not_authenticated")
    assert_problem(APIClient().get(f"{URL}/{rc.pk}"), 401, "not_authenticated")


@pytest.mark.django_db
def test_one_waiting_request_per_player(clients):
    (a,) = clients(1)
    first = ask(a, TWO)
    r = a.post(URL, {"rulesets": ["house"], "seats": [4]}, format="json")
    assert assert_problem(r, 409, "already_waiting")["quickplay"] == first["id"]
    assert QuickPlayRequest.objects.count() == 1


@pytest.mark.parametrize("body, field", [
    ({"rulesets": ["nope"], "seats": [2]}, "rulesets"),
    ({"rulesets": [], "seats": [2]}, "rulesets"),
    ({"rulesets": ["standard"], "seats": []}, "seats"),
    ({"seats": [2]}, "rulesets"),
    ({"rulesets": ["standard"]}, "seats"),
    ({"rulesets": ["duo"], "seats": [3]}, "seats"),
    ({"rulesets": ["decktet_uno"], "seats": [2, 5]}, "seats"),
    ({"rulesets": ["standard"], "seats": [11]}, "seats"),
    ({"rulesets": ["standard"], "seats": ["2"]}, "seats"),
    ({"rulesets": "standard", "seats": [2]}, "rulesets"),
    ({"rulesets": ["standard"], "seats": [2], "speed": "fast"}, "speed"),
    ({"rulesets": ["standard"], "seats": [2], "speed": []}, "speed"),
    ({"rulesets": ["standard"], "seats": [2], "rated": "yes"}, "rated"),
    ({"rulesets": ["standard"], "seats": [2], "bots": {"after_seconds": -1, "level": "easy"}}, "bots"),
    ({"rulesets": ["standard"], "seats": [2], "bots": {"after_seconds": 5, "level": "genius"}}, "bots"),
    ({"rulesets": ["standard"], "seats": [2], "bots": {"after_seconds": "5", "level": "easy"}}, "bots"),
    ({"rulesets": ["standard"], "seats": [2], "bots": {"after_seconds": 5, "level": "easy"}, "rated": True}, "bots"),
])
@pytest.mark.django_db
def test_invalid_requests_are_refused_and_nothing_is_created(clients, body, field):
    (a,) = clients(1)
    problem = assert_problem(a.post(URL, body, format="json"), 400, "invalid")
    assert any(f == field or f.startswith(f"{field}.") for f in problem["fields"]), problem
    assert not QuickPlayRequest.objects.exists()


@pytest.mark.django_db
def test_malformed_json_is_refused(clients):
    (a,) = clients(1)
    r = a.generic("POST", URL, "{", content_type="application/json")
    assert_problem(r, 400, "malformed_json")
    assert not QuickPlayRequest.objects.exists()


@pytest.mark.django_db
def test_bots_at_once_fill_the_table(clients):
    (a,) = clients(1)
    r = ask(a, {"rulesets": ["standard"], "seats": [3], "bots": {"after_seconds": 0, "level": "easy"}})
    assert r["status"] == "matched" and r["table"]["bots"] == 2
    assert sorted(seated(r["game"]), key=str) == sorted([(a.player.pk, None), (None, "easy"), (None, "easy")], key=str)


@pytest.mark.django_db
def test_the_sweeper_fills_with_bots_after_the_wait_and_expires_the_old(clients):
    a, b, c, d = clients(4)
    bots = {"after_seconds": 60, "level": "normal"}
    ra = ask(a, {"rulesets": ["house"], "seats": [4, 2], "bots": bots})
    rb = ask(b, {"rulesets": ["house"], "seats": [4], "bots": bots})
    rc = ask(c, {"rulesets": ["house"], "seats": [4]})  # people only
    rd = ask(d, {"rulesets": ["standard"], "seats": [2]})
    assert ra["bots_at"] and [r["status"] for r in (ra, rb, rc, rd)] == ["waiting"] * 4
    assert services.sweep() == {"expired": 0, "bots": 0, "rescanned": 0}  # nobody's wait is over
    assert QuickPlayRequest.objects.filter(status="waiting").count() == 4
    past = timezone.now() - timedelta(seconds=1)
    QuickPlayRequest.objects.filter(pk__in=[ra["id"], rb["id"]]).update(bots_at=past)
    QuickPlayRequest.objects.filter(pk=rd["id"]).update(expires_at=past)
    got = services.sweep()
    assert got["expired"] == 1 and got["bots"] == 1
    game = read(a, ra["id"])["game"]
    assert read(b, rb["id"])["game"] == game  # both waits over, the same level: one table
    assert read(a, ra["id"])["table"] == {"ruleset": "house", "seats": 4, "speed": "realtime", "turn_seconds": 30,
                                         "bots": 2}
    assert sorted(seated(game), key=str) == sorted(
        [(a.player.pk, None), (b.player.pk, None), (None, "normal"), (None, "normal")], key=str)
    assert read(c, rc["id"])["status"] == "waiting"  # no bots for a request that did not allow them
    assert read(d, rd["id"])["status"] == "expired"
    assert feed_notices(d.player, "quickplay_expired") == [{"quickplay": rd["id"]}]
    assert_problem(d.delete(f"{URL}/{rd['id']}"), 409, "quickplay_expired")
    assert services.sweep()["bots"] == 0  # twice: nothing more


@pytest.mark.django_db(transaction=True)
def test_the_countdown_fills_with_bots_through_a_real_worker(clients, worker, settings):
    settings.UNO_QUICKPLAY_RESCAN_SECONDS = 3600
    worker.start()
    (a,) = clients(1)
    r = ask(a, {"rulesets": ["duo"], "seats": [2], "bots": {"after_seconds": 1, "level": "hard"}})
    assert r["status"] == "waiting"
    done = wait_for(lambda: read(a, r["id"])["status"] == "matched" and read(a, r["id"]), 15, 0.1)
    assert seated(done["game"]) and sorted(seated(done["game"]), key=str) == sorted(
        [(a.player.pk, None), (None, "hard")], key=str)
    assert wait_for(lambda: worker.log.runs("fill_with_bots"), 10, 0.05)  # (logged once the task returns)


@pytest.mark.django_db
def test_a_table_that_cannot_be_created_leaves_the_requests_waiting(clients, settings):
    """A player past their share of games: no table, nothing marked matched; the next
    full pass seats them once the share allows it."""
    a, b = clients(2)
    settings.UNO_MAX_GAMES = 1
    assert ask(b, {"rulesets": ["standard"], "seats": [2], "bots": {"after_seconds": 0, "level": "easy"}})["game"]
    ra = ask(a, TWO)
    rb = ask(b, TWO)
    assert rb["status"] == "waiting" and read(a, ra["id"])["status"] == "waiting"
    assert Game.objects.count() == 1 and not feed_notices(a.player)
    settings.UNO_MAX_GAMES = 2
    assert services.sweep()["rescanned"] == 1
    assert read(a, ra["id"])["game"] == read(b, rb["id"])["game"] is not None


@pytest.mark.django_db
def test_idempotency_key(clients):
    a, b = clients(2)
    first = ask(a, TWO, HTTP_IDEMPOTENCY_KEY="k-1")
    assert ask(a, TWO, HTTP_IDEMPOTENCY_KEY="k-1") == first  # a retry: the first answer, nothing new
    assert QuickPlayRequest.objects.count() == 1
    assert_problem(a.post(URL, {**TWO, "seats": [3]}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"), 422,
                   "idempotency_key_reused")
    refused = a.post(URL, TWO, format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    assert_problem(refused, 409, "already_waiting")
    replay = a.post(URL, TWO, format="json", HTTP_IDEMPOTENCY_KEY="k-2")  # the refusal replayed
    assert replay.status_code == 409 and replay.json() == refused.json()
    assert ask(b, TWO, HTTP_IDEMPOTENCY_KEY="k-1")["status"] == "matched"  # keys are per player
    assert QuickPlayRequest.objects.count() == 2


@pytest.mark.concurrency  # also on the embedded default (SQLite's data_version)
@pytest.mark.django_db(transaction=True)
def test_the_feed_tells_both_players_through_a_real_server(gunicorn):
    (alice, a), (bob, b) = register(gunicorn), register(gunicorn)
    feeds = {t: open_stream(gunicorn.port, "/api/v1/players/me/events", t) for t in (a, b)}
    try:
        assert all(f.status == 200 for f in feeds.values())
        status, first, headers = call(gunicorn, "POST", URL, TWO, a)
        assert status == 202 and first["status"] == "waiting"
        assert headers["location"].endswith(f"{URL}/{first['id']}")
        status, second, _ = call(gunicorn, "POST", URL, TWO, b)
        assert status == 202 and second["status"] == "matched"
        game = second["game"]
        for token, rid in ((a, first["id"]), (b, second["id"])):
            seen: set[str] = set()

            def both(e, seen=seen):  # in either order: the notice, and the game's own event
                seen.add(e.event)
                return {"quickplay_matched", "game_started"} <= seen

            got = feeds[token].until(both)
            matched = [e.data for e in got if e.event == "quickplay_matched"]
            assert matched == [{"quickplay": rid, "game": game, "notice": matched[0]["notice"]}]
            assert isinstance(matched[0]["notice"], int)
            assert [e.data["game"] for e in got if e.event == "game_started"] == [game]
        status, view, _ = call(gunicorn, "GET", f"{URL}/{first['id']}", token=a)
        assert status == 200 and view["status"] == "matched" and view["game"] == game
        status, gv, _ = call(gunicorn, "GET", f"/api/v1/games/{game}", token=a)
        assert status == 200 and sorted(p["username"] for p in gv["players"]) == sorted([alice, bob])
    finally:
        for f in feeds.values():
            f.close()
    assert get_user_model().objects.filter(username__in=[alice, bob]).count() == 2


@pytest.mark.django_db
def test_a_real_time_table_seats_only_players_who_are_online(clients, settings):
    """Presence: a player gone from a real-time request (no request, no stream for longer
    than UNO_PRESENCE_SECONDS) is not seated until they come back; a correspondence table
    does not ask."""
    settings.UNO_QUICKPLAY_RESCAN_SECONDS = 0
    a, b, c, d = clients(4)
    rb = ask(b, TWO)  # realtime by default
    get_user_model().objects.filter(pk=b.player.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    ra = ask(a, TWO)
    assert ra["status"] == rb["status"] == "waiting"
    services.sweep()
    assert QuickPlayRequest.objects.get(pk=rb["id"]).status == "waiting"  # still gone
    assert read(b, rb["id"])["status"] == "waiting"  # b is back (an authenticated request)
    services.sweep()
    assert read(a, ra["id"])["game"] == read(b, rb["id"])["game"] is not None

    corr = {**TWO, "speed": "correspondence"}
    rd = ask(d, corr)
    get_user_model().objects.filter(pk=d.player.pk).update(last_seen_at=None)
    assert ask(c, corr)["status"] == "matched" and read(d, rd["id"])["status"] == "matched"
