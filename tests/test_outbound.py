"""Webhook URLs cannot turn the server against its own network (players/outbound.py):
refused at registration and again at each delivery, connections pinned to the
checked address, no redirects, bounded times and bodies.  Real HTTP(S) servers on
127.0.0.1 count the hits; only the resolver is replaced where a test must make a
name resolve somewhere else (``outbound.resolve``, the module's one DNS call)."""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time

import pytest
import trustme

from games import notifications, tasks
from players import outbound
from players.models import Webhook

from .celery_helpers import client_for, requires_redis, wait_for, worker  # noqa: F401 (fixture)
from .loopback_http import LoopbackServer

#: a public address; no test connects to it
PUBLIC = "93.184.215.14"
WEBHOOK = "/api/v1/players/me/webhook"


def put_webhook(client, url: str):
    return client.put(WEBHOOK, {"url": url}, format="json")


def resolver(answers: dict[str, list[str]], calls: list[str] | None = None):
    """A stand-in for outbound.resolve that answers from ``answers`` (and records the
    names asked in ``calls``)."""

    def resolve(host: str, port: int) -> list[str]:
        if calls is not None:
            calls.append(host)
        return answers[host]

    return resolve


# --- Registration -----------------------------------------------------------------


@pytest.mark.parametrize(
    "url, why",
    [
        ("http://127.0.0.1/", "a loopback address"),
        ("http://[::1]:8080/hook", "a loopback address"),
        ("http://10.0.0.5/", "a private address"),
        ("http://172.16.0.1/", "a private address"),
        ("http://192.168.1.1/", "a private address"),
        ("http://169.254.169.254/latest/meta-data/", "a link-local address"),
        ("http://0.0.0.0/", "an unspecified address"),
        ("http://224.0.0.1/", "a multicast address"),
        ("http://[::ffff:127.0.0.1]/", "a loopback address"),  # IPv4-mapped IPv6
        ("http://[2002:7f00:1::]/", "a loopback address"),  # 6to4 of 127.0.0.1
        ("http://[fc00::1]/", "a private address"),
        ("http://[fe80::1]/", "a link-local address"),
        ("http://100.64.0.1/", "a non-public address"),  # carrier-grade NAT
        ("https://localhost:6379/", "a loopback address"),  # a name, resolved for real
    ],
)
def test_a_url_leading_to_a_non_public_address_is_refused_at_registration(auth_client, url, why):
    r = put_webhook(auth_client, url)
    assert r.status_code == 400, r.content
    body = r.json()
    assert body["code"] == "invalid"
    assert body["fields"] == {"url": [f"The URL resolves to {why}."]}
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    "url, why",
    [
        ("http://user:password@example.com/", "The URL must not contain a user name or password."),
        ("ftp://example.com/", "The URL must be an http or https URL."),
        ("http://no-such-host.invalid/", "The URL does not resolve."),
    ],
)
def test_a_url_that_cannot_be_called_is_refused_at_registration(auth_client, url, why):
    r = put_webhook(auth_client, url)
    assert r.status_code == 400 and r.json()["fields"] == {"url": [why]}, r.content


@pytest.mark.parametrize("url", ["http://2130706433/", "http://0177.0.0.1/", "http://127.1:8000/",
                                 "http://[::127.0.0.1]/", "http://LocalHost/"])
def test_odd_spellings_of_loopback_are_refused(url):
    """What the address turns out to be counts, however the URL spells it (these pass no
    URL validator of the API: here the module is asked directly)."""
    with pytest.raises(outbound.Refused):
        outbound.check(url)


def test_a_name_with_any_non_public_address_is_refused(auth_client, monkeypatch):
    monkeypatch.setattr(outbound, "resolve", resolver({"hooks.example.com": [PUBLIC, "10.0.0.5"]}))
    r = put_webhook(auth_client, "https://hooks.example.com/uno")
    assert r.status_code == 400 and r.json()["fields"] == {"url": ["The URL resolves to a private address."]}

    monkeypatch.setattr(outbound, "resolve", resolver({"hooks.example.com": [PUBLIC]}))
    r = put_webhook(auth_client, "https://hooks.example.com/uno")
    assert r.status_code == 200 and r.json()["url"] == "https://hooks.example.com/uno"


