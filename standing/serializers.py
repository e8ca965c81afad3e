"""The documented shapes of standing's responses (OpenAPI)."""

from __future__ import annotations

from rest_framework import serializers


class RatingChangeSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    place = serializers.IntegerField(help_text="The seat's place in the game: 1 the first; ties share a place; a seat "
                                     "whose player left is last.")
    rating_before = serializers.FloatField(help_text="The conservative estimate (mu - 3 sigma) before the game.")
    rating_after = serializers.FloatField(help_text="The conservative estimate after the game.")
    change = serializers.FloatField(help_text="rating_after - rating_before.")
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()


def rating_changes_schema_field():
    """The ``rating_changes`` member of a game's view (``games.selectors.register_view_field``)."""
    return RatingChangeSerializer(
        many=True, allow_null=True,
        help_text="A finished rated game's rating change of each seat, in seat order (its player's rating in this "
        "preset, or its bot level's); null while the game runs and for unrated games (docs: Standing).")


# --- leaderboards ----------------------------------------------------------------------


class LeaderboardEntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, min_value=1, help_text="1: the best; null while provisional.")
    username = serializers.CharField(help_text="The player's username, or `bot:<level>` for a bot level.")
    is_bot = serializers.BooleanField(help_text="A bot level's rating (one per level and preset).")
    bot_level = serializers.CharField(allow_null=True, help_text="The bot level, null for a player.")
    rating = serializers.FloatField(help_text="The conservative estimate mu - 3 sigma: what the board ranks by.")
    mu = serializers.FloatField(help_text="The rating's mean.")
    sigma = serializers.FloatField(help_text="Its uncertainty (standard deviation).")
    games = serializers.IntegerField(min_value=0, help_text="Rated games played in this preset.")
    wins = serializers.IntegerField(min_value=0, help_text="Rated games won in this preset.")
    provisional = serializers.BooleanField(help_text="Fewer rated games than UNO_RATING_PROVISIONAL_GAMES (10): "
                                           "not ranked.")


class LeaderboardSerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    count = serializers.IntegerField(min_value=0, help_text="How many ratings the board ranks.")
    results = LeaderboardEntrySerializer(many=True, help_text="Best first. With `around`: the entries above and "
                                         "below the named one, and that entry.")
    next_cursor = serializers.CharField(allow_null=True, help_text="`after` for the entries that follow the last "
                                        "one listed; null at the end of the board.")
    me = LeaderboardEntrySerializer(allow_null=True, help_text="With `around`: the named player's (or bot level's) "
                                    "entry, ranked or provisional; null when they have no rating in this preset, "
                                    "and without `around`.")
