"""reach's outbox carried to its end (issue 29): push messages delivered by the product's
delivery (the sweeper, the task, a real worker) to real local push services
(tests/push_endpoint.py: the Web Push stand-in verifies the VAPID signature and decrypts
the RFC 8291 payload with the keys the test made as a browser makes them; FCM behind a
real OAuth exchange; APNs over HTTP/2), a gone subscription deleted, a busy service
retried; challenges and rematch offers by email; each player's order kept per channel
while an earlier message waits to be retried; old rows pruned."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import engine
from games.models import Game
from meeting import services as meeting
from players.models import Player
from reach import delivery, push
from reach.models import Message, Preferences, PushSubscription, Status
from tests.celery_helpers import celery_worker, queued_tasks, redis_broker, requires_redis, wait_for  # noqa: F401
from tests.push_endpoint import ApnsService, FcmService, WebPushService, ca, keys  # noqa: F401 (fixtures)
from tests.smtp_support import SmtpServer, body_of, free_port, smtp, use_smtp  # noqa: F401 (fixture)
from tests.test_reach import correspondence_game, play_one, player_at, reachable_by_email, start

SUBSCRIPTIONS = "/api/v1/players/me/push-subscriptions"
NOTIFICATIONS = "/api/v1/players/me/notifications"
SUBJECT = "mailto:ops@example.org"
#: words a message would show a card by
CARD_WORDS = {*engine.COLORS, "draw", "skip", "reverse", "wild", "hand", "cards"}


def no_card(*texts: str) -> None:
    for text in texts:
        words = {w.strip(".,:;()!?").lower() for w in text.split()}
        assert not words & CARD_WORDS, f"a notification names a card: {text!r}"


@pytest.fixture(autouse=True)
def _reach_settings(settings):
    settings.UNO_PUBLIC_URL = "http://uno.test"
    settings.UNO_REACH_YOUR_TURN_DELAY_SECONDS = 0
    settings.UNO_REACH_RETRY_SECONDS = 3600


def webpush_settings(keys, ca) -> dict:
    return {"UNO_VAPID_PRIVATE_KEY": keys[0], "UNO_VAPID_PUBLIC_KEY": keys[1], "UNO_VAPID_SUBJECT": SUBJECT,
            "UNO_PUSH_CA_BUNDLE": str(ca.ca_file), "UNO_PUSH_ALLOW_PRIVATE": True}


class Service(WebPushService):
    """The Web Push stand-in, answering ``answers`` in turn (then ``status``) to the
    requests that pass its checks."""

    def __init__(self, ca):
        super().__init__(ca)
        self.answers: list[int] = []

    def record(self, request: dict) -> None:
        super().record(request)
        if request["status"] is None and self.answers:
            request["status"] = self.answers.pop(0)

    def delivered(self) -> list[dict]:
        """The messages it accepted (verified, decrypted, answered 201)."""
        with self.lock:
            return [r["message"] for r in self.requests if r["error"] is None and (r["status"] or self.status) == 201]


@pytest.fixture
def service(ca, keys, settings):
    for name, value in webpush_settings(keys, ca).items():
        setattr(settings, name, value)
    with Service(ca) as s:
        yield s


def subscribe(client, service) -> tuple[dict, object]:
    """The browser of ``client``'s player subscribes (its keys made as a browser makes
    them, for the server's key from the settings' API) and registers the subscription."""
    key = client.get(NOTIFICATIONS).json()["push"]["webpush_public_key"]
    assert key == push.webpush_public_key()
    browser = service.subscribe(key)
    r = client.post(SUBSCRIPTIONS, {"platform": "webpush", **browser.info(), "label": "laptop"}, format="json")
    assert r.status_code == 201, r.content
    client.player.refresh_from_db()
    assert client.player.reachable
    return r.json(), browser


def waiting_for_turn(clients, service):
    """A correspondence game started; the player who does not begin subscribed to push;
    the first player's turn played: it is the subscribed player's turn."""
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    client = by_id[waiting.pk]
    sub, browser = subscribe(client, service)
    Player.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    play_one(gid)
    assert player_at(gid, Game.objects.get(pk=gid).current_seat) == waiting
    return gid, client, sub


def pass_time(player) -> None:
    """The retry time of the player's waiting messages has come."""
    Message.objects.filter(player=player, status=Status.PENDING, retry_at__isnull=False).update(
        retry_at=timezone.now() - timedelta(seconds=1))


