"""Delivering the outbox: each player's due messages, by one worker at a time (a lease on
the player's ``Preferences`` row), in ``due_at`` order per channel, once.

:func:`deliver_player` (the ``reach.tasks.deliver`` task, queued after the commit of what
wrote the rows: the fast path) and :func:`sweep` (beat, every ``UNO_REACH_SWEEP_SECONDS``:
every due row, whatever became of its task) both come here.  For a player:

1. the lease: the player's row taken with ``SELECT ... FOR UPDATE SKIP LOCKED`` on
   PostgreSQL and a conditional UPDATE of ``lease_until`` (a worker killed while it holds
   the lease loses it after ``UNO_REACH_LEASE_SECONDS``); nothing is held while sending;
2. what is no longer worth sending is skipped: a ``your_turn`` or ``reminder`` whose
   obligation no longer stands (the turn was played, the clock restarted, a robot plays
   the seat), a ``your_turn`` of a player seen since their turn began
   (``Player.last_seen_at``: a request, or an open stream of theirs);
3. quiet hours (the player's time zone): a message due inside them waits for their end,
   except a reminder whose deadline passes before they end;
4. each channel (email: a verified address; push: each subscription) carries the
   messages of the kinds the player wants on it; several on one channel at once go as one
   digest (``Preferences.digest``);
5. a message is ``sent`` once every channel took it; a temporary failure (the mail server
   down, ``push.Retry``) keeps it ``pending``, tried again (``retry_at``) after an
   exponential backoff (``UNO_REACH_RETRY_SECONDS`` doubling to
   ``UNO_REACH_RETRY_MAX_SECONDS``, or the service's ``Retry-After``), the channels that
   took it remembered (``done``) so that they do not get it twice; after
   ``UNO_REACH_MAX_ATTEMPTS`` it is ``failed``.  ``push.Gone`` deletes the subscription
   (and ``Player.reachable`` is computed again); a message no channel took is ``skipped``;
6. order per channel: while a message waits to be tried again on a channel, the player's
   later messages wait for it on that channel (``retry_at``: the earlier one's), and go
   with it when it is tried again (one digest, if the player wants digests); on the
   channels that are not waiting they go at once.  A retry keeps ``due_at``: the order.

Delivered and skipped rows are deleted ``UNO_REACH_KEEP_DAYS`` after they were due
(:func:`prune`, beat, hourly).
"""

from __future__ import annotations

import logging
import smtplib
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import connection, transaction
from django.db.models import Min, Q
from django.utils import timezone

from games import obligations
from games.models import Game, GameStatus
from reach import messages
from reach.models import Message, Preferences, PushSubscription, Status

log = logging.getLogger(__name__)

#: messages of one player delivered per pass at most (the rest in the next)
BATCH = 100


class Temporary(Exception):
    """A channel could not take a message now: try again later."""


# --------------------------------------------------------------------------------------
# The lease
# --------------------------------------------------------------------------------------
def _claim(player_id: int, now: datetime) -> bool:
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    until = now + timedelta(seconds=settings.UNO_REACH_LEASE_SECONDS)
    with transaction.atomic():
        rows = Preferences.objects.filter(free, pk=player_id)
        if connection.features.has_select_for_update_skip_locked:
            if rows.select_for_update(skip_locked=True).values_list("pk", flat=True).first() is None:
                return False
        return rows.update(lease_until=until) == 1


def _release(player_id: int) -> None:
    Preferences.objects.filter(pk=player_id).update(lease_until=None)


