"""A real SMTP server for the tests (aiosmtpd, on 127.0.0.1, a free port): the product's
emails go to it through Django's SMTP backend, and are read back as parsed messages."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Inbox:
    """aiosmtpd's handler: keeps every message it accepted."""

    def __init__(self):
        self.lock = threading.Lock()
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if address in str(m["To"])]


class SmtpServer:
    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.inbox = Inbox()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    def start(self) -> "SmtpServer":
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def env(self) -> dict[str, object]:
        """The settings that send the product's emails here (for a server process)."""
        return {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1",
                "EMAIL_PORT": self.port}


def use_smtp(settings, port: int) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 5


@pytest.fixture
def smtp(settings):
    """A running SMTP server that the product's emails are sent to (``smtp.inbox``)."""
    server = SmtpServer().start()
    use_smtp(settings, server.port)
    yield server
    server.stop()


def body_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()
