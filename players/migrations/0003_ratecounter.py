from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0002_webhook'),
    ]

    operations = [
        migrations.CreateModel(
            name='RateCounter',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(help_text='Scope and client, e.g. `anon:192.0.2.1`.', max_length=200, unique=True)),
                ('resets_at', models.BigIntegerField(db_index=True, help_text='End of the current window, in Unix seconds.')),
                ('count', models.IntegerField(default=0, help_text='Requests counted in the current window.')),
            ],
        ),
    ]
