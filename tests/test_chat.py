"""Table talk (``chat``): rooms, cleaning, limits, blocks, reports and moderation through
the API on the real database; delivery on the game stream per viewer through a real
gunicorn (marked ``concurrency``: also on the embedded default)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from chat import services as chat_services
from chat.models import Message, Report
from games import services as game_services
from games.models import Game, GameStatus, Seat
from notices.models import Notice
from players.models import Block, Player
from tests.helpers import assert_json, assert_problem
from tests.server_support import call, gunicorn, register  # noqa: F401 (fixture)
from tests.sse_support import open_stream


def chat_url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/chat"


def client_of(token: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return c


@pytest.fixture
def table(make_player):
    """A started two-player game (alice seat 0, bob seat 1, a bot seat 2) and a spectator,
    carol: (game id, {name: client})."""
    people = {name: make_player(username=name) for name in ("alice", "bob", "carol", "dave")}
    game = game_services.create_table(seats=[people["alice"][0], people["bob"][0], {"level": "easy"}],
                                      ruleset="standard")
    return game.pk, {name: client_of(token) for name, (_, token) in people.items()}


def post(client, game_id, text, **extra):
    return client.post(chat_url(game_id), {"text": text, **extra}, format="json")


def texts(client, game_id, **params) -> list[str]:
    return [m["text"] for m in assert_json(client.get(chat_url(game_id), params), 200)["results"]]


# --- rooms ------------------------------------------------------------------------------


def test_players_write_to_the_players_room_and_spectators_to_theirs(table):
    gid, c = table
    mine = assert_json(post(c["alice"], gid, "good luck"), 201)
    assert mine["room"] == "players" and mine["seat"] == 0 and mine["username"] == "alice"
    assert mine["game"] == gid and mine["text"] == "good luck" and set(mine) == {
        "id", "game", "room", "username", "seat", "text", "created_at"}
    theirs = assert_json(post(c["carol"], gid, "alice will win"), 201)
    assert theirs["room"] == "spectators" and theirs["seat"] is None

    assert texts(c["bob"], gid) == ["good luck"]
    assert texts(c["carol"], gid) == ["alice will win"]
    assert texts(c["dave"], gid) == ["alice will win"]
    # the spectators' room is hidden from the players, the players' from the spectators
    assert_problem(c["bob"].get(chat_url(gid), {"room": "spectators"}), 403, "room_hidden")
    assert_problem(c["carol"].get(chat_url(gid), {"room": "players"}), 403, "room_hidden")
    assert texts(c["bob"], gid, room="players") == ["good luck"]


def test_a_finished_game_shows_both_rooms_to_everyone(table):
    gid, c = table
    post(c["alice"], gid, "gl hf")
    post(c["carol"], gid, "bob has no chance")
    Game.objects.filter(pk=gid).update(status=GameStatus.FINISHED, finished_at=timezone.now())
    for name in ("alice", "bob", "carol", "dave"):
        assert texts(c[name], gid) == ["gl hf", "bob has no chance"]
    assert texts(c["bob"], gid, room="spectators") == ["bob has no chance"]
    # and after the end, everyone still writes to their own room
    assert assert_json(post(c["bob"], gid, "gg"), 201)["room"] == "players"
    assert assert_json(post(c["dave"], gid, "well played"), 201)["room"] == "spectators"


def test_the_wrong_room_and_a_player_who_left_are_refused(table):
    gid, c = table
    body = assert_problem(post(c["alice"], gid, "psst", room="spectators"), 403, "wrong_room")
    assert body["room"] == "players"
    assert_problem(post(c["carol"], gid, "let me in", room="players"), 403, "wrong_room")
    assert assert_json(post(c["carol"], gid, "hello", room="spectators"), 201)["room"] == "spectators"
    assert_json(c["bob"].post(f"/api/v1/games/{gid}/leave"), 200)
    assert_problem(post(c["bob"], gid, "bye"), 403, "left_game")
    # (who left still reads the players' room: they are still seated)
    assert texts(c["bob"], gid) == []
    assert list(Message.objects.values_list("text", flat=True)) == ["hello"]


def test_refusals_without_credentials_or_game(table):
    gid, c = table
    assert_problem(APIClient().post(chat_url(gid), {"text": "hi"}, format="json"), 401, "not_authenticated")
    assert_problem(APIClient().get(chat_url(gid)), 401, "not_authenticated")
    assert_problem(post(c["alice"], 999999, "hi"), 404, "not_found")
    assert_problem(c["alice"].get(chat_url(999999)), 404, "not_found")
    assert not Message.objects.exists() and not Notice.objects.filter(kind="chat").exists()


# --- text ------------------------------------------------------------------------------


def test_text_is_normalised_and_cleaned(table):
    gid, c = table
    sent = "  Cafe\u0301\u200b \u202eevil\u202c\t\n\n ok\u00a0\u00a0now\u2800\ufeff "
    got = assert_json(post(c["alice"], gid, sent), 201)
    assert got["text"] == "Café evil ok now"
    assert Message.objects.get().text == "Café evil ok now"
    # emoji presentation selectors are kept
    assert assert_json(post(c["alice"], gid, "gg \U0001F44D\ufe0f"), 201)["text"] == "gg \U0001F44D\ufe0f"


@pytest.mark.parametrize("body, field", [
    ({"text": " \u200b\u2060\n\t "}, "text"),  # empty once cleaned
    ({"text": "x" * 281}, "text"),  # too long once cleaned
    ({"text": "y" * 2001}, "text"),  # too long as sent
    ({"text": 42}, "text"),
    ({"text": None}, "text"),
    ({}, "text"),
    ({"text": "hi", "room": "kitchen"}, "room"),
])
def test_bad_text_is_refused_and_nothing_stored(table, body, field):
    gid, c = table
    problem = assert_problem(c["alice"].post(chat_url(gid), body, format="json"), 400, "invalid")
    assert field in problem["fields"]
    assert not Message.objects.exists() and not Notice.objects.filter(kind="chat").exists()


def test_the_longest_text_is_accepted_after_cleaning(table):
    gid, c = table
    assert len(assert_json(post(c["alice"], gid, "  " + "z" * 280 + "\u200b  "), 201)["text"]) == 280


def test_rate_limited_per_player(table, settings):
    gid, c = table
    settings.UNO_CHAT_RATE = "2/1h,100/1d"
    assert_json(post(c["alice"], gid, "one"), 201)
    assert_json(post(c["alice"], gid, "two"), 201)
    response = post(c["alice"], gid, "three")
    assert_problem(response, 429, "throttled")
    assert 1 <= int(response["Retry-After"]) <= 3600
    assert response["RateLimit-Limit"] == "2" and response["RateLimit-Remaining"] == "0"
    assert list(Message.objects.values_list("text", flat=True)) == ["one", "two"]
    assert_json(post(c["bob"], gid, "mine"), 201)  # per player
    assert len(texts(c["alice"], gid)) == 3  # reading is not limited by it


def test_the_default_rate_is_five_in_ten_seconds_and_thirty_a_minute(settings):
    from players.lockout import parse_tiers

    assert [(t.limit, t.window) for t in parse_tiers(settings.UNO_CHAT_RATE)] == [(5, 10), (30, 60)]


# --- paging ------------------------------------------------------------------------------


def test_cursor_paging_newest_last(table, settings):
    gid, c = table
    settings.UNO_CHAT_RATE = ""
    ids = [assert_json(post(c["alice"], gid, f"m{i}"), 201)["id"] for i in range(5)]
    latest = assert_json(c["bob"].get(chat_url(gid), {"limit": 2}), 200)
    assert [m["text"] for m in latest["results"]] == ["m3", "m4"]
    assert latest["next_cursor"] is None and latest["previous_cursor"] == ids[3]
    back = assert_json(c["bob"].get(chat_url(gid), {"limit": 2, "before": latest["previous_cursor"]}), 200)
    assert [m["text"] for m in back["results"]] == ["m1", "m2"]
    assert back["previous_cursor"] == ids[1] and back["next_cursor"] == ids[2]
    first = assert_json(c["bob"].get(chat_url(gid), {"limit": 2, "after": 0}), 200)
    assert [m["text"] for m in first["results"]] == ["m0", "m1"] and first["next_cursor"] == ids[1]
    rest = assert_json(c["bob"].get(chat_url(gid), {"limit": 10, "after": first["next_cursor"]}), 200)
    assert [m["text"] for m in rest["results"]] == ["m2", "m3", "m4"]
    assert rest["next_cursor"] is None and rest["previous_cursor"] == ids[2]
    for params in ({"after": 1, "before": 3}, {"limit": 0}, {"limit": 201}, {"after": "x"}, {"room": "all"}):
        assert_problem(c["bob"].get(chat_url(gid), params), 400, "invalid")


def test_idempotency_key_writes_once(table):
    gid, c = table
    first = c["alice"].post(chat_url(gid), {"text": "once"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = c["alice"].post(chat_url(gid), {"text": "once"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert_problem(c["alice"].post(chat_url(gid), {"text": "other"}, format="json", HTTP_IDEMPOTENCY_KEY="k1"),
                   422, "idempotency_key_reused")
    assert Message.objects.count() == 1 and Notice.objects.filter(kind="chat").count() == 1


# --- blocks -----------------------------------------------------------------------------


def test_block_endpoints(table):
    _, c = table
    url = "/api/v1/players/me/blocks"
    made = assert_json(c["alice"].post(url, {"username": "bob"}, format="json"), 201)
    assert made["username"] == "bob" and made["created_at"]
    assert assert_json(c["alice"].post(url, {"username": "BOB"}, format="json"), 200)["username"] == "bob"
    assert_json(c["alice"].post(url, {"username": "carol"}, format="json"), 201)
    assert [b["username"] for b in assert_json(c["alice"].get(url), 200)] == ["carol", "bob"]
    assert assert_json(c["bob"].get(url), 200) == []
    assert_problem(c["alice"].post(url, {"username": "alice"}, format="json"), 400, "invalid")
    assert_problem(c["alice"].post(url, {"username": "nobody-here"}, format="json"), 404, "not_found")
    assert_problem(c["alice"].post(url, {"username": 7}, format="json"), 400, "invalid")
    assert_problem(APIClient().get(url), 401, "not_authenticated")
    assert Block.objects.count() == 2
    assert c["alice"].delete(f"{url}/bob").status_code == 204
    assert_problem(c["alice"].delete(f"{url}/bob"), 404, "not_found")
    assert_problem(c["alice"].delete(f"{url}/nobody-here"), 404, "not_found")
    assert [b["username"] for b in assert_json(c["alice"].get(url), 200)] == ["carol"]


def test_blocked_players_messages_are_not_shown_either_way(table):
    gid, c = table
    post(c["alice"], gid, "from alice")
    post(c["bob"], gid, "from bob")
    assert_json(c["bob"].post("/api/v1/players/me/blocks", {"username": "alice"}, format="json"), 201)
    assert texts(c["bob"], gid) == ["from bob"]
    assert texts(c["alice"], gid) == ["from alice"]
    c["bob"].delete("/api/v1/players/me/blocks/alice")
    assert texts(c["bob"], gid) == ["from alice", "from bob"]


# --- reports, hiding, muting --------------------------------------------------------------


def test_report_then_the_staff_hides_and_mutes(table):
    gid, c = table
    bad = assert_json(post(c["bob"], gid, "you are terrible"), 201)
    url = f"{chat_url(gid)}/{bad['id']}/report"
    report = assert_json(c["alice"].post(url, {"reason": "abuse", "comment": "rude"}, format="json"), 201)
    assert report["message"] == bad["id"] and report["reason"] == "abuse"
    assert_problem(c["alice"].post(url, {"reason": "abuse"}, format="json"), 409, "already_reported")
    assert_problem(c["bob"].post(url, {"reason": "spam"}, format="json"), 403, "own_message")
    assert_problem(c["alice"].post(url, {"reason": "boring"}, format="json"), 400, "invalid")
    # a message the caller is not shown (the players' room, to a spectator) cannot be reported
    assert_problem(c["carol"].post(url, {"reason": "spam"}, format="json"), 404, "not_found")
    assert_problem(c["alice"].post(f"{chat_url(gid)}/999999/report", {"reason": "spam"}, format="json"),
                   404, "not_found")
    assert Report.objects.count() == 1

    assert chat_services.hide_messages([bad["id"]]) == 1
    assert chat_services.hide_messages([bad["id"]]) == 0  # already hidden
    assert texts(c["alice"], gid) == [] and texts(c["bob"], gid) == []
    hidden = Notice.objects.get(kind="chat_hidden")
    assert hidden.data == {"id": bad["id"], "room": "players"} and hidden.audience == "players"
    assert Report.objects.get().resolved

    until = timezone.now() + timedelta(days=1)
    chat_services.mute(Player.objects.get(username="bob").pk, until)
    problem = assert_problem(post(c["bob"], gid, "sorry"), 403, "muted")
    assert problem["until"].startswith(until.isoformat()[:19])
    assert Message.objects.count() == 1
    assert_json(post(c["alice"], gid, "thanks"), 201)


def test_the_admin_lists_reports_and_hides(table, admin_client):
    gid, c = table
    bad = assert_json(post(c["bob"], gid, "spam spam spam"), 201)
    assert_json(c["alice"].post(f"{chat_url(gid)}/{bad['id']}/report", {"reason": "spam"}, format="json"), 201)
    page = admin_client.get("/admin/chat/report/")
    assert page.status_code == 200 and b"spam spam spam" in page.content
    report = Report.objects.get()
    done = admin_client.post("/admin/chat/report/", {"action": "hide_messages", "_selected_action": [report.pk]})
    assert done.status_code == 302
    assert Message.objects.get().hidden_at is not None
    done = admin_client.post("/admin/chat/message/", {"action": "mute_authors_day", "_selected_action": [bad["id"]]})
    assert done.status_code == 302
    assert_problem(post(c["bob"], gid, "again"), 403, "muted")


def test_the_server_never_writes_to_the_chat(table):
    """Moves, bots and timers add nothing to the table talk: a game played on by its bots
    (the seats on autopilot) leaves the chat as the people wrote it."""
    gid, c = table
    post(c["alice"], gid, "hi")
    for seat in Seat.objects.filter(game_id=gid):
        if seat.player_id:
            game_services.leave_game(player=seat.player, game_id=gid)
    assert list(Message.objects.values_list("text", flat=True)) == ["hi"]
    assert set(Notice.objects.values_list("kind", flat=True)) == {"chat"}


# --- live delivery ------------------------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_chat_events_reach_each_viewer_as_their_room_and_blocks_say(gunicorn):
    names = {}
    tokens = {}
    for who in ("alice", "bob", "carol", "dave"):
        names[who], tokens[who] = register(gunicorn)
    players = {who: Player.objects.get(username=names[who]) for who in names}
    with transaction.atomic():
        game = game_services.create_table(seats=[players["alice"], players["bob"]], ruleset="standard")
    # dave blocked carol: he is not sent her messages (and she not his)
    assert call(gunicorn, "POST", "/api/v1/players/me/blocks", {"username": names["carol"]}, tokens["dave"])[0] == 201
    streams = {who: open_stream(gunicorn.port, f"/api/v1/games/{game.pk}/events", tokens[who]) for who in names}
    try:
        assert all(s.status == 200 for s in streams.values())
        # the hub's first look (which sets where it reads notices from) before the first message
        call(gunicorn, "GET", "/api/v1/players/me", token=tokens["alice"])
        time.sleep(0.5)

        def say(who, text):
            status, body, _ = call(gunicorn, "POST", chat_url(game.pk), {"text": text}, tokens[who])
            assert status == 201, body
            return body

        said = [say("alice", "hello bob"), say("carol", "go alice"), say("dave", "go bob"), say("bob", "last")]

        def chats(who, last):
            got = streams[who].until(lambda e: e.event == "chat" and e.data["text"] == last)
            return [e.data for e in got if e.event == "chat"]

        alice = chats("alice", "last")
        assert [m["text"] for m in alice] == ["hello bob", "last"]
        assert [m["text"] for m in chats("bob", "last")] == ["hello bob", "last"]
        assert [m["text"] for m in chats("carol", "go alice")] == ["go alice"]  # not dave's: he blocked her
        assert [m["text"] for m in chats("dave", "go bob")] == ["go bob"]  # not carol's
        # the event is the message as the POST (and GET) shows it, with the notice's id; no author id
        assert {k: v for k, v in alice[0].items() if k != "notice"} == said[0]
        assert isinstance(alice[0]["notice"], int)
        for who in names:
            assert streams[who].nothing_within(0.5), who
        # the staff hides bob's message: the players are told
        with transaction.atomic():
            chat_services.hide_messages([said[3]["id"]])
        assert streams["alice"].until(lambda e: e.event == "chat_hidden")[-1].data["id"] == said[3]["id"]
        assert streams["carol"].nothing_within(1.0)
    finally:
        for s in streams.values():
            s.close()

