"""reach/push.py against real local push services (tests/push_endpoint.py): Web Push to
an HTTPS service that verifies the VAPID JWT and decrypts the RFC 8291 payload with the
subscription's keys; FCM's HTTP v1 API behind a real OAuth 2 token exchange; APNs over
HTTP/2 with a provider token.  Each answer maps to delivered, Gone, Retry or Failed.
Also: the configuration (off by default, half-set refused), ``manage.py vapid_keys``,
and the stand-in's own checks failing on a tampered signature, key or payload."""

from __future__ import annotations

import json
import ssl
import time
from io import StringIO

import jwt
import pytest
import requests
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from reach import push
from tests.push_endpoint import (
    ApnsService,
    FcmService,
    VerificationError,
    WebPushService,
    b64url_decode,
    ca,  # noqa: F401 (fixture)
    keys,  # noqa: F401 (fixture)
    verify_vapid,
)

MESSAGE = {"title": "Your turn", "body": "Game 12: it is your turn (2 days left).", "url": "https://uno.example/#/game/12",
           "kind": "your_turn", "tag": "game-12"}
SUBJECT = "mailto:ops@example.org"


@pytest.fixture
def service(ca):
    with WebPushService(ca) as s:
        yield s


@pytest.fixture
def webpush_on(settings, ca, keys):
    settings.UNO_VAPID_PRIVATE_KEY, settings.UNO_VAPID_PUBLIC_KEY = keys
    settings.UNO_VAPID_SUBJECT = SUBJECT
    settings.UNO_PUSH_CA_BUNDLE = str(ca.ca_file)
    settings.UNO_PUSH_ALLOW_PRIVATE = True
    return keys


# --- configuration ------------------------------------------------------------------------
def test_every_platform_is_off_by_default(settings):
    for name in ("UNO_VAPID_PRIVATE_KEY", "UNO_FCM_CREDENTIALS_FILE", "UNO_APNS_KEY_FILE", "UNO_APNS_KEY_ID",
                 "UNO_APNS_TEAM_ID", "UNO_APNS_TOPIC"):
        setattr(settings, name, "")
    assert push.platforms() == [] and push.webpush_public_key() is None
    with pytest.raises(push.Failed):
        push.send("webpush", {"endpoint": "https://push.example/x", "keys": {"p256dh": "a", "auth": "b"}}, MESSAGE)
    with pytest.raises(push.Failed):
        push.send("fcm", {"token": "t"}, MESSAGE)
    with pytest.raises(push.Failed):
        push.send("apns", {"token": "ab" * 32}, MESSAGE)
    with pytest.raises(push.Failed):
        push.send("pager", {}, MESSAGE)


def test_vapid_keys_command_prints_a_pair_the_server_reads(settings):
    out = StringIO()
    call_command("vapid_keys", "--subject", SUBJECT, stdout=out, stderr=StringIO())
    lines = dict(line.split("=", 1) for line in out.getvalue().split())
    assert set(lines) == {"UNO_VAPID_PRIVATE_KEY", "UNO_VAPID_PUBLIC_KEY", "UNO_VAPID_SUBJECT"}
    assert len(b64url_decode(lines["UNO_VAPID_PRIVATE_KEY"])) == 32
    public = b64url_decode(lines["UNO_VAPID_PUBLIC_KEY"])
    assert len(public) == 65 and public[0] == 4  # an uncompressed P-256 point
    for name, value in lines.items():
        setattr(settings, name, value)
    assert push.platforms() == ["webpush"]
    assert push.webpush_public_key() == lines["UNO_VAPID_PUBLIC_KEY"]
    # two runs, two pairs
    again = StringIO()
    call_command("vapid_keys", stdout=again, stderr=StringIO())
    assert "UNO_VAPID_PRIVATE_KEY=" in again.getvalue() and lines["UNO_VAPID_PRIVATE_KEY"] not in again.getvalue()


