"""reach's rows: a player's notification preferences, their push subscriptions, and the
outbox of messages to deliver (written in the transaction of the change they tell of)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

#: the kinds of messages, in the order the settings list them
KINDS = ("your_turn", "reminder", "game_started", "game_finished", "challenge", "rematch")
#: the channels a player chooses per kind (the feed and webhooks stay as they are)
CHANNELS = ("email", "push")
PLATFORMS = ("webpush", "fcm", "apns")


def default_kinds() -> dict:
    """Every kind on, on both channels (a channel still needs a verified address or a
    push subscription to carry anything)."""
    return {kind: {"email": True, "push": True} for kind in KINDS}


class Preferences(models.Model):
    """One player's notification settings (a row made on first use)."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                  related_name="reach")
    #: {kind: {"email": bool, "push": bool}}; a kind or channel missing: its default (on)
    kinds = models.JSONField(default=default_kinds)
    quiet_start = models.TimeField(null=True, blank=True)
    quiet_end = models.TimeField(null=True, blank=True)
    #: IANA time zone of the quiet hours
    timezone = models.CharField(max_length=64, default="UTC")
    #: several messages due at once on one channel go as one
    digest = models.BooleanField(default=True)
    email = models.EmailField(max_length=254, null=True, blank=True)
    email_verified = models.BooleanField(default=False)
    #: the player's delivery is being done by a worker until then (one at a time, in order)
    lease_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"notification preferences of {self.player_id}"

    def wants(self, kind: str, channel: str) -> bool:
        return bool((self.kinds or {}).get(kind, {}).get(channel, True))


class PushSubscription(models.Model):
    """Where a device or browser of a player receives push messages."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    platform = models.CharField(max_length=16, choices=[(p, p) for p in PLATFORMS])
    #: the Web Push endpoint, or the FCM / APNs device token
    endpoint = models.TextField(blank=True, default="")
    token = models.TextField(blank=True, default="")
    p256dh = models.CharField(max_length=200, blank=True, default="")
    auth = models.CharField(max_length=100, blank=True, default="")
    label = models.CharField(max_length=100, blank=True, default="")
    #: sha256 of platform + endpoint or token: one row per device, whoever registers it
    key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.platform} subscription {self.pk} of {self.player_id}"

    def target(self) -> dict:
        """What ``reach.push.send`` takes for this subscription."""
        if self.platform == "webpush":
            return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
        return {"token": self.token}


class Status(models.TextChoices):
    PENDING = "pending"
    SENT = "sent"
    #: no longer worth sending at delivery (the turn was played, the player looked...)
    SKIPPED = "skipped"
    #: every channel refused, or the retries ran out
    FAILED = "failed"


class Message(models.Model):
    """One message of the outbox: written in the transaction of what it tells of,
    delivered once (``key``: one per player, kind, game and obligation) by
    ``reach.delivery``, in ``due_at`` order per player and channel."""

    id = models.BigAutoField(primary_key=True)
    #: (no index of its own: the unique (player, key) and the (player, due_at, id) index
    #: lead with it, and each index is one more write of every move that writes a message)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                               db_index=False)
    kind = models.CharField(max_length=16)
    #: the deduplication key: kind, game, seat, decision, when it began to be owed...
    key = models.CharField(max_length=200)
    game_id = models.BigIntegerField(null=True, blank=True)
    #: public facts only (names, preset, time left, result): the body is built from them
    data = models.JSONField(default=dict)
    #: when it is due (its place in the player's order: a retry leaves it as it is)
    due_at = models.DateTimeField()
    #: after a temporary failure, or while an earlier message of the player waits for one
    #: on a channel this one needs: not tried again before then (null: as soon as due)
    retry_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.IntegerField(default=0)
    #: the channels (``email``, ``push:<subscription id>``) it was delivered on already
    done = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    #: why it was skipped or failed, or the last temporary failure
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "key"], name="reach_message_once")]
        indexes = [
            models.Index(fields=["due_at"], name="reach_message_pending_due",
                         condition=models.Q(status="pending")),
            models.Index(fields=["player", "due_at", "id"], name="reach_message_player_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.player_id} ({self.status})"
