"""Table talk: a game's messages (players' and spectators' rooms), their reports, and
players muted by the staff."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Room(models.TextChoices):
    #: the seated players (those who left a running game read it, but may not post)
    PLAYERS = "players"
    #: everyone else; hidden from the players until the game is finished
    SPECTATORS = "spectators"


class Message(models.Model):
    """One message of a game's table talk (part of the game's record)."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    room = models.CharField(max_length=16, choices=Room.choices)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    #: the author's seat when they wrote it (players' room), else null
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    #: as shown: cleaned (chat.text.clean)
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    #: hidden by the staff (the admin): no longer shown to anyone
    hidden_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["game", "id"], name="chat_message_game_id")]

    def __str__(self) -> str:
        return f"{self.author} in game {self.game_id} ({self.room}): {self.text[:40]}"


class Report(models.Model):
    """A player reported a message to the staff (once per message and player)."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=32)
    comment = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    #: the staff dealt with it (hid the message, muted its author, or found nothing)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once")]

    def __str__(self) -> str:
        return f"report of message {self.message_id} by {self.reporter}: {self.reason}"


class Mute(models.Model):
    """The staff muted ``player`` until ``until``: their messages are refused (403 ``muted``)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    until = models.DateTimeField()
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "until"], name="chat_mute_player_until")]

    def __str__(self) -> str:
        return f"{self.player} muted until {self.until:%Y-%m-%d %H:%M}"
