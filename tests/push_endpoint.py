"""Real local push services for the tests of reach/push.py (issue 29): each a server on
127.0.0.1 over TLS with a certificate of a test CA (trustme, on ``cryptography``), which
checks what a real service checks and records every request.

- :class:`WebPushService`: a Web Push service (RFC 8030).  :meth:`WebPushService.subscribe`
  makes a subscription as a browser does (a P-256 key pair and a 16-byte auth secret made
  with ``cryptography``) for an application server key.  On each POST it verifies the
  VAPID ``Authorization: vapid t=<JWT>,k=<key>`` (RFC 8292): the key is the subscription's
  application server key, the JWT's ES256 signature verifies with it (PyJWT), ``aud`` is
  the endpoint's origin, ``exp`` in the future and at most 24 hours away, ``sub`` a
  mailto: or https: contact; then it decrypts the body (``Content-Encoding: aes128gcm``,
  RFC 8291) with the subscription's private key and auth secret by ``http_ece``.  A
  request that fails a check is answered 401 (VAPID) or 400 (the payload) and recorded
  with its ``error``; else it answers :attr:`WebPushService.status` (201 by default; a
  test sets 404, 410, 429, 500...).
- :class:`FcmService`: FCM's HTTP v1 API and Google's OAuth 2 token endpoint.  It writes
  a service account's key file (an RSA key made here) whose ``token_uri`` is its own;
  the token endpoint verifies the JWT bearer assertion (RS256 with the account's public
  key, ``aud`` Google's token endpoint, ``iss`` the account, the FCM scope) and hands out an
  access token; ``messages:send`` checks that token and answers ``status`` (200, or
  FCM's error bodies: 404 ``UNREGISTERED``, 400 ``INVALID_ARGUMENT``, 429, 500...).
- :class:`ApnsService`: APNs' provider API over HTTP/2 (hypercorn, ALPN ``h2``): it
  verifies the provider token (ES256 with the ``.p8`` key made here, ``kid``, ``iss``),
  the topic and the path ``/3/device/<token>``, and answers ``status`` with APNs'
  ``reason`` (200, 410 ``Unregistered``, 400 ``BadDeviceToken``, 429, 500...).

``ca_file``: the CA's certificate, for ``UNO_PUSH_CA_BUNDLE``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

import pytest
from pathlib import Path

import http_ece
import jwt
import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from tests.loopback_http import LoopbackServer
from tests.server_support import free_port


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_point(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


class PushCA:
    """A CA for 127.0.0.1 (trustme); ``ca_file`` holds its certificate."""

    def __init__(self, directory: Path):
        self.ca = trustme.CA()
        self.cert = self.ca.issue_cert("127.0.0.1", "localhost")
        self.ca_file = directory / "push-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.chain_file = directory / "push-server.pem"
        self.cert.private_key_and_cert_chain_pem.write_to_path(str(self.chain_file))

    def server_context(self):
        import ssl

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.cert.configure_cert(context)
        return context


def answer(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"", headers: dict | None = None) -> None:
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if body:
        handler.wfile.write(body)


# --- Web Push ----------------------------------------------------------------------------------
class Subscription:
    """A browser's subscription: its key pair and auth secret, made as a browser makes them."""

    def __init__(self, endpoint: str, application_server_key: str):
        self.endpoint = endpoint
        self.application_server_key = application_server_key
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)

    def info(self) -> dict:
        """What ``PushSubscription.toJSON()`` gives a page."""
        return {"endpoint": self.endpoint,
                "keys": {"p256dh": b64url(public_point(self.private_key)), "auth": b64url(self.auth)}}


class VerificationError(Exception):
    pass


def verify_vapid(authorization: str, *, application_server_key: str, origin: str, now: float | None = None) -> dict:
    """The claims of a VAPID ``Authorization`` header (RFC 8292) after every check a push
    service makes; VerificationError says which failed."""
    now = time.time() if now is None else now
    scheme, _, params = (authorization or "").partition(" ")
    if scheme.lower() != "vapid":
        raise VerificationError(f"not a vapid authorization: {scheme!r}")
    fields = dict(p.strip().split("=", 1) for p in params.split(",") if "=" in p)
    if "t" not in fields or "k" not in fields:
        raise VerificationError("t= or k= missing")
    if fields["k"].rstrip("=") != application_server_key.rstrip("="):
        raise VerificationError("k is not the subscription's application server key")
    try:
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(fields["k"]))
        claims = jwt.decode(fields["t"], key, algorithms=["ES256"], audience=origin,
                            options={"require": ["aud", "exp", "sub"]})
    except (jwt.PyJWTError, ValueError) as exc:
        raise VerificationError(f"the JWT does not verify: {type(exc).__name__}: {exc}") from None
    if not claims["exp"] > now or claims["exp"] > now + 24 * 3600:
        raise VerificationError(f"exp {claims['exp']} is not within the next 24 hours")
    if not str(claims["sub"]).startswith(("mailto:", "https:")):
        raise VerificationError(f"sub {claims['sub']!r} is neither mailto: nor https:")
    return claims


