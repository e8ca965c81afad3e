"""Every write of the meeting layer: challenges and rematch offers.  One function per
write, inside ``transaction.atomic``, with the challenge's (or the finished game's) row
locked; a refusal raises :class:`ApiError` and changes nothing.  The notices they send
(the feed, the game's stream, webhooks) are written in the same transaction, and so is
the game a challenge or a rematch starts (``games.services.create_table``)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from config.problems import ApiError
from games import engine
from games import services as games
from games.engine import InvalidOptions
from games.models import Game, GameStatus, Seat
from meeting.models import (
    Answer,
    Challenge,
    ChallengePolicy,
    ChallengeStatus,
    Participant,
    Preferences,
    Rematch,
    RematchStatus,
)
from notices import services as notices
from notices.models import Audience
from players.selectors import blocked_between

#: a challenge's life when nobody answers: a day, a week for a correspondence turn time
CHALLENGE_SECONDS = 24 * 3600
CORRESPONDENCE_CHALLENGE_SECONDS = 7 * 24 * 3600
#: a turn time from this on is correspondence (days per move)
CORRESPONDENCE_TURN_SECONDS = 24 * 3600
#: pending challenges one player may have sent at once
MAX_PENDING_CHALLENGES = 20
#: a rematch offer's life: 15 minutes, 3 days after a correspondence game
REMATCH_SECONDS = 15 * 60
CORRESPONDENCE_REMATCH_SECONDS = 3 * 24 * 3600
#: expired per transaction by the sweeper
SWEEP_BATCH = 200


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def challenge_lifetime(turn_seconds: int | None) -> timedelta:
    """How long a challenge waits for its answers (``UNO_CHALLENGE_SECONDS``,
    ``UNO_CORRESPONDENCE_CHALLENGE_SECONDS`` override)."""
    if turn_seconds is not None and turn_seconds >= CORRESPONDENCE_TURN_SECONDS:
        return timedelta(seconds=_setting("UNO_CORRESPONDENCE_CHALLENGE_SECONDS", CORRESPONDENCE_CHALLENGE_SECONDS))
    return timedelta(seconds=_setting("UNO_CHALLENGE_SECONDS", CHALLENGE_SECONDS))


def rematch_lifetime(turn_seconds: int | None) -> timedelta:
    """How long a rematch offer waits (``UNO_REMATCH_SECONDS``,
    ``UNO_CORRESPONDENCE_REMATCH_SECONDS`` override)."""
    if turn_seconds is not None and turn_seconds >= CORRESPONDENCE_TURN_SECONDS:
        return timedelta(seconds=_setting("UNO_CORRESPONDENCE_REMATCH_SECONDS", CORRESPONDENCE_REMATCH_SECONDS))
    return timedelta(seconds=_setting("UNO_REMATCH_SECONDS", REMATCH_SECONDS))


# --------------------------------------------------------------------------------------
# Preferences
# --------------------------------------------------------------------------------------
def set_preferences(*, player, challenges: str | None = None) -> Preferences:
    with transaction.atomic():
        prefs, _ = Preferences.objects.select_for_update().get_or_create(player=player)
        if challenges is not None:
            prefs.challenges = challenges
            prefs.save(update_fields=["challenges"])
    return prefs


# --------------------------------------------------------------------------------------
# Challenges
# --------------------------------------------------------------------------------------
def _validate_table(ruleset: str, options: Mapping[str, Any], seats: int) -> None:
    """The game settings as games validates them (the engine deals a trial game: options,
    seat count, options that need another count)."""
    try:
        engine.new_game(ruleset, dict(options or {}), seats, "0")
    except InvalidOptions as exc:
        field = exc.option if exc.option in ("ruleset", "max_players") else f"options.{exc.option}"
        raise ApiError(400, "invalid_options", exc.detail, fields={field: [exc.detail]}) from None


def _challenged(challenger, usernames: Sequence[str]) -> list:
    """The named players, in order; refused: oneself, unknown names, bots, twice the same
    name, players who take no challenges (from anyone, or from a player they blocked:
    the same words, the block is never told)."""
    if len({u.casefold() for u in usernames}) != len(usernames):
        raise ApiError(400, "invalid", "a player is named twice", fields={"to": ["a player is named twice"]})
    Player = get_user_model()
    players = []
    for name in usernames:
        player = Player.objects.filter(username__iexact=name, is_active=True).first()
        if player is None:
            raise ApiError(400, "unknown_player", f"no player is called {name!r}", fields={"to": [f"unknown: {name}"]})
        if player.pk == challenger.pk:
            raise ApiError(400, "cannot_challenge_self", "you cannot challenge yourself",
                           fields={"to": ["you cannot challenge yourself"]})
        if player.is_bot:
            raise ApiError(400, "cannot_challenge_bot", f"{player.username} is a bot: add bots with `bots`",
                           fields={"to": [f"{player.username} is a bot"]})
        prefs = Preferences.objects.filter(player=player).first()
        if (prefs is not None and prefs.challenges == ChallengePolicy.NOBODY) or blocked_between(challenger.pk,
                                                                                               player.pk):
            raise ApiError(403, "not_accepting_challenges", f"{player.username} is not accepting challenges",
                           username=player.username)
        players.append(player)
    return players


def create_challenge(*, challenger, ruleset: str, options: Mapping[str, Any] | None = None,
                     max_players: int | None = None, bots: Sequence[Mapping[str, str]] = (),
                     turn_seconds: int | None = None, to: Sequence[str] = (), rated: bool = False) -> Challenge:
    """A challenge to the players named in ``to`` (their table: the challenger, them in
    order, then the bots), or, with nobody named, an open one (the challenger, the
    players who take its seats by its link, then the bots)."""
    levels = [b["level"] for b in bots]
    named = list(to)
    if named:
        count = 1 + len(named) + len(levels)
        if max_players is not None and max_players != count:
            raise ApiError(400, "invalid", f"a challenge to named players seats the challenger, them and the bots: "
                           f"{count}, not {max_players}", fields={"max_players": [f"must be {count} or absent"]})
        max_players = count
    else:
        max_players = 2 + len(levels) if max_players is None else max_players
        if 1 + len(levels) >= max_players:
            raise ApiError(400, "invalid", "an open challenge needs a free seat: more seats than the challenger and "
                           "the bots", fields={"max_players": ["no seat left for another player"]})
    if not 2 <= max_players <= 10:
        raise ApiError(400, "invalid", f"a table has 2 to 10 seats, not {max_players}",
                       fields={"max_players": ["2 to 10 seats"]})
    _validate_table(ruleset, options or {}, max_players)
    with transaction.atomic():
        # the challenger's row locked: two challenges of one player count each other
        type(challenger).objects.select_for_update().filter(pk=challenger.pk).exists()
        players = _challenged(challenger, named)
        pending = Challenge.objects.filter(challenger=challenger, status=ChallengeStatus.PENDING,
                                           expires_at__gt=timezone.now()).count()
        limit = _setting("UNO_MAX_PENDING_CHALLENGES", MAX_PENDING_CHALLENGES)
        if limit and pending >= limit:
            raise ApiError(409, "too_many_challenges", f"you have {pending} pending challenges, at most {limit}: "
                           "cancel some or wait for their answers", limit=limit)
        challenge = Challenge.objects.create(
            challenger=challenger, ruleset=ruleset, options=dict(options or {}), max_players=max_players,
            bots=levels, turn_seconds=turn_seconds, rated=rated,
            token=None if named else secrets.token_urlsafe(24),
            expires_at=timezone.now() + challenge_lifetime(turn_seconds),
        )
        Participant.objects.bulk_create(Participant(challenge=challenge, player=p) for p in players)
        if players:
            notices.to_players([p.pk for p in players], "challenge", _about(challenge) | {
                "from": challenger.username, "ruleset": ruleset, "max_players": max_players, "rated": rated,
                "turn_seconds": turn_seconds, "expires_at": challenge.expires_at.isoformat(),
                "to": [p.username for p in players],
            }, webhook=True)
    return challenge


def _about(challenge: Challenge) -> dict[str, Any]:
    return {"challenge": challenge.pk}


def _lock(challenge_id: int) -> Challenge:
    challenge = Challenge.objects.select_for_update().select_related("challenger").filter(pk=challenge_id).first()
    if challenge is None:
        raise ApiError(404, "not_found", "no such challenge")
    return challenge


def _lock_open(token: str) -> Challenge:
    challenge = Challenge.objects.select_for_update().select_related("challenger").filter(token=token).first()
    if challenge is None or not token:
        raise ApiError(404, "not_found", "no such challenge")
    return challenge


def _participants(challenge: Challenge) -> list[Participant]:
    return list(challenge.participants.select_related("player").order_by("id"))


def _still_pending(challenge: Challenge) -> None:
    """Refuse an answer to a challenge that is no longer pending (or whose time ran out:
    the sweeper writes it soon)."""
    if challenge.status == ChallengeStatus.PENDING and challenge.expires_at <= timezone.now():
        raise ApiError(409, "challenge_expired", "the challenge expired", challenge_status="expired")
    if challenge.status == ChallengeStatus.ACCEPTED and challenge.is_open:
        raise ApiError(409, "challenge_full", "every seat of this open challenge is taken",
                       challenge_status=challenge.status, game=challenge.game_id)
    if challenge.status != ChallengeStatus.PENDING:
        raise ApiError(409, f"challenge_{challenge.status}", f"the challenge is {challenge.status}",
                       challenge_status=challenge.status, game=challenge.game_id)


def _party_of(challenge: Challenge, participants: list[Participant], player) -> Participant | None:
    return next((p for p in participants if p.player_id == player.pk), None)


def accept_challenge(*, player, challenge_id: int) -> Challenge:
    """A named player accepts; the last one's acceptance starts the game."""
    with transaction.atomic():
        challenge = _lock(challenge_id)
        participants = _participants(challenge)
        mine = _party_of(challenge, participants, player)
        if challenge.challenger_id == player.pk:
            raise ApiError(409, "own_challenge", "you cannot answer your own challenge")
        if mine is None:  # (an open challenge's seats are taken by its link)
            raise ApiError(404, "not_found", "no such challenge")
        if mine.answer == Answer.ACCEPTED:
            raise ApiError(409, "already_accepted", "you accepted this challenge already", game=challenge.game_id)
        _still_pending(challenge)
        mine.answer, mine.answered_at = Answer.ACCEPTED, timezone.now()
        mine.save(update_fields=["answer", "answered_at"])
        if all(p.answer == Answer.ACCEPTED for p in participants):
            _start(challenge, [challenge.challenger, *(p.player for p in participants)])
        others = [challenge.challenger_id, *(p.player_id for p in participants if p.player_id != player.pk)]
        notices.to_players(others, "challenge_accepted", _about(challenge) | {
            "by": player.username, "game": challenge.game_id, "status": challenge.status}, webhook=True)
    return challenge