def test_a_pem_private_key_is_read_too(settings, keys):
    from py_vapid import Vapid

    vapid = Vapid.from_string(keys[0])
    settings.UNO_VAPID_PRIVATE_KEY = vapid.private_pem().decode().replace("\n", "\\n")
    settings.UNO_VAPID_PUBLIC_KEY = ""
    settings.UNO_VAPID_SUBJECT = "https://uno.example"
    assert push.webpush_public_key() == keys[1]


def test_a_half_or_wrong_configuration_is_refused(settings, keys):
    settings.UNO_VAPID_PRIVATE_KEY, settings.UNO_VAPID_SUBJECT = keys[0], ""
    with pytest.raises(ImproperlyConfigured, match="UNO_VAPID_SUBJECT"):
        push.platforms()
    settings.UNO_VAPID_SUBJECT = SUBJECT
    settings.UNO_VAPID_PUBLIC_KEY = push.generate_vapid_keys()[1]
    with pytest.raises(ImproperlyConfigured, match="UNO_VAPID_PUBLIC_KEY"):
        push.platforms()
    settings.UNO_VAPID_PRIVATE_KEY = "not-a-key"
    with pytest.raises(ImproperlyConfigured, match="UNO_VAPID_PRIVATE_KEY"):
        push.platforms()
    settings.UNO_VAPID_PRIVATE_KEY = ""
    settings.UNO_APNS_KEY_FILE, settings.UNO_APNS_KEY_ID = "/etc/key.p8", "K"
    with pytest.raises(ImproperlyConfigured, match="UNO_APNS_TEAM_ID"):
        push.platforms()


def test_a_broken_push_configuration_at_run_time_leaves_the_rest_working(settings, keys, auth_client, caplog):
    """A process that started without the system check (which ``migrate`` runs) and a bad
    key: the settings still read (push left out, the error logged), email still goes."""
    settings.UNO_VAPID_PRIVATE_KEY, settings.UNO_VAPID_SUBJECT = "not-a-key", SUBJECT
    res = auth_client.get("/api/v1/players/me/notifications")
    assert res.status_code == 200, res.content
    assert res.json()["push"] == {"webpush_public_key": None, "platforms": []}
    assert "UNO_VAPID_PRIVATE_KEY" in caplog.text
    settings.UNO_VAPID_PRIVATE_KEY = keys[0]
    assert push.offered() == (["webpush"], keys[1])


def test_system_check_names_what_is_missing(settings, keys, tmp_path):
    from django.core import checks

    for name in ("UNO_VAPID_PRIVATE_KEY", "UNO_FCM_CREDENTIALS_FILE", "UNO_APNS_KEY_FILE", "UNO_APNS_KEY_ID",
                 "UNO_APNS_TEAM_ID", "UNO_APNS_TOPIC"):
        setattr(settings, name, "")
    assert [e for e in checks.run_checks() if e.id.startswith("reach.")] == []
    settings.UNO_VAPID_PRIVATE_KEY, settings.UNO_VAPID_SUBJECT = keys[0], "ops@example.org"  # no mailto:
    settings.UNO_APNS_TOPIC = "org.example.uno"
    settings.UNO_FCM_CREDENTIALS_FILE = str(tmp_path / "missing.json")
    found = {e.id: e.msg for e in checks.run_checks() if e.id.startswith("reach.")}
    assert set(found) == {"reach.E001", "reach.E002", "reach.E003"}, found
    assert "UNO_VAPID_SUBJECT" in found["reach.E001"] and "UNO_APNS_KEY_FILE" in found["reach.E002"]


# --- Web Push ------------------------------------------------------------------------------
def test_webpush_reaches_the_service_verified_and_decrypts_to_the_message(webpush_on, service):
    sub = service.subscribe(push.webpush_public_key())
    push.send("webpush", sub.info(), MESSAGE, ttl=600)
    [request] = service.requests
    assert request["error"] is None, request["error"]
    assert request["message"] == MESSAGE
    assert request["claims"]["aud"] == service.origin and request["claims"]["sub"] == SUBJECT
    assert request["claims"]["exp"] > time.time()
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["ttl"] == "600" and headers["urgency"] == "normal" and headers["topic"] == "game-12"
    assert headers["content-encoding"] == "aes128gcm"
    assert MESSAGE["body"].encode() not in request["body"]  # encrypted on the wire

    push.send("webpush", sub.info(), {**MESSAGE, "kind": "reminder", "tag": "reminder:game/12"})
    second = service.requests[1]
    assert second["error"] is None and second["message"]["kind"] == "reminder"
    headers = {k.lower(): v for k, v in second["headers"].items()}
    assert headers["urgency"] == "high" and "topic" not in headers  # ":" and "/" are no Topic


