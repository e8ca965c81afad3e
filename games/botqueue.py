"""The workers' fair share between owners: how many bot steps of one owner's games
may be queued or running at once.

A bot step (``robots.bot_step``) is the costly work of the workers (a ``hard``
decision searches for ``UNO_HARD_BUDGET_MS``, and a step may make several).  Every move
of a game with robots queues its next step after the bots' think time, and the worker
runs the steps whose time has come first come, first served, so a player with many bot
tables used to fill the queue ahead of everyone else (a hostile probe's 60 tables of
nine ``hard`` bots slowed every other player's bots from 1.1 s to 3.6-6.4 s a move).
The owner of a game is its creator (who chose its bots, or left it to the autopilot).

Each owner has ``UNO_BOT_STEPS_PER_OWNER`` (K) *slots*: leases in the cache (Redis, or
the database's cache table without it), each held by one step from when it is queued,
think time included, until it ends.  A step that would be queued while every slot of
its owner is held is *held back* instead (:func:`defer`: a ``DeferredBotStep`` row in
the database, with the time it is due), and no task is sent for it.  When one of the
owner's steps ends, its slot goes to the owner's held-back step due first, queued at
once with it (``scheduling.hand_over``); the deadline sweeper also hands free slots to
the held-back steps that are due, round robin across owners
(``scheduling.dispatch_deferred``, :func:`round_robin`), which covers a hand-over that
was lost (a worker killed, a broker hiccup) and slots whose holders died (a lease lasts
``LEASE_SECONDS``; the sweeper's revival of a game whose step was lost takes that step's
slot over at once, :func:`acquire`).  A step sent without a slot (the sweeper reviving a robot whose step
was lost, a message queued before this module) takes one when it starts, or is held
back.  So an owner never has more than K steps queued or running, however many tables
they have: every other owner's step is queued behind at most K of theirs, and an owner
with at most K tables whose bots play at once never waits for a slot.

Safe to run twice or late, and across restarts: every step re-checks the game's version
(a duplicate is harmless), a held-back step is a row in the database until a slot takes
it (the sweeper looks every ``UNO_SWEEP_SECONDS``), a robot's decision under the turn's
deadline is still revived by the sweeper if its step is lost (``obligations.REVIVE``;
the revived step takes a slot as any other), and a cache that cannot be reached lets
every step run (a warning is logged), as before this module.  ``UNO_BOT_STEPS_PER_OWNER =
0`` turns it off: every move queues its step, first come, first served.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from games.models import DeferredBotStep, GameStatus

log = logging.getLogger(__name__)

#: how long a slot is held at most without news (seconds): a step queued with it that
#: has not started by then (its message lost, its worker killed, or a queue that long)
#: loses it, and its owner may queue another (the step, when it starts, takes a free
#: slot or is held back); a step renews it as it starts.  Well above a step's think time
#: and run (a second or so), short enough that an owner whose steps were lost is not
#: held up for long
LEASE_SECONDS = 30
#: held-back steps the sweeper looks at per sweep (those due first)
SWEEP_LIMIT = 500


def per_owner() -> int:
    """K: an owner's slots (0: no limit)."""
    return max(0, settings.UNO_BOT_STEPS_PER_OWNER)


@dataclass(frozen=True)
class Lease:
    """One of an owner's slots, held by the step given this ``ticket`` (``slot`` None: no
    slot, the share off or the cache unreachable)."""

    owner: int
    slot: int | None
    ticket: str

    def to_json(self) -> list:
        return [self.owner, self.slot, self.ticket]

    @classmethod
    def from_json(cls, data: Sequence | None) -> Lease | None:
        if not data:
            return None
        owner, slot, ticket = data
        return cls(int(owner), None if slot is None else int(slot), str(ticket))


def _key(owner: int, slot: int) -> str:
    return f"botslot:{owner}:{slot}"


