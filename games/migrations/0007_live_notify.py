"""Live events on PostgreSQL: every commit that inserts, updates or deletes a game row
notifies the channel ``uno_live`` with the game's id (``games.live`` listens).  A
trigger, so that no write path can forget it and a move costs no extra round trip;
PostgreSQL delivers the notification when the transaction commits (never for one
rolled back), once per game and transaction, to every process and node listening on
the database.  SQLite (the embedded default) needs nothing: the listener there reads
the file's ``data_version``."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION uno_live_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('uno_live', (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER uno_live_notify AFTER INSERT OR UPDATE OR DELETE ON games_game
    FOR EACH ROW EXECUTE FUNCTION uno_live_notify();
"""

DROP = """
DROP TRIGGER IF EXISTS uno_live_notify ON games_game;
DROP FUNCTION IF EXISTS uno_live_notify();
"""


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0006_game_state_lz4"),
    ]

    operations = [
        migrations.RunPython(create, drop),
    ]
