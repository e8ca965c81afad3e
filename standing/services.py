"""Rating finished games.

:func:`rate_game` runs inside the transaction that records a rated game's last move
(``games.signals.on_finish``, registered by ``StandingConfig.ready``), so the result
and the ratings commit together or not at all; a game whose rating failed there (the
hook's savepoint rolled back) is rated by :func:`rate_missed`, which beat runs.  A
game is never rated twice: its changes are unique per seat, and both paths skip a
game that has them.

What a game's places are: ``games.engine.standings`` (the winners first, then the
preset's own order), an abandoned seat (its player left) last.  Factions: each seat,
or in a game with lasting teams (``teams``, not ``partner_rotation``) each team, rated
as one (a leaver alone, last).  Every player has a rating per preset (the pool), and
every bot level one per preset: a level that holds several seats of a game gets the
sum of what each seat's result moved its mean, and its sigma shrinks as each seat's
did.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games import engine, selectors as game_selectors, services as game_services
from games.models import Game, GameStatus, Seat
from standing import ratings
from standing.models import Profile, RankBucket, Rating, RatingChange

log = logging.getLogger(__name__)

#: RankBucket's width: ``bucket = floor(ordinal * BUCKETS_PER_POINT)``
BUCKETS_PER_POINT = 10

Key = tuple[int | None, str]  # (player id, "") or (None, bot level)


def bucket_of(ordinal: float) -> int:
    return math.floor(ordinal * BUCKETS_PER_POINT)


def seat_key(seat: Seat) -> Key:
    return (seat.player_id, "") if seat.player_id is not None else (None, seat.bot_level)


def places_of(seats: Sequence[Seat], state: engine.State) -> list[int]:
    """Each seat's place: the game's standings, a seat whose player left last."""
    places = list(engine.standings(state))
    left = {s.seat for s in seats if s.left}
    if left:
        last = max(places) + 1
        places = [last if seat in left else place for seat, place in enumerate(places)]
    return places


def factions_of(seats: Sequence[Seat], state: engine.State) -> list[list[int]]:
    """The seats rated as one: each team of a game with lasting teams (a leaver alone),
    else each seat."""
    teams = engine.lasting_teams(state)
    groups: dict[tuple[str, int], list[int]] = {}
    for s in seats:
        alone = teams is None or s.left
        groups.setdefault(("seat", s.seat) if alone else ("team", teams[s.seat]), []).append(s.seat)
    return list(groups.values())


def _new_rating(pool: str, key: Key) -> Rating:
    mu, sigma = ratings.INITIAL
    o = ratings.ordinal(mu, sigma)
    return Rating(pool=pool, player_id=key[0], bot_level=key[1], mu=mu, sigma=sigma, ordinal=o, bucket=bucket_of(o))


def _key_filter(keys: Sequence[Key]) -> Q:
    players = [p for p, _ in keys if p is not None]
    levels = [lvl for p, lvl in keys if p is None]
    q = Q(pk__in=[])
    if players:
        q |= Q(player_id__in=players)
    if levels:
        q |= Q(player__isnull=True, bot_level__in=levels)
    return q


def _lock_ratings(pool: str, keys: set[Key]) -> dict[Key, Rating]:
    """The ratings of ``keys`` in ``pool``, locked (in id order), the missing ones
    created first: inserted in key order, ignoring a concurrent insert of the same, then
    all locked again.  Two games that end at once and share ratings take their locks in
    one order (the existing in id order before any insert), so they never deadlock."""
    wanted = _key_filter(sorted(keys, key=lambda k: (k[0] or 0, k[1])))
    locked = Rating.objects.select_for_update().filter(wanted, pool=pool).order_by("id")
    rows = {(r.player_id, r.bot_level): r for r in locked}
    missing = sorted(keys - set(rows), key=lambda k: (k[0] or 0, k[1]))
    if missing:  # a first rated game in this preset
        Rating.objects.bulk_create([_new_rating(pool, k) for k in missing], ignore_conflicts=True)
        rows = {(r.player_id, r.bot_level): r for r in locked.all()}
    return rows


def rate_game(game: Game, seats: Sequence[Seat], state: engine.State) -> list[RatingChange]:
    """Rate the finished ``game`` (its row locked by the caller) if it is rated and not
    rated yet: every seat's rating in the preset's pool, its change recorded.  The games
    app's finish hook (``games.signals.on_finish``, registered by ``StandingConfig``)."""
    if not game.rated or game.status != GameStatus.FINISHED:
        return []
    if RatingChange.objects.filter(game_id=game.pk).exists():
        return []  # rated already (a retried task, the sweeper after the hook)
    pool = game.ruleset
    places = places_of(seats, state)
    factions = factions_of(seats, state)
    key_of = {s.seat: seat_key(s) for s in seats}
    rows = _lock_ratings(pool, set(key_of.values()))
    prior = {key: (r.mu, r.sigma) for key, r in rows.items()}
    new = ratings.update(prior, [key_of[x] for x in sorted(key_of)], factions, places)
    left = {s.seat for s in seats if s.left}
    winners = {key_of[x] for x in state.winners if x not in left}
    provisional_games = settings.UNO_RATING_PROVISIONAL_GAMES
    counts: dict[int, int] = {}
    now = timezone.now()
    for key, (mu, sigma) in new.items():
        r = rows[key]
        if r.established:
            counts[r.bucket] = counts.get(r.bucket, 0) - 1
        r.mu, r.sigma = mu, sigma
        r.ordinal = ratings.ordinal(r.mu, r.sigma)
        r.bucket = bucket_of(r.ordinal)
        r.games += 1
        r.wins += key in winners
        r.established = r.games >= provisional_games
        r.updated_at = now  # (bulk_update does not set auto_now fields)
        if r.established:
            counts[r.bucket] = counts.get(r.bucket, 0) + 1
    # (the move path's own writers: one statement, built once per shape, prepared on PostgreSQL)
    game_services.update_rows(list(rows.values()),
                              ("mu", "sigma", "ordinal", "bucket", "games", "wins", "established", "updated_at"))
    _count_buckets(pool, counts)
    changes = [
        RatingChange(game_id=game.pk, seat=x, rating=rows[key_of[x]], place=places[x],
                     mu_before=prior[key_of[x]][0], sigma_before=prior[key_of[x]][1],
                     mu_after=rows[key_of[x]].mu, sigma_after=rows[key_of[x]].sigma)
        for x in sorted(key_of)
    ]
    game_services.insert_rows(changes)
    return changes


