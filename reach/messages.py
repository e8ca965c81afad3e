"""What a message says: its subject (push: title), its text and its link, built from the
public facts of its outbox row (``Message.data``: names, the preset's title, the game's
number, the deadline, a finished game's scores) and nothing else: never a card, never a
hand.  Also the signed links that emails carry (unsubscribe, verification)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core import signing
from django.utils import timezone

UNSUBSCRIBE_SALT = "reach.unsubscribe"
VERIFY_SALT = "reach.verify-email"
#: an unsubscribe link for every kind's email at once (a digest's)
ALL = "all"


@dataclass(frozen=True)
class Text:
    subject: str
    body: str
    url: str


def public_url(path: str) -> str:
    return settings.UNO_PUBLIC_URL.rstrip("/") + path


def game_url(game_id) -> str:
    """The browser client's page of the game."""
    return public_url(f"/#/game/{int(game_id)}")


def settings_url() -> str:
    return public_url(settings.UNO_REACH_SETTINGS_PATH)


def unsubscribe_token(player_id: int, kind: str) -> str:
    return signing.dumps({"p": player_id, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[int, str]:
    """(player id, kind or ``all``); raises ``signing.BadSignature``."""
    data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    if not isinstance(data, dict) or not isinstance(data.get("p"), int) or not isinstance(data.get("k"), str):
        raise signing.BadSignature("not an unsubscribe token")
    return data["p"], data["k"]


def unsubscribe_url(player_id: int, kind: str) -> str:
    return public_url(f"/api/v1/unsubscribe/{unsubscribe_token(player_id, kind)}")


def verify_token(player_id: int, address: str) -> str:
    return signing.dumps({"p": player_id, "a": address}, salt=VERIFY_SALT, compress=True)


def read_verify_token(token: str, max_age: float) -> tuple[int, str]:
    """(player id, address); raises ``signing.BadSignature`` (``SignatureExpired`` too)."""
    data = signing.loads(token, salt=VERIFY_SALT, max_age=max_age)
    if not isinstance(data, dict) or not isinstance(data.get("p"), int) or not isinstance(data.get("a"), str):
        raise signing.BadSignature("not a verification token")
    return data["p"], data["a"]


def left(deadline: str | None, now: datetime | None = None) -> str:
    """The time left until ``deadline`` (ISO), in words."""
    if not deadline:
        return "no time limit"
    seconds = (datetime.fromisoformat(deadline) - (now or timezone.now())).total_seconds()
    if seconds <= 0:
        return "no time left"
    minutes = int(seconds // 60)
    if minutes < 1:
        return "less than a minute left"
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    parts = [f"{days} day{'s' * (days != 1)}" if days else "", f"{hours} hour{'s' * (hours != 1)}" if hours else "",
             f"{minutes} minute{'s' * (minutes != 1)}" if minutes and not days else ""]
    return " ".join(p for p in parts if p) + " left"


def _against(data: dict) -> str:
    names = data.get("opponents") or []
    return f" against {', '.join(names)}" if names else ""


def text(kind: str, data: dict, now: datetime | None = None) -> Text:
    """The subject, text and link of one message of ``kind`` with the facts ``data``."""
    title = data.get("title") or data.get("ruleset") or "UNO"
    game = data.get("game")
    if kind == "your_turn":
        return Text(f"Your turn in game {game} ({title})",
                    f"It is your turn in game {game} of {title}{_against(data)}: {left(data.get('deadline'), now)}.",
                    game_url(game))
    if kind == "reminder":
        return Text(f"Reminder: {left(data.get('deadline'), now)} in game {game}",
                    f"Your turn in game {game} of {title}{_against(data)} runs out: "
                    f"{left(data.get('deadline'), now)}. When it does, the server plays for you.",
                    game_url(game))
    if kind == "game_started":
        return Text(f"Game {game} started ({title})", f"Game {game} of {title}{_against(data)} has started.",
                    game_url(game))
    if kind == "game_finished":
        result = data.get("result") or []
        winners = [r["name"] for r in result if r.get("won")]
        scores = ", ".join(f"{r['name']} {r['score']}" if r.get("score") is not None else r["name"] for r in result)
        outcome = "You won" if data.get("won") else (f"{' and '.join(winners)} won" if winners else "It is over")
        return Text(f"Game {game} is over: {outcome.lower() if outcome == 'You won' else outcome}",
                    f"Game {game} of {title} is over. {outcome}. Scores: {scores}.", game_url(game))
    if kind == "challenge":
        limit = data.get("turn_seconds")
        pace = f"{limit} seconds a turn" if limit else "no time limit"
        return Text(f"{data.get('from')} challenges you to {title}",
                    f"{data.get('from')} challenges you to a {'rated ' if data.get('rated') else ''}game of {title} "
                    f"({pace}). Answer before {data.get('expires_at')}.", public_url("/#/lobby"))
    if kind == "rematch":
        return Text(f"{data.get('from')} offers a rematch of game {game}",
                    f"{data.get('from')} offers a rematch of game {game}. Answer before {data.get('expires_at')}.",
                    game_url(game))
    raise ValueError(f"unknown kind {kind!r}")


def digest(items: list[tuple[str, dict]], now: datetime | None = None) -> Text:
    """One message listing several (``items``: (kind, data) in order)."""
    lines = []
    for kind, data in items:
        one = text(kind, data, now)
        lines.append(f"- {one.subject}: {one.url}")
    return Text(f"{len(items)} updates from your UNO games", "\n".join(lines), public_url("/#/lobby"))
