"""The documented shapes of profiles, a player's games and rating history (OpenAPI), and
the one input: the caller's profile settings."""

from __future__ import annotations

from rest_framework import serializers

from games.models import GameStatus
from games.serializers import RulesetField
from games.services import BOT_LEVELS
from players.serializers import StrictBooleanField
from standing.serializers import RatingChangeSerializer

RESULTS = ("won", "lost")


class ListedSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True, help_text="Null for a bot seat.")
    is_bot = serializers.BooleanField()
    bot_level = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True, help_text="A bot seat's strength.")
    won = serializers.BooleanField(help_text="This seat won the finished game (alone or with its team); false "
                                   "until the game is finished.")
    rating_change = RatingChangeSerializer(allow_null=True, help_text="What the game did to this seat's rating "
                                           "(a rated finished game); null otherwise.")


class ListedGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ruleset = RulesetField()
    status = serializers.ChoiceField(choices=GameStatus.values)
    rated = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = ListedSeatSerializer(many=True)
    result = serializers.ChoiceField(choices=RESULTS, allow_null=True,
                                     help_text="The listed player's result (a bot level's: any of its seats won); "
                                     "null while the game is not finished.")
    rating_change = RatingChangeSerializer(allow_null=True, help_text="The listed player's rating change (a bot "
                                           "level's: its first seat's); null unless rated and finished.")


class PlayerGamePageSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="Whose games: a username, or `bot:<level>`.")
    results = ListedGameSerializer(many=True)
    next_cursor = serializers.CharField(allow_null=True, help_text="Pass as `after` for the next page; null at "
                                        "the end.")


class RulesetGamesSerializer(serializers.Serializer):
    ruleset = RulesetField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()


class GameCountsSerializer(serializers.Serializer):
    played = serializers.IntegerField(help_text="Finished games (a bot level's: its rated games).")
    won = serializers.IntegerField()
    by_ruleset = RulesetGamesSerializer(many=True, help_text="Per preset, by name; only presets played.")


class RatingSummarySerializer(serializers.Serializer):
    ruleset = RulesetField(help_text="The preset (each has its own ratings).")
    rating = serializers.FloatField(help_text="The conservative estimate mu - 3 sigma, which the leaderboard "
                                    "ranks by.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField(help_text="The uncertainty of mu.")
    games = serializers.IntegerField(help_text="Rated games played in this preset.")
    wins = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="Fewer than UNO_RATING_PROVISIONAL_GAMES rated games: not "
                                           "ranked yet.")
    rank = serializers.IntegerField(allow_null=True, help_text="The place on the preset's leaderboard (1: the "
                                    "best); null while provisional.")


class PublicProfileSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="The name as registered, or `bot:<level>`.")
    is_bot = serializers.BooleanField(help_text="An account played by a program, or a server bot level.")
    bot_level = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True,
                                        help_text="A server bot level's profile: its level; null for a player.")
    joined = serializers.DateTimeField(allow_null=True, help_text="When the account was made; null for a bot "
                                       "level.")
    online = serializers.BooleanField(allow_null=True, help_text="Seen in the last UNO_PRESENCE_SECONDS (a "
                                      "request, or an open stream); null for a bot level.")
    games = GameCountsSerializer()
    ratings = RatingSummarySerializer(many=True, help_text="One per preset the player has a rating in, by name.")
    games_public = serializers.BooleanField(help_text="The player shows their game list to others (default "
                                            "true).")
    last_games = ListedGameSerializer(many=True, allow_null=True,
                                      help_text="The last 10 finished games, newest first; null when the player "
                                      "hides their games from the caller.")


class RatingHistoryEntrySerializer(RatingChangeSerializer):
    game = serializers.IntegerField(allow_null=True, help_text="The rated game; null when the player hides their "
                                    "games from the caller.")
    at = serializers.DateTimeField(help_text="When the game was rated (its end).")


class RatingHistorySerializer(serializers.Serializer):
    username = serializers.CharField(help_text="A username, or `bot:<level>`.")
    rating = RatingSummarySerializer()
    results = RatingHistoryEntrySerializer(many=True, help_text="The rating's changes, newest first.")
    next_cursor = serializers.CharField(allow_null=True, help_text="Pass as `after` for the next page; null at "
                                        "the end.")


class ProfileSettingsSerializer(serializers.Serializer):
    games_public = StrictBooleanField(help_text="Show your game list (the profile's `last_games` and "
                                      "`/players/{username}/games`) to others; default true. When false, others "
                                      "see only the finished games they played with you.")


class ProfileSettingsUpdateSerializer(ProfileSettingsSerializer):
    """The setting, whole: `games_public` is required (an empty body answers 400)."""

    # drf-spectacular reads any PATCH's serializer as partial, every field optional, so the
    # schema said the body could be empty (schemathesis ST201): this one is never partial,
    # in the schema as in the view.
    partial = property(lambda self: False, lambda self, value: None)