def acquire(owner: int, game_id: int | None = None, take_over: bool = False) -> Lease | None:
    """A free slot of ``owner`` for a step of game ``game_id`` (None: all K are held).
    ``take_over``: a step sent without a slot (the sweeper reviving a robot whose step
    was lost) may also take the slot an earlier step of the same game still holds: that
    step was lost with its worker or its message, or is late in a long queue (the sweeper
    revives a step ``UNO_BOT_REVIVE_SECONDS`` past its due time), and its slot would
    otherwise stay held until its lease expires (``LEASE_SECONDS``), holding up the
    owner's other tables too; if the late one runs after all, it finds its slot gone and
    its version played (a step re-checks the game's version).  (A step
    queued by a move never takes over: its game's running step hands the slot on in turn,
    to the owner's step held back first.)  The share off, or the cache unreachable: a
    lease of no slot, at once."""
    ticket = uuid.uuid4().hex if game_id is None else f"{game_id}:{uuid.uuid4().hex}"
    if not per_owner():
        return Lease(owner, None, ticket)
    keys = [_key(owner, i) for i in range(per_owner())]
    try:
        held = cache.get_many(keys)
        for slot, key in enumerate(keys):
            if key not in held and cache.add(key, ticket, timeout=LEASE_SECONDS):
                return Lease(owner, slot, ticket)
        if take_over and game_id is not None:
            for slot, key in enumerate(keys):
                if str(held.get(key, "")).startswith(f"{game_id}:"):
                    cache.set(key, ticket, timeout=LEASE_SECONDS)
                    log.info("bot slot %s of owner %s: taken over from game %s's lost step", slot, owner, game_id)
                    return Lease(owner, slot, ticket)
        return None
    except Exception:  # Redis restarting: let the bots play, unshared, rather than stop
        log.warning("bot slots of owner %s: the cache cannot be reached; the step goes unshared", owner,
                    exc_info=True)
        return Lease(owner, None, ticket)


def holds(lease: Lease) -> bool:
    """Whether ``lease`` still holds its slot (renewed for ``LEASE_SECONDS`` if so)."""
    if lease.slot is None:
        return True
    key = _key(lease.owner, lease.slot)
    try:
        if cache.get(key) != lease.ticket:
            return False
        cache.touch(key, LEASE_SECONDS)
        return True
    except Exception:
        log.warning("bot slot %s of owner %s: the cache cannot be reached", lease.slot, lease.owner, exc_info=True)
        return True


def release(lease: Lease | None) -> None:
    """Give the slot of ``lease`` back (if it still holds it: a lease that expired may
    have gone to another step)."""
    if lease is None or lease.slot is None:
        return
    key = _key(lease.owner, lease.slot)
    try:
        if cache.get(key) == lease.ticket:
            cache.delete(key)
    except Exception:  # the lease expires by itself
        log.warning("bot slot %s of owner %s: could not release it", lease.slot, lease.owner, exc_info=True)


def take(owner: int, lease: Lease | None, game_id: int | None = None) -> Lease | None:
    """The slot a step of ``owner``'s game ``game_id`` runs in: the one it was queued
    with, if it still holds it, else a free one (a step sent without one: also the slot
    its game's lost step holds, :func:`acquire`); None: every slot of the owner is held
    (hold the step back: :func:`defer`)."""
    if lease is not None and lease.owner == owner and holds(lease):
        return lease
    return acquire(owner, game_id, take_over=lease is None)


# --------------------------------------------------------------------------------------
# Held-back steps
# --------------------------------------------------------------------------------------
def defer(game_id: int, version: int, owner: int, due: datetime | None = None) -> None:
    """Hold back the step of ``game_id`` at ``version`` (due at ``due``, default now)
    until a slot of ``owner`` is free.  Held back again for the same version, it keeps
    its place (its first due time); a newer version of the game takes the row over."""
    due = timezone.now() if due is None else due
    with transaction.atomic():
        moved = DeferredBotStep.objects.filter(game_id=game_id, version__lt=version).update(
            version=version, owner_id=owner, since=due)
        if not moved:
            DeferredBotStep.objects.bulk_create(
                [DeferredBotStep(game_id=game_id, owner_id=owner, version=version, since=due)], ignore_conflicts=True)
    log.debug("game %s: bot step at version %s held back (owner %s holds %s)", game_id, version, owner, per_owner())


def claim(game_id: int, version: int) -> bool:
    """Take the held-back step of ``game_id`` at ``version`` out of the table: True for
    exactly one of several concurrent takers (which then queues it)."""
    return DeferredBotStep.objects.filter(game_id=game_id, version=version).delete()[0] > 0


def live() -> QuerySet[DeferredBotStep]:
    """Held-back steps whose game is still running at their version, due first."""
    return (DeferredBotStep.objects.filter(game__status=GameStatus.ACTIVE, game__version=F("version"))
            .order_by("since", "game_id"))


def drop_stale() -> int:
    """Forget the held-back steps whose game moved on (its new version has a step of its
    own) or ended; how many."""
    return DeferredBotStep.objects.exclude(game__status=GameStatus.ACTIVE, game__version=F("version")).delete()[0]


def round_robin(rows: Sequence[tuple]) -> list[tuple]:
    """``rows`` (each ``(owner, ...)``, due first) in round-robin order across owners:
    every owner's first, the owners in the order of their first, then every owner's
    second, and so on."""
    by_owner: dict[int, list[tuple]] = {}
    for row in rows:
        by_owner.setdefault(row[0], []).append(row)
    out: list[tuple] = []
    depth = 0
    while len(out) < len(rows):
        out += [steps[depth] for steps in by_owner.values() if depth < len(steps)]
        depth += 1
    return out
