"""Celery tasks of the players app: they only call services."""

from __future__ import annotations

from celery import shared_task

from players.throttling import prune_counters


@shared_task(ignore_result=True)
def prune_rate_counters() -> int:
    """Beat (hourly): delete the rate-limit counters whose window has ended."""
    return prune_counters()
