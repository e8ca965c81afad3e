"""Correspondence comforts (issue 29): each seat's time left in the game view, and away
periods that stop a player's correspondence clocks (``games.away``,
``obligations.pause``, the sweeper's ``robots._enforce``).

Time passing is simulated as the other timer tests do it: stored deadlines moved by hand
(``Game.deadline`` set in the past, obligations' deadlines moved back), never a frozen
clock; the away services take an explicit ``now`` where months must be chosen."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone as dt_timezone

import pytest
from django.utils import timezone

from config.problems import ApiError
from games import away, engine, obligations, robots, services
from games.models import Game, Move, Seat
from players.models import AwayPeriod, Player
from tests.games_support import by_seat, clients, game_url, play_out, start_table  # noqa: F401 (fixture)
from tests.helpers import at_once
from tests.test_obligations import BUZZER, buzzer_position, play_buzzer, put, table

AWAY = "/api/v1/players/me/away"
DAY = 86400
UTC = dt_timezone.utc


# --- helpers ------------------------------------------------------------------------
def when(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00"))


def view(client, gid: int) -> dict:
    r = client.get(game_url(gid))
    assert r.status_code == 200, r.content
    return r.json()


def seat_of(gid: int, client) -> int:
    return Seat.objects.get(game_id=gid, player=client.player).seat


def clock(gid: int, seat: int) -> obligations.Obligation:
    """The seat's decision under the turn's deadline, as stored."""
    owed = [o for o in obligations.current(Game.objects.get(pk=gid)) if o.seat == seat and o.enforce == "timeout"]
    assert len(owed) == 1, owed
    return owed[0]


def correspondence(players, **body) -> tuple[int, object, object]:
    """A running two-player correspondence game (a day per decision): (id, the client in
    turn, the other)."""
    gid = start_table(players, turn_seconds=DAY, options={"rounds": 1}, **body)
    seats = by_seat(gid, players)
    turn = Game.objects.get(pk=gid).current_seat
    return gid, seats[turn], seats[1 - turn]


def put_away(client, until: datetime, status: int = 200) -> dict:
    r = client.put(AWAY, {"until": until.isoformat()}, format="json")
    assert r.status_code == status, r.content
    return r.json()


def overdue_by_hand(gid: int) -> None:
    """As if the game's clocks had all run out: its ``deadline`` column and every
    obligation's deadline an hour in the past (a paused one's ``paused_until`` kept)."""
    game = Game.objects.get(pk=gid)
    past = (timezone.now() - timedelta(hours=1)).isoformat()
    moved = [{**o, "deadline": past if o["deadline"] else None} for o in game.obligations]
    Game.objects.filter(pk=gid).update(obligations=moved, deadline=timezone.now() - timedelta(hours=1))


def timer_moves(gid: int, version: int) -> list[tuple[int, str]]:
    return [(m.seat, m.action["type"]) for m in Move.objects.filter(game_id=gid, seq__gt=version, by="timer")]


# --- time left ----------------------------------------------------------------------
def test_time_left_of_a_running_timed_game(clients):
    players = clients(2)
    gid = start_table(players, bots=[{"level": "random"}], turn_seconds=60, options={"rounds": 1})
    robots_bot = Seat.objects.get(game_id=gid, player__isnull=True).seat
    g = view(players[0], gid)
    turn = g["current_seat"]
    for p in g["players"]:
        assert p["away_until"] is None
        if p["seat"] == robots_bot:
            assert p["time_left"] is None  # a bot has no clock
        elif p["seat"] == turn:
            assert p["time_left"]["running"] is True and p["time_left"]["paused"] is False
            assert when(p["time_left"]["deadline"]) == when(p["deadline"]) == when(g["deadline"])
            assert 0 < p["time_left"]["seconds"] <= 60
        else:
            assert p["time_left"] == {"seconds": 60.0, "deadline": None, "running": False, "paused": False}


def test_time_left_is_null_without_a_turn_limit_and_once_finished(clients):
    players = clients(2)
    untimed = start_table(players, options={"rounds": 1})
    assert [p["time_left"] for p in view(players[0], untimed)["players"]] == [None, None]
    timed = start_table(players, turn_seconds=DAY, options={"rounds": 1})
    assert all(p["time_left"] is not None for p in view(players[0], timed)["players"])
    play_out(timed)
    g = view(players[0], timed)
    assert g["status"] == "finished"
    assert [p["time_left"] for p in g["players"]] == [None, None]
    assert [p["away_until"] for p in g["players"]] == [None, None]


def test_a_window_is_not_a_seats_clock(make_player, api):
    """A buzz window every seat owes (its own deadline, ``buzzer_seconds``) shows in
    ``players[i].deadline``, but a seat's clock is its decision under the turn's deadline."""
    gid, people = table(make_player, humans=3, turn_seconds=DAY, buzzer_seconds=10)
    put(gid, buzzer_position(3, {**BUZZER, "buzzer_seconds": 10}))
    play_buzzer(gid, people[0])
    token = make_player()[1]  # a spectator
    g = api.get(game_url(gid), HTTP_AUTHORIZATION=f"Token {token}").json()
    windows = [o for o in g["obligations"] if o["kind"] != "turn"]
    assert windows, g["obligations"]
    turn = g["current_seat"]
    for p in g["players"]:
        if p["seat"] == turn:
            assert p["time_left"]["running"] is True
            assert when(p["time_left"]["deadline"]) > when(p["deadline"])  # the window closes first
        else:  # owes only the window: its clock does not run
            assert when(p["deadline"]) is not None
            assert p["time_left"] == {"seconds": float(DAY), "deadline": None, "running": False, "paused": False}


# --- the away API -------------------------------------------------------------------
def test_away_get_put_delete(clients, settings):
    me = clients(1)[0]
    assert me.get(AWAY).json() == {"away_until": None, "days_used_this_month": 0.0,
                                   "days_allowed_per_month": settings.UNO_AWAY_DAYS_PER_MONTH}
    before = timezone.now()
    until = before + timedelta(days=2)
    body = put_away(me, until)
    assert when(body["away_until"]) == until
    month_end = away.next_month(away.month_start(before))
    planned = (min(until, month_end) - before).total_seconds() / DAY
    assert planned - 0.001 <= body["days_used_this_month"] <= planned
    assert me.get(AWAY).json()["away_until"] == body["away_until"]
    # shorter, then longer: one period, whose end moves
    put_away(me, before + timedelta(days=1))
    put_away(me, before + timedelta(days=3))
    assert AwayPeriod.objects.filter(player=me.player).count() == 1
    ended = me.delete(AWAY)
    assert ended.status_code == 200 and ended.json()["away_until"] is None
    period = AwayPeriod.objects.get(player=me.player)
    assert period.ends_at - period.starts_at < timedelta(minutes=5)  # the unused days given back
    assert me.delete(AWAY).json()["away_until"] is None  # not away: nothing to end
    assert Player.objects.get(pk=me.player.pk).away_until is None


@pytest.mark.parametrize("body", [
    {}, {"until": None}, {"until": 12345}, {"until": True}, {"until": ["2031-01-01T00:00:00Z"]},
    {"until": {"at": "2031-01-01T00:00:00Z"}}, {"until": "tomorrow"}, {"until": "2031-13-40T00:00:00Z"}, ["until"],
])
def test_away_refuses_malformed_input(clients, body):
    me = clients(1)[0]
    r = me.put(AWAY, body, format="json")
    assert r.status_code == 400, r.content
    assert r["Content-Type"] == "application/problem+json" and r.json()["code"] == "invalid"
    assert Player.objects.get(pk=me.player.pk).away_until is None and not AwayPeriod.objects.exists()


def test_away_refuses_bad_json_past_dates_and_too_long(clients, settings):
    me = clients(1)[0]
    r = me.generic("PUT", AWAY, '{"until": ', content_type="application/json")
    assert r.status_code == 400 and r.json()["code"] == "malformed_json"
    for past in (timezone.now() - timedelta(minutes=1), timezone.now() - timedelta(days=400)):
        assert put_away(me, past, 400)["fields"]["until"]
    too_long = put_away(me, timezone.now() + timedelta(days=settings.UNO_AWAY_DAYS_PER_MONTH, minutes=5), 400)
    assert too_long["code"] == "invalid" and "at most 14 days" in too_long["detail"]
    assert too_long["days_left"] == pytest.approx(14, abs=0.01) and too_long["days_allowed_per_month"] == 14
    assert not AwayPeriod.objects.exists()
    # extending a period counts from its start
    start = timezone.now()
    put_away(me, start + timedelta(days=10))
    assert put_away(me, start + timedelta(days=14, minutes=5), 400)["code"] == "invalid"
    assert when(me.get(AWAY).json()["away_until"]) == start + timedelta(days=10)


def test_no_days_left_answers_409_saying_so(clients, settings):
    settings.UNO_AWAY_DAYS_PER_MONTH = 0
    me = clients(1)[0]
    r = me.put(AWAY, {"until": (timezone.now() + timedelta(hours=1)).isoformat()}, format="json")
    assert r.status_code == 409 and r["Content-Type"] == "application/problem+json"
    body = r.json()
    assert body["code"] == "away_days_exhausted" and body["days_left"] == 0 and body["days_allowed_per_month"] == 0
    assert body["month"] == f"{timezone.now():%Y-%m}"


def test_a_bot_account_is_never_away(make_player, api):
    _, token = make_player(is_bot=True)
    r = api.put(AWAY, {"until": (timezone.now() + timedelta(days=1)).isoformat()}, format="json",
                HTTP_AUTHORIZATION=f"Token {token}")
    assert r.status_code == 403 and r.json()["code"] == "bot_account"


def test_away_needs_a_token(api, db):
    assert api.get(AWAY).status_code == 401
    assert api.put(AWAY, {"until": "2031-01-01T00:00:00Z"}, format="json").status_code == 401


# --- the monthly maximum ------------------------------------------------------------
def test_the_monthly_maximum_counts_each_month_a_period_crosses(make_player):
    """14 days a month: a period from 25 January to 5 February counts 7 days in January
    and 4 in February; days planned or used in either month count against it."""
    player, _ = make_player()
    # 9 days already used in January: 9 + 7 > 14
    AwayPeriod.objects.create(player=player, starts_at=datetime(2031, 1, 2, tzinfo=UTC),
                              ends_at=datetime(2031, 1, 11, tzinfo=UTC))
    with pytest.raises(ApiError) as refused:
        away.set_away(player=player, until=datetime(2031, 2, 5, tzinfo=UTC), now=datetime(2031, 1, 25, tzinfo=UTC))
    assert refused.value.status_code == 409 and refused.value.code == "away_days_exhausted"
    assert refused.value.extra == {"month": "2031-01", "days_left": 5.0, "days_allowed_per_month": 14}
    # 5 days are left in January: 27 January to 5 February fits (5 + 4)
    status = away.set_away(player=player, until=datetime(2031, 2, 5, tzinfo=UTC), now=datetime(2031, 1, 27, tzinfo=UTC))
    assert status.away_until == datetime(2031, 2, 5, tzinfo=UTC) and status.days_used_this_month == 14
    assert away.days_used(player.pk, datetime(2031, 2, 1, tzinfo=UTC)) == 4
    # February: 4 used; a later period of 11 days there passes it
    away.end_away(player=player, now=datetime(2031, 2, 3, tzinfo=UTC))  # back early: 2 days given back
    assert away.days_used(player.pk, datetime(2031, 2, 1, tzinfo=UTC)) == 2
    with pytest.raises(ApiError) as refused:
        away.set_away(player=player, until=datetime(2031, 2, 22, 1, tzinfo=UTC), now=datetime(2031, 2, 10, tzinfo=UTC))
    assert refused.value.extra["month"] == "2031-02" and refused.value.extra["days_left"] == 12.0
    status = away.set_away(player=player, until=datetime(2031, 2, 22, tzinfo=UTC), now=datetime(2031, 2, 10, tzinfo=UTC))
    assert status.days_used_this_month == 14
    assert away.days_used(player.pk, datetime(2031, 1, 1, tzinfo=UTC)) == 14


# --- clocks -------------------------------------------------------------------------
def test_away_moves_a_correspondence_deadline_and_back(clients):
    gid, mover, other = correspondence(clients(2))
    seat = seat_of(gid, mover)
    deadline = clock(gid, seat).deadline
    other_before = [o for o in obligations.current(Game.objects.get(pk=gid)) if o.seat != seat]

    t0 = timezone.now()
    until = t0 + timedelta(days=2)
    put_away(mover, until)
    t1 = timezone.now()
    paused = clock(gid, seat)
    assert paused.paused_until == until
    left = paused.deadline - until  # the time it had left when the player went away
    assert deadline - t1 <= left <= deadline - t0
    assert Game.objects.get(pk=gid).deadline == obligations.earliest(obligations.current(Game.objects.get(pk=gid)))
    assert [o for o in obligations.current(Game.objects.get(pk=gid)) if o.seat != seat] == other_before
    mine = view(other, gid)["players"][seat]
    assert when(mine["away_until"]) == until
    assert mine["time_left"]["paused"] is True and mine["time_left"]["running"] is False
    assert mine["time_left"]["seconds"] == pytest.approx(left.total_seconds())
    assert when(mine["time_left"]["deadline"]) == paused.deadline

    put_away(mover, until + timedelta(days=1))  # extended: a day later
    assert clock(gid, seat).deadline == paused.deadline + timedelta(days=1)
    put_away(mover, until - timedelta(days=1))  # shortened
    assert clock(gid, seat).deadline == paused.deadline - timedelta(days=1)

    t0 = timezone.now()
    mover.delete(AWAY)
    t1 = timezone.now()
    back = clock(gid, seat)
    assert back.paused_until is None
    assert t0 + left <= back.deadline <= t1 + left  # the same time left, from now
    mine = view(other, gid)["players"][seat]
    assert mine["away_until"] is None and mine["time_left"]["running"] is True
    assert Game.objects.get(pk=gid).deadline == back.deadline


def test_a_decision_that_comes_while_away_starts_its_clock_at_the_end(clients):
    gid, mover, waiting = correspondence(clients(2))
    seat, waiting_seat = seat_of(gid, mover), seat_of(gid, waiting)
    until = timezone.now() + timedelta(days=3)
    put_away(waiting, until)
    assert view(mover, gid)["players"][waiting_seat]["time_left"] == {
        "seconds": float(DAY), "deadline": None, "running": False, "paused": True}
    for _ in range(20):  # the mover plays until the turn passes to the away player
        g = view(mover, gid)
        if g["current_seat"] != seat:
            break
        r = mover.post(game_url(gid, "actions"), g["legal_actions"][0], format="json")
        assert r.status_code == 200, r.content
    assert Game.objects.get(pk=gid).current_seat == waiting_seat
    fresh = clock(gid, waiting_seat)
    assert fresh.paused_until == until and fresh.deadline == until + timedelta(seconds=DAY)
    # the away player may still play: it is their turn, and their next clock starts at the end too
    assert view(waiting, gid)["legal_actions"]


def test_a_real_time_game_is_not_affected(clients):
    players = clients(2)
    gid = start_table(players, turn_seconds=60, options={"rounds": 1})
    turn = Game.objects.get(pk=gid).current_seat
    mover = by_seat(gid, players)[turn]
    before = Game.objects.get(pk=gid)
    put_away(mover, timezone.now() + timedelta(days=2))
    after = Game.objects.get(pk=gid)
    assert (after.obligations, after.deadline, after.updated_at) == (before.obligations, before.deadline,
                                                                       before.updated_at)
    mine = view(mover, gid)["players"][turn]
    assert mine["away_until"] is None and mine["time_left"]["paused"] is False
    # and the timer acts in it as ever
    version = after.version
    overdue_by_hand(gid)
    robots.enforce_batch(50, game_id=gid)
    assert timer_moves(gid, version) == [(turn, "timeout")]


def test_the_sweeper_never_times_out_an_away_players_decision(clients):
    gid, mover, _ = correspondence(clients(2))
    seat = seat_of(gid, mover)
    until = timezone.now() + timedelta(days=2)
    put_away(mover, until)
    version = Game.objects.get(pk=gid).version
    # its clocks run out by hand (the deadline column, the obligation's deadline)
    overdue_by_hand(gid)
    batch = robots.enforce_batch(50, game_id=gid)
    assert batch.taken == 1 and batch.timed_out == []
    assert timer_moves(gid, version) == []
    game = Game.objects.get(pk=gid)
    kept = clock(gid, seat)
    assert kept.paused_until == until and kept.deadline >= until  # paused again, not timed out
    assert game.deadline == kept.deadline and game.version == version
    robots.sweep_deadlines(budget=1)
    assert timer_moves(gid, version) == []

    # back: the same overdue clock is timed out (the test above could fail)
    mover.delete(AWAY)
    overdue_by_hand(gid)
    robots.enforce_batch(50, game_id=gid)
    assert timer_moves(gid, version) == [(seat, "timeout")]


def test_the_sweeper_pauses_a_clock_that_missed_the_away_period(clients):
    """A seat whose clock runs although its player is away (a game that started while
    they went away; a deadline set by hand) is paused by the sweeper, not timed out."""
    gid, mover, _ = correspondence(clients(2))
    seat = seat_of(gid, mover)
    until = timezone.now() + timedelta(days=1)
    Player.objects.filter(pk=mover.player.pk).update(away_until=until)  # as if the clocks had been missed
    version = Game.objects.get(pk=gid).version
    overdue_by_hand(gid)
    robots.enforce_batch(50, game_id=gid)
    assert timer_moves(gid, version) == []
    assert clock(gid, seat).paused_until == until
    assert Game.objects.get(pk=gid).deadline == clock(gid, seat).deadline >= until


def test_bot_seats_and_autopilot_keep_their_times(clients):
    players = clients(1)
    gid = start_table(players, bots=[{"level": "random"}], turn_seconds=DAY, options={"rounds": 1})
    before = [o for o in obligations.current(Game.objects.get(pk=gid)) if o.enforce != "timeout"]
    put_away(players[0], timezone.now() + timedelta(days=1))
    after = [o for o in obligations.current(Game.objects.get(pk=gid)) if o.enforce != "timeout"]
    assert after == before
    g = view(players[0], gid)
    bot = next(p for p in g["players"] if p["is_bot"])
    assert bot["away_until"] is None and bot["time_left"] is None


# --- under concurrency (PostgreSQL's row locks; SQLite's one write lock) -------------
THREADS = 8


def _at_once(work, n: int = THREADS) -> list:
    return at_once(work, n)


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_concurrent_puts_make_one_period(make_player):
    """Two PUTs of a player who is not away, at once: one period, whose end is the
    player's ``away_until`` (the player's row lock: neither creates its own)."""
    player, _ = make_player()
    now = timezone.now()
    untils = [now + timedelta(hours=10 + i) for i in range(THREADS)]
    results = _at_once(lambda i: away.set_away(player=player, until=untils[i]))
    assert all(isinstance(r, away.AwayStatus) for r in results), results
    period = AwayPeriod.objects.get(player=player)
    assert Player.objects.get(pk=player.pk).away_until == period.ends_at
    assert period.ends_at in untils


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_away_changes_racing_moves_leave_every_clock_paused_or_running(make_player):
    """A player goes away, comes back and goes away again while their opponents and they
    move in three correspondence games and a real-time one: at the end every clock of
    theirs in a correspondence game stands still until their ``away_until`` exactly (or
    runs, when they are back), each game's ``deadline`` is its obligations' earliest, and
    the real-time game's clocks never paused."""
    me, _ = make_player()
    games = []
    for turn_seconds in (DAY, DAY, 2 * DAY, 60):
        other, _ = make_player()
        game = services.create_game(creator=me, ruleset="standard", max_players=2, turn_seconds=turn_seconds,
                                    options={"rounds": 1})
        services.join_game(player=other, game_id=game.pk)
        services.start_game(player=me, game_id=game.pk)
        games.append(game.pk)
    now = timezone.now()

    def work(i):
        if i < 4:  # the away player: going away, back, away again
            if i == 1:
                return away.end_away(player=me)
            return away.set_away(player=me, until=now + timedelta(hours=5 + i))
        gid = games[i - 4]  # whoever is in turn in game i - 4 moves, a few times
        done = 0
        for _ in range(6):
            game = Game.objects.get(pk=gid)
            if game.status != "active":
                break
            seat = Seat.objects.get(game_id=gid, seat=game.current_seat)
            action = engine.legal_actions(engine.State.from_dict(game.state), seat.seat)[0]
            try:
                services.act(game_id=gid, player=seat.player, action=action, expected_version=game.version)
                done += 1
            except ApiError as exc:
                assert exc.code == "stale_version", exc
        return done

    results = _at_once(work)
    assert not [r for r in results if isinstance(r, BaseException)], results
    until = Player.objects.get(pk=me.pk).away_until
    check = timezone.now()
    for gid in games:
        game = Game.objects.get(pk=gid)
        owed = obligations.current(game)
        assert game.deadline == obligations.earliest(owed)
        seat = Seat.objects.get(game_id=gid, player=me).seat
        for o in owed:
            if o.seat != seat or o.enforce != "timeout" or game.status != "active":
                continue
            if game.turn_seconds == 60 or until is None or until <= check:
                assert o.paused_until is None, (gid, o)
            else:
                assert o.paused_until == until and o.deadline >= until, (gid, o)
    assert AwayPeriod.objects.filter(player=me, ends_at__gt=check).count() == (until is not None and until > check)
