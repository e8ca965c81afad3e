"""Persistence of games: the match, its seats, rounds, scores and the append-only move log.

The game row holds the engine's current state snapshot and a ``version`` (the
number of recorded moves): acting or reading never replays the history.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class GameStatus(models.TextChoices):
    WAITING = "waiting"
    ACTIVE = "active"
    FINISHED = "finished"


class Game(models.Model):
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games")
    ruleset = models.CharField(max_length=32)
    #: the options the creator asked for (on top of the preset)
    options = models.JSONField(default=dict, blank=True)
    #: every option's value in force (preset + options + defaults)
    resolved_options = models.JSONField(default=dict, blank=True)
    max_players = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    #: its result counts towards its players' ratings (a challenge's or quick play's choice)
    rated = models.BooleanField(default=False)
    #: it starts by itself when its last free seat is taken (``services.join_game``)
    start_when_full = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=GameStatus.choices, default=GameStatus.WAITING, db_index=True)
    version = models.PositiveIntegerField(default=0)
    #: secret until the game is finished
    seed = models.CharField(max_length=40)
    #: the engine's state (games.engine.State.to_dict()); null while waiting
    state = models.JSONField(null=True, blank=True)
    round = models.PositiveIntegerField(default=0)
    #: the seat in turn: the one that owes the next in-turn decision (denormalised from
    #: ``state`` for queries)
    current_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    #: every decision owed now, each with its seat and deadline (games.obligations:
    #: written by the move that changed the state); null in games stored before it
    obligations = models.JSONField(null=True, blank=True)
    #: the earliest deadline of the obligations: when the server next acts by itself
    deadline = models.DateTimeField(null=True, blank=True)
    #: when the bot step queued by the last move is due (its think time after the move),
    #: while a robot owes a decision under the turn's deadline; null otherwise.  The
    #: deadline sweeper queues the step again if the robot has not acted
    #: ``UNO_BOT_REVIVE_SECONDS`` after it (its task was lost with the broker's queue),
    #: long before the robot's own deadline revives it (games.robots.revive_lost_steps)
    bot_due = models.DateTimeField(null=True, blank=True)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # the deadline sweeper: overdue deadlines of running games
            models.Index(fields=["deadline"], name="game_deadline_active", condition=models.Q(status="active")),
            # the sweeper's look for lost bot steps: running games whose bot step is due
            models.Index(fields=["bot_due"], name="game_bot_due_active", condition=models.Q(status="active")),
            # rated games that finished lately (standing.tasks.rate_missed: any not rated yet)
            models.Index(fields=["finished_at"], name="game_rated_finished",
                         condition=models.Q(status="finished", rated=True)),
        ]

    def __str__(self) -> str:
        return f"Game {self.pk} ({self.ruleset}, {self.status})"


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    #: the human in this seat (null for a bot seat); (indexed by ``seat_player_game``)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats",
        db_index=False,
    )
    bot_level = models.CharField(max_length=16, blank=True, default="")
    #: consecutive timeouts; at ``max_timeouts`` the seat goes on autopilot
    timeouts = models.PositiveSmallIntegerField(default=0)
    autopilot = models.BooleanField(default=False)
    #: its player left the running game (``POST /games/{id}/leave``): the autopilot plays
    #: the seat to the end, for good (``autopilot`` stays true; the player can no longer
    #: act in the game: 403 ``left_game``), unlike the autopilot of timeouts, which the
    #: player's next action ends
    left = models.BooleanField(default=False)
    #: this seat won the finished game (alone, or with its team: ``State.winners``)
    won = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="unique_seat_per_game"),
            models.UniqueConstraint(
                fields=["game", "player"], name="one_seat_per_player", condition=models.Q(player__isnull=False)
            ),
        ]
        indexes = [
            # a player's games, newest first (standing: profiles, ``/players/{name}/games``):
            # a page is a range of this index, however many games the player has
            models.Index(fields=["player", "game"], name="seat_player_game", condition=models.Q(player__isnull=False)),
            # a bot level's games, newest first (its profile)
            models.Index(fields=["bot_level", "game"], name="seat_bot_level_game",
                         condition=models.Q(player__isnull=True)),
        ]

    @property
    def is_bot(self) -> bool:
        return self.player_id is None

    def __str__(self) -> str:
        return f"seat {self.seat} of game {self.game_id}"


class Round(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="unique_round_number")]


class Score(models.Model):
    """Points a seat scored in a round."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="scores")
    seat = models.PositiveSmallIntegerField()
    points = models.IntegerField()
    #: points left in that seat's hand when the round ended
    hand_points = models.IntegerField(default=0)

    class Meta:
        ordering = ["seat"]
        constraints = [models.UniqueConstraint(fields=["round", "seat"], name="unique_score_per_seat")]


class MoveBy(models.TextChoices):
    PLAYER = "player"
    BOT = "bot"
    TIMER = "timer"


class Move(models.Model):
    """One recorded action: the append-only log a game replays from."""

    #: no index of its own: ``unique_move_seq`` (game, seq) serves every lookup by game,
    #: and each move inserted maintains one index less
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    round = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    action = models.JSONField()
    #: every event, including those addressed to one seat ("to"); redacted per viewer when read
    events = models.JSONField(default=list)
    by = models.CharField(max_length=8, choices=MoveBy.choices)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq")]


class IdempotencyRecord(models.Model):
    """The first response to a request made with an ``Idempotency-Key``."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    #: null while the first request is still running
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "key"], name="unique_idempotency_key")]


class Heartbeat(models.Model):
    """When a background part last proved it works: ``worker`` (a pool process ran the
    heartbeat task that the worker sends itself) and ``sweeper`` (beat's deadline sweep
    ran to its end in a worker).  Read by the health check."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


class DeferredBotStep(models.Model):
    """A bot step held back because its owner's share of the workers was in use
    (``games.botqueue``): the game, the version its bots were to act at, whose share
    (the game's creator) and since when.  Taken again, oldest first, when one of the
    owner's steps ends, and by the deadline sweeper (round robin across owners); a row
    whose game has moved on or ended is stale and dropped."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                              db_index=False)
    version = models.PositiveIntegerField()
    since = models.DateTimeField()

    class Meta:
        indexes = [
            # an owner's held-back steps, oldest first (a step of theirs ended: the next)
            models.Index(fields=["owner", "since"], name="deferred_bot_owner_since"),
            # every owner's, oldest first (the sweeper; the health check's backlog)
            models.Index(fields=["since"], name="deferred_bot_since"),
        ]

    def __str__(self) -> str:
        return f"bot step of game {self.game_id} at version {self.version}, held back since {self.since:%H:%M:%S}"
