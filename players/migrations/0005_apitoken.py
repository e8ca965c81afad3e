"""API tokens stored hashed (players.models.ApiToken, django-rest-knox's model as
KNOX_TOKEN_MODEL): several per player, named, with an optional expiry."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0004_player_username_key'),
    ]

    operations = [
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('digest', models.CharField(max_length=128, unique=True)),
                ('token_key', models.CharField(db_index=True, max_length=25)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='auth_token_set', to=settings.AUTH_USER_MODEL)),
                ('created', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('expiry', models.DateTimeField(blank=True, null=True)),
                ('name', models.CharField(help_text='What the token is for, e.g. "phone" or "bot".', max_length=50)),
                ('last_used_at', models.DateTimeField(blank=True, help_text='When it last authenticated a request (to the minute).', null=True)),
            ],
            options={
                'verbose_name': 'API token',
                'indexes': [models.Index(fields=['expiry'], name='players_apitoken_expiry')],
            },
        ),
    ]