# --------------------------------------------------------------------------------------
# Web Push through the outbox
# --------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_your_turn_by_web_push_verified_and_decrypted(clients, service):
    gid, client, sub = waiting_for_turn(clients, service)
    row = Message.objects.get(player=client.player, kind="your_turn")
    assert delivery.sweep() == 1  # beat's sweeper, as in production
    (message,) = service.delivered()
    (request,) = service.requests
    assert request["claims"]["sub"] == SUBJECT and request["claims"]["aud"] == service.origin
    assert message["title"] == f"Your turn in game {gid} (Standard UNO)"
    assert message["body"].startswith(f"It is your turn in game {gid} of Standard UNO against ")
    assert message["url"] == f"http://uno.test/#/game/{gid}"
    assert message["kind"] == "your_turn" and message["tag"] == f"game-{gid}"
    no_card(message["title"], message["body"])
    row.refresh_from_db()
    assert row.status == Status.SENT and row.done == [f"push:{sub['id']}"]
    assert delivery.sweep() == 0 and len(service.requests) == 1  # once


@pytest.mark.django_db
def test_a_gone_subscription_is_deleted_and_the_player_no_longer_reachable(clients, service):
    service.status = 410
    gid, client, sub = waiting_for_turn(clients, service)
    assert delivery.deliver_player(client.player.pk) == 0
    assert service.requests[0]["error"] is None  # a right request, answered 410
    assert not PushSubscription.objects.filter(pk=sub["id"]).exists()
    client.player.refresh_from_db()
    assert not client.player.reachable  # no other channel: the next moves write nothing for them
    row = Message.objects.get(player=client.player, kind="your_turn")
    assert row.status == Status.SKIPPED and "gone" in row.note
    assert client.get(NOTIFICATIONS).json()["push_subscriptions"] == []
    before = Message.objects.filter(player=client.player).count()
    play_one(gid)
    play_one(gid)  # their turn again: nothing written for them
    assert Message.objects.filter(player=client.player).count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("status", [500, 429])
def test_a_busy_push_service_is_tried_again_later(clients, service, status):
    service.answers = [status]
    service.retry_after = "7200" if status == 429 else None
    gid, client, sub = waiting_for_turn(clients, service)
    before = timezone.now()
    assert delivery.sweep() == 0
    row = Message.objects.get(player=client.player, kind="your_turn")
    assert row.status == Status.PENDING and row.attempts == 1 and row.done == []
    wait = 7200 if status == 429 else 3600  # the service's Retry-After, or the backoff
    assert row.retry_at >= before + timedelta(seconds=wait)
    assert delivery.sweep() == 0 and len(service.requests) == 1  # not before then
    pass_time(client.player)
    assert delivery.sweep() == 1
    (message,) = service.delivered()
    assert message["title"] == f"Your turn in game {gid} (Standard UNO)"
    row.refresh_from_db()
    assert row.status == Status.SENT and len(service.requests) == 2


