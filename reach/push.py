"""Push notifications: one message to one device, through Web Push (browsers), FCM
(Android) or APNs (iOS), with well-kept libraries only (issue 29).

- **Web Push** (RFC 8030, 8291, 8292): ``pywebpush`` encrypts the message for the
  subscription (``aes128gcm``) and ``py-vapid`` signs the VAPID JWT with the server's key
  (``UNO_VAPID_PRIVATE_KEY``, ``UNO_VAPID_SUBJECT``); on when the private key is set.  The
  subscription's endpoint is a URL a browser handed to a player, so the request goes
  through the webhooks' guarded client (players/outbound.py): https only, the host
  resolved once and every address public (``UNO_PUSH_ALLOW_PRIVATE`` lets loopback and
  private addresses through, for development and tests only), no redirect, bounded times.
- **FCM** (HTTP v1): ``google-auth`` signs in with a service account's file
  (``UNO_FCM_CREDENTIALS_FILE``: OAuth 2 token at the file's ``token_uri``), then one
  ``POST {UNO_FCM_ENDPOINT}/v1/projects/{project}/messages:send`` by ``requests``.  Off
  until the file is set.
- **APNs** (token-based, HTTP/2): a provider token (ES256 JWT by ``PyJWT`` from the
  ``.p8`` key, ``UNO_APNS_KEY_ID``, ``UNO_APNS_TEAM_ID``; made again every 30 minutes)
  and one ``POST /3/device/{token}`` over HTTP/2 by ``httpx``.  Off until the key file,
  key id, team id and topic are set; ``UNO_APNS_SANDBOX`` picks Apple's development
  server.

Every answer maps to one outcome: delivered (nothing raised), :class:`Gone` (404 / 410,
FCM's ``UNREGISTERED``, APNs' ``BadDeviceToken`` / ``Unregistered``: the caller deletes
the subscription), :class:`Retry` (a network error, 429, 5xx: the caller tries again
later, after ``retry_after`` seconds when the service said), or :class:`Failed` (any
other refusal: logged, the subscription kept).

The message is the dict of :func:`send`: a title, a body, a URL, a kind and a tag, never
a card.  No log line carries an endpoint's path or a device token (they are the
capability to push to that device): only the service's host.
"""

from __future__ import annotations

import email.utils
import functools
import http.client
import json
import logging
import re
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger(__name__)

WEBPUSH, FCM, APNS = "webpush", "fcm", "apns"
PLATFORMS = (WEBPUSH, FCM, APNS)

#: Web Push's ``Urgency`` (RFC 8030 5.3), FCM's Android priority and APNs' priority per
#: kind: a reminder before a deadline is urgent; a finished game can wait.
URGENCY = {"reminder": "high", "your_turn": "normal", "game_started": "normal", "challenge": "normal",
           "rematch": "normal", "game_finished": "low", "digest": "normal"}
#: The largest message body (characters) sent: a push payload is at most 4 KB once
#: encrypted (Web Push) or 4 KB whole (FCM, APNs).
MAX_BODY = 1000
MAX_TITLE = 200
#: Web Push ``Topic`` (replaces an undelivered message of the same topic): the tag when
#: it fits (RFC 8030 5.4: at most 32 characters of the URL-safe base64 alphabet).
TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: Seconds a request to a push service may take at most (connect and each read).
TIMEOUT_SECONDS = 10.0
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
APNS_PRODUCTION = "https://api.push.apple.com"
APNS_SANDBOX = "https://api.sandbox.push.apple.com"
#: A provider token is made again after this long (Apple: at most once every 20
#: minutes, refused after 60).
APNS_TOKEN_SECONDS = 30 * 60


class PushError(Exception):
    """A push was not delivered; ``status``: the service's HTTP status, if it answered."""

    def __init__(self, message: str, *, status: int | None = None, reason: str = ""):
        super().__init__(message)
        self.status = status
        self.reason = reason


class Gone(PushError):
    """The subscription or device token no longer exists: delete it."""


class Retry(PushError):
    """Not delivered for now (network, 429, 5xx): try again, after ``retry_after``
    seconds when the service said how long."""

    def __init__(self, message: str, *, status: int | None = None, reason: str = "",
                 retry_after: float | None = None):
        super().__init__(message, status=status, reason=reason)
        self.retry_after = retry_after


