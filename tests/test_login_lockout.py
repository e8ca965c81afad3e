"""Issue 24: password guesses limited per account (players/lockout.py), from many client
IPs, without letting anyone lock the owner out (device cookies), and without telling whether
an account exists."""

from __future__ import annotations

import time
from collections import Counter
from types import SimpleNamespace

import pytest
from django.core import signing
from rest_framework.test import APIClient

from players import lockout, services
from tests.conftest import DEFAULT_PASSWORD
from tests.helpers import assert_json, assert_problem
from tests.test_ratelimit import _at_once

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token"
PASSWORD = "/api/v1/auth/password"
WRONG = "not-the-password-1"

@pytest.fixture
def lockout_tiers(settings):
    """``lockout_tiers("5/1d")``: the per-account tiers for one test, after waiting (if need
    be) until ``margin`` seconds are left in each of their current windows."""

    def set_tiers(text: str, margin: float = 15.0) -> None:  # 200 requests take a second or more
        settings.UNO_LOGIN_LOCKOUT = text
        windows = [tier.window for tier in lockout.parse_tiers(text)]
        while (left := min(w - time.time() % w for w in windows)) < margin:
            time.sleep(left + 0.01)

    return set_tiers


@pytest.fixture
def password_checks(monkeypatch) -> list[str]:
    """The usernames whose password token_obtain checked (Django's authenticate)."""
    checked: list[str] = []
    real = services.authenticate

    def spy(request=None, **credentials):
        checked.append(credentials["username"])
        return real(request, **credentials)

    monkeypatch.setattr(services, "authenticate", spy)
    return checked


def log_in(client: APIClient, username: str, password: str, ip: str = "127.0.0.1"):
    return client.post(TOKEN, {"username": username, "password": password}, format="json", REMOTE_ADDR=ip)


def device_cookie(response):
    cookies = [morsel for name, morsel in response.cookies.items() if name.startswith(lockout.DEVICE_COOKIE_PREFIX)]
    assert len(cookies) <= 1
    return cookies[0] if cookies else None


# --- Failed log-ins per account -------------------------------------------------------------


@pytest.mark.parametrize("tiers", ["5/1d", "5/1m,10/15m,20/1h,50/1d"])
def test_guesses_from_many_ips_lock_the_account_before_its_password_is_checked(
    api, make_player, lockout_tiers, password_checks, store, tiers
):
    lockout_tiers(tiers)
    make_player("victim")

    answers = [log_in(APIClient(), "victim", f"guess-{i}", ip=f"127.0.0.{2 + i % 8}") for i in range(200)]

    assert [r.status_code for r in answers] == [400] * 5 + [429] * 195
    longest_wait = 60 if tiers.startswith("5/1m") else 86400  # the refusing tier's window
    for r in answers[5:]:
        body = assert_problem(r, 429, "throttled")
        assert 1 <= int(r["Retry-After"]) == body["retry_after"] <= longest_wait
        assert "this account" in body["detail"]
    assert len(password_checks) == 5  # a refused guess checks nothing
    # ... not even the right password, from a client the account has not seen log in
    assert_problem(log_in(APIClient(), "victim", DEFAULT_PASSWORD, ip="127.0.0.10"), 429, "throttled")
    assert len(password_checks) == 5


def test_the_owner_still_logs_in_during_an_attack(make_player, lockout_tiers, password_checks, store):
    lockout_tiers("5/1d")
    make_player("owner")
    phone, laptop = APIClient(), APIClient()
    for device in (phone, laptop):
        first = log_in(device, "owner", DEFAULT_PASSWORD)
        assert_json(first, 200)
        assert device_cookie(first) is not None

    attacks = [log_in(APIClient(), "owner", f"guess-{i}", ip=f"127.0.0.{2 + i % 8}") for i in range(200)]
    assert Counter(r.status_code for r in attacks) == {400: 3, 429: 197}  # 2 log-ins + 3 guesses

    token = assert_json(log_in(phone, "owner", DEFAULT_PASSWORD), 200)["token"]
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert me.get("/api/v1/players/me").json()["username"] == "owner"
    # the phone's own mistakes count for the phone only: 5 a day, then it waits too
    assert [log_in(phone, "owner", WRONG).status_code for _ in range(5)] == [400] * 4 + [429]
    assert_json(log_in(laptop, "owner", DEFAULT_PASSWORD), 200)