def test_a_long_body_is_clipped_to_fit_a_push(webpush_on, service):
    sub = service.subscribe(push.webpush_public_key())
    push.send("webpush", sub.info(), {**MESSAGE, "body": "x" * 5000})
    message = service.requests[0]["message"]
    assert len(message["body"]) == push.MAX_BODY and message["body"].endswith("…")


@pytest.mark.parametrize("status, outcome", [(410, push.Gone), (404, push.Gone), (500, push.Retry),
                                             (503, push.Retry), (429, push.Retry), (400, push.Failed),
                                             (413, push.Failed)])
def test_webpush_answers_map_to_gone_retry_failed(webpush_on, service, status, outcome):
    sub = service.subscribe(push.webpush_public_key())
    service.status = status
    with pytest.raises(outcome) as raised:
        push.send("webpush", sub.info(), MESSAGE)
    assert raised.value.status == status
    assert service.requests[0]["error"] is None  # the request itself was right
    assert sub.endpoint not in str(raised.value)  # no capability URL in what is logged


def test_webpush_retry_after_is_kept(webpush_on, service):
    sub = service.subscribe(push.webpush_public_key())
    service.status, service.retry_after = 429, "120"
    with pytest.raises(push.Retry) as raised:
        push.send("webpush", sub.info(), MESSAGE)
    assert raised.value.retry_after == 120


def test_a_service_down_is_retry(webpush_on, ca):
    with WebPushService(ca) as gone_service:
        sub = gone_service.subscribe(push.webpush_public_key())
    with pytest.raises(push.Retry):  # nothing listens there any more
        push.send("webpush", sub.info(), MESSAGE)


def test_a_server_key_that_is_not_the_subscriptions_fails_verification(webpush_on, service, settings):
    sub = service.subscribe(push.webpush_public_key())
    settings.UNO_VAPID_PRIVATE_KEY, settings.UNO_VAPID_PUBLIC_KEY = push.generate_vapid_keys()
    with pytest.raises(push.Failed) as raised:
        push.send("webpush", sub.info(), MESSAGE)
    assert raised.value.status == 401
    assert "not the subscription's application server key" in service.requests[0]["error"]


def test_the_stand_in_refuses_a_tampered_jwt_and_undecryptable_payload(webpush_on, service):
    sub = service.subscribe(push.webpush_public_key())
    push.send("webpush", sub.info(), MESSAGE)
    good = service.requests[0]
    authorization = {k.lower(): v for k, v in good["headers"].items()}["authorization"]
    assert verify_vapid(authorization, application_server_key=sub.application_server_key, origin=service.origin)
    # one character of the signature changed
    head, _, signature_and_key = authorization.rpartition(".")
    tampered = f"{head}.{'A' if signature_and_key[0] != 'A' else 'B'}{signature_and_key[1:]}"
    with pytest.raises(VerificationError, match="does not verify"):
        verify_vapid(tampered, application_server_key=sub.application_server_key, origin=service.origin)
    # another audience, an expired token
    with pytest.raises(VerificationError):
        verify_vapid(authorization, application_server_key=sub.application_server_key, origin="https://other.example")
    with pytest.raises(VerificationError):
        verify_vapid(authorization, application_server_key=sub.application_server_key, origin=service.origin,
                     now=time.time() + 13 * 3600)
    # the body sent to another subscription's keys (a tampered p256dh): the service cannot decrypt it
    other = service.subscribe(push.webpush_public_key())
    info = {**other.info(), "keys": sub.info()["keys"]}
    with pytest.raises(push.Failed) as raised:
        push.send("webpush", info, MESSAGE)
    assert raised.value.status == 400 and service.requests[-1]["error"].startswith("payload:")
    # a corrupted body, as the service receives it
    body = bytearray(good["body"])
    body[-5] ^= 1
    service.check(request := {**good, "body": bytes(body)})
    assert request["error"].startswith("payload:") and request["message"] is None