@pytest.mark.django_db
def test_order_per_channel_email_goes_on_while_push_waits(clients, service, smtp):
    """The player has email and push; the push service is busy for the first message: it
    goes by email, waits on push; a second message goes by email at once and waits on push
    behind the first; once the first is tried again, both go by push, in order, as one."""
    gid, client, sub = waiting_for_turn(clients, service)
    reachable_by_email(client.player, "both@example.test")
    service.answers = [503]
    Message.objects.filter(player=client.player).exclude(kind="your_turn").delete()
    assert delivery.deliver_player(client.player.pk) == 0
    first = Message.objects.get(player=client.player, kind="your_turn")
    assert first.done == ["email"] and first.status == Status.PENDING
    assert [m["Subject"] for m in smtp.inbox.to("both@example.test")] == [f"Your turn in game {gid} (Standard UNO)"]
    # someone challenges them: that message is due now (no request of theirs: their
    # your_turn is still worth sending)
    (other,) = clients(1)
    r = other.post("/api/v1/challenges", {"ruleset": "standard", "to": [client.player.username]}, format="json")
    assert r.status_code == 201, r.content
    second = Message.objects.get(player=client.player, kind="challenge")
    assert delivery.deliver_player(client.player.pk) == 0
    second.refresh_from_db()
    assert second.done == ["email"] and second.status == Status.PENDING and second.retry_at == first.retry_at
    assert len(smtp.inbox.to("both@example.test")) == 2 and len(service.requests) == 1  # push: not overtaken
    pass_time(client.player)
    assert delivery.deliver_player(client.player.pk) == 2
    (digest,) = service.delivered()
    assert digest["title"] == "2 updates from your UNO games" and digest["kind"] == "digest"
    lines = digest["body"].splitlines()
    assert f"game {gid} " in lines[0] and f"{other.player.username} challenges you" in lines[1]  # in order
    no_card(digest["title"], digest["body"])
    assert len(smtp.inbox.to("both@example.test")) == 2  # email did not get them twice


# --------------------------------------------------------------------------------------
# Order per player (email)
# --------------------------------------------------------------------------------------
def started_game(host, clients) -> int:
    (guest,) = clients(1)
    gid = host.post("/api/v1/games", {"ruleset": "standard", "max_players": 2, "turn_seconds": 86400},
                    format="json").json()["id"]
    assert guest.post(f"/api/v1/games/{gid}/join").status_code == 200
    start(gid, host)
    Message.objects.filter(player=host.player, game_id=gid).exclude(kind="game_started").delete()
    return gid


@pytest.mark.django_db
@pytest.mark.parametrize("digest", [True, False])
def test_a_later_message_never_overtakes_one_waiting_to_be_retried(clients, settings, digest):
    port = free_port()
    use_smtp(settings, port)  # nothing listens there: the mail server is down
    (host,) = clients(1)
    reachable_by_email(host.player, "order@example.test")
    Preferences.objects.filter(pk=host.player.pk).update(digest=digest)
    first = started_game(host, clients)
    assert delivery.deliver_player(host.player.pk) == 0
    row1 = Message.objects.get(player=host.player, game_id=first)
    assert row1.status == Status.PENDING and row1.attempts == 1 and row1.retry_at > timezone.now()
    server = SmtpServer(port).start()  # the mail server is back; the first waits for its retry
    try:
        second = started_game(host, clients)
        assert delivery.deliver_player(host.player.pk) == 0
        assert server.inbox.messages == []  # the second did not go before the first
        row2 = Message.objects.get(player=host.player, game_id=second)
        assert row2.status == Status.PENDING and row2.attempts == 0 and row2.retry_at == row1.retry_at
        assert delivery.sweep() == 0  # the sweeper neither
        pass_time(host.player)
        assert delivery.sweep() == 2
        subjects = [m["Subject"] for m in server.inbox.messages]
        if digest:
            assert subjects == ["2 updates from your UNO games"]
            text = body_of(server.inbox.messages[0])
            assert text.index(f"Game {first} started") < text.index(f"Game {second} started")
        else:
            assert subjects == [f"Game {first} started (Standard UNO)", f"Game {second} started (Standard UNO)"]
    finally:
        server.stop()
    assert set(Message.objects.filter(player=host.player).values_list("status", flat=True)) == {Status.SENT}