def test_the_development_switch_lets_private_addresses_through(auth_client, settings):
    settings.UNO_WEBHOOK_ALLOW_PRIVATE = True
    assert put_webhook(auth_client, "http://127.0.0.1:9/hook").status_code == 200


# --- Delivery ------------------------------------------------------------------------


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_a_name_resolving_to_loopback_at_delivery_is_not_called(worker, make_player, monkeypatch, settings,
                                                                caplog):
    settings.UNO_WEBHOOK_RETRY_BACKOFF_SECONDS = 0.05  # a retry, if any, would come at once
    player, token = make_player("mallory")
    with LoopbackServer() as server:
        url = f"http://localhost:{server.port}/hook"
        # At registration the name resolves to a public address...
        with monkeypatch.context() as m:
            m.setattr(outbound, "resolve", resolver({"localhost": [PUBLIC]}))
            r = put_webhook(client_for(token), url)
        assert r.status_code == 200, r.content
        secret = r.json()["secret"]
        # ... at delivery (real resolution from here on) to 127.0.0.1.
        worker.start()
        logging.getLogger().addHandler(caplog.handler)  # the worker's django.setup() reset the root's
        tasks.deliver_webhook.delay(player.pk, "game_started", {"event": "game_started", "game": 1}, "d-1")
        wait_for(lambda: worker.log.runs("deliver_webhook"), timeout=10, message="the delivery task")
        time.sleep(0.5)
        assert server.hits == 0
        assert [run[2:] for run in worker.log.runs("deliver_webhook")] == [(None, "SUCCESS")]  # no retry
        assert "refused: the URL resolves to a loopback address; not retried" in caplog.text
        assert secret not in caplog.text and url not in caplog.text

        # The same delivery with the development switch on does reach the server (so the
        # zero above is the guard's doing), under the URL's host name, said in the log.
        settings.UNO_WEBHOOK_ALLOW_PRIVATE = True
        tasks.deliver_webhook.delay(player.pk, "game_started", {"event": "game_started", "game": 1}, "d-2")
        wait_for(lambda: server.hits, timeout=10, message="the delivery with the switch on")
        assert server.requests[0]["headers"]["Host"] == f"localhost:{server.port}"
        wait_for(lambda: "UNO_WEBHOOK_ALLOW_PRIVATE is on" in caplog.text, timeout=5)


def test_the_connection_goes_to_the_address_that_was_checked(caplog):
    """Resolved once, connected to that address: a second lookup (which for this name
    would fail) never happens, and the request still names the URL's host."""
    calls: list[str] = []
    with LoopbackServer() as server:
        resolve = resolver({"hooks.rebind.invalid": ["127.0.0.1"]}, calls)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(outbound, "resolve", resolve)
            resp = outbound.post(f"http://hooks.rebind.invalid:{server.port}/p?q=1", b"{}", {},
                                 allow_private=True)
        assert resp.status == 204 and calls == ["hooks.rebind.invalid"]
        (request,) = server.requests
        assert request["path"] == "/p?q=1" and request["headers"]["Host"] == f"hooks.rebind.invalid:{server.port}"
        assert "UNO_WEBHOOK_ALLOW_PRIVATE is on" in caplog.text  # on every such call
        with pytest.MonkeyPatch.context() as m:
            m.setattr(outbound, "resolve", resolve)
            with pytest.raises(outbound.Refused, match="loopback"):
                outbound.post(f"http://hooks.rebind.invalid:{server.port}/p", b"{}", {})
        assert server.hits == 1


@pytest.mark.django_db
def test_redirects_are_not_followed(make_player, settings):
    settings.UNO_WEBHOOK_ALLOW_PRIVATE = True
    with LoopbackServer() as target:

        def redirect(handler, request):
            handler.send_response(302)
            handler.send_header("Location", f"{target.url}/elsewhere")
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with LoopbackServer(redirect) as server:
            player, _ = make_player("alice")
            Webhook.objects.create(player=player, url=f"{server.url}/hook", secret="s" * 64)
            with pytest.raises(notifications.PermanentFailure, match="HTTP 302"):
                notifications.deliver(player.pk, "game_started", {"event": "game_started"}, "d-1")
            assert server.hits == 1 and target.hits == 0