def test_webpush_to_a_private_address_is_refused_without_the_development_setting(webpush_on, service, settings):
    sub = service.subscribe(push.webpush_public_key())
    settings.UNO_PUSH_ALLOW_PRIVATE = False
    with pytest.raises(push.Failed, match="loopback"):
        push.send("webpush", sub.info(), MESSAGE)
    with pytest.raises(push.Failed, match="https"):
        push.send("webpush", {**sub.info(), "endpoint": sub.endpoint.replace("https:", "http:")}, MESSAGE)
    assert service.requests == []


def test_webpush_checks_the_services_certificate(webpush_on, service, settings, tmp_path):
    from tests.push_endpoint import PushCA as OtherCA

    sub = service.subscribe(push.webpush_public_key())
    settings.UNO_PUSH_CA_BUNDLE = str(OtherCA(tmp_path).ca_file)
    with pytest.raises(push.Retry):  # a TLS failure: as a network error
        push.send("webpush", sub.info(), MESSAGE)
    assert service.requests == []


# --- FCM -----------------------------------------------------------------------------------------
@pytest.fixture
def fcm(settings, ca, tmp_path):
    with FcmService(ca, tmp_path) as s:
        settings.UNO_FCM_CREDENTIALS_FILE = str(s.credentials_file)
        settings.UNO_FCM_PROJECT_ID = ""
        settings.UNO_FCM_ENDPOINT = s.url
        settings.UNO_PUSH_CA_BUNDLE = str(ca.ca_file)
        yield s


def test_fcm_signs_in_with_the_service_account_and_sends_the_message(fcm):
    assert "fcm" in push.platforms()
    push.send("fcm", {"token": "device-token-1"}, MESSAGE, ttl=900)
    push.send("fcm", {"token": "device-token-2"}, {**MESSAGE, "kind": "reminder"})
    token_requests = [r for r in fcm.requests if r["path"] == "/token"]
    assert len(token_requests) == 1 and token_requests[0]["error"] is None  # the access token is kept
    first, second = fcm.sends()
    assert first["error"] is None and second["error"] is None
    m = first["message"]
    assert m["token"] == "device-token-1"
    assert m["notification"] == {"title": MESSAGE["title"], "body": MESSAGE["body"]}
    assert m["data"] == MESSAGE
    assert m["android"]["ttl"] == "900s" and m["android"]["priority"] == "normal"
    assert second["message"]["android"]["priority"] == "high"


@pytest.mark.parametrize("status, outcome", [(404, push.Gone), (429, push.Retry), (500, push.Retry),
                                             (503, push.Retry), (400, push.Failed), (403, push.Failed)])
def test_fcm_answers_map_to_gone_retry_failed(fcm, status, outcome):
    fcm.status = status
    with pytest.raises(outcome) as raised:
        push.send("fcm", {"token": "device-token"}, MESSAGE)
    assert raised.value.status == status


def test_fcm_refused_service_account_is_failed(fcm, settings, tmp_path):
    doctored = json.loads(fcm.credentials_file.read_text())
    doctored["client_email"] = "someone-else@uno-test.iam.gserviceaccount.com"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doctored))
    settings.UNO_FCM_CREDENTIALS_FILE = str(path)
    with pytest.raises(push.Failed):
        push.send("fcm", {"token": "device-token"}, MESSAGE)
    assert fcm.requests[-1]["path"] == "/token" and "InvalidIssuer" in fcm.requests[-1]["error"]
    assert fcm.sends() == []


# --- APNs ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def apns_service(ca, tmp_path_factory):
    s = ApnsService(ca, tmp_path_factory.mktemp("apns"))
    yield s
    s.close()