def test_answers_do_not_tell_whether_the_account_exists(api, make_player, lockout_tiers, password_checks):
    lockout_tiers("3/1d")
    make_player("exists")

    def attempts(username: str) -> list[tuple]:
        seen = []
        for password in [WRONG] * 4 + [DEFAULT_PASSWORD]:
            r = log_in(APIClient(), username, password, ip="127.0.0.9")
            body = r.json()
            seen.append((r.status_code, body["code"], body["title"], sorted(body), device_cookie(r),
                         r.has_header("Retry-After"), r["RateLimit-Limit"], r["RateLimit-Remaining"]))
        return seen

    real, unknown = attempts("exists"), attempts("nobody-by-that-name")

    assert real == unknown
    assert [status for status, *_ in real] == [400] * 3 + [429] * 2
    assert password_checks == ["exists"] * 3 + ["nobody-by-that-name"] * 3


def test_every_form_of_a_name_shares_its_bucket(api, make_player, lockout_tiers):
    lockout_tiers("3/1d")
    make_player("Zoë")

    statuses = [log_in(APIClient(), name, WRONG).status_code for name in ["zoë", "ZOË", "ＺＯË", "Zoe\u0308"]]

    assert statuses == [400, 400, 400, 429]
    assert log_in(APIClient(), "bob", WRONG).status_code == 400  # another account's bucket