@pytest.mark.django_db
def test_a_name_that_does_not_resolve_at_delivery_is_retried(make_player, settings):
    player, _ = make_player("alice")
    Webhook.objects.create(player=player, url="http://no-such-host.invalid/hook", secret="s" * 64)
    with pytest.raises(outbound.Unresolvable):  # an OSError: the task retries it
        notifications.deliver(player.pk, "game_started", {"event": "game_started"}, "d-1")


# --- Limits ------------------------------------------------------------------------


def test_the_response_body_read_is_capped():
    def endless(handler, request):
        handler.send_response(200)
        handler.end_headers()
        try:
            while True:
                handler.wfile.write(b"x" * 65536)
        except OSError:
            pass  # the client stopped reading

    with LoopbackServer(endless) as server:
        resp = outbound.post(server.url, b"{}", {}, allow_private=True)
    assert resp.status == 200 and resp.truncated and len(resp.body) == outbound.MAX_RESPONSE_BYTES


@pytest.fixture
def release():
    """Set at the end of the test: slow servers stop waiting."""
    event = threading.Event()
    yield event
    event.set()


def test_a_server_that_does_not_answer_meets_the_read_timeout(release):
    def late(handler, request):
        release.wait(10)  # without a read timeout, the call would get this 204 after 10 s
        handler.send_response(204)
        handler.end_headers()

    with LoopbackServer(late) as server:
        with pytest.raises(TimeoutError):
            outbound.post(server.url, b"{}", {}, allow_private=True, read_timeout=0.2, total_timeout=60)
        release.set()


def test_a_server_dripping_its_answer_meets_the_total_timeout(release):
    def drip(handler, request):
        handler.send_response(200)
        handler.send_header("Content-Length", "200")
        handler.end_headers()
        for _ in range(200):  # 200 bytes over 10 s: every read is quick, the whole is not
            if release.wait(0.05):
                return
            handler.wfile.write(b"x")
            handler.wfile.flush()

    with LoopbackServer(drip) as server:
        with pytest.raises(TimeoutError):
            outbound.post(server.url, b"{}", {}, allow_private=True, read_timeout=5, total_timeout=0.3)
        release.set()


def test_a_host_that_does_not_accept_meets_the_connect_timeout():
    """A listener whose backlog is full: the kernel drops further connection attempts."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    try:
        for _ in range(20):
            probe = socket.socket()
            fillers.append(probe)
            probe.settimeout(0.2)
            try:
                probe.connect(("127.0.0.1", port))
            except TimeoutError:
                break
        else:
            pytest.skip("this kernel does not drop connections to a full backlog")
        outcome: list[BaseException | None] = []

        def call():
            try:
                outbound.post(f"http://127.0.0.1:{port}/", b"{}", {}, allow_private=True,
                              connect_timeout=0.2, total_timeout=120)
                outcome.append(None)
            except BaseException as exc:  # noqa: BLE001 (reported below)
                outcome.append(exc)

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        caller.join(20)  # the kernel alone would wait minutes
        assert outcome and isinstance(outcome[0], TimeoutError), outcome
    finally:
        for s in fillers:
            s.close()
        listener.close()


# --- https: the connection to the checked address still verifies the URL's name -------


def test_https_checks_the_certificate_of_the_urls_host():
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("hooks.example.test").configure_cert(server_context)
    names: list[str | None] = []
    server_context.sni_callback = lambda sock, name, ctx: names.append(name)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    loopback = {"hooks.example.test": ["127.0.0.1"], "other.example.test": ["127.0.0.1"]}

    with LoopbackServer(context=server_context) as server, pytest.MonkeyPatch.context() as m:
        m.setattr(outbound, "resolve", resolver(loopback))
        resp = outbound.post(f"https://hooks.example.test:{server.port}/tls", b"{}", {},
                             allow_private=True, context=client_context)
        assert resp.status == 204 and names == ["hooks.example.test"]
        assert server.requests[0]["headers"]["Host"] == f"hooks.example.test:{server.port}"

        # Same address, another name: the certificate does not match it.
        with pytest.raises(ssl.SSLCertVerificationError):
            outbound.post(f"https://other.example.test:{server.port}/tls", b"{}", {},
                          allow_private=True, context=client_context)
        assert server.hits == 1