def _count_buckets(pool: str, counts: dict[int, int]) -> None:
    """Add ``counts`` (bucket -> change) to the pool's RankBuckets: one upsert, in
    bucket order (concurrent games lock the rows they share in one order)."""
    deltas = sorted((b, n) for b, n in counts.items() if n)
    if not deltas:
        return
    table = connection.ops.quote_name(RankBucket._meta.db_table)
    values = ", ".join(["(%s, %s, %s)"] * len(deltas))
    params = [x for b, n in deltas for x in (pool, b, n)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (pool, bucket, count) VALUES {values} "
            f"ON CONFLICT (pool, bucket) DO UPDATE SET count = {table}.count + excluded.count",
            params,
        )


def rate_missed(*, within: timedelta = timedelta(days=2), grace: timedelta = timedelta(seconds=30)) -> int:
    """Rate the rated games that finished in the last ``within`` (more than ``grace``
    ago: their own transaction has committed) without being rated, each in its own
    transaction with its row locked; how many were rated.  Safe to run twice or at once
    (the lock, and ``rate_game``'s check)."""
    now = timezone.now()
    pending = (Game.objects.filter(status=GameStatus.FINISHED, rated=True, finished_at__gte=now - within,
                                   finished_at__lt=now - grace)
               .filter(~Exists(RatingChange.objects.filter(game_id=OuterRef("pk"))))
               .order_by("finished_at").values_list("pk", flat=True)[:500])
    done = 0
    for game_id in list(pending):
        try:
            with transaction.atomic():
                game = game_selectors.load_seats(game_selectors.read_game(game_id, lock=True))
                if rate_game(game, game_selectors.seats_of(game), engine.State.from_dict(game.state)):
                    game_services.touch(game.pk)  # its view's rating_changes: a new ETag, a stream event
                    done += 1
        except Exception:
            log.exception("game %s: rating it failed", game_id)
    if done:
        log.warning("rated %s game(s) that their last move had not rated", done)
    return done


def set_games_public(player, public: bool) -> Profile:
    """Show (or hide) the player's game list to others."""
    profile, _ = Profile.objects.update_or_create(player=player, defaults={"games_public": public})
    return profile
