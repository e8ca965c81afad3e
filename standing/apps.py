from django.apps import AppConfig


class StandingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "standing"

    def ready(self) -> None:
        from games.selectors import register_view_field
        from games.signals import on_finish
        from standing.selectors import game_rating_changes
        from standing.serializers import rating_changes_schema_field
        from standing.services import rate_game

        on_finish("ratings", rate_game, wants=lambda game: game.rated)
        register_view_field("rating_changes", game_rating_changes, rating_changes_schema_field)
