"""Quick play's writes: a request and its match attempt, a cancellation, the sweeper.

How it stays correct under concurrency (docs/players/quick-play.md, "How matching is
kept exact"): every write to waiting requests runs in one transaction that first locks
the matchmaker's row (:class:`matchmaking.models.Pool`; ``SELECT ... FOR UPDATE`` on
PostgreSQL, and on SQLite the write lock every transaction takes at its start).  So the
matchmaker runs one transaction at a time whichever web process or worker runs it: a
request read as waiting is still waiting when it is marked matched, and the game
(``games.services.create_table``), the requests marked matched and the players' feed
events commit together, or none of them.  The conditional UPDATE (``status = waiting``)
and the partial unique index (one waiting request per player) check it again.

Matching keeps one invariant: among the waiting requests, no table can be formed (a
request that completes a table is matched as it arrives).  So a new request only has to
be tried against those waiting, and a cancellation or an expiry can never make a table.
Only time can: a rated request's rating range widens with the wait (:func:`too_far`),
and the sweeper's full pass (every ``UNO_QUICKPLAY_RESCAN_SECONDS``) seats the tables it
makes, as it does those that could not be created.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.problems import ApiError
from games import engine
from games import services as games_services
from matchmaking.models import Pool, QuickPlayRequest, Status
from matchmaking.speeds import REALTIME, max_wait_seconds, turn_seconds
from notices import services as notices
from players.selectors import blocks_among, online_ids
from standing import ratings, selectors as standing_selectors

log = logging.getLogger(__name__)

POOL = "quickplay"
#: the feed events of quick play (registered in MatchmakingConfig.ready)
MATCHED_EVENT = "quickplay_matched"
EXPIRED_EVENT = "quickplay_expired"

_shuffle = random.SystemRandom().shuffle


# --------------------------------------------------------------------------------------
# Tables: which requests fit together (pure functions over loaded requests)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Combo:
    ruleset: str
    seats: int
    speed: str


def combos(req: QuickPlayRequest) -> list[Combo]:
    """The tables ``req`` accepts, in its order of preference (presets first, then seat
    counts, then speeds), each seat count within its preset's bounds."""
    return [Combo(r, n, s) for r in req.rulesets for n in req.seats for s in req.speeds
            if engine.PRESETS[r].min_seats <= n <= engine.PRESETS[r].max_seats]


def accepts(req: QuickPlayRequest, combo: Combo, rated: bool) -> bool:
    return (req.rated == rated and combo.ruleset in req.rulesets and combo.seats in req.seats
            and combo.speed in req.speeds)


#: what each waiting player's rating in a preset is, (player id, preset) -> mu (absent:
#: no rating yet, the initial mu); loaded for rated requests only (:func:`_skills`)
Skills = dict[tuple[int, str], float]


def _distance(anchor: QuickPlayRequest, candidate: QuickPlayRequest, combo: Combo, skills: Skills | None) -> float:
    """How far apart the two players' ratings in ``combo``'s preset are (their means);
    0 for unrated requests (ratings play no part there)."""
    if not anchor.rated or skills is None:
        return 0.0
    initial = ratings.INITIAL[0]
    return abs(skills.get((anchor.player_id, combo.ruleset), initial)
               - skills.get((candidate.player_id, combo.ruleset), initial))


def pairing_key(anchor: QuickPlayRequest, candidate: QuickPlayRequest, combo: Combo,
                skills: Skills | None = None) -> tuple:
    """The order in which ``anchor`` is paired with the waiting ``candidate``\\ s at
    ``combo``: for a rated table the closest rating first, then (and for an unrated
    one) the longest waiting first."""
    return (_distance(anchor, candidate, combo, skills), candidate.created_at, candidate.pk)


def allowed_distance(anchor: QuickPlayRequest, candidate: QuickPlayRequest, now) -> float:
    """How far apart two rated players may be to sit together now: the range, widened
    with the longer wait of the two (Lichess's pools widen it the same way)."""
    waited = max((now - r.created_at).total_seconds() for r in (anchor, candidate)) if now is not None else 0.0
    return settings.UNO_QUICKPLAY_RATING_RANGE + settings.UNO_QUICKPLAY_RATING_WIDEN * max(waited, 0.0) / 60