class Failed(PushError):
    """Refused for another reason (a bad request, our credentials): log it, keep the
    subscription."""


# --- configuration ------------------------------------------------------------------------
def _setting(name: str, default: Any = "") -> Any:
    value = getattr(settings, name, default)
    return default if value is None else value


@functools.lru_cache(maxsize=4)
def _vapid(private_key: str):
    """The VAPID key (py-vapid) of ``UNO_VAPID_PRIVATE_KEY``: the raw 32-byte key in
    URL-safe base64 (what ``manage.py vapid_keys`` prints), a base64 DER key, or a PEM
    (its line breaks may be written ``\\n`` in one line)."""
    from py_vapid import Vapid

    text = private_key.strip().replace("\\n", "\n")
    try:
        if "-----BEGIN" in text:
            return Vapid.from_pem(text.encode())
        return Vapid.from_string(text)
    except Exception as exc:  # py-vapid raises what cryptography or base64 raise
        raise ImproperlyConfigured(f"UNO_VAPID_PRIVATE_KEY is not a P-256 private key ({type(exc).__name__})") from None


def _b64url(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def public_key_of(vapid) -> str:
    """The application server key of a VAPID key: its public point, uncompressed,
    URL-safe base64 without padding (what ``pushManager.subscribe`` takes)."""
    from cryptography.hazmat.primitives import serialization

    return _b64url(vapid.public_key.public_bytes(serialization.Encoding.X962,
                                                 serialization.PublicFormat.UncompressedPoint))


def _webpush_config():
    """``(vapid, public key, subject)``, or None when Web Push is off; ImproperlyConfigured
    when it is half set or the public key does not match the private one."""
    private = str(_setting("UNO_VAPID_PRIVATE_KEY")).strip()
    if not private:
        return None
    vapid = _vapid(private)
    public = public_key_of(vapid)
    configured = str(_setting("UNO_VAPID_PUBLIC_KEY")).strip().rstrip("=")
    if configured and configured != public:
        raise ImproperlyConfigured("UNO_VAPID_PUBLIC_KEY is not the public key of UNO_VAPID_PRIVATE_KEY "
                                   "(leave it empty: it is derived from the private key)")
    subject = str(_setting("UNO_VAPID_SUBJECT")).strip()
    if not re.match(r"^(mailto:[^@\s]+@[^@\s]+|https://[^\s/]+.*)$", subject):
        raise ImproperlyConfigured("UNO_VAPID_SUBJECT must be a mailto: address or an https: URL "
                                   "(the push services' contact for this server) when Web Push is on")
    return vapid, public, subject


def _fcm_on() -> bool:
    return bool(str(_setting("UNO_FCM_CREDENTIALS_FILE")).strip())


def _apns_config() -> dict | None:
    conf = {
        "key_file": str(_setting("UNO_APNS_KEY_FILE")).strip(),
        "key_id": str(_setting("UNO_APNS_KEY_ID")).strip(),
        "team_id": str(_setting("UNO_APNS_TEAM_ID")).strip(),
        "topic": str(_setting("UNO_APNS_TOPIC")).strip(),
    }
    if not any(conf.values()):
        return None
    missing = [f"UNO_APNS_{k.upper()}" for k, v in conf.items() if not v]
    if missing:
        raise ImproperlyConfigured(f"APNs is half configured: set {', '.join(missing)} too (or none of them)")
    endpoint = str(_setting("UNO_APNS_ENDPOINT")).strip().rstrip("/")
    conf["endpoint"] = endpoint or (APNS_SANDBOX if _setting("UNO_APNS_SANDBOX", False) else APNS_PRODUCTION)
    return conf


#: each platform and its configuration's reader (falsy: off; ImproperlyConfigured: half set)
_CONFIGS = ((WEBPUSH, _webpush_config), (FCM, _fcm_on), (APNS, _apns_config))


def platforms() -> list[str]:
    """The platforms this server can push to, by its configuration."""
    return [platform for platform, on in _CONFIGS if on()]


def offered() -> tuple[list[str], str | None]:
    """``(platforms(), webpush_public_key())`` for the API and the delivery, which must go
    on when the push configuration is broken (a process started without the system check
    that ``migrate`` runs, e.g. a worker): the platform that cannot be configured is left
    out, and its error logged, instead of failing every request and every delivery."""
    out: list[str] = []
    key = None
    for platform, on in _CONFIGS:
        try:
            conf = on()
        except ImproperlyConfigured as exc:
            log.error("push to %s is off: %s", platform, exc)
            continue
        if conf:
            out.append(platform)
            if platform == WEBPUSH:
                key = conf[1]
    return out, key


def webpush_public_key() -> str | None:
    """The VAPID application server key (URL-safe base64, no padding), or None when Web
    Push is off."""
    conf = _webpush_config()
    return conf[1] if conf else None


def generate_vapid_keys() -> tuple[str, str]:
    """A new VAPID key pair by py-vapid: ``(private, public)``, each URL-safe base64
    without padding (the private key raw, 32 bytes; the public key uncompressed)."""
    from py_vapid import Vapid

    vapid = Vapid()
    vapid.generate_keys()
    raw = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    return _b64url(raw), public_key_of(vapid)


def _verify():
    """What verifies the push services' certificates: the system's CAs, or only the CA
    file of ``UNO_PUSH_CA_BUNDLE`` (tests: the stand-ins' own CA)."""
    bundle = str(_setting("UNO_PUSH_CA_BUNDLE")).strip()
    return bundle or True


def _ssl_context() -> ssl.SSLContext:
    verify = _verify()
    return ssl.create_default_context(cafile=verify) if isinstance(verify, str) else ssl.create_default_context()


# --- the message ----------------------------------------------------------------------------
def _clip(text: Any, limit: int) -> str:
    text = str(text or "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def payload(message: dict) -> dict:
    """The message as every platform carries it: title, body, url, kind, tag (strings)."""
    return {
        "title": _clip(message.get("title"), MAX_TITLE),
        "body": _clip(message.get("body"), MAX_BODY),
        "url": str(message.get("url") or "/"),
        "kind": str(message.get("kind") or ""),
        "tag": str(message.get("tag") or message.get("kind") or ""),
    }


def _retry_after(value: str | None) -> float | None:
    """Seconds of a ``Retry-After`` header (seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _by_status(platform: str, host: str, status: int, reason: str, retry_after: str | None) -> PushError:
    """The outcome of a refusal, by its status (and the service's reason)."""
    what = f"{platform} push to {host}: HTTP {status}{f' ({reason})' if reason else ''}"
    if status in (404, 410):
        return Gone(what, status=status, reason=reason)
    if status == 429 or status >= 500:
        return Retry(what, status=status, reason=reason, retry_after=_retry_after(retry_after))
    return Failed(what, status=status, reason=reason)


# --- Web Push -------------------------------------------------------------------------------
class _GuardedSession:
    """What pywebpush posts with (its ``requests_session``): players/outbound.py's
    guarded POST, answering as much of a ``requests.Response`` as pywebpush reads."""

    class Response:
        def __init__(self, status: int, body: bytes, headers: dict):
            self.status_code = status
            self.reason = http.client.responses.get(status, "")
            self.content = body
            self.text = body.decode("utf-8", "replace")
            self.headers = headers

    def __init__(self, allow_private: bool, context: ssl.SSLContext):
        self.allow_private = allow_private
        self.context = context

    def post(self, url: str, data: bytes | None = None, headers: dict | None = None, timeout: float | None = None,
             **_: Any):
        from players import outbound

        resp = outbound.post(url, data or b"", {k: str(v) for k, v in (headers or {}).items()},
                             allow_private=self.allow_private, context=self.context,
                             read_timeout=min(TIMEOUT_SECONDS, timeout or TIMEOUT_SECONDS))
        return self.Response(resp.status, resp.body, resp.headers)


def _send_webpush(target: dict, body: dict, ttl: int, urgency: str) -> None:
    from pywebpush import WebPushException, webpush

    from players import outbound

    conf = _webpush_config()
    if conf is None:
        raise Failed("Web Push is not configured (UNO_VAPID_PRIVATE_KEY)")
    vapid, _public, subject = conf
    endpoint = str(target.get("endpoint") or "")
    keys = target.get("keys") or {}
    parts = urlsplit(endpoint)
    host = parts.hostname or "?"
    if parts.scheme != "https":
        raise Failed("a Web Push endpoint must be an https URL")
    if not keys.get("p256dh") or not keys.get("auth"):
        raise Failed("a Web Push subscription needs its keys (p256dh, auth)")
    headers = {"Urgency": urgency}
    if TOPIC.fullmatch(body["tag"]):
        headers["Topic"] = body["tag"]
    session = _GuardedSession(bool(_setting("UNO_PUSH_ALLOW_PRIVATE", False)), _ssl_context())
    try:
        webpush(
            {"endpoint": endpoint, "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]}},
            data=json.dumps(body, ensure_ascii=False, separators=(",", ":")),
            vapid_private_key=vapid,
            # aud (the endpoint's origin) and exp (12 hours) are pywebpush's
            vapid_claims={"sub": subject},
            content_encoding="aes128gcm",
            ttl=max(0, int(ttl)),
            headers=headers,
            timeout=TIMEOUT_SECONDS,
            requests_session=session,
        )
    except WebPushException as exc:
        resp = exc.response
        if resp is None:  # pywebpush refused the subscription itself (its keys)
            raise Failed(f"webpush to {host}: {exc.message}") from None
        raise _by_status(WEBPUSH, host, resp.status_code, "", resp.headers.get("retry-after")) from None
    except outbound.Refused as exc:
        raise Failed(f"webpush to {host}: the endpoint {exc.reason}") from None
    except (OSError, http.client.HTTPException) as exc:  # Unresolvable, timeouts, resets, TLS
        raise Retry(f"webpush to {host}: {type(exc).__name__}") from None
    except ValueError as exc:  # a key that does not decode (binascii.Error is one)
        raise Failed(f"webpush to {host}: bad subscription keys ({type(exc).__name__})") from None


# --- FCM ----------------------------------------------------------------------------------------
_fcm_lock = threading.Lock()
_fcm_sessions: dict[tuple, tuple] = {}


def _fcm_session():
    """``(AuthorizedSession, project id, endpoint)`` for the configured service account
    (kept per process: google-auth keeps its access token until it expires)."""
    import requests
    from google.auth.transport.requests import AuthorizedSession, Request
    from google.oauth2 import service_account

    path = str(_setting("UNO_FCM_CREDENTIALS_FILE")).strip()
    endpoint = (str(_setting("UNO_FCM_ENDPOINT")).strip() or "https://fcm.googleapis.com").rstrip("/")
    verify = _verify()
    key = (path, endpoint, verify, str(_setting("UNO_FCM_PROJECT_ID")))
    with _fcm_lock:
        if key not in _fcm_sessions:
            try:
                creds = service_account.Credentials.from_service_account_file(path, scopes=[FCM_SCOPE])
            except (OSError, ValueError) as exc:
                raise ImproperlyConfigured(f"UNO_FCM_CREDENTIALS_FILE: not a service account's key file "
                                           f"({type(exc).__name__})") from None
            project = str(_setting("UNO_FCM_PROJECT_ID")).strip() or creds.project_id
            if not project:
                raise ImproperlyConfigured("UNO_FCM_PROJECT_ID is not set and the credentials file names no project")
            token_http = requests.Session()
            session = AuthorizedSession(creds, auth_request=Request(token_http))
            for s in (token_http, session):
                s.verify = verify
                # requests lets REQUESTS_CA_BUNDLE in the environment win over a session's own
                # CA file: with UNO_PUSH_CA_BUNDLE, that file alone (and no proxy from the environment)
                s.trust_env = not isinstance(verify, str)
            _fcm_sessions[key] = (session, project, endpoint)
        return _fcm_sessions[key]


def _fcm_error(data: Any) -> str:
    """FCM's error code (``UNREGISTERED``...) from its error body, or its status."""
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return ""
    for detail in error.get("details") or []:
        if isinstance(detail, dict) and detail.get("errorCode"):
            return str(detail["errorCode"])
    return str(error.get("status") or "")


def _send_fcm(target: dict, body: dict, ttl: int, urgency: str) -> None:
    import google.auth.exceptions
    import requests

    if not _fcm_on():
        raise Failed("FCM is not configured (UNO_FCM_CREDENTIALS_FILE)")
    token = str(target.get("token") or "")
    if not token:
        raise Failed("an FCM subscription needs its token")
    session, project, endpoint = _fcm_session()
    host = urlsplit(endpoint).hostname or "?"
    message = {
        "token": token,
        "notification": {"title": body["title"], "body": body["body"]},
        "data": body,  # every value a string, as FCM wants
        "android": {"ttl": f"{max(0, int(ttl))}s", "priority": "high" if urgency == "high" else "normal",
                    "collapse_key": body["tag"][:64] or None, "notification": {"tag": body["tag"]}},
        "apns": {"headers": {"apns-priority": "10" if urgency == "high" else "5",
                             "apns-expiration": str(int(time.time()) + max(0, int(ttl)))}},
    }
    if not message["android"]["collapse_key"]:
        del message["android"]["collapse_key"]
    try:
        resp = session.post(f"{endpoint}/v1/projects/{project}/messages:send", json={"message": message},
                            timeout=TIMEOUT_SECONDS)
    except google.auth.exceptions.RefreshError as exc:
        # the token endpoint refused the service account (or failed): exc.retryable says which
        if getattr(exc, "retryable", False):
            raise Retry(f"fcm push to {host}: the OAuth token could not be had for now") from None
        raise Failed(f"fcm push to {host}: the OAuth token endpoint refused the service account") from None
    except google.auth.exceptions.TransportError as exc:
        log.warning("fcm: the OAuth token endpoint: %s", exc)
        raise Retry(f"fcm push to {host}: the OAuth token endpoint cannot be reached") from None
    except requests.RequestException as exc:
        raise Retry(f"fcm push to {host}: {type(exc).__name__}") from None
    if resp.status_code == 200:
        return
    try:
        reason = _fcm_error(resp.json())
    except ValueError:
        reason = ""
    if reason == "UNREGISTERED":
        raise Gone(f"fcm push to {host}: HTTP {resp.status_code} (UNREGISTERED)", status=resp.status_code,
                   reason=reason)
    raise _by_status(FCM, host, resp.status_code, reason, resp.headers.get("Retry-After"))


# --- APNs ---------------------------------------------------------------------------------------
_apns_lock = threading.Lock()
_apns_tokens: dict[tuple, tuple[str, float]] = {}
_apns_clients: dict[tuple, Any] = {}
#: APNs' reasons that mean the device token is no longer valid for this topic
APNS_GONE = {"BadDeviceToken", "Unregistered", "DeviceTokenNotForTopic"}
#: APNs' reasons about the provider token: a new one is made for the next try
APNS_TOKEN_REASONS = {"ExpiredProviderToken", "InvalidProviderToken", "MissingProviderToken"}


def _apns_token(conf: dict, *, renew: bool = False) -> str:
    """The provider token (ES256 JWT: ``kid`` header, ``iss`` the team, ``iat`` now), the
    same one for APNS_TOKEN_SECONDS."""
    import jwt

    key = (conf["key_file"], conf["key_id"], conf["team_id"])
    with _apns_lock:
        cached = _apns_tokens.get(key)
        if cached and not renew and time.time() - cached[1] < APNS_TOKEN_SECONDS:
            return cached[0]
        try:
            with open(conf["key_file"], "rb") as f:
                signing_key = f.read()
        except OSError as exc:
            raise ImproperlyConfigured(f"UNO_APNS_KEY_FILE cannot be read ({type(exc).__name__})") from None
        now = time.time()
        token = jwt.encode({"iss": conf["team_id"], "iat": int(now)}, signing_key, algorithm="ES256",
                           headers={"kid": conf["key_id"]})
        _apns_tokens[key] = (token, now)
        return token


def _apns_client(conf: dict):
    """An HTTP/2 client for APNs (one connection per process, as Apple asks)."""
    import httpx

    key = (conf["endpoint"], _verify())
    with _apns_lock:
        if key not in _apns_clients:
            _apns_clients[key] = httpx.Client(http2=True, verify=_ssl_context(), timeout=TIMEOUT_SECONDS)
        return _apns_clients[key]


def _send_apns(target: dict, body: dict, ttl: int, urgency: str) -> None:
    import httpx

    conf = _apns_config()
    if conf is None:
        raise Failed("APNs is not configured (UNO_APNS_KEY_FILE, UNO_APNS_KEY_ID, UNO_APNS_TEAM_ID, UNO_APNS_TOPIC)")
    token = str(target.get("token") or "")
    if not re.fullmatch(r"[0-9A-Fa-f]{16,200}", token):
        raise Gone("apns: the device token is not a hex string", reason="BadDeviceToken")
    host = urlsplit(conf["endpoint"]).hostname or "?"
    aps = {"alert": {"title": body["title"], "body": body["body"]}, "sound": "default"}
    if body["tag"]:
        aps["thread-id"] = body["tag"]
    content = json.dumps({"aps": aps, "url": body["url"], "kind": body["kind"], "tag": body["tag"]},
                         ensure_ascii=False, separators=(",", ":")).encode()
    headers = {
        "apns-topic": conf["topic"],
        "apns-push-type": "alert",
        "apns-priority": "10" if urgency != "low" else "5",
        "apns-expiration": str(int(time.time()) + max(0, int(ttl))),
    }
    if body["tag"] and len(body["tag"].encode()) <= 64:
        headers["apns-collapse-id"] = body["tag"]
    client = _apns_client(conf)
    for attempt in (0, 1):
        headers["authorization"] = f"bearer {_apns_token(conf, renew=attempt > 0)}"
        try:
            resp = client.post(f"{conf['endpoint']}/3/device/{token}", content=content, headers=headers)
        except httpx.HTTPError as exc:
            raise Retry(f"apns push to {host}: {type(exc).__name__}") from None
        if resp.status_code == 200:
            return
        try:
            reason = str(resp.json().get("reason") or "")
        except (ValueError, AttributeError):
            reason = ""
        if reason in APNS_TOKEN_REASONS and attempt == 0:
            continue  # once more with a new provider token
        if reason in APNS_GONE:
            raise Gone(f"apns push to {host}: HTTP {resp.status_code} ({reason})", status=resp.status_code,
                       reason=reason)
        raise _by_status(APNS, host, resp.status_code, reason, resp.headers.get("retry-after"))


# --- the one entry point ------------------------------------------------------------------------
_SENDERS = {WEBPUSH: _send_webpush, FCM: _send_fcm, APNS: _send_apns}


def send(platform: str, target: dict, message: dict, *, ttl: int = 3600) -> None:
    """Push ``message`` (title, body, url, kind, tag: never a card) to one device.

    ``target``: ``{"endpoint", "keys": {"p256dh", "auth"}}`` for ``webpush``, ``{"token"}``
    for ``fcm`` and ``apns``; ``ttl``: seconds the service keeps it for an offline
    device.  Returns when the service accepted it; raises :class:`Gone`, :class:`Retry`
    or :class:`Failed`."""
    sender = _SENDERS.get(platform)
    if sender is None:
        raise Failed(f"no push platform {platform!r}")
    body = payload(message)
    sender(target, body, ttl, URGENCY.get(body["kind"], "normal"))


def configuration_check(app_configs=None, **kwargs) -> list:
    """Django's system check (``manage.py check``, at every start of runserver, migrate,
    celery's ``manage.py`` commands): a push platform half configured is an error that
    says what is missing, before a player's request meets it."""
    from django.core import checks

    errors = []
    for name, read, code in ((WEBPUSH, _webpush_config, "reach.E001"), (APNS, _apns_config, "reach.E002")):
        try:
            read()
        except ImproperlyConfigured as exc:
            errors.append(checks.Error(str(exc), id=code, obj=f"push ({name})"))
    if _fcm_on():
        import os

        path = str(_setting("UNO_FCM_CREDENTIALS_FILE")).strip()
        if not os.path.isfile(path):
            errors.append(checks.Error(f"UNO_FCM_CREDENTIALS_FILE: no file at {path}", id="reach.E003", obj="push (fcm)"))
    return errors
