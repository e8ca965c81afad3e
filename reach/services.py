"""Writes of reach: a player's notification preferences, their email address (verified
by a signed link), their push subscriptions, and unsubscribing.  Each keeps the player's
``reachable`` flag (``players.Player``: read with a game's seats, so that the outbox is
written only for the players a channel can reach)."""

from __future__ import annotations

import hashlib
import logging
from datetime import time
from typing import Any

from celery import current_app
from django.conf import settings
from django.core import signing
from django.db import transaction

from config.problems import ApiError
from players.models import Player
from reach import messages
from reach.models import CHANNELS, KINDS, Preferences, PushSubscription

log = logging.getLogger(__name__)

#: push subscriptions a player may hold at most
MAX_SUBSCRIPTIONS = 20


def preferences(player) -> Preferences:
    """The player's preferences (made with the defaults on first use)."""
    prefs, _ = Preferences.objects.get_or_create(player_id=player.pk)
    return prefs


def refresh_reachable(player_id: int) -> bool:
    """Set ``Player.reachable``: whether a channel can carry any kind to the player (a
    verified address with some kind's email on, or a push subscription with some kind's
    push on)."""
    prefs = Preferences.objects.filter(pk=player_id).first()
    reachable = False
    if prefs is not None:
        if prefs.email and prefs.email_verified and any(prefs.wants(k, "email") for k in KINDS):
            reachable = True
        elif (any(prefs.wants(k, "push") for k in KINDS)
              and PushSubscription.objects.filter(player_id=player_id).exists()):
            reachable = True
    Player.objects.filter(pk=player_id).exclude(reachable=reachable).update(reachable=reachable)
    return reachable


def update_preferences(*, player, kinds: dict[str, dict[str, bool]] | None = None,
                       quiet_hours: Any = ..., timezone: str | None = None, digest: bool | None = None) -> Preferences:
    """``PATCH /players/me/notifications``: what is given changes (``kinds`` per kind
    and channel; ``quiet_hours`` a {"start", "end"} of ``time``s, or None to turn them off)."""
    with transaction.atomic():
        prefs = preferences(player)
        prefs = Preferences.objects.select_for_update().get(pk=prefs.pk)
        if kinds:
            merged = {k: dict((prefs.kinds or {}).get(k, {})) for k in KINDS}
            for kind, channels in kinds.items():
                merged[kind].update(channels)
            prefs.kinds = {k: {c: bool(merged[k].get(c, True)) for c in CHANNELS} for k in KINDS}
        if quiet_hours is not ...:
            if quiet_hours is None:
                prefs.quiet_start = prefs.quiet_end = None
            else:
                start, end = quiet_hours["start"], quiet_hours["end"]
                if start == end:
                    raise ApiError(400, "invalid", "quiet hours must not start when they end",
                                   fields={"quiet_hours": ["start and end are the same time"]})
                prefs.quiet_start, prefs.quiet_end = start, end
        if timezone is not None:
            prefs.timezone = timezone
        if digest is not None:
            prefs.digest = digest
        prefs.save()
        refresh_reachable(player.pk)
    return prefs


def set_email(*, player, address: str) -> Preferences:
    """Set the player's address, unverified, and send it a verification link (after the
    commit, by a task: the mail server never holds the request)."""
    with transaction.atomic():
        prefs = preferences(player)
        prefs.email, prefs.email_verified = address, False
        prefs.save(update_fields=["email", "email_verified"])
        refresh_reachable(player.pk)
        transaction.on_commit(lambda: _queue_verification(player.pk, address))
    return prefs


def _queue_verification(player_id: int, address: str) -> None:
    try:
        current_app.send_task("reach.tasks.send_verification", (player_id, address))
    except Exception:
        log.warning("could not queue the verification email of player %s", player_id, exc_info=True)


def verification_mail(player_id: int, address: str):
    from django.core.mail import EmailMessage

    link = messages.public_url(f"/api/v1/email/verify/{messages.verify_token(player_id, address)}")
    hours = settings.UNO_REACH_VERIFY_HOURS
    return EmailMessage(
        subject="Confirm your email address for UNO notifications",
        body=f"Open this link to receive your UNO games' notifications at this address:\n\n{link}\n\n"
             f"It works for {hours:g} hours. If you did not ask for it, ignore this email.\n",
        to=[address],
    )


