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