class WebPushService(LoopbackServer):
    """A Web Push service on 127.0.0.1 over TLS (see the module's doc)."""

    def __init__(self, ca: PushCA):
        self.ca = ca
        self.subscriptions: dict[str, Subscription] = {}
        #: what a request that passes every check is answered
        self.status = 201
        self.retry_after: str | None = None
        super().__init__(context=ca.server_context())
        self.origin = self.url

    def subscribe(self, application_server_key: str) -> Subscription:
        sub_id = secrets.token_urlsafe(12)
        sub = Subscription(f"{self.url}/push/{sub_id}", application_server_key)
        self.subscriptions[sub_id] = sub
        return sub

    def check(self, request: dict) -> None:
        """Verifies and decrypts ``request`` in place: ``claims``, ``message`` or ``error``."""
        headers = {k.lower(): v for k, v in request["headers"].items()}
        sub = self.subscriptions.get(request["path"].rsplit("/", 1)[-1])
        request.update(claims=None, message=None, error=None, status=None)
        if sub is None or not request["path"].startswith("/push/"):
            request["error"], request["status"] = "no such subscription", 404
            return
        try:
            request["claims"] = verify_vapid(headers.get("authorization", ""), origin=self.origin,
                                             application_server_key=sub.application_server_key)
        except VerificationError as exc:
            request["error"], request["status"] = f"vapid: {exc}", 401
            return
        if headers.get("content-encoding") != "aes128gcm" or "ttl" not in headers:
            request["error"], request["status"] = "Content-Encoding aes128gcm and TTL are required", 400
            return
        try:
            plain = http_ece.decrypt(request["body"], private_key=sub.private_key, auth_secret=sub.auth,
                                     version="aes128gcm")
            request["message"] = json.loads(plain)
        except Exception as exc:  # http_ece raises its own ECEException, cryptography InvalidTag
            request["error"], request["status"] = f"payload: {type(exc).__name__}: {exc}", 400

    def record(self, request: dict) -> None:
        self.check(request)
        self.requests.append(request)

    def respond(self, handler, request: dict) -> None:
        status = request["status"] or self.status
        headers = {"Location": f"{self.url}/message/{len(self.requests)}"} if status == 201 else {}
        if self.retry_after and status in (429, 503):
            headers["Retry-After"] = self.retry_after
        answer(handler, status, b"" if status < 300 else b'{"error": "stand-in"}', headers)


# --- FCM ------------------------------------------------------------------------------------------
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
#: the ``aud`` of a service account's assertion: Google's token endpoint, whatever
#: ``token_uri`` the request goes to (google-auth's and Google's rule)
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
FCM_ERRORS = {
    404: ("NOT_FOUND", "UNREGISTERED"),
    400: ("INVALID_ARGUMENT", "INVALID_ARGUMENT"),
    429: ("RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"),
    500: ("INTERNAL", "INTERNAL"),
    503: ("UNAVAILABLE", "UNAVAILABLE"),
    403: ("PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
}


class FcmService(LoopbackServer):
    """FCM's HTTP v1 ``messages:send`` and the OAuth 2 token endpoint (see the module's doc)."""

    project = "uno-test"

    def __init__(self, ca: PushCA, directory: Path):
        super().__init__(context=ca.server_context())
        self.status = 200
        self.tokens: set[str] = set()
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.email = f"push@{self.project}.iam.gserviceaccount.com"
        self.credentials_file = directory / "fcm-service-account.json"
        self.credentials_file.write_text(json.dumps({
            "type": "service_account", "project_id": self.project, "private_key_id": "k1",
            "private_key": self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                  serialization.NoEncryption()).decode(),
            "client_email": self.email, "client_id": "1", "token_uri": f"{self.url}/token",
        }))

    def sends(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith("/messages:send")]

    def record(self, request: dict) -> None:
        request.update(error=None, status=None, message=None, claims=None)
        headers = {k.lower(): v for k, v in request["headers"].items()}
        if request["path"] == "/token":
            form = dict(urllib.parse.parse_qsl(request["body"].decode()))
            try:
                if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
                    raise VerificationError(f"grant_type {form.get('grant_type')!r}")
                claims = jwt.decode(form.get("assertion", ""), self.key.public_key(), algorithms=["RS256"],
                                    audience=GOOGLE_TOKEN_AUDIENCE, issuer=self.email,
                                    options={"require": ["aud", "iss", "exp", "iat"]})
                if FCM_SCOPE not in claims.get("scope", "").split():
                    raise VerificationError(f"scope {claims.get('scope')!r}")
                request["claims"] = claims
            except (jwt.PyJWTError, VerificationError) as exc:
                request["error"], request["status"] = f"token: {type(exc).__name__}: {exc}", 400
        elif request["path"] == f"/v1/projects/{self.project}/messages:send":
            token = headers.get("authorization", "").removeprefix("Bearer ")
            if token not in self.tokens:
                request["error"], request["status"] = "no valid access token", 401
            else:
                try:
                    request["message"] = json.loads(request["body"])["message"]
                except (ValueError, KeyError) as exc:
                    request["error"], request["status"] = f"body: {exc}", 400
        else:
            request["error"], request["status"] = "no such path", 404
        self.requests.append(request)

    def respond(self, handler, request: dict) -> None:
        if request["path"] == "/token" and request["status"] is None:
            token = secrets.token_urlsafe(24)
            self.tokens.add(token)
            answer(handler, 200, json.dumps({"access_token": token, "expires_in": 3600, "token_type": "Bearer"})
                   .encode(), {"Content-Type": "application/json"})
            return
        status = request["status"] or self.status
        if status == 200:
            body = {"name": f"projects/{self.project}/messages/{len(self.requests)}"}
        else:
            state, code = FCM_ERRORS.get(status, ("UNKNOWN", "UNSPECIFIED_ERROR"))
            body = {"error": {"code": status, "message": "stand-in", "status": state, "details": [
                {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}]}}
        answer(handler, status, json.dumps(body).encode(), {"Content-Type": "application/json"})


