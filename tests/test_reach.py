"""Reaching players who are away (issue 29, reach/): the settings' API, the outbox written
with the moves, and its delivery into a real SMTP server (aiosmtpd): subjects, links,
the one-click unsubscribe without signing in, quiet hours, digest, what is skipped, a
mail server that is down."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone as tz

import pytest
from django.utils import timezone

from games import engine, services as games
from games.models import Game, Seat
from players.models import Player
from reach import delivery, messages, outbox, services
from reach.models import Message, Preferences, Status
from tests.games_support import game_url, true_state
from tests.helpers import assert_json, assert_problem
from tests.smtp_support import SmtpServer, body_of, free_port, smtp, use_smtp  # noqa: F401 (fixture)

NOTIFICATIONS = "/api/v1/players/me/notifications"
DAY = 86400

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _reach_settings(settings):
    settings.UNO_PUBLIC_URL = "http://uno.test"
    settings.UNO_REACH_YOUR_TURN_DELAY_SECONDS = 0
    settings.UNO_REACH_RETRY_SECONDS = 0


def reachable_by_email(player, address: str | None = None) -> Preferences:
    """``player`` with a verified address, through the services a player's requests use."""
    address = address or f"{player.username}@example.test"
    services.set_email(player=player, address=address)
    services.verify_email(messages.verify_token(player.pk, address))
    player.refresh_from_db()
    assert player.reachable
    return Preferences.objects.get(pk=player.pk)


def correspondence_game(clients, turn_seconds: int | None = DAY, n: int = 2) -> tuple[int, dict]:
    players = clients(n)
    body = {"ruleset": "standard", "max_players": n, "turn_seconds": turn_seconds}
    gid = players[0].post("/api/v1/games", body, format="json").json()["id"]
    for c in players[1:]:
        assert players and c.post(game_url(gid, "join")).status_code == 200
    return gid, {c.player.pk: c for c in players}


def start(gid: int, owner) -> None:
    assert owner.post(game_url(gid, "start")).status_code == 200


def turn_action(state: engine.State, seat: int) -> dict:
    legal = engine.legal_actions(state, seat)
    for kind in ("play", "choose_color", "pass", "draw"):
        found = [a for a in legal if a["type"] == kind]
        if found:
            return found[0]
    return legal[0]


def play_one(gid: int, client=None) -> int:
    """The seat in turn plays its turn to its end (through the services, or ``client``'s
    requests); returns the seat."""
    seat = true_state(gid).actor()
    player = Seat.objects.get(game_id=gid, seat=seat).player
    for _ in range(10):
        state = true_state(gid)
        if state.status == "finished" or state.actor() != seat:
            break
        action = turn_action(state, seat)
        if client is None:
            games.act(game_id=gid, player=player, action=action)
        else:
            assert client.post(game_url(gid, "actions"), action, format="json").status_code == 200
    return seat


def player_at(gid: int, seat: int) -> Player:
    return Seat.objects.get(game_id=gid, seat=seat).player


def make_due(player) -> None:
    Message.objects.filter(player=player, status=Status.PENDING).update(due_at=timezone.now() - timedelta(seconds=1))


# --------------------------------------------------------------------------------------
# The settings' API
# --------------------------------------------------------------------------------------
def test_the_defaults_and_a_partial_patch(auth_client):
    got = assert_json(auth_client.get(NOTIFICATIONS), 200)
    assert got["email"] == {"address": None, "verified": False}
    assert got["kinds"]["your_turn"] == {"email": True, "push": True} and set(got["kinds"]) == {
        "your_turn", "reminder", "game_started", "game_finished", "challenge", "rematch"}
    assert got["quiet_hours"] is None and got["timezone"] == "UTC" and got["digest"] is True
    assert got["push_subscriptions"] == [] and isinstance(got["push"]["platforms"], list)
    r = auth_client.patch(NOTIFICATIONS, {"kinds": {"reminder": {"email": False}}, "timezone": "Europe/Paris",
                                          "quiet_hours": {"start": "22:30", "end": "07:00"}, "digest": False},
                          format="json")
    got = assert_json(r, 200)
    assert got["kinds"]["reminder"] == {"email": False, "push": True}
    assert got["kinds"]["your_turn"] == {"email": True, "push": True}
    assert got["quiet_hours"] == {"start": "22:30", "end": "07:00"} and got["timezone"] == "Europe/Paris"
    assert got["digest"] is False
    got = assert_json(auth_client.patch(NOTIFICATIONS, {"quiet_hours": None}, format="json"), 200)
    assert got["quiet_hours"] is None and got["timezone"] == "Europe/Paris"


