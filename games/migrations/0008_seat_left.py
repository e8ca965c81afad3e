"""Seat.left: the player left the running game for good (the autopilot plays the seat
to the end; the player can no longer act in it), told apart from the autopilot of
timeouts, which the player's next action ends.  Existing seats: not left (a seat that
was left before this field existed stays on the autopilot until its player acts, as
it did then)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_live_notify'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='left',
            field=models.BooleanField(default=False),
        ),
    ]