# --------------------------------------------------------------------------------------
# FCM and APNs through the outbox
# --------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_fcm_and_apns_devices_get_the_message(clients, ca, settings, tmp_path):
    apns = ApnsService(ca, tmp_path)
    try:
        with FcmService(ca, tmp_path) as fcm:
            settings.UNO_FCM_CREDENTIALS_FILE, settings.UNO_FCM_PROJECT_ID = str(fcm.credentials_file), ""
            settings.UNO_FCM_ENDPOINT = fcm.url
            settings.UNO_APNS_KEY_FILE, settings.UNO_APNS_KEY_ID = str(apns.key_file), apns.key_id
            settings.UNO_APNS_TEAM_ID, settings.UNO_APNS_TOPIC = apns.team_id, apns.topic
            settings.UNO_APNS_ENDPOINT, settings.UNO_PUSH_CA_BUNDLE = apns.url, str(ca.ca_file)
            gid, by_id = correspondence_game(clients)
            phone = next(iter(by_id.values()))
            for body in ({"platform": "fcm", "token": "android-device-1"}, {"platform": "apns", "token": "ab" * 32}):
                assert phone.post(SUBSCRIPTIONS, body, format="json").status_code == 201
            start(gid, phone)
            Message.objects.filter(player=phone.player).exclude(kind="game_started").delete()
            assert delivery.deliver_player(phone.player.pk) == 1
            (sent,) = fcm.sends()
            assert sent["error"] is None and sent["message"]["token"] == "android-device-1"
            title = f"Game {gid} started (Standard UNO)"
            assert sent["message"]["notification"]["title"] == title
            assert sent["message"]["data"]["url"] == f"http://uno.test/#/game/{gid}"
            (request,) = apns.requests
            assert request["error"] is None and request["path"] == f"/3/device/{'ab' * 32}"
            assert request["message"]["aps"]["alert"]["title"] == title
            no_card(sent["message"]["notification"]["body"], request["message"]["aps"]["alert"]["body"])
            # the phone app was uninstalled: FCM says UNREGISTERED, the token is deleted
            fcm.status = 404
            Message.objects.filter(player=phone.player).update(status=Status.PENDING, done=[])
            assert delivery.deliver_player(phone.player.pk) == 1  # APNs took it again (a test's replay)
            assert list(PushSubscription.objects.filter(player=phone.player).values_list("platform", flat=True)) == [
                "apns"]
    finally:
        apns.close()


# --------------------------------------------------------------------------------------
# Challenges and rematch offers by email
# --------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_challenge_is_written_with_it_and_emailed(named_clients, smtp, api):
    alice, bob = named_clients("alice"), named_clients("bob")
    reachable_by_email(alice.player, "alice@example.test")
    # written in the challenge's transaction: a challenge rolled back leaves no message
    with pytest.raises(RuntimeError), transaction.atomic():
        meeting.create_challenge(challenger=bob.player, ruleset="standard", to=["alice"], turn_seconds=86400)
        assert Message.objects.filter(player=alice.player, kind="challenge").count() == 1
        raise RuntimeError("rolled back")
    assert not Message.objects.filter(player=alice.player).exists()
    r = bob.post("/api/v1/challenges", {"ruleset": "standard", "to": ["alice"], "turn_seconds": 86400, "rated": True},
                 format="json")
    assert r.status_code == 201, r.content
    row = Message.objects.get(player=alice.player, kind="challenge")
    assert row.data["challenge"] == r.json()["id"] and row.due_at <= timezone.now()
    assert delivery.deliver_player(alice.player.pk) == 1
    (mail,) = smtp.inbox.to("alice@example.test")
    assert mail["Subject"] == "bob challenges you to Standard UNO"
    text = body_of(mail)
    assert "bob challenges you to a rated game of Standard UNO (86400 seconds a turn)" in text
    assert "http://uno.test/#/lobby" in text and "/api/v1/unsubscribe/" in mail["List-Unsubscribe"]
    no_card(mail["Subject"], text)
    # the unsubscribe link turns challenges' email off: the next challenge is not emailed
    link = re.search(r"<http://uno\.test(/api/v1/unsubscribe/[^>]+)>", mail["List-Unsubscribe"]).group(1)
    r = api.post(link)
    assert r.status_code == 200 and r.json()["kind"] == "challenge" and r.json()["unsubscribed"] is True
    carol = named_clients("carol")
    assert carol.post("/api/v1/challenges", {"ruleset": "standard", "to": ["alice"]}, format="json").status_code == 201
    assert delivery.deliver_player(alice.player.pk) == 0
    skipped = Message.objects.get(player=alice.player, kind="challenge", data__from="carol")
    assert skipped.status == Status.SKIPPED and len(smtp.inbox.to("alice@example.test")) == 1