def take_open_seat(*, player, token: str) -> Challenge:
    """A player takes a seat of an open challenge by its link; the last seat starts the game."""
    with transaction.atomic():
        challenge = _lock_open(token)
        participants = _participants(challenge)
        if challenge.challenger_id == player.pk:
            raise ApiError(409, "own_challenge", "you cannot take a seat of your own challenge")
        if _party_of(challenge, participants, player) is not None:
            raise ApiError(409, "already_accepted", "you took a seat of this challenge already",
                           game=challenge.game_id)
        _still_pending(challenge)
        if player.is_bot:
            raise ApiError(403, "cannot_challenge_bot", "bot accounts do not take challenges")
        if blocked_between(challenge.challenger_id, player.pk):
            raise ApiError(403, "not_accepting_challenges", "this challenge is not open to you")
        free = challenge.max_players - 1 - len(challenge.bots) - len(participants)
        if free <= 0:  # (a full one started its game: never pending)
            raise ApiError(409, "challenge_full", "every seat of this open challenge is taken")
        mine = Participant.objects.create(challenge=challenge, player=player, named=False, answer=Answer.ACCEPTED,
                                          answered_at=timezone.now())
        participants.append(mine)
        if free == 1:
            _start(challenge, [challenge.challenger, *(p.player for p in participants)])
        others = [challenge.challenger_id, *(p.player_id for p in participants if p.player_id != player.pk)]
        notices.to_players(others, "challenge_accepted", _about(challenge) | {
            "by": player.username, "game": challenge.game_id, "status": challenge.status}, webhook=True)
    return challenge