@pytest.mark.parametrize("body, field", [
    ({"kinds": {"nonsense": {"email": True}}}, "kinds"),
    ({"kinds": {"reminder": {"email": "yes"}}}, "kinds"),
    ({"kinds": {"reminder": {"sms": True}}}, "kinds"),
    ({"kinds": "all"}, "kinds"),
    ({"timezone": "Mars/Olympus"}, "timezone"),
    ({"timezone": 3}, "timezone"),
    ({"quiet_hours": {"start": "25:00", "end": "07:00"}}, "quiet_hours"),
    ({"quiet_hours": {"start": "7:00", "end": "08:00"}}, "quiet_hours"),
    ({"quiet_hours": {"start": "22:00"}}, "quiet_hours"),
    ({"quiet_hours": {"start": "08:00", "end": "08:00"}}, "quiet_hours"),
    ({"quiet_hours": "22-07"}, "quiet_hours"),
    ({"digest": 1}, "digest"),
    ({"colour": "red"}, "colour"),
])
def test_bad_settings_are_refused_and_change_nothing(auth_client, body, field):
    before = auth_client.get(NOTIFICATIONS).json()
    problem = assert_problem(auth_client.patch(NOTIFICATIONS, body, format="json"), 400, "invalid")
    assert any(name.split(".")[0] == field for name in problem["fields"]), problem
    assert auth_client.get(NOTIFICATIONS).json() == before


def test_malformed_json_and_no_credentials(auth_client, api):
    assert_problem(auth_client.patch(NOTIFICATIONS, "{", content_type="application/json"), 400, "malformed_json")
    assert_problem(api.get(NOTIFICATIONS), 401, "not_authenticated")
    assert_problem(api.post("/api/v1/players/me/email", {"address": "a@example.test"}, format="json"), 401,
                   "not_authenticated")


@pytest.mark.parametrize("body, field", [
    ({"address": "not an address"}, "address"),
    ({"address": 12}, "address"),
    ({}, "address"),
])
def test_a_bad_email_address_is_refused(auth_client, body, field):
    problem = assert_problem(auth_client.post("/api/v1/players/me/email", body, format="json"), 400, "invalid")
    assert any(name.split(".")[0] == field for name in problem["fields"]), problem


@pytest.mark.parametrize("body, field", [
    ({"platform": "pager", "token": "x"}, "platform"),
    ({"platform": "webpush", "keys": {"p256dh": "AAAA", "auth": "BBBB"}}, "endpoint"),
    ({"platform": "webpush", "endpoint": "http://push.example/x", "keys": {"p256dh": "AAAA", "auth": "BBBB"}},
     "endpoint"),
    ({"platform": "webpush", "endpoint": "https://push.example/x"}, "keys"),
    ({"platform": "webpush", "endpoint": "https://push.example/x", "keys": {"p256dh": "not base64!", "auth": "B"}},
     "keys"),
    ({"platform": "fcm"}, "token"),
    ({"platform": "apns", "token": 5}, "token"),
    ({"platform": "fcm", "token": "abc", "endpoint": "https://push.example/x"}, "endpoint"),
])
def test_a_bad_push_subscription_is_refused(auth_client, body, field):
    problem = assert_problem(auth_client.post("/api/v1/players/me/push-subscriptions", body, format="json"), 400,
                             "invalid")
    assert any(name.split(".")[0] == field for name in problem["fields"]), problem


def test_push_subscriptions_once_per_device_and_deleted(auth_client):
    url = "/api/v1/players/me/push-subscriptions"
    body = {"platform": "webpush", "endpoint": "https://push.example/abc", "label": "laptop",
            "keys": {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
                     "auth": "tBHItJI5svbpez7KI4CCXg"}}
    first = assert_json(auth_client.post(url, body, format="json"), 201)
    again = assert_json(auth_client.post(url, body, format="json"), 200)
    assert again["id"] == first["id"] and first["platform"] == "webpush" and first["label"] == "laptop"
    auth_client.player.refresh_from_db()
    assert auth_client.player.reachable  # push on for every kind by default
    listed = auth_client.get(NOTIFICATIONS).json()["push_subscriptions"]
    assert [s["id"] for s in listed] == [first["id"]]
    assert auth_client.delete(f"{url}/{first['id']}").status_code == 204
    assert_problem(auth_client.delete(f"{url}/{first['id']}"), 404, "not_found")
    auth_client.player.refresh_from_db()
    assert not auth_client.player.reachable


