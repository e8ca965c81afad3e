"""Challenges (a game offered to named players, or to anyone holding its link), the
players' preferences about them, and rematch offers after a finished game."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ChallengeStatus(models.TextChoices):
    PENDING = "pending"
    #: every named player accepted (or the open seats were all taken): ``game`` started
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class DeclineReason(models.TextChoices):
    """Why a challenge was declined (Lichess's list, kept to what applies here)."""

    GENERIC = "generic", "I'm not accepting challenges at the moment."
    LATER = "later", "This is not the right time for me, please ask again later."
    TOO_FAST = "too_fast", "This turn time is too fast for me, please challenge again with a slower game."
    TOO_SLOW = "too_slow", "This turn time is too slow for me, please challenge again with a faster game."
    RATED = "rated", "Please send me a rated challenge instead."
    CASUAL = "casual", "Please send me a casual (unrated) challenge instead."
    RULESET = "ruleset", "I'm not willing to play this preset right now."
    OPTIONS = "options", "I'm not willing to play with these house rules."
    TOO_MANY_PLAYERS = "too_many_players", "Please send me a challenge with fewer players."
    NO_BOT = "no_bot", "I'm not accepting challenges with bots at the table."
    ONLY_BOT = "only_bot", "I'm only accepting challenges with bots at the table."


class Answer(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class Challenge(models.Model):
    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent")
    ruleset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    max_players = models.PositiveSmallIntegerField()
    #: the bots' levels, in the order of their seats (after the players')
    bots = models.JSONField(default=list, blank=True)
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    rated = models.BooleanField(default=False)
    #: an open challenge's secret (``secrets.token_urlsafe``): whoever holds its URL may take a
    #: seat; null for a challenge to named players
    token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    status = models.CharField(max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.PENDING)
    #: a pending challenge past this is expired (the beat sweeper writes it: ``meeting.tasks``)
    expires_at = models.DateTimeField()
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    declined_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    decline_reason = models.CharField(max_length=32, choices=DeclineReason.choices, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["status", "expires_at"], name="challenge_status_expiry"),
            models.Index(fields=["challenger", "status"], name="challenge_challenger_status"),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk} by {self.challenger} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.token is not None


class Participant(models.Model):
    """A named player of a challenge (``named``), or a player who took a seat of an open
    one by its link (accepted on arrival)."""

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="participants")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received")
    named = models.BooleanField(default=True)
    answer = models.CharField(max_length=16, choices=Answer.choices, default=Answer.PENDING)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["challenge", "player"], name="participant_once")]

    def __str__(self) -> str:
        return f"{self.player} in challenge {self.challenge_id} ({self.answer})"


class ChallengePolicy(models.TextChoices):
    EVERYONE = "everyone"
    NOBODY = "nobody"


class Preferences(models.Model):
    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="meeting_preferences")
    #: who may challenge the player by name (players they blocked never may)
    challenges = models.CharField(max_length=16, choices=ChallengePolicy.choices, default=ChallengePolicy.EVERYONE)

    def __str__(self) -> str:
        return f"preferences of {self.player}"


class RematchStatus(models.TextChoices):
    OFFERED = "offered"
    #: every human accepted: ``new_game`` started
    STARTED = "started"
    DECLINED = "declined"
    EXPIRED = "expired"


class Rematch(models.Model):
    """The rematch offer of a finished game (one per game)."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="rematch_offer")
    offered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    #: the ids of the players who accepted, in order (the one who offered first)
    accepted = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=RematchStatus.choices, default=RematchStatus.OFFERED)
    declined_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    new_game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "expires_at"], name="rematch_status_expiry")]

    def __str__(self) -> str:
        return f"Rematch of game {self.game_id} ({self.status})"
