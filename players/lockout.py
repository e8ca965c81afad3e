"""Password guesses limited per account, without letting anyone lock the owner out.

Every request that would check an account's password (``POST /auth/token``, and the old
password of ``POST /auth/password``) is first counted against that account, in the rate
limiter's shared store (players.throttling: Redis, else the RateCounter table), in the
tiers of ``UNO_LOGIN_LOCKOUT`` ("5/1m,10/15m,20/1h,50/1d": at most 5 a minute, 10 a
quarter of an hour, 20 an hour, 50 a day).  Over a tier the request answers 429
``throttled`` with ``Retry-After`` (that tier's window's end) **before** the password is
checked, so a locked account tells a guesser nothing, right or wrong.  The tiers are
charged in order and a refused request charges no later tier: the ones refused by the
minute's limit do not fill the day's, and the delay grows with the guesses actually
checked (a minute after 5, a quarter of an hour after 10, ...).  An attempt counts before
its password is checked, so concurrent guesses cannot slip past the limit; it counts
whether the password was right or wrong, the account exists or not.

The owner is not locked out (OWASP's "device cookies"): a successful log-in gives the
client a signed cookie, ``uno_device_<account>``, naming that account and a random
device id (HttpOnly, SameSite=Strict, Path=/api/v1/auth/, Secure over https; valid
``UNO_LOGIN_DEVICE_DAYS``, renewed at every log-in).  A request that carries a valid one
for the account is counted in that device's own bucket, same tiers, not the account's:
guesses from elsewhere, however many, never refuse it.  A stolen cookie is worth only
its own few guesses.  What remains is an owner on a new device (or a client that keeps
no cookies) while the account is under attack: they wait, as told by Retry-After.

The account is named by a hash of the typed name's ``username_key``, existing or not:
every form of a name ("zoë", "ZOË") shares a bucket, and the answers and their timing
are the same for names that exist and names that do not (a refused request checks
nothing; Django's backend hashes a password for unknown names too).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core import signing
from rest_framework import exceptions

from players.models import username_key
from players.throttling import _record, counter_key, measure

#: The device cookies' names: this prefix, then the first characters of the account's hash.
DEVICE_COOKIE_PREFIX = "uno_device_"
DEVICE_COOKIE_PATH = "/api/v1/auth/"
_DEVICE_SALT = "players.lockout.device"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_TIER = re.compile(r"\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*")

LOCKED_DETAIL = (
    "Too many log-in attempts for this account: log in from a device that has logged in to it "
    "before, or wait."
)


@dataclass(frozen=True)
class Tier:
    """At most ``limit`` attempts per fixed window of ``window`` seconds."""

    limit: int
    window: int


@lru_cache(maxsize=8)
def parse_tiers(text: str) -> tuple[Tier, ...]:
    """``"5/1m,10/15m,20/1h,50/1d"`` -> tiers (empty text: none, the lock is off)."""
    tiers = []
    for part in filter(str.strip, text.split(",")):
        match = _TIER.fullmatch(part)
        if not match:
            raise ValueError(f"UNO_LOGIN_LOCKOUT: {part!r} is not <count>/<number><s|m|h|d>")
        count, number, unit = match.groups()
        tiers.append(Tier(limit=int(count), window=int(number or 1) * _UNITS[unit]))
    return tuple(tiers)


def tiers() -> tuple[Tier, ...]:
    return parse_tiers(settings.UNO_LOGIN_LOCKOUT)


class AccountLocked(exceptions.Throttled):
    """429 ``throttled``: too many attempts at this account's password."""

    def __init__(self, wait: int) -> None:
        super().__init__(wait=wait, detail=LOCKED_DETAIL)


def account_ref(username: str) -> str:
    """The account's name in counters and cookies: a hash of its username_key."""
    return hashlib.sha256(username_key(username).encode()).hexdigest()[:32]


def _cookie_name(account: str) -> str:
    return f"{DEVICE_COOKIE_PREFIX}{account[:16]}"


def known_device(request, account: str) -> str | None:
    """The device id of the request's valid device cookie for ``account``, if any."""
    value = request.COOKIES.get(_cookie_name(account))
    if not value:
        return None
    try:
        data = signing.loads(value, salt=_DEVICE_SALT, max_age=settings.UNO_LOGIN_DEVICE_DAYS * 86400)
    except signing.BadSignature:  # tampered, expired, or not ours
        return None
    if not isinstance(data, dict) or data.get("a") != account or not isinstance(data.get("d"), str):
        return None
    return data["d"]


def charge(request, account: str) -> None:
    """Count one attempt at ``account``'s password, in the device's bucket if the request
    carries a valid device cookie for it, else in the account's; AccountLocked if over a
    tier (later tiers are then not charged)."""
    device = known_device(request, account)
    bucket = f"login-device:{device}" if device else f"login:{account}"
    now = time.time()
    for tier in tiers():
        usage = measure(counter_key(f"{bucket}:{tier.limit}/{tier.window}"), tier.limit, tier.window, now)
        _record(request, usage)  # the RateLimit-* headers report the tightest policy
        if not usage.allowed:
            raise AccountLocked(wait=usage.reset)


def remember_device(request, response, account: str) -> None:
    """After a successful log-in: (re)issue the device cookie for ``account`` (same device
    id if the request had one, a fresh one otherwise), valid UNO_LOGIN_DEVICE_DAYS."""
    days = settings.UNO_LOGIN_DEVICE_DAYS
    if days <= 0:
        return
    device = known_device(request, account) or secrets.token_urlsafe(16)
    response.set_cookie(
        _cookie_name(account),
        signing.dumps({"a": account, "d": device}, salt=_DEVICE_SALT),
        max_age=days * 86400,
        path=DEVICE_COOKIE_PATH,
        secure=request.is_secure(),
        httponly=True,
        samesite="Strict",
    )


# --- OpenAPI ------------------------------------------------------------------------


def device_cookie_schema_hook(result: dict, generator, request, public: bool) -> dict:
    """drf-spectacular postprocessing hook: the ``Set-Cookie`` of a successful log-in."""
    for path_item in result.get("paths", {}).values():
        operation = path_item.get("post")
        if isinstance(operation, dict) and operation.get("operationId") == "auth_token":
            headers = operation["responses"]["200"].setdefault("headers", {})
            headers["Set-Cookie"] = {
                "description": (
                    "The account's device cookie, `uno_device_<16 hex digits>=<signed value>; "
                    "Path=/api/v1/auth/; Max-Age=<UNO_LOGIN_DEVICE_DAYS in seconds>; HttpOnly; "
                    "SameSite=Strict` (`Secure` over https). Sent back on later log-ins, it lets this "
                    "client past the account's lock-out after failed log-ins elsewhere (UNO_LOGIN_LOCKOUT)."
                ),
                "schema": {"type": "string"},
                "required": settings.UNO_LOGIN_DEVICE_DAYS > 0,
            }
    return result