@pytest.mark.django_db
def test_a_rematch_offer_is_written_with_it_and_emailed(named_clients, smtp):
    from games import services as games

    alice, bob = named_clients("alice"), named_clients("bob")
    reachable_by_email(bob.player, "bob@example.test")
    with transaction.atomic():
        game = games.create_table(seats=[alice.player, bob.player], ruleset="standard", options={"rounds": 1},
                                  turn_seconds=86400)
    Game.objects.filter(pk=game.pk).update(status="finished", finished_at=timezone.now(), winner_seat=0)
    Message.objects.filter(player=bob.player).delete()
    # written in the offer's transaction
    with pytest.raises(RuntimeError), transaction.atomic():
        meeting.rematch(player=alice.player, game_id=game.pk)
        assert Message.objects.filter(player=bob.player, kind="rematch").count() == 1
        raise RuntimeError("rolled back")
    assert not Message.objects.filter(player=bob.player).exists()
    assert alice.post(f"/api/v1/games/{game.pk}/rematch").json()["status"] == "offered"
    assert delivery.deliver_player(bob.player.pk) == 1
    (mail,) = smtp.inbox.to("bob@example.test")
    assert mail["Subject"] == f"alice offers a rematch of game {game.pk}"
    text = body_of(mail)
    assert f"http://uno.test/#/game/{game.pk}" in text and "Answer before" in text
    no_card(mail["Subject"], text)
    # the preference: rematch offers not by email
    r = bob.patch(NOTIFICATIONS, {"kinds": {"rematch": {"email": False}}}, format="json")
    assert r.status_code == 200
    Message.objects.filter(player=bob.player).update(status=Status.PENDING, done=[])
    assert delivery.deliver_player(bob.player.pk) == 0
    assert Message.objects.get(player=bob.player).status == Status.SKIPPED
    assert len(smtp.inbox.to("bob@example.test")) == 1


# --------------------------------------------------------------------------------------
# Old rows
# --------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_prune_deletes_old_delivered_and_skipped_rows_only(make_player, settings):
    settings.UNO_REACH_KEEP_DAYS = 30
    player, _ = make_player()
    now = timezone.now()
    old, recent = now - timedelta(days=31), now - timedelta(days=29)

    def row(key, status, due):
        return Message.objects.create(player=player, kind="challenge", key=key, due_at=due, status=status)

    kept = [row("a", Status.SENT, recent), row("b", Status.SKIPPED, recent), row("c", Status.FAILED, old),
            row("d", Status.PENDING, old)]
    gone = [row("e", Status.SENT, old), row("f", Status.SKIPPED, old)]
    assert delivery.prune() == 2
    assert delivery.prune() == 0  # twice: nothing more
    assert set(Message.objects.values_list("pk", flat=True)) == {m.pk for m in kept}
    assert not Message.objects.filter(pk__in=[m.pk for m in gone]).exists()
    from reach import tasks

    settings.UNO_REACH_KEEP_DAYS = 28
    assert tasks.prune.apply().get() == 2  # the beat task
    assert settings.CELERY_BEAT_SCHEDULE["prune-notifications"]["task"] == "reach.tasks.prune"