def test_email_verification_by_its_signed_link(auth_client, api):
    r = auth_client.post("/api/v1/players/me/email", {"address": "zoe@example.test"}, format="json")
    assert assert_json(r, 202) == {"address": "zoe@example.test", "verified": False}
    auth_client.player.refresh_from_db()
    assert not auth_client.player.reachable  # not before it is verified
    token = messages.verify_token(auth_client.player.pk, "zoe@example.test")
    assert_problem(api.get(f"/api/v1/email/verify/{token[:-2]}xx"), 404, "not_found")
    assert_json(api.get(f"/api/v1/email/verify/{token}"), 200) == {"address": "zoe@example.test", "verified": True}
    page = api.get(f"/api/v1/email/verify/{token}", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html") and b"verified" in page.content
    assert auth_client.get(NOTIFICATIONS).json()["email"] == {"address": "zoe@example.test", "verified": True}
    auth_client.player.refresh_from_db()
    assert auth_client.player.reachable
    # another address: unverified again, and the old link no longer verifies anything
    auth_client.post("/api/v1/players/me/email", {"address": "zoe2@example.test"}, format="json")
    assert_problem(api.get(f"/api/v1/email/verify/{token}"), 404, "not_found")
    assert auth_client.delete("/api/v1/players/me/email").status_code == 204
    assert_problem(auth_client.delete("/api/v1/players/me/email"), 404, "not_found")


# --------------------------------------------------------------------------------------
# The outbox, written with the moves
# --------------------------------------------------------------------------------------
def test_a_game_without_reachable_players_writes_nothing(clients):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    play_one(gid)
    assert not Message.objects.exists()


def test_your_turn_and_reminders_are_written_with_the_move(clients, settings):
    gid, by_id = correspondence_game(clients, turn_seconds=DAY)
    for c in by_id.values():
        reachable_by_email(c.player)
    start(gid, next(iter(by_id.values())))
    started = Message.objects.filter(kind="game_started")
    assert started.count() == 2
    first = Game.objects.get(pk=gid).current_seat
    rows = Message.objects.filter(player=player_at(gid, first))
    assert sorted(rows.values_list("kind", flat=True)) == ["game_started", "reminder", "reminder", "your_turn"]
    deadline = Game.objects.get(pk=gid).deadline
    reminders = sorted(rows.filter(kind="reminder").values_list("due_at", flat=True))
    assert reminders == [deadline - timedelta(seconds=DAY / 4), deadline - timedelta(hours=1)]
    play_one(gid)
    other = player_at(gid, Game.objects.get(pk=gid).current_seat)
    assert Message.objects.filter(player=other, kind="your_turn").count() == 1
    # a real-time game (30 s a turn) tells nobody of their turn
    Message.objects.all().delete()
    gid2, by_id2 = correspondence_game(clients, turn_seconds=30)
    for c in by_id2.values():
        reachable_by_email(c.player)
    start(gid2, next(iter(by_id2.values())))
    assert set(Message.objects.filter(game_id=gid2).values_list("kind", flat=True)) == {"game_started"}


def test_a_failing_hook_never_fails_the_move(clients, monkeypatch):
    gid, by_id = correspondence_game(clients)
    for c in by_id.values():
        reachable_by_email(c.player)
    start(gid, next(iter(by_id.values())))
    version = Game.objects.get(pk=gid).version
    written = Message.objects.filter(game_id=gid).count()

    def broken(*args, **kwargs):
        raise RuntimeError("the outbox is broken")

    monkeypatch.setattr(outbox, "write", broken)
    seat = true_state(gid).actor()  # one action (play_one may take two: a draw, then a play or a pass)
    games.act(game_id=gid, player=player_at(gid, seat), action=turn_action(true_state(gid), seat))
    assert Game.objects.get(pk=gid).version == version + 1
    assert Message.objects.filter(game_id=gid).count() == written


# --------------------------------------------------------------------------------------
# Delivery into a real SMTP server
# --------------------------------------------------------------------------------------
def test_your_turn_email_its_link_and_one_click_unsubscribe(clients, smtp, api):
    gid, by_id = correspondence_game(clients)
    owner = next(iter(by_id.values()))
    start(gid, owner)
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    reachable_by_email(waiting, "bob@example.test")
    Player.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    play_one(gid)
    assert Game.objects.get(pk=gid).current_seat == Seat.objects.get(game_id=gid, player=waiting).seat
    assert delivery.deliver_player(waiting.pk) == 1
    (mail,) = smtp.inbox.to("bob@example.test")
    assert mail["Subject"] == f"Your turn in game {gid} (Standard UNO)"
    text = body_of(mail)
    assert f"http://uno.test/#/game/{gid}" in text and "left" in text
    # the row it carries makes its Message-ID: a copy sent again is the same message
    row = Message.objects.get(player=waiting, kind="your_turn")
    assert mail["Message-ID"] == f"<uno.{waiting.pk}.{row.pk}@uno.test>"
    unsubscribe = re.search(r"<(http://uno\.test/api/v1/unsubscribe/[^>]+)>", mail["List-Unsubscribe"]).group(1)
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe in text  # also in the body
    path = unsubscribe.removeprefix("http://uno.test")
    assert assert_json(api.get(path), 200)["unsubscribed"] is False  # a page: changes nothing
    page = api.get(path, HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and b"<form method=\"post\"" in page.content
    assert Preferences.objects.get(pk=waiting.pk).wants("your_turn", "email")
    r = api.post(path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert assert_json(r, 200) == {"kind": "your_turn", "unsubscribed": True, "detail": r.json()["detail"]}
    prefs = Preferences.objects.get(pk=waiting.pk)
    assert not prefs.wants("your_turn", "email") and prefs.wants("reminder", "email")
    assert_problem(api.post(path[:-3] + "abc"), 404, "not_found")
    assert Message.objects.get(player=waiting, kind="your_turn").status == Status.SENT
    assert delivery.deliver_player(waiting.pk) == 0  # once


def test_your_turn_is_skipped_when_the_player_looked(clients, smtp):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    reachable_by_email(waiting)
    Player.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    play_one(gid)
    # the player opens the game (an authenticated request marks them seen)
    looker = next(c for c in by_id.values() if c.player.pk == waiting.pk)
    assert looker.get(game_url(gid)).status_code == 200
    assert delivery.deliver_player(waiting.pk) == 0
    row = Message.objects.get(player=waiting, kind="your_turn")
    assert row.status == Status.SKIPPED and "seen" in row.note
    assert smtp.inbox.to(waiting.email or "@") == []


def test_a_reminder_is_skipped_when_its_turn_was_played(clients, smtp):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    mover = player_at(gid, Game.objects.get(pk=gid).current_seat)
    reachable_by_email(mover)
    # (its reminders were written when the game started, before the address: a fresh turn writes them)
    play_one(gid)
    play_one(gid)
    assert Game.objects.get(pk=gid).current_seat == Seat.objects.get(game_id=gid, player=mover).seat
    # (two per clock of the turn: each step of it, a draw then a play, starts a fresh one)
    assert Message.objects.filter(player=mover, kind="reminder").count() >= 2
    play_one(gid)  # the turn is played: its reminders are no longer worth sending
    make_due(mover)
    delivery.deliver_player(mover.pk)
    reminders = Message.objects.filter(player=mover, kind="reminder")
    assert reminders.count() >= 2 and all(r.status == Status.SKIPPED and "no longer owed" in r.note
                                          for r in reminders)
    assert not any("Reminder" in str(m["Subject"]) for m in smtp.inbox.messages)


def test_quiet_hours_hold_messages_but_not_an_urgent_reminder(clients, smtp, settings):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    mover = player_at(gid, Game.objects.get(pk=gid).current_seat)
    prefs = reachable_by_email(mover, "quiet@example.test")
    play_one(gid)
    play_one(gid)
    now = timezone.now()
    local = now.astimezone(__import__("zoneinfo").ZoneInfo("Asia/Tokyo"))
    # quiet from an hour ago to three hours on, in the player's time zone
    prefs.timezone = "Asia/Tokyo"
    prefs.quiet_start = (local - timedelta(hours=1)).time().replace(second=0, microsecond=0)
    prefs.quiet_end = (local + timedelta(hours=3)).time().replace(second=0, microsecond=0)
    prefs.save()
    end = delivery.quiet_until(prefs, now)
    assert end is not None and timedelta(hours=2, minutes=58) < end - now <= timedelta(hours=3)
    # a day's turn: its "one hour left" reminder's deadline is after the quiet hours: held,
    # as is the your_turn; a deadline that passes inside them: that reminder goes now
    rows = Message.objects.filter(player=mover, status=Status.PENDING)
    deadline = Game.objects.get(pk=gid).deadline
    urgent = rows.filter(kind="reminder").order_by("due_at").last()
    Game.objects.filter(pk=gid).update(deadline=now + timedelta(hours=2))
    game = Game.objects.get(pk=gid)
    soon = now + timedelta(hours=2)
    game.obligations = [{**o, "deadline": soon.isoformat()} if o["deadline"] == deadline.isoformat() else o
                        for o in game.obligations]
    game.save(update_fields=["obligations"])
    urgent.data = {**urgent.data, "deadline": soon.isoformat()}
    urgent.save()
    others = list(rows.exclude(pk=urgent.pk).values_list("pk", flat=True))
    for m in Message.objects.filter(pk__in=others):  # their deadline: the real one
        m.data = {**m.data, "deadline": soon.isoformat()} if m.kind == "your_turn" else m.data
        m.save()
    make_due(mover)
    Message.objects.filter(pk__in=others, kind="reminder").update(status=Status.SKIPPED)  # only two rows matter
    Player.objects.filter(pk=mover.pk).update(last_seen_at=now - timedelta(days=1))
    assert delivery.deliver_player(mover.pk) == 1
    (mail,) = smtp.inbox.to("quiet@example.test")
    assert mail["Subject"].startswith("Reminder:")
    held = Message.objects.get(player=mover, kind="your_turn", status=Status.PENDING)
    assert held.due_at == end


def test_a_digest_lists_several_messages_in_one_email(clients, smtp):
    owner_games = []
    (host,) = clients(1)
    reachable_by_email(host.player, "many@example.test")
    for _ in range(3):
        (guest,) = clients(1)
        gid = host.post("/api/v1/games", {"ruleset": "standard", "max_players": 2, "turn_seconds": DAY},
                        format="json").json()["id"]
        assert guest.post(game_url(gid, "join")).status_code == 200
        start(gid, host)
        owner_games.append(gid)
    assert Message.objects.filter(player=host.player, kind="game_started").count() == 3
    Message.objects.filter(player=host.player).exclude(kind="game_started").delete()
    assert delivery.deliver_player(host.player.pk) == 3
    (mail,) = smtp.inbox.to("many@example.test")
    assert mail["Subject"] == "3 updates from your UNO games"
    text = body_of(mail)
    assert all(f"http://uno.test/#/game/{gid}" in text for gid in owner_games)
    assert "/api/v1/unsubscribe/" in mail["List-Unsubscribe"]
    # without the digest, one email each
    Preferences.objects.filter(pk=host.player.pk).update(digest=False)
    Message.objects.filter(player=host.player).update(status=Status.PENDING, done=[])
    assert delivery.deliver_player(host.player.pk) == 3
    assert len(smtp.inbox.to("many@example.test")) == 4


def test_a_down_mail_server_fails_no_move_and_is_retried(clients, settings):
    port = free_port()  # nothing listens there
    use_smtp(settings, port)
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    reachable_by_email(waiting, "later@example.test")
    Player.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    mover = next(c for c in by_id.values() if c.player.pk != waiting.pk)
    play_one(gid, mover)  # through the API, with the mail server down
    assert delivery.deliver_player(waiting.pk) == 0
    row = Message.objects.get(player=waiting, kind="your_turn")
    assert row.status == Status.PENDING and row.attempts == 1 and "mail" in row.note
    server = SmtpServer(port).start()
    try:
        row.refresh_from_db()
        assert row.due_at <= timezone.now()  # (UNO_REACH_RETRY_SECONDS 0 here)
        assert delivery.deliver_player(waiting.pk) == 1
        (mail,) = server.inbox.to("later@example.test")
        assert mail["Subject"] == f"Your turn in game {gid} (Standard UNO)"
    finally:
        server.stop()
    row.refresh_from_db()
    assert row.status == Status.SENT


def test_the_lease_of_a_killed_worker_expires(clients, smtp, settings):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    reachable_by_email(waiting, "lease@example.test")
    Player.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    play_one(gid)
    # a worker took the player's lease, then died
    Preferences.objects.filter(pk=waiting.pk).update(lease_until=timezone.now() + timedelta(minutes=2))
    assert delivery.sweep() == 0 and smtp.inbox.to("lease@example.test") == []
    Preferences.objects.filter(pk=waiting.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert delivery.sweep() == 1 and delivery.sweep() == 0
    assert len(smtp.inbox.to("lease@example.test")) == 1


def test_reminder_times():
    start = datetime(2030, 1, 1, tzinfo=tz.utc)
    day = outbox.reminder_times(start, start + timedelta(days=1))
    assert [w for w, _ in day] == ["fraction", "before"]
    assert [at - start for _, at in day] == [timedelta(hours=18), timedelta(hours=23)]
    four_hours = outbox.reminder_times(start, start + timedelta(hours=4))  # a quarter left is one hour left
    assert [w for w, _ in four_hours] == ["fraction"]
    half_hour = outbox.reminder_times(start, start + timedelta(minutes=30))
    assert [at - start for _, at in half_hour] == [timedelta(minutes=22, seconds=30)]


def test_an_away_period_moves_the_reminders_with_the_deadline(clients, smtp):
    """Going away moves a correspondence decision's deadline without a move: the reminders
    of the old deadline are skipped when due, and new ones are written for the new
    deadline (a quarter of the turn left, an hour left), delivered after the player is back."""
    from games import away

    gid, by_id = correspondence_game(clients, turn_seconds=DAY)
    for c in by_id.values():
        reachable_by_email(c.player)
    start(gid, next(iter(by_id.values())))
    mover = player_at(gid, Game.objects.get(pk=gid).current_seat)
    old_deadline = Game.objects.get(pk=gid).deadline
    old = set(Message.objects.filter(player=mover, kind="reminder").values_list("pk", flat=True))
    assert len(old) == 2
    told = Message.objects.filter(player=mover, kind="your_turn").count()

    until = timezone.now() + timedelta(days=3)
    away.set_away(player=mover, until=until)
    new_deadline = Game.objects.get(pk=gid).deadline
    assert new_deadline > old_deadline + timedelta(days=2)
    new = Message.objects.filter(player=mover, kind="reminder").exclude(pk__in=old)
    assert sorted(new.values_list("due_at", flat=True)) == [new_deadline - timedelta(seconds=DAY / 4),
                                                           new_deadline - timedelta(hours=1)]
    assert all(m.data["deadline"] == new_deadline.isoformat() for m in new)
    assert Message.objects.filter(player=mover, kind="your_turn").count() == told  # the same decision: told once

    Message.objects.filter(pk__in=old).update(due_at=timezone.now() - timedelta(seconds=1))
    delivery.deliver_player(mover.pk)
    assert all(m.status == Status.SKIPPED for m in Message.objects.filter(pk__in=old))
    make_due(mover)
    delivery.deliver_player(mover.pk)
    assert all(m.status == Status.SENT for m in new.all())
    # (the two new reminders, due at once here, go as one digest)
    assert any("Reminder: " in str(m["Subject"]) + body_of(m) and f"game {gid}" in body_of(m)
               for m in smtp.inbox.messages)


def test_a_reminder_that_would_fall_while_away_comes_at_the_return(clients):
    """A player with little time left goes away: the "quarter of the turn left" point of the
    moved deadline falls inside the away period, when their clock stands still; it is
    written for their return instead, never while they are away."""
    from games import away

    gid, by_id = correspondence_game(clients, turn_seconds=DAY)
    for c in by_id.values():
        reachable_by_email(c.player)
    start(gid, next(iter(by_id.values())))
    mover = player_at(gid, Game.objects.get(pk=gid).current_seat)
    now = timezone.now()
    # two hours left of the day's turn (the deadline set as an operator or a test would)
    game = Game.objects.get(pk=gid)
    game.obligations = [{**o, "deadline": (now + timedelta(hours=2)).isoformat()} for o in game.obligations]
    game.deadline = now + timedelta(hours=2)
    game.save(update_fields=["obligations", "deadline"])
    old = set(Message.objects.values_list("pk", flat=True))
    until = now + timedelta(days=2)
    away.set_away(player=mover, until=until, now=now)
    new = Message.objects.filter(player=mover, kind="reminder").exclude(pk__in=old)
    deadline = Game.objects.get(pk=gid).deadline
    assert deadline >= until + timedelta(hours=2) - timedelta(seconds=5)
    times = sorted(new.values_list("due_at", flat=True))
    assert times and all(until <= at < deadline for at in times), (times, until, deadline)