def _start(challenge: Challenge, players: list) -> None:
    """Create and start the challenge's game (in the caller's transaction): the players in
    order, then the bots; every player's share is checked (a refusal changes nothing)."""
    game = games.create_table(
        seats=[*players, *({"level": level} for level in challenge.bots)], ruleset=challenge.ruleset,
        options=challenge.options, max_players=challenge.max_players, turn_seconds=challenge.turn_seconds,
        rated=challenge.rated,
    )
    challenge.game, challenge.status = game, ChallengeStatus.ACCEPTED
    challenge.save(update_fields=["game", "status", "updated_at"])


def decline_challenge(*, player, challenge_id: int, reason: str) -> Challenge:
    """A named player declines: the challenge ends (its table cannot be formed); the
    challenger and the other named players are told, with the reason."""
    with transaction.atomic():
        challenge = _lock(challenge_id)
        participants = _participants(challenge)
        mine = _party_of(challenge, participants, player)
        if challenge.challenger_id == player.pk:
            raise ApiError(409, "own_challenge", "you cannot decline your own challenge: cancel it")
        if mine is None:
            raise ApiError(404, "not_found", "no such challenge")
        if mine.answer == Answer.ACCEPTED:
            raise ApiError(409, "already_accepted", "you accepted this challenge already", game=challenge.game_id)
        _still_pending(challenge)
        mine.answer, mine.answered_at = Answer.DECLINED, timezone.now()
        mine.save(update_fields=["answer", "answered_at"])
        challenge.status, challenge.declined_by, challenge.decline_reason = ChallengeStatus.DECLINED, player, reason
        challenge.save(update_fields=["status", "declined_by", "decline_reason", "updated_at"])
        others = [challenge.challenger_id, *(p.player_id for p in participants if p.player_id != player.pk)]
        notices.to_players(others, "challenge_declined", _about(challenge) | {
            "by": player.username, "reason": reason}, webhook=True)
    return challenge


