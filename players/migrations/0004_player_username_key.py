"""Usernames unique under username_key (NFKC + case folding) instead of Lower(username),
which SQLite applies to ASCII only: "zoë" and "ZOË" could both register there.

Existing players get their key.  Players whose names already collide under it keep
their names, tokens and log-in (by the exact name): the oldest gets the plain key, each
later one "<key>#<id>", which no other name can have and Player.save() keeps.
"""

from django.db import migrations, models

from players.models import LEGACY_KEY_SEPARATOR, username_key


def fill_username_keys(apps, schema_editor) -> None:
    Player = apps.get_model("players", "Player")
    taken: set[str] = set()
    batch = []
    for player in Player.objects.order_by("pk").only("pk", "username").iterator(chunk_size=1000):
        key = username_key(player.username)
        if key in taken:
            key = f"{key}{LEGACY_KEY_SEPARATOR}{player.pk}"
        taken.add(key)
        player.username_key = key
        batch.append(player)
    Player.objects.bulk_update(batch, ["username_key"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("players", "0003_ratecounter"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="username_key",
            field=models.TextField(
                default="",
                editable=False,
                help_text="username_key(username), kept by save(): unique.",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_username_keys, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="player",
            name="players_player_username_ci_unique",
        ),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                fields=("username_key",), name="players_player_username_key_unique"
            ),
        ),
    ]