# --------------------------------------------------------------------------------------
# What is no longer worth sending
# --------------------------------------------------------------------------------------
def _stale(message: Message, games: dict[int, Game | None], last_seen: datetime | None) -> str:
    """Why ``message`` is no longer worth sending ("" if it is)."""
    if message.kind not in ("your_turn", "reminder"):
        return ""
    data = message.data
    if message.game_id not in games:
        games[message.game_id] = Game.objects.filter(pk=message.game_id).first()
    game = games[message.game_id]
    if game is None or game.status != GameStatus.ACTIVE:
        return "the game is over"
    standing = any(
        o.seat == data.get("seat") and o.decision == data.get("decision") and o.since == data.get("since")
        and o.enforce == obligations.TIMEOUT
        and (o.deadline.isoformat() if o.deadline else None) == data.get("deadline")
        for o in obligations.current(game)
    )
    if not standing:
        return "the decision is no longer owed"
    if message.kind == "your_turn" and last_seen is not None and last_seen >= datetime.fromisoformat(data["at"]):
        return "the player was seen since their turn began"
    return ""


# --------------------------------------------------------------------------------------
# Quiet hours
# --------------------------------------------------------------------------------------
def quiet_until(prefs: Preferences, now: datetime) -> datetime | None:
    """When the player's quiet hours end, if ``now`` is inside them (None: it is not)."""
    start, end = prefs.quiet_start, prefs.quiet_end
    if start is None or end is None or start == end:
        return None
    tz = ZoneInfo(prefs.timezone or "UTC")
    local = now.astimezone(tz)
    t = local.time().replace(tzinfo=None)
    inside = start <= t < end if start < end else (t >= start or t < end)
    if not inside:
        return None
    day = local.date() if t < end else local.date() + timedelta(days=1)
    return datetime.combine(day, end, tzinfo=tz).astimezone(now.tzinfo)