def too_far(anchor: QuickPlayRequest, candidate: QuickPlayRequest, combo: Combo, skills: Skills | None = None,
            now=None) -> bool:
    """Whether ``candidate`` may not sit with ``anchor`` yet at a rated ``combo``: their
    ratings in its preset are further apart than :func:`allowed_distance`."""
    return _distance(anchor, candidate, combo, skills) > allowed_distance(anchor, candidate, now)


def _skills(requests: Iterable[QuickPlayRequest]) -> Skills:
    """The ratings (means) of the rated requests' players in the presets they accept."""
    wanted = [r for r in requests if r.rated]
    if not wanted:
        return {}
    return standing_selectors.means_of({r.player_id for r in wanted}, {p for r in wanted for p in r.rulesets})


def _fill(anchor: QuickPlayRequest, combo: Combo, candidates: Iterable[QuickPlayRequest], blocks: set[tuple[int, int]],
          wanted: int, online: set[int] | None = None, skills: Skills | None = None, now=None) -> list[QuickPlayRequest]:
    """``anchor`` and up to ``wanted - 1`` of ``candidates`` (in pairing order) that accept
    ``combo``: distinct players, none blocked by another of the table, at a rated table
    none too far from ``anchor``'s rating (``skills``; None: ratings not consulted); at a
    real-time table, only players who are ``online`` (None: everyone counts as online)."""
    table = [anchor]
    for cand in sorted(candidates, key=lambda c: pairing_key(anchor, c, combo, skills)):
        if len(table) >= wanted:
            break
        if cand.pk == anchor.pk or not accepts(cand, combo, anchor.rated) or too_far(anchor, cand, combo, skills, now):
            continue
        if not _present(cand, combo, online):
            continue
        if any(cand.player_id == t.player_id or (cand.player_id, t.player_id) in blocks for t in table):
            continue
        table.append(cand)
    return table


def _present(req: QuickPlayRequest, combo: Combo, online: set[int] | None) -> bool:
    """Whether ``req``'s player may sit at ``combo`` now: a real-time table wants players
    who are online (``players.presence``: a request or an open stream in the last
    ``UNO_PRESENCE_SECONDS``); a correspondence table anyone."""
    return combo.speed != REALTIME or online is None or req.player_id in online


def find_table(anchor: QuickPlayRequest, waiting: Sequence[QuickPlayRequest],
               blocks: set[tuple[int, int]], online: set[int] | None = None,
               skills: Skills | None = None, now=None) -> tuple[Combo, list[QuickPlayRequest]] | None:
    """The first table of ``anchor``'s preferences that ``anchor`` and others of
    ``waiting`` fill (all of them human; at a real-time table, all ``online``; at a
    rated one, all close enough to ``anchor``'s rating by ``now``), or None."""
    for combo in combos(anchor):
        if not _present(anchor, combo, online):
            continue
        table = _fill(anchor, combo, waiting, blocks, combo.seats, online, skills, now)
        if len(table) == combo.seats:
            return combo, table
    return None


def _blocked_pairs(player_ids: Iterable[int]) -> set[tuple[int, int]]:
    """The blocks among ``player_ids``, both ways: (a, b) for either's block of the other."""
    ids = set(player_ids)
    return blocks_among(ids, ids)


# --------------------------------------------------------------------------------------
# The lock and the table
# --------------------------------------------------------------------------------------
def _lock_pool() -> Pool:
    """Lock the matchmaker's row (created on first use) for the rest of the transaction."""
    pool, _ = Pool.objects.select_for_update().get_or_create(name=POOL)
    return pool


def _waiting(*, exclude: int | None = None) -> list[QuickPlayRequest]:
    qs = QuickPlayRequest.objects.filter(status=Status.WAITING).order_by("created_at", "pk")
    if exclude is not None:
        qs = qs.exclude(pk=exclude)
    return list(qs)


