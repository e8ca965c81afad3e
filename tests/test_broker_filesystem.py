"""The embedded default's broker (config/broker.py): a message is written whole before a
worker can see it (kombu's own filesystem transport let a worker read an empty file and
die of a JSONDecodeError)."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings
from kombu import Connection

import config.broker

pytestmark = pytest.mark.concurrency


def folders(tmp_path) -> dict:
    queue = tmp_path / "queue"
    queue.mkdir()
    return {"data_folder_in": str(queue), "data_folder_out": str(queue), "control_folder": str(tmp_path / "control"),
            "store_processed": False, "polling_interval": 0.01}


def test_a_worker_polling_while_a_message_is_being_written_finds_nothing_then_the_whole_message(
        tmp_path, monkeypatch):
    """The writer is held with the message's file open and unwritten; the worker polls
    meanwhile and finds nothing, then the whole message once it is written."""
    options = folders(tmp_path)
    writing, proceed = threading.Event(), threading.Event()
    real = config.broker.str_to_bytes

    def held(text):  # called with the message's file already open
        writing.set()
        assert proceed.wait(10)
        return real(text)

    with Connection("filesystem://", transport="config.broker:Transport", transport_options=options) as conn:
        queue = conn.SimpleQueue("q")
        monkeypatch.setattr(config.broker, "str_to_bytes", held)
        writer = threading.Thread(target=queue.put, args=({"id": 1, "payload": "y" * 1000},))
        writer.start()
        assert writing.wait(10), "the message is being written"
        assert list((tmp_path / "queue").iterdir()), "its file exists, unwritten"
        with pytest.raises(queue.Empty):
            queue.get(timeout=0.3)  # polls the folder: the unwritten message is not taken
        proceed.set()
        writer.join(10)
        message = queue.get(timeout=5)
        assert message.payload == {"id": 1, "payload": "y" * 1000}
        message.ack()
    assert not list((tmp_path / "queue").iterdir()), "nothing left behind"


def test_the_embedded_default_uses_it():
    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        assert settings.CELERY_BROKER_TRANSPORT == "config.broker:Transport"
    else:
        assert not hasattr(settings, "CELERY_BROKER_TRANSPORT")