def verify_email(token: str) -> Preferences:
    """The link of a verification email: the address it was sent to is verified, if it
    is still the player's (404 ``not_found`` for a bad or expired link)."""
    try:
        player_id, address = messages.read_verify_token(token, settings.UNO_REACH_VERIFY_HOURS * 3600)
    except signing.BadSignature:
        raise ApiError(404, "not_found", "this verification link is not valid (or it expired)") from None
    with transaction.atomic():
        prefs = Preferences.objects.select_for_update().filter(pk=player_id).first()
        if prefs is None or prefs.email != address:
            raise ApiError(404, "not_found", "this verification link is for an address no longer set")
        if not prefs.email_verified:
            prefs.email_verified = True
            prefs.save(update_fields=["email_verified"])
            refresh_reachable(player_id)
    return prefs


def delete_email(*, player) -> bool:
    with transaction.atomic():
        prefs = Preferences.objects.filter(pk=player.pk).first()
        if prefs is None or not prefs.email:
            return False
        prefs.email, prefs.email_verified = None, False
        prefs.save(update_fields=["email", "email_verified"])
        refresh_reachable(player.pk)
    return True


def unsubscribe(token: str) -> tuple[Preferences, str]:
    """One-click unsubscribe (RFC 8058): that kind's email off (``all``: every kind's);
    404 ``not_found`` for a bad link.  Returns the preferences and the kind."""
    try:
        player_id, kind = messages.read_unsubscribe_token(token)
    except signing.BadSignature:
        raise ApiError(404, "not_found", "this unsubscribe link is not valid") from None
    if kind != messages.ALL and kind not in KINDS:
        raise ApiError(404, "not_found", "this unsubscribe link is not valid")
    with transaction.atomic():
        prefs = Preferences.objects.select_for_update().filter(pk=player_id).first()
        if prefs is None:
            raise ApiError(404, "not_found", "this unsubscribe link is not valid")
        kinds = {k: dict((prefs.kinds or {}).get(k, {})) for k in KINDS}
        for k in (KINDS if kind == messages.ALL else [kind]):
            kinds[k]["email"] = False
        prefs.kinds = {k: {c: bool(kinds[k].get(c, True)) for c in CHANNELS} for k in KINDS}
        prefs.save(update_fields=["kinds"])
        refresh_reachable(player_id)
    return prefs, kind


def subscription_key(platform: str, address: str) -> str:
    return hashlib.sha256(f"{platform}\n{address}".encode()).hexdigest()


def add_subscription(*, player, platform: str, endpoint: str = "", keys: dict | None = None, token: str = "",
                     label: str = "") -> tuple[PushSubscription, bool]:
    """A push subscription of the player (created: True); the same endpoint or token
    again is the same row (moved to this player if another held it: the device changed
    hands), its keys and label brought up to date."""
    address = endpoint if platform == "webpush" else token
    key = subscription_key(platform, address)
    keys = keys or {}
    with transaction.atomic():
        preferences(player)
        sub = PushSubscription.objects.select_for_update().filter(key=key).first()
        if sub is None:
            if PushSubscription.objects.filter(player_id=player.pk).count() >= MAX_SUBSCRIPTIONS:
                raise ApiError(409, "too_many_subscriptions",
                               f"at most {MAX_SUBSCRIPTIONS} push subscriptions: delete one first",
                               limit=MAX_SUBSCRIPTIONS)
            sub = PushSubscription.objects.create(
                player_id=player.pk, platform=platform, endpoint=endpoint, token=token,
                p256dh=keys.get("p256dh", ""), auth=keys.get("auth", ""), label=label, key=key)
            created = True
        else:
            previous = sub.player_id
            sub.player_id, sub.p256dh, sub.auth = player.pk, keys.get("p256dh", sub.p256dh), keys.get("auth", sub.auth)
            if label:
                sub.label = label
            sub.save()
            created = False
            if previous != player.pk:
                refresh_reachable(previous)
        refresh_reachable(player.pk)
    return sub, created


def delete_subscription(*, player, subscription_id: int) -> bool:
    with transaction.atomic():
        deleted = PushSubscription.objects.filter(pk=subscription_id, player_id=player.pk).delete()[0]
        refresh_reachable(player.pk)
    return bool(deleted)


def parse_time(value: str) -> time:
    return time.fromisoformat(value)