# --------------------------------------------------------------------------------------
# The product's worker
# --------------------------------------------------------------------------------------
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_the_worker_pushes_your_turn_and_retries_a_busy_service(tmp_path, clients, service, keys, ca):
    service.answers = [500]
    gid, client, sub = waiting_for_turn(clients, service)  # commits, and queues the delivery task
    env = {**webpush_settings(keys, ca), "UNO_PUSH_ALLOW_PRIVATE": 1, "UNO_REACH_YOUR_TURN_DELAY_SECONDS": 0,
           "UNO_REACH_SWEEP_SECONDS": 10,
           "UNO_PUBLIC_URL": "http://uno.test", "UNO_REACH_RETRY_SECONDS": 1}
    with celery_worker(tmp_path, "push", **env) as worker:
        wait_for(service.delivered, 60, 0.1, f"the push message; worker: {worker.output()}")
    (message,) = service.delivered()
    assert message["title"] == f"Your turn in game {gid} (Standard UNO)"
    assert message["url"] == f"http://uno.test/#/game/{gid}"
    no_card(message["title"], message["body"])
    assert [r["status"] for r in service.requests] == [500, None]  # refused once, then taken
    row = Message.objects.get(player=client.player, kind="your_turn")
    assert row.status == Status.SENT and row.attempts == 1


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_reminder_due_soon_gets_its_own_task_without_the_sweeper(tmp_path, clients, smtp, settings):
    """With UNO_REACH_FAST_PATH_SECONDS set, a game's start writes a message due now and
    a reminder due in a few seconds for the player in turn: each due time gets its
    delivery task after the commit, so the worker sends the reminder at its time with
    no sweeper running (no beat here)."""
    settings.UNO_REACH_MIN_TURN_SECONDS = 10
    settings.UNO_REACH_FAST_PATH_SECONDS = 600
    gid, by_id = correspondence_game(clients, turn_seconds=20)  # a reminder when 5 s are left
    for c in by_id.values():
        reachable_by_email(c.player)
    owner = next(iter(by_id.values()))
    env = {"UNO_REACH_MIN_TURN_SECONDS": 10, "UNO_REACH_FAST_PATH_SECONDS": 600, "UNO_PUBLIC_URL": "http://uno.test",
           "EMAIL_TIMEOUT": 30,
           "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1",
           "EMAIL_PORT": smtp.port}
    with celery_worker(tmp_path, "soon", **env) as worker:
        start(gid, owner)  # commits: the tasks are queued
        mover = player_at(gid, Game.objects.get(pk=gid).current_seat)
        reminder = Message.objects.get(player=mover, kind="reminder")
        assert reminder.due_at > timezone.now()  # not due yet: the task at the start could not send it
        address = f"{mover.username}@example.test"  # (reachable_by_email's)
        wait_for(lambda: [m for m in smtp.inbox.to(address) if str(m["Subject"]).startswith("Reminder:")],
                 60, 0.1, f"the reminder; worker: {worker.output()}")
    reminder.refresh_from_db()
    assert reminder.status == Status.SENT and reminder.sent_at >= reminder.due_at


@pytest.mark.django_db
@requires_redis
def test_the_sweeper_queues_a_task_for_what_comes_due_before_its_next_run(clients, smtp, settings, redis_broker):
    """A move queues nothing for a message due later (UNO_REACH_FAST_PATH_SECONDS 0, the
    default); the sweep before it comes due queues its delivery task, at its time (in
    the real broker, read back); a message due after the next sweep gets none yet."""
    from config.celery import app

    settings.UNO_REACH_FAST_PATH_SECONDS = 0
    settings.UNO_REACH_MIN_TURN_SECONDS = 10
    settings.UNO_REACH_SWEEP_SECONDS = 30
    soon, by_id = correspondence_game(clients, turn_seconds=20)  # its reminder when 5 s are left: 15 s on
    later, by_id2 = correspondence_game(clients, turn_seconds=3600)  # reminders 45 and 59 minutes on
    for c in [*by_id.values(), *by_id2.values()]:
        reachable_by_email(c.player)
    start(soon, next(iter(by_id.values())))
    start(later, next(iter(by_id2.values())))
    waiting = {player_at(g, Game.objects.get(pk=g).current_seat).pk: g for g in (soon, later)}
    app.control.purge()
    delivery.sweep()  # sends what is due now (game started, your turn) and queues what comes soon
    queued = [args for name, args in queued_tasks() if name == "deliver"]
    soon_player = next(p for p, g in waiting.items() if g == soon)
    assert queued == [(soon_player,)]
    assert Message.objects.get(player_id=soon_player, kind="reminder").status == Status.PENDING
    app.control.purge()
