"""Quick-play requests, and the matchmaker's lock row."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Pool(models.Model):
    """The matchmaker's lock row: every write to waiting requests (a new request and its
    match attempt, a cancellation, the sweeper's bot fill-ins and expiries) first locks
    this row (``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every transaction holds
    the one write lock from its start), so matching runs one transaction at a time on any
    database, and no request is ever read as waiting by two matchers at once."""

    name = models.CharField(max_length=32, primary_key=True)
    #: when the sweeper last went over every waiting request (a full pass)
    rescanned_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Pool {self.name}"


class Status(models.TextChoices):
    WAITING = "waiting"
    MATCHED = "matched"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class QuickPlayRequest(models.Model):
    """What a player will accept (lists in order of preference), until it is matched into
    one game, cancelled or expired."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quickplay_requests")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    rulesets = models.JSONField()
    seats = models.JSONField()
    speeds = models.JSONField()
    rated = models.BooleanField(default=False)
    #: bots may fill the table once the request waited this long (null: never)
    bots_after_seconds = models.PositiveIntegerField(null=True, blank=True)
    bots_level = models.CharField(max_length=16, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: when bots may fill its table (created_at + bots_after_seconds), null without bots
    bots_at = models.DateTimeField(null=True, blank=True)
    #: when it expires if still waiting
    expires_at = models.DateTimeField()
    #: when it was matched, cancelled or expired
    ended_at = models.DateTimeField(null=True, blank=True)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    #: the table it was seated at: preset, seat count, speed, bots among the seats
    ruleset = models.CharField(max_length=32, null=True, blank=True)
    seat_count = models.PositiveSmallIntegerField(null=True, blank=True)
    speed = models.CharField(max_length=16, null=True, blank=True)
    bot_seats = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        constraints = [
            # one waiting request per player (the service refuses a second first: 409)
            models.UniqueConstraint(fields=["player"], condition=models.Q(status="waiting"),
                                    name="quickplay_one_waiting_per_player"),
            models.CheckConstraint(condition=~models.Q(status="matched") | models.Q(ended_at__isnull=False),
                                   name="quickplay_matched_has_ended_at"),
        ]
        indexes = [
            models.Index(fields=["status", "bots_at"], name="quickplay_status_bots_at"),
            models.Index(fields=["status", "expires_at"], name="quickplay_status_expires"),
        ]

    def __str__(self) -> str:
        return f"Quick play {self.pk} ({self.status})"
