"""Notices, and on PostgreSQL a trigger that wakes the live hubs (``games.live``) at the
commit of every new notice: ``pg_notify('uno_live', 'n')`` (a game's notification
carries its id; 'n' says "new notices", which the hub reads after the last it saw)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CREATE = """
CREATE OR REPLACE FUNCTION uno_notice_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('uno_live', 'n');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER uno_notice_notify AFTER INSERT ON notices_notice
    FOR EACH STATEMENT EXECUTE FUNCTION uno_notice_notify();
"""

DROP = """
DROP TRIGGER IF EXISTS uno_notice_notify ON notices_notice;
DROP FUNCTION IF EXISTS uno_notice_notify();
"""


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Notice",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("audience", models.CharField(choices=[("player", "Player"), ("players", "Players"),
                                                       ("spectators", "Spectators"), ("everyone", "Everyone")],
                                              max_length=16)),
                ("game_id", models.BigIntegerField(blank=True, null=True)),
                ("kind", models.CharField(max_length=32)),
                ("data", models.JSONField(default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("player", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                             related_name="notices", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["id"]},
        ),
        migrations.AddIndex(model_name="notice", index=models.Index(fields=["player", "id"], name="notice_player_id")),
        migrations.AddIndex(model_name="notice", index=models.Index(fields=["game_id", "id"], name="notice_game_id")),
        migrations.AddConstraint(
            model_name="notice",
            constraint=models.CheckConstraint(
                condition=(models.Q(audience="player", player__isnull=False, game_id__isnull=True)
                           | (~models.Q(audience="player") & models.Q(player__isnull=True, game_id__isnull=False))),
                name="notice_player_xor_game",
            ),
        ),
        migrations.RunPython(create, drop),
    ]