def test_the_delay_grows_with_the_guesses(make_player, settings, monkeypatch, store):
    settings.UNO_LOGIN_LOCKOUT = "3/1m,6/1h"
    make_player("victim")
    hour = (int(time.time()) // 3600 + 1) * 3600  # the next hour: its windows are known
    clock = SimpleNamespace(time=lambda: hour + 1)
    monkeypatch.setattr(lockout, "time", clock)

    def guesses(n: int) -> list[tuple[int, int | None]]:
        answers = [log_in(APIClient(), "victim", WRONG, ip=f"127.0.1.{i}") for i in range(n)]
        return [(r.status_code, int(r["Retry-After"]) if r.status_code == 429 else None) for r in answers]

    assert guesses(5) == [(400, None)] * 3 + [(429, 59)] * 2  # until the minute ends
    clock.time = lambda: hour + 61
    assert guesses(4) == [(400, None)] * 3 + [(429, 59)]  # refused guesses did not fill the hour
    clock.time = lambda: hour + 121
    assert guesses(2) == [(429, 3479)] * 2  # 6 guesses checked this hour: until it ends


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_concurrent_guesses_do_not_slip_past_the_limit(live_server, make_player, lockout_tiers, store):
    lockout_tiers("5/1d", margin=60)
    make_player("victim")
    url = live_server.url + TOKEN

    responses = _at_once(live_server.url, 30, lambda session, i: session.post(
        url, json={"username": "victim", "password": f"guess-{i}"}, timeout=60))

    assert Counter(r.status_code for r in responses) == {400: 5, 429: 25}


def test_the_device_cookie(api, make_player, settings):
    make_player("alice")

    cookie = device_cookie(log_in(api, "alice", DEFAULT_PASSWORD))

    assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/api/v1/auth/"
    assert int(cookie["max-age"]) == settings.UNO_LOGIN_DEVICE_DAYS * 86400
    assert not cookie["secure"]  # plain http here; https answers mark it Secure
    assert device_cookie(log_in(APIClient(), "alice", WRONG)) is None  # only a success sets one
    settings.UNO_LOGIN_DEVICE_DAYS = 0
    assert device_cookie(log_in(APIClient(), "alice", DEFAULT_PASSWORD)) is None


def test_a_forged_or_borrowed_cookie_does_not_pass_the_lock(make_player, lockout_tiers):
    lockout_tiers("2/1d")
    make_player("alice")
    make_player("mallory")
    mallory = APIClient()
    mallory_cookie = device_cookie(assert_json_response(log_in(mallory, "mallory", DEFAULT_PASSWORD)))
    for _ in range(2):
        log_in(APIClient(), "alice", WRONG)

    alice_name = f"{lockout.DEVICE_COOKIE_PREFIX}{lockout.account_ref('alice')[:16]}"
    for value in [mallory_cookie.value, "forged", mallory_cookie.value[:-2] + "xx"]:
        client = APIClient()
        client.cookies[alice_name] = value  # another account's cookie under alice's name; junk; tampered
        assert_problem(log_in(client, "alice", DEFAULT_PASSWORD), 429, "throttled")


def assert_json_response(response):
    assert_json(response, 200)
    return response


def test_an_expired_device_cookie_is_a_stranger(make_player, lockout_tiers, monkeypatch):
    lockout_tiers("2/1d")
    make_player("alice")
    device = APIClient()
    assert_json(log_in(device, "alice", DEFAULT_PASSWORD), 200)
    log_in(APIClient(), "alice", WRONG)
    assert_json(log_in(device, "alice", DEFAULT_PASSWORD), 200)  # known: the lock does not apply

    later = time.time() + 91 * 86400  # the cookie's signature is older than UNO_LOGIN_DEVICE_DAYS
    monkeypatch.setattr(signing, "time", SimpleNamespace(time=lambda: later))
    assert_problem(log_in(device, "alice", DEFAULT_PASSWORD), 429, "throttled")


def test_no_per_account_limit_when_unset(make_player, settings):
    settings.UNO_LOGIN_LOCKOUT = ""
    make_player("victim")

    assert {log_in(APIClient(), "victim", WRONG).status_code for _ in range(30)} == {400}
    assert_json(log_in(APIClient(), "victim", DEFAULT_PASSWORD), 200)


def test_bad_tiers_are_refused():
    with pytest.raises(ValueError, match="UNO_LOGIN_LOCKOUT"):
        lockout.parse_tiers("5 per minute")
    assert lockout.parse_tiers(" 5/1m, 10/15m ,50/d") == (
        lockout.Tier(5, 60), lockout.Tier(10, 900), lockout.Tier(50, 86400)
    )


# --- The old password of a password change --------------------------------------------------


def test_old_password_guesses_are_limited_with_the_accounts_log_ins(make_player, lockout_tiers, store):
    lockout_tiers("3/1d")
    player, token = make_player("victim")
    owner = APIClient()
    assert_json(log_in(owner, "victim", DEFAULT_PASSWORD), 200)
    thief = APIClient()  # holds a token, not the password, nor the owner's device cookie
    thief.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    def change(old: str):
        return thief.post(PASSWORD, {"old_password": old, "new_password": "brand-new-secret-9"}, format="json")

    for _ in range(2):  # the owner's first log-in, from a new device, counted too
        body = assert_problem(change(WRONG), 400, "invalid")
        assert list(body["fields"]) == ["old_password"]
    assert_problem(change(DEFAULT_PASSWORD), 429, "throttled")  # not checked: not changed
    player.refresh_from_db()
    assert player.check_password(DEFAULT_PASSWORD)
    # the same account's guesses: a stranger's log-in waits too, the owner's device does not
    assert_problem(log_in(APIClient(), "victim", DEFAULT_PASSWORD), 429, "throttled")
    assert_json(log_in(owner, "victim", DEFAULT_PASSWORD), 200)


def test_the_schema_documents_the_account_lock(api):
    schema = api.get("/api/schema/?format=json").json()
    token_429 = schema["paths"]["/api/v1/auth/token"]["post"]["responses"]["429"]
    assert "UNO_LOGIN_LOCKOUT" in token_429["description"]
    assert "Retry-After" in token_429["headers"]
    assert "UNO_LOGIN_LOCKOUT" in schema["paths"]["/api/v1/auth/password"]["post"]["responses"]["429"]["description"]
    assert "device cookie" in schema["paths"]["/api/v1/auth/token"]["post"]["description"]
    set_cookie = schema["paths"]["/api/v1/auth/token"]["post"]["responses"]["200"]["headers"]["Set-Cookie"]
    assert set_cookie["required"] and "uno_device_" in set_cookie["description"]