# --------------------------------------------------------------------------------------
# Channels
# --------------------------------------------------------------------------------------
def _temporary_smtp(exc: Exception) -> bool:
    """Whether a mail error is worth retrying (the server unreachable or busy, a 4xx)."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return any(code < 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code < 500
    return isinstance(exc, (OSError, smtplib.SMTPException))


def email_message(player_id: int, address: str, text: messages.Text, kind: str,
                  ids: list[int] | None = None) -> EmailMessage:
    """An email of ``text`` to ``address`` with its one-click unsubscribe link (RFC 8058:
    ``List-Unsubscribe`` and ``List-Unsubscribe-Post``; also in the body).  ``ids``: the
    outbox rows it carries, which make its ``Message-ID`` (the same rows, the same id: a
    copy sent again after a worker died between the mail server's answer and the rows'
    update is the same message to the mail systems that deduplicate by it)."""
    unsubscribe = messages.unsubscribe_url(player_id, kind)
    what = "these emails" if kind == messages.ALL else "emails of this kind"
    body = (f"{text.body}\n\n{text.url}\n\n--\nNotification settings: {messages.settings_url()}\n"
            f"Stop {what}: {unsubscribe}\n")
    headers = {"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
    if ids:
        domain = urlsplit(settings.UNO_PUBLIC_URL).hostname or "localhost"
        headers["Message-ID"] = f"<uno.{player_id}.{'-'.join(str(i) for i in sorted(ids))}@{domain}>"
    return EmailMessage(subject=text.subject, body=body, to=[address], headers=headers)


def _send_email(mails: list[EmailMessage]) -> None:
    """Send ``mails`` on one connection; raises :class:`Temporary` or the permanent error."""
    try:
        with get_connection(fail_silently=False) as conn:
            conn.send_messages(mails)
    except Exception as exc:
        if _temporary_smtp(exc):
            raise Temporary(f"mail: {type(exc).__name__}: {exc}"[:250]) from exc
        raise


def _push():
    try:
        from reach import push
    except ImportError:  # the push senders are not installed
        return None
    return push


@dataclass
class Pass:
    """One delivery pass of one player: what each message got."""

    now: datetime
    temporary: dict[int, str] = field(default_factory=dict)  # message id -> why
    notes: dict[int, str] = field(default_factory=dict)
    retry_after: float = 0.0
    #: message id -> the channels it waits on for an earlier message's retry
    held: dict[int, set[str]] = field(default_factory=dict)


def _groups(rows: list[Message], digest: bool) -> list[list[Message]]:
    if digest and len(rows) > 1:
        return [rows]
    return [[r] for r in rows]


def _text_of(group: list[Message], now: datetime) -> tuple[messages.Text, str]:
    if len(group) == 1:
        return messages.text(group[0].kind, group[0].data, now), group[0].kind
    return messages.digest([(m.kind, m.data) for m in group], now), "digest"


def _deliver_email(prefs: Preferences, rows: list[Message], run: Pass) -> None:
    rows = [m for m in rows if prefs.wants(m.kind, "email") and "email" not in m.done
            and "email" not in run.held.get(m.pk, ())]
    if not rows:
        return
    for group in _groups(rows, prefs.digest):
        text, kind = _text_of(group, run.now)
        mail = email_message(prefs.pk, prefs.email, text, messages.ALL if kind == "digest" else kind,
                             [m.pk for m in group])
        try:
            _send_email([mail])
        except Temporary as exc:
            for m in rows:  # the server is down: the others wait too
                if "email" not in m.done:
                    run.temporary[m.pk] = str(exc)
            return
        except Exception as exc:
            log.warning("notifications of player %s: the mail server refused %s: %s", prefs.pk, kind,
                        type(exc).__name__)
            for m in group:
                run.notes[m.pk] = f"email refused: {type(exc).__name__}"[:250]
                m.done = [*m.done, "email"]
            continue
        for m in group:
            m.done = [*m.done, "email"]


def _deliver_push(prefs: Preferences, sub: PushSubscription, rows: list[Message], run: Pass, push) -> None:
    mark = f"push:{sub.pk}"
    rows = [m for m in rows if prefs.wants(m.kind, "push") and mark not in m.done and mark not in run.held.get(m.pk, ())]
    for group in _groups(rows, prefs.digest):
        text, kind = _text_of(group, run.now)
        tag = f"game-{group[0].game_id}" if len(group) == 1 and group[0].game_id else kind
        message = {"title": text.subject, "body": text.body, "url": text.url, "kind": kind, "tag": tag}
        try:
            push.send(sub.platform, sub.target(), message)
        except push.Gone:
            log.info("notifications of player %s: push subscription %s is gone: deleted", prefs.pk, sub.pk)
            for m in rows:
                run.notes.setdefault(m.pk, "push: the subscription is gone (deleted)")
            sub.delete()
            from reach.services import refresh_reachable

            refresh_reachable(prefs.pk)
            return
        except push.Retry as exc:
            for m in rows:
                if mark not in m.done:
                    run.temporary[m.pk] = f"push: {exc}"[:250]
            run.retry_after = max(run.retry_after, float(getattr(exc, "retry_after", None) or 0))
            return
        except push.Failed as exc:
            log.warning("notifications of player %s: push subscription %s refused %s: %s", prefs.pk, sub.pk, kind,
                        exc)
            for m in group:
                run.notes[m.pk] = f"push refused: {exc}"[:250]
        for m in group:
            m.done = [*m.done, mark]


def backoff(attempts: int) -> float:
    """Seconds before the ``attempts``-th retry (1, 2...)."""
    return min(settings.UNO_REACH_RETRY_SECONDS * 2 ** (attempts - 1), settings.UNO_REACH_RETRY_MAX_SECONDS)


# --------------------------------------------------------------------------------------
# One player
# --------------------------------------------------------------------------------------
def deliver_player(player_id: int) -> int:
    """Deliver ``player_id``'s due messages (module docstring); how many were sent.
    Safe to run twice, late and concurrently (one holds the lease, the others return)."""
    now = timezone.now()
    if not Preferences.objects.filter(pk=player_id).exists():
        return 0
    if not _claim(player_id, now):
        return 0
    try:
        return _deliver(player_id, now)
    finally:
        _release(player_id)


def _ready(m: Message, now: datetime) -> bool:
    return m.retry_at is None or m.retry_at <= now


def _deliver(player_id: int, now: datetime) -> int:
    prefs = Preferences.objects.select_related("player").get(pk=player_id)
    due = list(Message.objects.filter(player_id=player_id, status=Status.PENDING, due_at__lte=now)
               .order_by("due_at", "id")[:BATCH])
    if not any(_ready(m, now) for m in due):
        return 0
    games: dict[int, Game | None] = {}
    live = []
    for m in due:
        why = _stale(m, games, prefs.player.last_seen_at)
        if why:
            _finish(m, Status.SKIPPED, why)
        else:
            live.append(m)
    quiet = quiet_until(prefs, now)
    if quiet is not None:
        held = [m for m in live if _ready(m, now) and not (
            m.kind == "reminder" and m.data.get("deadline") and datetime.fromisoformat(m.data["deadline"]) <= quiet)]
        if held:
            Message.objects.filter(pk__in=[m.pk for m in held]).update(due_at=quiet)
        live = [m for m in live if m not in held]
    email = prefs.email if prefs.email and prefs.email_verified else None
    push = _push()
    subs = list(PushSubscription.objects.filter(player_id=player_id).order_by("id")) if push else []
    platforms = set(push.offered()[0]) if push else set()
    subs = [s for s in subs if s.platform in platforms]
    marks = (["email"] if email else []) + [f"push:{s.pk}" for s in subs]

    def owed(m: Message) -> list[str]:
        """The channels that should carry ``m`` and have not yet."""
        return [c for c in marks if prefs.wants(m.kind, "email" if c == "email" else "push") and c not in m.done]

    run = Pass(now)
    waiting: dict[str, datetime] = {}  # channel -> until when an earlier message waits on it
    until: dict[int, datetime] = {}
    sendable = []
    for m in live:  # in the player's order
        channels = owed(m)
        if not _ready(m, now):
            for c in channels:
                waiting[c] = max(waiting.get(c, m.retry_at), m.retry_at)
            continue
        if not channels:
            _finish(m, Status.SENT if m.done else Status.SKIPPED,
                    "" if m.done else "no channel carries this kind", sent_at=now if m.done else None)
            continue
        behind = {c for c in channels if c in waiting}
        if behind:
            run.held[m.pk] = behind
            until[m.pk] = max(waiting[c] for c in behind)
        sendable.append(m)
    if email:
        _deliver_email(prefs, sendable, run)
    for sub in subs:
        _deliver_push(prefs, sub, sendable, run, push)
    sent = 0
    for m in sendable:
        if m.pk in run.temporary:
            m.attempts += 1
            if m.attempts >= settings.UNO_REACH_MAX_ATTEMPTS:
                _finish(m, Status.FAILED, run.temporary[m.pk])
                log.warning("notifications of player %s: %s given up after %s attempts", player_id, m.kind,
                            m.attempts)
                continue
            m.retry_at = max(now + timedelta(seconds=max(backoff(m.attempts), run.retry_after)),
                             until.get(m.pk, now))
            m.note = run.temporary[m.pk]
            m.save(update_fields=["attempts", "retry_at", "note", "done"])
            _queue_retry(player_id, m.retry_at)
        elif any(c not in m.done for c in run.held.get(m.pk, ())):
            m.retry_at = until[m.pk]
            m.note = "waits for an earlier message to be tried again"
            m.save(update_fields=["retry_at", "note", "done"])
            _queue_retry(player_id, m.retry_at)
        elif m.done:
            sent += 1
            _finish(m, Status.SENT, run.notes.get(m.pk, ""), sent_at=now)
        else:
            _finish(m, Status.SKIPPED, run.notes.get(m.pk, "no channel took it"))
    return sent


def _finish(m: Message, status: str, note: str, sent_at: datetime | None = None) -> None:
    m.status, m.note, m.sent_at = status, note[:300], sent_at
    m.save(update_fields=["status", "note", "sent_at", "done", "attempts"])


def _queue_retry(player_id: int, at: datetime) -> None:
    """A task at ``at`` if it comes before the next sweep's look-ahead would queue one
    (the worker's own publish: no request waits for it)."""
    soon = max(settings.UNO_REACH_FAST_PATH_SECONDS, settings.UNO_REACH_SWEEP_SECONDS + 1)
    if (at - timezone.now()).total_seconds() <= soon:
        from reach.outbox import queue

        queue({player_id: at})


# --------------------------------------------------------------------------------------
# The sweeper
# --------------------------------------------------------------------------------------
def due_players(now: datetime, limit: int = 1000) -> list[int]:
    """The players with messages due, the longest waiting first."""
    rows = (Message.objects.filter(status=Status.PENDING, due_at__lte=now)
            .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now)).values("player_id")
            .annotate(first=Min("due_at")).order_by("first")[:limit])
    return [r["player_id"] for r in rows]


