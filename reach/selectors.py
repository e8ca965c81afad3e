"""Reads of reach: a player's notification settings as the API shows them."""

from __future__ import annotations

from reach.models import CHANNELS, KINDS, Preferences, PushSubscription


def _push():
    try:
        from reach import push
    except ImportError:
        return None
    return push


def notifications_of(player) -> dict:
    """``GET /players/me/notifications`` (defaults for a player who never set anything)."""
    prefs = Preferences.objects.filter(pk=player.pk).first() or Preferences(player_id=player.pk)
    push = _push()
    platforms, key = push.offered() if push else ([], None)
    quiet = None
    if prefs.quiet_start is not None and prefs.quiet_end is not None:
        quiet = {"start": prefs.quiet_start, "end": prefs.quiet_end}
    return {
        "email": {"address": prefs.email or None, "verified": bool(prefs.email and prefs.email_verified)},
        "kinds": {k: {c: prefs.wants(k, c) for c in CHANNELS} for k in KINDS},
        "quiet_hours": quiet,
        "timezone": prefs.timezone or "UTC",
        "digest": prefs.digest,
        "push": {"webpush_public_key": key, "platforms": platforms},
        "push_subscriptions": [
            {"id": s.pk, "platform": s.platform, "created_at": s.created_at, "label": s.label}
            for s in PushSubscription.objects.filter(player_id=player.pk).order_by("id")
        ],
    }
