from django.apps import AppConfig


class ReachConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reach"

    def ready(self) -> None:
        from django.core import checks

        from games.signals import in_move
        from notices.services import on_player_notices
        from reach import outbox

        in_move("reach", outbox.after_move, wants=outbox.wants)
        on_player_notices("reach", outbox.after_notices)
        from reach.push import configuration_check

        checks.register(configuration_check)