def coming(now: datetime) -> dict[int, set[datetime]]:
    """The due times (first try, or retry) of the pending messages that come due before
    the next sweep (within ``UNO_REACH_SWEEP_SECONDS`` and a second), per player."""
    until = now + timedelta(seconds=settings.UNO_REACH_SWEEP_SECONDS + 1)
    rows = (Message.objects.filter(status=Status.PENDING)
            .filter(Q(retry_at__isnull=True, due_at__gt=now, due_at__lte=until)
                    | Q(retry_at__gt=now, retry_at__lte=until, due_at__lte=until))
            .values_list("player_id", "due_at", "retry_at"))
    out: dict[int, set[datetime]] = {}
    for player_id, due_at, retry_at in rows:
        out.setdefault(player_id, set()).add(max(due_at, retry_at or due_at))
    return out


def sweep(budget: float | None = None) -> int:
    """Deliver every due message (beat, every ``UNO_REACH_SWEEP_SECONDS``), player after
    player, for at most ``budget`` seconds (default: ``UNO_REACH_SWEEP_BUDGET_SECONDS``);
    how many were sent.  First, a delivery task is queued at the due time of each
    message that comes due before the next sweep (:func:`coming`): a message is sent on
    time without its writer (a move's request) queueing anything.  Safe to run twice and
    concurrently (the players' leases; a second task finds nothing due)."""
    budget = settings.UNO_REACH_SWEEP_BUDGET_SECONDS if budget is None else budget
    start = time.monotonic()
    soon = coming(timezone.now())
    if soon:
        from reach.outbox import queue

        queue(soon)
    sent = 0
    for player_id in due_players(timezone.now()):
        if time.monotonic() - start > budget:
            break
        try:
            sent += deliver_player(player_id)
        except Exception:
            log.exception("notifications of player %s: delivery failed", player_id)
    return sent


# --------------------------------------------------------------------------------------
# Old rows
# --------------------------------------------------------------------------------------
#: rows deleted per statement (each its own short transaction)
PRUNE_CHUNK = 2000


def prune(now: datetime | None = None) -> int:
    """Delete the delivered and skipped rows due more than ``UNO_REACH_KEEP_DAYS`` ago (beat,
    hourly); how many.  Failed rows stay (an operator's to read; few).  Safe to run twice
    and concurrently (a row deleted twice is deleted once).  A pruned row's key can no
    longer stop a second copy, but nothing writes a key again that late: keys name one
    game's start or end, one decision of one move, one challenge or offer."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.UNO_REACH_KEEP_DAYS)
    old = Message.objects.filter(status__in=[Status.SENT, Status.SKIPPED], due_at__lt=cutoff)
    deleted = 0
    while True:
        ids = list(old.order_by("id").values_list("id", flat=True)[:PRUNE_CHUNK])
        if not ids:
            return deleted
        deleted += Message.objects.filter(pk__in=ids, status__in=[Status.SENT, Status.SKIPPED]).delete()[0]
