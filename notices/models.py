"""A notice: one event for one player's feed, or for one game's stream."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Audience(models.TextChoices):
    #: ``player``'s feed (``GET /players/me/events``) and webhook
    PLAYER = "player"
    #: the stream of ``game_id``, for its seated players (and for everyone once it ended)
    PLAYERS = "players"
    #: the stream of ``game_id``, for viewers without a seat (its players see these once it ended)
    SPECTATORS = "spectators"
    #: the stream of ``game_id``, for every viewer
    EVERYONE = "everyone"


class Notice(models.Model):
    #: the order in which notices are sent (the hub reads those after the last it saw)
    id = models.BigAutoField(primary_key=True)
    audience = models.CharField(max_length=16, choices=Audience.choices)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                               related_name="notices")
    #: a game's id (no foreign key: games sit above this app); null for a feed's notice
    game_id = models.BigIntegerField(null=True, blank=True)
    #: the SSE event name (``challenge``, ``chat``, ``rematch``...)
    kind = models.CharField(max_length=32)
    data = models.JSONField(default=dict)
    #: who wrote what it tells (a chat message's author), never sent to clients: a game
    #: stream's viewer who blocked the author, or whom the author blocked, is not sent it
    #: (``games.live``); null: no one's
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+", db_index=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["player", "id"], name="notice_player_id"),
            models.Index(fields=["game_id", "id"], name="notice_game_id"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(audience="player", player__isnull=False, game_id__isnull=True)
                           | (~models.Q(audience="player") & models.Q(player__isnull=True, game_id__isnull=False))),
                name="notice_player_xor_game",
            ),
        ]

    def __str__(self) -> str:
        return f"Notice {self.pk} {self.kind} to {self.player_id or f'game {self.game_id}'}"
