"""Quick play's reads."""

from __future__ import annotations

from typing import Any

from config.problems import ApiError
from matchmaking.models import QuickPlayRequest, Status
from matchmaking.speeds import turn_seconds


def request_of(player, request_id: int) -> QuickPlayRequest:
    """``player``'s request ``request_id`` (404 ``not_found`` for another's: whose it is
    is not told)."""
    req = QuickPlayRequest.objects.filter(pk=request_id, player=player).first()
    if req is None:
        raise ApiError(404, "not_found", "no such quick play request of yours")
    return req


def quickplay_view(req: QuickPlayRequest) -> dict[str, Any]:
    """A request as its player sees it (QuickPlay in the schema)."""
    table = None
    if req.status == Status.MATCHED:
        table = {"ruleset": req.ruleset, "seats": req.seat_count, "speed": req.speed,
                 "turn_seconds": turn_seconds(req.speed), "bots": req.bot_seats}
    bots = None
    if req.bots_after_seconds is not None:
        bots = {"after_seconds": req.bots_after_seconds, "level": req.bots_level}
    return {
        "id": req.pk,
        "status": req.status,
        "rulesets": list(req.rulesets),
        "seats": list(req.seats),
        "speed": list(req.speeds),
        "rated": req.rated,
        "bots": bots,
        "created_at": req.created_at,
        "bots_at": req.bots_at,
        "expires_at": req.expires_at,
        "ended_at": req.ended_at,
        "game": req.game_id,
        "table": table,
    }