# --- APNs -------------------------------------------------------------------------------------------
class ApnsService:
    """APNs' provider API over HTTP/2 (hypercorn in a thread; see the module's doc)."""

    key_id = "ABC123DEFG"
    team_id = "TEAM123456"
    topic = "org.example.uno"

    def __init__(self, ca: PushCA, directory: Path):
        from hypercorn.config import Config

        self.requests: list[dict] = []
        self.status, self.reason = 200, ""
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.key_file = directory / "apns-key.p8"
        self.key_file.write_bytes(self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        config = Config()
        config.bind = [f"127.0.0.1:{self.port}"]
        config.certfile = str(ca.chain_file)
        config.keyfile = str(ca.chain_file)
        config.alpn_protocols = ["h2"]
        config.loglevel = "WARNING"
        self.loop = asyncio.new_event_loop()
        self.stopped = asyncio.Event()
        self.thread = threading.Thread(target=self._run, args=(config,), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or not self.thread.is_alive():
                    raise RuntimeError("the APNs stand-in did not start") from None
                time.sleep(0.05)

    def _run(self, config) -> None:
        from hypercorn.asyncio import serve

        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(serve(self.app, config, shutdown_trigger=self.stopped.wait))

    def check(self, request: dict) -> None:
        headers = request["headers"]
        request.update(error=None, status=None, reason=None, claims=None, message=None)
        scheme, _, token = headers.get("authorization", "").partition(" ")
        try:
            if scheme.lower() != "bearer":
                raise VerificationError("no bearer provider token")
            if jwt.get_unverified_header(token).get("kid") != self.key_id:
                raise VerificationError("kid is not the key's id")
            request["claims"] = jwt.decode(token, self.key.public_key(), algorithms=["ES256"], issuer=self.team_id,
                                           options={"require": ["iss", "iat"], "verify_iat": True})
        except (jwt.PyJWTError, VerificationError) as exc:
            request["error"], request["status"], request["reason"] = str(exc), 403, "InvalidProviderToken"
            return
        if request["http_version"] != "2":
            request["error"], request["status"], request["reason"] = "not HTTP/2", 400, "BadRequest"
        elif headers.get("apns-topic") != self.topic:
            request["error"], request["status"], request["reason"] = "topic", 400, "TopicDisallowed"
        elif not request["path"].startswith("/3/device/"):
            request["error"], request["status"], request["reason"] = "path", 404, "BadPath"
        else:
            request["message"] = json.loads(request["body"])

    async def app(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                kind = (await receive())["type"]
                await send({"type": f"{kind}.complete"})  # lifespan.startup / lifespan.shutdown
                if kind == "lifespan.shutdown":
                    return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        request = {"method": scope["method"], "path": scope["path"], "http_version": scope["http_version"],
                   "headers": {k.decode().lower(): v.decode() for k, v in scope["headers"]}, "body": body}
        self.check(request)
        self.requests.append(request)
        status = request["status"] or self.status
        reason = request["reason"] or self.reason
        content = json.dumps({"reason": reason, **({"timestamp": int(time.time() * 1000)} if status == 410 else {})}
                             ).encode() if status != 200 else b""
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"apns-id", b"00000000-0000-0000-0000-000000000001"),
                                (b"content-length", str(len(content)).encode())]})
        await send({"type": "http.response.body", "body": content})

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stopped.set)
        self.thread.join(10)


# Fixtures of the push tests (imported by them): the stand-ins' certificate authority and a
# VAPID key pair made by the product's own generator, each once a module.
@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return PushCA(tmp_path_factory.mktemp("push-ca"))


@pytest.fixture(scope="module")
def keys():
    from reach import push

    return push.generate_vapid_keys()
