"""Cheaper writes on the move path: the move log's game index goes (its (game, seq)
unique constraint serves every lookup by game), and on PostgreSQL game rows, each
rewritten by every move, leave room in their pages for the new version
(fillfactor), so that an update stays on its page (a HOT update, no index entries)."""

import django.db.models.deletion
from django.db import migrations, models

GAME_FILLFACTOR = 50


def _alter_game_table(schema_editor, storage: str) -> None:
    if schema_editor.connection.vendor == "postgresql":  # a PostgreSQL storage parameter
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name('games_game')} {storage}")


def set_fillfactor(apps, schema_editor) -> None:
    _alter_game_table(schema_editor, f"SET (fillfactor = {GAME_FILLFACTOR})")


def reset_fillfactor(apps, schema_editor) -> None:
    _alter_game_table(schema_editor, "RESET (fillfactor)")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0002_heartbeat"),
    ]

    operations = [
        migrations.AlterField(
            model_name="move",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="moves",
                to="games.game",
            ),
        ),
        migrations.RunPython(set_fillfactor, reset_fillfactor),
    ]