def cancel_challenge(*, player, challenge_id: int) -> Challenge:
    with transaction.atomic():
        challenge = _lock(challenge_id)
        participants = _participants(challenge)
        if challenge.challenger_id != player.pk:
            if _party_of(challenge, participants, player) is None:
                raise ApiError(404, "not_found", "no such challenge")
            raise ApiError(403, "not_challenger", "only the challenger can cancel a challenge")
        _still_pending(challenge)
        challenge.status = ChallengeStatus.CANCELLED
        challenge.save(update_fields=["status", "updated_at"])
        notices.to_players([p.player_id for p in participants], "challenge_cancelled",
                           _about(challenge) | {"by": player.username}, webhook=True)
    return challenge


def expire_overdue(now=None) -> int:
    """The sweeper (beat): pending challenges and rematch offers past their time are
    expired, and their parties told; batch by batch, each batch its own transaction,
    rows another request holds are skipped (the next sweep takes them).  Returns how
    many.  Safe twice and late."""
    done = 0
    while True:
        now = timezone.now()
        with transaction.atomic():
            batch = list(Challenge.objects.select_for_update(skip_locked=True)
                         .filter(status=ChallengeStatus.PENDING, expires_at__lte=now)
                         .order_by("expires_at")[:SWEEP_BATCH])
            for challenge in batch:
                challenge.status = ChallengeStatus.EXPIRED
                challenge.save(update_fields=["status", "updated_at"])
                parties = [challenge.challenger_id, *challenge.participants.values_list("player_id", flat=True)]
                notices.to_players(parties, "challenge_expired", _about(challenge), webhook=True)
            offers = list(Rematch.objects.select_for_update(skip_locked=True)
                          .filter(status=RematchStatus.OFFERED, expires_at__lte=now)
                          .order_by("expires_at")[:SWEEP_BATCH])
            for offer in offers:
                offer.status = RematchStatus.EXPIRED
                offer.save(update_fields=["status", "updated_at"])
                _rematch_changed(offer)
        done += len(batch) + len(offers)
        if len(batch) < SWEEP_BATCH and len(offers) < SWEEP_BATCH:
            return done


