"""Seat.won: the seats that won a finished game (a team game has several winners:
``State.winners``), counted by ``games_won``.  Existing finished games: their one
winner seat (``Game.winner_seat``) gets ``won``."""

from django.db import migrations, models
from django.db.models import F


def mark_winners(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(game__status="finished", seat=F("game__winner_seat")).update(won=True)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0004_game_obligations'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='won',
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_winners, migrations.RunPython.noop),
    ]
