"""Two tables: a row locked and updated per request (as a game row is), and an
append-only log that gets one row per request (as the move log does).
"""

from django.conf import settings
from django.db import models


class BenchCounter(models.Model):
    count = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)


class BenchEntry(models.Model):
    counter = models.ForeignKey(BenchCounter, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField()
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