# --------------------------------------------------------------------------------------
# Rematch
# --------------------------------------------------------------------------------------
def _lock_finished(game_id: int, player) -> tuple[Game, list[Seat]]:
    """The finished game locked (it serializes its rematch's writes), its seats, and the
    caller checked: seated, a human who did not leave."""
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise ApiError(404, "not_found", "no such game")
    seats = list(Seat.objects.filter(game=game).select_related("player").order_by("seat"))
    mine = next((s for s in seats if s.player_id == player.pk), None)
    if mine is None:
        raise ApiError(403, "not_seated", "you are not seated in this game")
    if game.status != GameStatus.FINISHED:
        raise ApiError(409, "game_not_finished", "a rematch is offered once the game is over")
    if mine.left:
        raise ApiError(403, "left_game", "you left this game: no rematch")
    return game, seats


def rotated(seats: list[Seat]) -> list:
    """The new table: every seat one place on (the player of seat 1 takes seat 0, seat
    ``i + 1`` seat ``i``, seat 0 the last seat); bots keep their levels."""
    order = [*seats[1:], *seats[:1]]
    return [s.player if s.player_id is not None else {"level": s.bot_level} for s in order]


def _open_offer(offer: Rematch | None) -> Rematch | None:
    """Refuse what an ended offer no longer takes."""
    if offer is None:
        return None
    if offer.status == RematchStatus.OFFERED and offer.expires_at <= timezone.now():
        raise ApiError(409, "rematch_expired", "the rematch offer expired")
    if offer.status == RematchStatus.STARTED:
        raise ApiError(409, "rematch_started", "the rematch started", game=offer.new_game_id)
    if offer.status != RematchStatus.OFFERED:
        raise ApiError(409, f"rematch_{offer.status}", f"the rematch offer was {offer.status}")
    return offer


def rematch(*, player, game_id: int) -> Rematch:
    """Offer a rematch of the finished game, or accept the offer; bots accept at once, and
    once every human accepted the new game starts (same settings, seats rotated)."""
    with transaction.atomic():
        game, seats = _lock_finished(game_id, player)
        humans = [s for s in seats if s.player_id is not None]
        gone = [s.player.username for s in humans if s.left]
        if gone:
            raise ApiError(409, "player_left", f"{', '.join(gone)} left this game: no rematch with its table")
        offer = _open_offer(Rematch.objects.filter(game=game).first())
        now = timezone.now()
        if offer is None:
            offer = Rematch.objects.create(game=game, offered_by=player, accepted=[player.pk],
                                           expires_at=now + rematch_lifetime(game.turn_seconds))
            notices.to_players([s.player_id for s in humans if s.player_id != player.pk], "rematch_offer", {
                "game": game.pk, "by": player.username, "expires_at": offer.expires_at.isoformat()}, webhook=True)
        elif player.pk in offer.accepted:
            raise ApiError(409, "already_accepted", "you accepted this rematch already")
        else:
            offer.accepted = [*offer.accepted, player.pk]
        if {s.player_id for s in humans} <= set(offer.accepted):
            new = games.create_table(seats=rotated(seats), ruleset=game.ruleset, options=game.options,
                                     max_players=game.max_players, turn_seconds=game.turn_seconds, rated=game.rated)
            offer.new_game, offer.status = new, RematchStatus.STARTED
        offer.save()
        _rematch_changed(offer)
    return offer


def decline_rematch(*, player, game_id: int) -> Rematch:
    with transaction.atomic():
        game, _ = _lock_finished(game_id, player)
        offer = Rematch.objects.filter(game=game).first()
        if offer is None:
            raise ApiError(409, "no_rematch_offer", "nobody offered a rematch of this game")
        _open_offer(offer)
        offer.status, offer.declined_by = RematchStatus.DECLINED, player
        offer.save(update_fields=["status", "declined_by", "updated_at"])
        _rematch_changed(offer)
    return offer


def _rematch_changed(offer: Rematch) -> None:
    """Tell the old game's stream (everyone) and mark the game changed (its view's
    ``rematch``, its ETag, a ``game`` event on its streams)."""
    from meeting.selectors import rematch_view

    notices.to_game(offer.game_id, "rematch", rematch_view(offer), Audience.EVERYONE)
    games.touch(offer.game_id)
