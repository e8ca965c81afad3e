"""Usernames that look the same are one name: each player's UTS #39 skeleton
(players.usernames.username_skeleton), unique; and no invisible characters in new names.

Existing players get their skeleton.  Players whose names already look the same keep
their names, tokens and log-in: the oldest gets the plain skeleton, each later one
"<skeleton>#<id>", which no other name can have and Player.save() keeps (as 0004 did for
username_key).  Existing names with invisible characters are kept too: the validator
applies to names being registered or edited.
"""

from django.db import migrations, models

import players.usernames
from players.models import LEGACY_KEY_SEPARATOR
from players.usernames import username_skeleton


def fill_username_skeletons(apps, schema_editor) -> None:
    Player = apps.get_model("players", "Player")
    taken: set[str] = set()
    batch = []
    for player in Player.objects.order_by("pk").only("pk", "username").iterator(chunk_size=1000):
        skeleton = username_skeleton(player.username)
        if skeleton in taken:
            skeleton = f"{skeleton}{LEGACY_KEY_SEPARATOR}{player.pk}"
        taken.add(skeleton)
        player.username_skeleton = skeleton
        batch.append(player)
    Player.objects.bulk_update(batch, ["username_skeleton"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("players", "0006_copy_legacy_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="username_skeleton",
            field=models.TextField(
                default="",
                editable=False,
                help_text="username_skeleton(username), kept by save(): unique.",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_username_skeletons, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                fields=("username_skeleton",), name="players_player_username_skeleton_unique"
            ),
        ),
        migrations.AlterField(
            model_name="player",
            name="username",
            field=models.CharField(
                error_messages={"unique": "A user with that username already exists."},
                help_text="Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only; "
                "no invisible characters.",
                max_length=150,
                unique=True,
                validators=[players.usernames.UsernameValidator()],
                verbose_name="username",
            ),
        ),
    ]
