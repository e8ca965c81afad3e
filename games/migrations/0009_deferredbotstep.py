"""DeferredBotStep: bot steps held back by their owner's share of the workers
(games.botqueue, issue 24), taken again oldest first when a step of that owner ends and
by the deadline sweeper, round robin across owners.  Starts empty."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0008_seat_left'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='DeferredBotStep',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='games.game')),
                ('version', models.PositiveIntegerField()),
                ('since', models.DateTimeField()),
                ('owner', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['owner', 'since'], name='deferred_bot_owner_since'), models.Index(fields=['since'], name='deferred_bot_since')],
            },
        ),
    ]