def _seat(combo: Combo, requests: list[QuickPlayRequest], *, bots: int = 0, bot_level: str | None = None,
          now) -> int | None:
    """Create and start the table of ``requests`` (and ``bots`` bots of ``bot_level``),
    mark the requests matched and tell their players, in a savepoint of the caller's
    transaction (which holds the pool's lock).  Returns the game's id, or None when the
    table could not be created (a player past their share of games: logged, the requests
    keep waiting, and the sweeper's next full pass tries them again)."""
    ids = [r.pk for r in requests]
    try:
        with transaction.atomic():
            marked = QuickPlayRequest.objects.filter(pk__in=ids, status=Status.WAITING).update(
                status=Status.MATCHED, ended_at=now, ruleset=combo.ruleset, seat_count=combo.seats,
                speed=combo.speed, bot_seats=bots,
            )
            if marked != len(ids):  # cannot happen under the pool's lock: refuse rather than seat twice
                raise RuntimeError(f"quick play requests {ids} were not all waiting")
            players = get_user_model().objects.in_bulk([r.player_id for r in requests])
            seats: list[Any] = [players[r.player_id] for r in requests] + [{"level": bot_level}] * bots
            _shuffle(seats)
            game = games_services.create_table(
                seats=seats, ruleset=combo.ruleset, max_players=combo.seats,
                turn_seconds=turn_seconds(combo.speed), rated=requests[0].rated,
            )
            QuickPlayRequest.objects.filter(pk__in=ids).update(game=game)
            for r in requests:
                notices.to_player(r.player_id, MATCHED_EVENT, {"quickplay": r.pk, "game": game.pk})
    except ApiError as exc:
        log.warning("quick play: no table for requests %s (%s %s): %s %s", ids, combo.ruleset, combo.seats,
                    exc.code, exc.detail)
        return None
    for r in requests:
        r.status, r.ended_at, r.game_id = Status.MATCHED, now, game.pk
        r.ruleset, r.seat_count, r.speed, r.bot_seats = combo.ruleset, combo.seats, combo.speed, bots
    return game.pk


def _match(anchor: QuickPlayRequest, waiting: list[QuickPlayRequest], now) -> int | None:
    ids = [anchor.player_id, *(w.player_id for w in waiting)]
    found = find_table(anchor, waiting, _blocked_pairs(ids), online_ids(ids), _skills([anchor, *waiting]), now)
    if found is None:
        return None
    combo, table = found
    return _seat(combo, table, now=now)


# --------------------------------------------------------------------------------------
# The API's writes
# --------------------------------------------------------------------------------------
def request_quickplay(*, player, rulesets: list[str], seats: list[int], speeds: list[str], rated: bool,
                      bots: dict | None) -> QuickPlayRequest:
    """A new request of ``player`` (who has none waiting: 409 ``already_waiting`` with its
    id), matched at once when it completes a table with those waiting."""
    with transaction.atomic():
        _lock_pool()
        existing = QuickPlayRequest.objects.filter(player=player, status=Status.WAITING).values_list("pk", flat=True)
        if existing:
            raise ApiError(409, "already_waiting", "you already wait for quick play: cancel that request first",
                           quickplay=existing[0])
        now = timezone.now()
        after = bots["after_seconds"] if bots else None
        req = QuickPlayRequest.objects.create(
            player=player, rulesets=rulesets, seats=seats, speeds=speeds, rated=rated,
            bots_after_seconds=after, bots_level=bots["level"] if bots else None,
            bots_at=None if after is None else now + timedelta(seconds=after),
            expires_at=now + timedelta(seconds=max_wait_seconds(speeds)),
        )
        if _match(req, _waiting(exclude=req.pk), now) is None and after == 0:
            _fill_with_bots(req, [], now)  # bots at once
    return req


def cancel(*, player, request_id: int) -> QuickPlayRequest:
    """Cancel ``player``'s waiting request (again: unchanged); 409 once matched or expired."""
    with transaction.atomic():
        _lock_pool()
        req = QuickPlayRequest.objects.filter(pk=request_id, player=player).first()
        if req is None:
            raise ApiError(404, "not_found", "no such quick play request of yours")
        if req.status == Status.MATCHED:
            raise ApiError(409, "already_matched", "the request was matched: the game has started", game=req.game_id)
        if req.status == Status.EXPIRED:
            raise ApiError(409, "quickplay_expired", "the request expired")
        if req.status == Status.WAITING:
            req.status, req.ended_at = Status.CANCELLED, timezone.now()
            req.save(update_fields=["status", "ended_at"])
    return req


