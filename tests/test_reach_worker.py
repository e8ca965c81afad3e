"""reach's delivery on the whole stack: the product's Celery worker (a real ``celery -A
config worker`` process) delivers the outbox into a real SMTP server (aiosmtpd), and a
worker killed while it delivers loses nothing: the beat sweeper delivers, once, after
the killed worker's lease ends.  (Marked ``concurrency``: run on PostgreSQL + Redis and
on the embedded default, SQLite and the filesystem broker.)"""

from __future__ import annotations

import os
import signal
import socket
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from players.models import Player
from reach.models import Message, Preferences, Status
from tests.celery_helpers import celery_beat, celery_worker, child_pids, wait_for
from tests.smtp_support import SmtpServer
from tests.test_reach import correspondence_game, play_one, player_at, reachable_by_email, start

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]

SETTINGS = {"UNO_REACH_YOUR_TURN_DELAY_SECONDS": 0, "UNO_PUBLIC_URL": "http://uno.test", "EMAIL_TIMEOUT": 30}


@pytest.fixture(autouse=True)
def _settings(settings):
    for name, value in SETTINGS.items():
        setattr(settings, name, value)


def waiting_player(clients, address: str):
    gid, by_id = correspondence_game(clients)
    start(gid, next(iter(by_id.values())))
    waiting = player_at(gid, 1 - Game.objects.get(pk=gid).current_seat)
    reachable_by_email(waiting, address)
    Player.objects.filter(pk=waiting.pk).update(last_seen_at=timezone.now() - timedelta(hours=1))
    return gid, waiting


def test_the_worker_delivers_your_turn_into_the_mail_server(tmp_path, clients):
    smtp = SmtpServer().start()
    try:
        gid, waiting = waiting_player(clients, "w@example.test")
        play_one(gid)  # commits, and queues the delivery task
        with celery_worker(tmp_path, "mail", **SETTINGS, **smtp.env()) as worker:
            wait_for(lambda: smtp.inbox.to("w@example.test"), 60, 0.1, f"the email; worker: {worker.output()}")
        (mail,) = smtp.inbox.to("w@example.test")
        assert mail["Subject"] == f"Your turn in game {gid} (Standard UNO)"
        assert f"http://uno.test/#/game/{gid}" in mail.get_body().get_content()
        assert Message.objects.get(player=waiting, kind="your_turn").status == Status.SENT
    finally:
        smtp.stop()


def _kill(proc) -> None:
    """SIGKILL a worker and its pool processes: nothing runs its shutdown."""
    for pid in [*child_pids(proc.pid), proc.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(30)


def test_a_worker_killed_while_delivering_loses_nothing(tmp_path, clients):
    # a mail server that takes the connection and never answers: the worker hangs in it
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(8)
    lease = {"UNO_REACH_LEASE_SECONDS": 3}
    smtp = SmtpServer().start()
    try:
        gid, waiting = waiting_player(clients, "k@example.test")
        play_one(gid)
        row = Message.objects.get(player=waiting, kind="your_turn")
        hung = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1",
                "EMAIL_PORT": hole.getsockname()[1]}
        with celery_worker(tmp_path, "doomed", **SETTINGS, **lease, **hung) as doomed:
            wait_for(lambda: Preferences.objects.filter(pk=waiting.pk, lease_until__isnull=False).exists(), 60, 0.05,
                     f"the worker taking the delivery; worker: {doomed.output()}")
            _kill(doomed.proc)
        row.refresh_from_db()
        assert row.status == Status.PENDING and smtp.inbox.messages == []
        # a new worker, and beat's sweeper, once the killed worker's lease has ended
        with celery_worker(tmp_path, "next", **SETTINGS, **lease, **smtp.env()) as worker, \
                celery_beat(tmp_path, 0.5, UNO_REACH_SWEEP_SECONDS=1, **lease):
            wait_for(lambda: smtp.inbox.to("k@example.test"), 60, 0.1, f"the email; worker: {worker.output()}")
            time.sleep(3)  # more sweeps: nothing more is sent
        assert len(smtp.inbox.to("k@example.test")) == 1
        row.refresh_from_db()
        assert row.status == Status.SENT and row.attempts == 0
    finally:
        smtp.stop()
        hole.close()
