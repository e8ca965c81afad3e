"""Ratings: one per player (or bot level) and preset, the change each rated game made,
the leaderboard's rank counts, and what a player shows on their profile.

A rating is OpenSkill's Plackett-Luce ``mu`` and ``sigma`` (``standing.ratings``); the
leaderboard ranks the *established* ratings (``UNO_RATING_PROVISIONAL_GAMES`` rated
games or more) by the conservative estimate ``ordinal = mu - 3 sigma``.  A rank is
the number of established ratings above, counted from :class:`RankBucket` (how many
established ratings each 0.1 of ``ordinal`` holds, kept with the ratings) plus the few
in the rating's own bucket: so "around me" costs the same with a million players as
with ten.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Rating(models.Model):
    """A player's (``player``) or a bot level's (``bot_level``, ``player`` null) rating
    in one preset (``pool``)."""

    pool = models.CharField(max_length=32)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                               related_name="ratings")
    bot_level = models.CharField(max_length=16, blank=True, default="")
    mu = models.FloatField()
    sigma = models.FloatField()
    #: mu - 3 sigma: what the leaderboard ranks by
    ordinal = models.FloatField()
    #: floor(ordinal * BUCKETS_PER_POINT): the RankBucket it counts in (established only)
    bucket = models.IntegerField()
    #: rated games played and won in this pool
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    #: ranked on the leaderboard (``games`` >= UNO_RATING_PROVISIONAL_GAMES); else provisional
    established = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "player"], condition=Q(player__isnull=False),
                                    name="one_rating_per_player_pool"),
            models.UniqueConstraint(fields=["pool", "bot_level"], condition=Q(player__isnull=True),
                                    name="one_rating_per_bot_pool"),
            models.CheckConstraint(condition=Q(player__isnull=True, bot_level__gt="") | Q(player__isnull=False,
                                                                                           bot_level=""),
                                   name="rating_player_xor_bot"),
        ]
        indexes = [
            # the leaderboard: a pool's established ratings, best first (pages, around me,
            # the ratings above one in its own bucket).  It includes ``bucket`` so that
            # rank_of counts those (thousands, with a million players) from the index alone
            # (PostgreSQL's index-only scan), not from as many scattered table pages.
            models.Index(fields=["pool", "-ordinal", "id"], name="rating_board",
                         condition=Q(established=True), include=["bucket"]),
        ]

    def __str__(self) -> str:
        who = self.player.username if self.player_id else f"bot:{self.bot_level}"
        return f"{who} in {self.pool}: {self.ordinal:.2f}"


class RankBucket(models.Model):
    """How many established ratings of ``pool`` have ``Rating.bucket == bucket``."""

    pool = models.CharField(max_length=32)
    bucket = models.IntegerField()
    count = models.IntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pool", "bucket"], name="one_rank_bucket")]


class RatingChange(models.Model):
    """What one rated game did to one seat's rating: the game's rating history.  At most
    one per seat of a game (so a game is never rated twice)."""

    #: (no index of its own: ``one_rating_change_per_seat`` serves the lookups by game)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+", db_index=False)
    seat = models.PositiveSmallIntegerField()
    #: (indexed by ``rating_change_history``)
    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes", db_index=False)
    #: the seat's place in the game (0: first; ties share it; an abandoned seat last)
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="one_rating_change_per_seat")]
        indexes = [models.Index(fields=["rating", "-id"], name="rating_change_history")]

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before

    @property
    def ordinal_after(self) -> float:
        return self.mu_after - 3 * self.sigma_after


class Profile(models.Model):
    """What a player shows others: whether their games are listed (default: yes)."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                  related_name="+")
    games_public = models.BooleanField(default=True)