# --------------------------------------------------------------------------------------
# The sweeper (Celery beat) and the bots' fast path (a countdown task)
# --------------------------------------------------------------------------------------
def _fill_with_bots(req: QuickPlayRequest, due: list[QuickPlayRequest], now) -> int | None:
    """Seat ``req`` (its wait for bots over) at its first-choice table with those of
    ``due`` (waits over too, the same bot level) that accept it, and bots in the
    other seats."""
    combo = combos(req)[0]
    partners = [d for d in due if d.bots_level == req.bots_level]
    ids = [req.player_id, *(p.player_id for p in partners)]
    online = online_ids(ids)
    if not _present(req, combo, online):
        return None  # gone: a real-time table waits for them to come back (or the request expires)
    table = _fill(req, combo, partners, _blocked_pairs(ids), combo.seats, online, _skills([req, *partners]), now)
    return _seat(combo, table, bots=combo.seats - len(table), bot_level=req.bots_level, now=now)


def fill_due(request_id: int | None = None) -> int:
    """Bots fill the tables of the waiting requests whose wait for bots is over
    (``request_id``: only if that one's is; the countdown's fast path).  Returns the
    tables formed."""
    now = timezone.now()
    due_q = Q(status=Status.WAITING, bots_at__lte=now)
    if request_id is not None:
        due_q &= Q(pk=request_id)
    if not QuickPlayRequest.objects.filter(due_q).exists():
        return 0
    with transaction.atomic():
        _lock_pool()
        return _fill_due(now)


def _fill_due(now) -> int:
    due = list(QuickPlayRequest.objects.filter(status=Status.WAITING, bots_at__lte=now).order_by("created_at", "pk"))
    formed = 0
    for req in due:
        if req.status != Status.WAITING:
            continue
        others = [d for d in due if d.status == Status.WAITING and d.pk != req.pk]
        formed += _fill_with_bots(req, others, now) is not None
    return formed


def _expire(now) -> int:
    expired = list(QuickPlayRequest.objects.filter(status=Status.WAITING, expires_at__lte=now))
    if not expired:
        return 0
    QuickPlayRequest.objects.filter(pk__in=[r.pk for r in expired], status=Status.WAITING).update(
        status=Status.EXPIRED, ended_at=now)
    for r in expired:
        notices.to_player(r.player_id, EXPIRED_EVENT, {"quickplay": r.pk})
    return len(expired)


def _full_pass(now) -> int:
    """Try every waiting request against the others, the longest waiting first (what a
    table that could not be created, or a block lifted, left formable)."""
    waiting = _waiting()
    formed = 0
    for req in waiting:
        if req.status != Status.WAITING:
            continue
        formed += _match(req, [w for w in waiting if w.status == Status.WAITING and w.pk != req.pk], now) is not None
    return formed


def sweep() -> dict[str, int]:
    """Beat, every ``UNO_QUICKPLAY_SWEEP_SECONDS``: expire the requests past their
    longest wait, let bots fill the tables of those whose wait for bots is over, and
    every ``UNO_QUICKPLAY_RESCAN_SECONDS`` try every waiting request again (a table
    that could not be created, a block lifted).  Locks nothing when there is nothing to do."""
    now = timezone.now()
    pool = Pool.objects.filter(name=POOL).first()
    rescan = pool is None or pool.rescanned_at is None or (
        pool.rescanned_at <= now - timedelta(seconds=settings.UNO_QUICKPLAY_RESCAN_SECONDS))
    waiting = QuickPlayRequest.objects.filter(status=Status.WAITING)
    if not waiting.exists():
        return {"expired": 0, "bots": 0, "rescanned": 0}
    if not rescan and not waiting.filter(Q(bots_at__lte=now) | Q(expires_at__lte=now)).exists():
        return {"expired": 0, "bots": 0, "rescanned": 0}
    with transaction.atomic():
        _lock_pool()
        expired = _expire(now)
        bots = _fill_due(now)
        rescanned = 0
        if rescan:
            Pool.objects.filter(name=POOL).update(rescanned_at=now)
            rescanned = _full_pass(now)
    return {"expired": expired, "bots": bots, "rescanned": rescanned}
