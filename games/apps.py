from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        """Register the listeners of the "move committed" signal (games.signals): the
        webhooks first, then the bot steps and countdowns (the order they ran in when
        one function did both)."""
        import config.checks  # noqa: F401 (the deployment's system checks register themselves)
        from games import fanout_hooks, notifications, scheduling, signals

        fanout_hooks.connect()  # the live fan-out (config.fanout) hears of every game written

        signals.listen("notifications", wants=notifications.wants, run=notifications.after_move)
        signals.listen("scheduling", wants=scheduling.wants, run=scheduling.after_move)