@pytest.fixture
def apns(apns_service, settings, ca):
    apns_service.requests.clear()
    apns_service.status, apns_service.reason = 200, ""
    settings.UNO_APNS_KEY_FILE = str(apns_service.key_file)
    settings.UNO_APNS_KEY_ID = apns_service.key_id
    settings.UNO_APNS_TEAM_ID = apns_service.team_id
    settings.UNO_APNS_TOPIC = apns_service.topic
    settings.UNO_APNS_ENDPOINT = apns_service.url
    settings.UNO_PUSH_CA_BUNDLE = str(ca.ca_file)
    return apns_service


DEVICE = "a1" * 32


def test_apns_sends_over_http2_with_a_provider_token(apns):
    assert "apns" in push.platforms()
    push.send("apns", {"token": DEVICE}, MESSAGE, ttl=600)
    [request] = apns.requests
    assert request["error"] is None, request["error"]
    assert request["http_version"] == "2" and request["path"] == f"/3/device/{DEVICE}"
    assert request["claims"]["iss"] == apns.team_id
    h = request["headers"]
    assert h["apns-topic"] == apns.topic and h["apns-push-type"] == "alert" and h["apns-collapse-id"] == "game-12"
    assert int(h["apns-expiration"]) > time.time()
    assert request["message"]["aps"]["alert"] == {"title": MESSAGE["title"], "body": MESSAGE["body"]}
    assert request["message"]["url"] == MESSAGE["url"]


@pytest.mark.parametrize("status, reason, outcome", [
    (410, "Unregistered", push.Gone), (400, "BadDeviceToken", push.Gone), (429, "TooManyRequests", push.Retry),
    (500, "InternalServerError", push.Retry), (503, "ServiceUnavailable", push.Retry),
    (400, "PayloadTooLarge", push.Failed), (403, "BadCertificate", push.Failed)])
def test_apns_answers_map_to_gone_retry_failed(apns, status, reason, outcome):
    apns.status, apns.reason = status, reason
    with pytest.raises(outcome) as raised:
        push.send("apns", {"token": DEVICE}, MESSAGE)
    assert raised.value.status == status and raised.value.reason == reason


def test_apns_a_wrong_key_is_refused_by_the_stand_in(apns, settings, tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    other = tmp_path / "other.p8"
    other.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    settings.UNO_APNS_KEY_FILE = str(other)
    with pytest.raises(push.Failed) as raised:
        push.send("apns", {"token": DEVICE}, MESSAGE)
    assert raised.value.reason == "InvalidProviderToken"
    assert len(apns.requests) == 2  # once more with a fresh token, then given up
    assert all("Signature" in r["error"] for r in apns.requests)


def test_apns_token_that_is_no_hex_is_gone(apns):
    with pytest.raises(push.Gone):
        push.send("apns", {"token": "not a token"}, MESSAGE)
    assert apns.requests == []


def test_stand_ins_token_endpoint_and_apns_reject_unsigned_requests(fcm, apns, ca):
    """The stand-ins can fail: a token request signed by another key, an APNs request with
    no valid provider token."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    assertion = jwt.encode({"iss": fcm.email, "aud": "https://oauth2.googleapis.com/token", "iat": now, "exp": now + 600,
                            "scope": "https://www.googleapis.com/auth/firebase.messaging"}, other, algorithm="RS256")
    r = requests.post(f"{fcm.url}/token", data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                                                "assertion": assertion}, verify=str(ca.ca_file), timeout=10)
    assert r.status_code == 400 and "InvalidSignature" in fcm.requests[-1]["error"]
    r = requests.post(f"{fcm.url}/v1/projects/{fcm.project}/messages:send", json={"message": {}},
                      headers={"Authorization": "Bearer made-up"}, verify=str(ca.ca_file), timeout=10)
    assert r.status_code == 401

    import httpx

    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=str(ca.ca_file))) as client:
        r = client.post(f"{apns.url}/3/device/{DEVICE}", content=b"{}", headers={"authorization": "bearer x.y.z"})
    assert r.status_code == 403 and r.json()["reason"] == "InvalidProviderToken"
