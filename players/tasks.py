"""Celery tasks of the players app: they only call services."""

from __future__ import annotations

from celery import shared_task

from players import tokens
from players.throttling import prune_counters


@shared_task(ignore_result=True)
def prune_rate_counters() -> int:
    """Beat (hourly): delete the rate-limit counters whose window has ended."""
    return prune_counters()


@shared_task(ignore_result=True)
def prune_expired_tokens() -> int:
    """Beat (hourly): delete the API tokens whose expiry has passed."""
    return tokens.prune_expired_tokens()
