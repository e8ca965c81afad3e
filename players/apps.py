import logging

from django.apps import AppConfig
from django.core import checks

log = logging.getLogger(__name__)


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"

    def ready(self) -> None:
        from players import outbound

        checks.register(private_webhooks_check, checks.Tags.security, deploy=True)
        if outbound.private_targets_allowed():  # every process says so as it starts
            log.warning("!!! %s !!!", outbound.ALLOW_PRIVATE_WARNING)


def private_webhooks_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """`check --deploy` warns while the development-only switch is on."""
    from players import outbound

    if not outbound.private_targets_allowed():
        return []
    return [checks.Warning(outbound.ALLOW_PRIVATE_WARNING, hint="Unset UNO_WEBHOOK_ALLOW_PRIVATE.",
                           id="players.W001")]
