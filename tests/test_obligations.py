"""Obligations (games/obligations.py): a game owes several decisions at once, each with
its own seat(s) and deadline, and the sweeper, the bots and the webhooks work from them.

The window is the real one of ``buzzer_cards``: a Buzzer played opens a buzz window that
every seat owes, with its own deadline (``buzzer_seconds``), while the next seat owes its
turn under ``turn_seconds``.  Positions are arranged on the game's own deck
(``tests.engine.helpers.arrange_game``) and put in a started game as a move would leave
them; the Buzzer is then played through the API or the services.  Time passing is
simulated by moving every stored time of a game into the past (:func:`time_passes`).

The tests marked ``concurrency`` also run on the embedded default (SQLite, the
filesystem broker) under `make test`.
"""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.db import transaction
from django.utils import timezone

from games import engine, obligations, robots, selectors, services
from games.bots import policies
from games.models import Game, Move, Seat
from players.models import Webhook
from tests.engine.helpers import arrange_game, card_in

from .celery_helpers import queued_tasks, redis_broker, requires_redis, wait_for, worker  # noqa: F401 (fixtures)

BUZZER = {"buzzer_cards": True, "rounds": 1}
# hands that match nothing in particular on a red 3 (no action card): nobody goes out
FILLERS = [["blue 1", "blue 2", "blue 4"], ["yellow 1", "yellow 2", "yellow 4"], ["green 1", "green 2", "green 4"],
           ["blue 6", "blue 8", "blue 9"]]
FIXTURE = Path(__file__).parent / "engine" / "fixtures" / "stored_v1_games.json.gz"


# --- helpers ------------------------------------------------------------------------
def table(make_player, *, humans: int, bots: list[str] = (), turn_seconds: int | None = 60,
          buzzer_seconds: int = 10) -> tuple[int, list]:
    """A started game of ``humans`` players and ``bots``, with buzzers (the creator in
    seat 0, the bots next, then the other players); returns its id and the players by
    seat (None for a bot)."""
    people = [make_player()[0] for _ in range(humans)]
    game = services.create_game(creator=people[0], ruleset="standard", max_players=humans + len(bots),
                                bots=[{"level": lv} for lv in bots], turn_seconds=turn_seconds,
                                options={**BUZZER, "buzzer_seconds": buzzer_seconds})
    for p in people[1:]:
        services.join_game(player=p, game_id=game.pk)
    services.start_game(player=people[0], game_id=game.pk)
    by_seat = {s.seat: s.player for s in Seat.objects.filter(game_id=game.pk)}
    return game.pk, [by_seat[i] for i in range(humans + len(bots))]


def put(gid: int, state: engine.State) -> None:
    """Put ``state`` in the game as a move that reached it now would have (its
    obligations begin now)."""
    with transaction.atomic():
        game = selectors.load_seats(selectors.read_game(gid, lock=True))
        game.state, game.round = state.to_dict(), state.round
        obligations.record(game, state, game.seat_list, timezone.now(), acted=None, previous=[])
        game.save(update_fields=["state", "round", "obligations", "deadline", "current_seat"])


def buzzer_position(seats: int, game_options: dict, direction: int = 1) -> engine.State:
    """Seat 0 in turn holding a Buzzer (then seat 1's turn; the last seat's with
    ``direction`` -1), the others fillers."""
    hands = [["buzzer", *FILLERS[0]], *FILLERS[1:seats]]
    return arrange_game(seats, game_options, hands=hands, direction=direction)


def play_buzzer(gid: int, player) -> int:
    """Seat 0 (``player``) plays its Buzzer through the services; returns the version."""
    state = engine.State.from_dict(Game.objects.get(pk=gid).state)
    game, _, _ = services.act(game_id=gid, player=player,
                              action={"type": "play", "card": card_in(state, 0, "buzzer")})
    return game.version


def time_passes(gid: int, seconds: float) -> None:
    """As if ``seconds`` had passed: every time the game stores (its obligations' start
    and deadline, the deadline column) moves that far into the past."""
    game = Game.objects.get(pk=gid)
    delta = timedelta(seconds=seconds)

    def back(value: str | None) -> str | None:
        return None if value is None else (datetime.fromisoformat(value) - delta).isoformat()

    moved = [{**o, "at": back(o["at"]), "deadline": back(o["deadline"])} for o in game.obligations]
    Game.objects.filter(pk=gid).update(obligations=moved, deadline=game.deadline - delta if game.deadline else None)


def owed_now(gid: int) -> list[tuple[int, str, str]]:
    """(seat, decision, what the server does at its deadline) of every stored obligation."""
    return [(o["seat"], o["decision"], o["enforce"]) for o in Game.objects.get(pk=gid).obligations]


def deadlines(gid: int) -> dict[tuple[int, str], datetime | None]:
    return {(o.seat, o.decision): o.deadline for o in obligations.current(Game.objects.get(pk=gid))}


def moves_after(gid: int, version: int) -> list[tuple[int, str, str]]:
    return [(m.seat, m.by, m.action["type"]) for m in Move.objects.filter(game_id=gid, seq__gt=version)]


# --- stored and shown -----------------------------------------------------------------
@pytest.mark.concurrency
@pytest.mark.django_db
def test_several_obligations_are_stored_and_shown_each_with_its_own_deadline(make_player, api):
    gid, players = table(make_player, humans=3, turn_seconds=60, buzzer_seconds=10)
    put(gid, buzzer_position(3, {**BUZZER, "buzzer_seconds": 10}))
    state = engine.State.from_dict(Game.objects.get(pk=gid).state)
    api.force_authenticate(players[0])
    before = timezone.now()
    r = api.post(f"/api/v1/games/{gid}/actions", {"type": "play", "card": card_in(state, 0, "buzzer")},
                 format="json")
    after = timezone.now()
    assert r.status_code == 200, r.content
    shown = r.json()["game"]

    # the turn passed to seat 1 (its turn_seconds), and every seat owes the buzz (its own 10 s)
    assert owed_now(gid) == [(1, "turn", "timeout"), (0, "buzz", "expire"), (1, "buzz", "expire"),
                             (2, "buzz", "expire")]
    stored = deadlines(gid)
    assert before + timedelta(seconds=60) <= stored[(1, "turn")] <= after + timedelta(seconds=60)
    buzz_end = stored[(0, "buzz")]
    assert before + timedelta(seconds=10) <= buzz_end <= after + timedelta(seconds=10)
    assert stored[(1, "buzz")] == stored[(2, "buzz")] == buzz_end  # one window, one end

    game = Game.objects.get(pk=gid)
    assert game.deadline == buzz_end and game.current_seat == 1  # the earliest; the seat in turn

    # the view: every obligation with its seat, type, kind and deadline; each seat's
    # earliest; ``deadline`` the earliest of all (as existing clients read it)
    iso = shown["deadline"]
    assert [(o["seat"], o["type"], o["kind"]) for o in shown["obligations"]] == [
        (1, "turn", "turn"), (0, "buzz", "buzzer_seconds"), (1, "buzz", "buzzer_seconds"),
        (2, "buzz", "buzzer_seconds")]
    assert [o["deadline"] for o in shown["obligations"]][1:] == [iso] * 3
    assert datetime.fromisoformat(shown["obligations"][0]["deadline"]) == stored[(1, "turn")]
    assert [p["deadline"] for p in shown["players"]] == [iso] * 3
    assert datetime.fromisoformat(iso) == buzz_end
    assert shown["current_seat"] == 1
    # a spectator sees the same obligations (nothing in them is hidden)
    api.force_authenticate(make_player()[0])
    assert api.get(f"/api/v1/games/{gid}").json()["obligations"] == shown["obligations"]

    # a seat that buzzes no longer owes it; the others' clocks run on unchanged
    api.force_authenticate(players[2])
    assert api.post(f"/api/v1/games/{gid}/actions", {"type": "buzz"}, format="json").status_code == 200
    assert owed_now(gid) == [(1, "turn", "timeout"), (0, "buzz", "expire"), (1, "buzz", "expire")]
    assert deadlines(gid) == {key: stored[key] for key in [(1, "turn"), (0, "buzz"), (1, "buzz")]}
    shown = api.get(f"/api/v1/games/{gid}").json()
    assert shown["players"][2]["deadline"] is None and shown["players"][1]["deadline"] == iso


@pytest.mark.django_db
def test_the_schema_documents_the_obligations_and_each_seats_deadline(api):
    schemas = api.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    assert "obligations" in schemas["Game"]["properties"] and "deadline" in schemas["Game"]["properties"]
    assert set(schemas["Obligation"]["properties"]) == {"seat", "type", "kind", "deadline"}
    assert "deadline" in schemas["SeatInGame"]["properties"]


# --- the timer ---------------------------------------------------------------------------
@pytest.mark.concurrency
@pytest.mark.django_db
def test_the_timer_enforces_each_obligation_at_its_own_time(make_player):
    gid, players = table(make_player, humans=3, turn_seconds=60, buzzer_seconds=10)
    put(gid, buzzer_position(3, {**BUZZER, "buzzer_seconds": 10}))
    version = play_buzzer(gid, players[0])
    services.act(game_id=gid, player=players[2], action={"type": "buzz"})
    turn_deadline = deadlines(gid)[(1, "turn")]

    time_passes(gid, 5)  # nothing is due yet
    assert robots.sweep_deadlines() == 0

    time_passes(gid, 5.5)  # the window's end: it expires for the two seats still owing it
    assert robots.sweep_deadlines() == 2
    assert moves_after(gid, version + 1) == [(0, "timer", "expire"), (1, "timer", "expire")]
    closed = Move.objects.get(game_id=gid, seq=version + 3).events
    # nobody owes it any more: it closes, the last to buzz and those who did not draw 2
    assert {"type": "buzz_closed", "seat": 0, "buzzed": [2], "not_buzzed": [0, 1], "last": 2,
            "draws": [0, 1, 2]} in closed
    # the turn is untouched: still seat 1's, under its own deadline (moved by the 10.5 s passed)
    assert owed_now(gid) == [(1, "turn", "timeout")]
    assert deadlines(gid)[(1, "turn")] == turn_deadline - timedelta(seconds=10.5)
    assert Game.objects.get(pk=gid).deadline == deadlines(gid)[(1, "turn")]
    # a window's end is no timeout of the seats': no step towards autopilot
    assert list(Seat.objects.filter(game_id=gid).values_list("timeouts", flat=True)) == [0, 0, 0]

    time_passes(gid, 50)  # the turn's deadline
    assert robots.sweep_deadlines() == 1
    assert moves_after(gid, version + 3) == [(1, "timer", "timeout")]
    assert Seat.objects.get(game_id=gid, seat=1).timeouts == 1
    assert [seat for seat, decision, _ in owed_now(gid)] == [2]  # the next seat's turn, a new clock


@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_turn_timed_out_in_an_open_window_closes_it_and_the_windows_deadline_goes(make_player):
    """The turn's deadline first: the timer's action is an in-turn action, which closes
    the window (RULES.md "Time"); its seats owe nothing more there."""
    gid, players = table(make_player, humans=2, turn_seconds=5, buzzer_seconds=30)
    put(gid, buzzer_position(2, {**BUZZER, "buzzer_seconds": 30}))
    version = play_buzzer(gid, players[0])
    time_passes(gid, 6)
    assert robots.sweep_deadlines() == 1
    assert moves_after(gid, version) == [(1, "timer", "timeout")]
    assert not any(decision == "buzz" for _, decision, _ in owed_now(gid))
    assert Game.objects.get(pk=gid).deadline > timezone.now()


# --- bots -------------------------------------------------------------------------------
@pytest.mark.concurrency
@pytest.mark.django_db
def test_bots_act_on_their_window_obligations_after_a_human_delay_then_on_their_turn(
        make_player, settings, django_capture_on_commit_callbacks):
    settings.UNO_BOT_THINK_SECONDS = 0
    gid, players = table(make_player, humans=1, bots=["normal", "easy"], turn_seconds=None, buzzer_seconds=30)
    put(gid, buzzer_position(3, {**BUZZER, "buzzer_seconds": 30}))
    version = play_buzzer(gid, players[0])
    assert [(s, d) for s, d, _ in owed_now(gid)] == [(1, "turn"), (0, "buzz"), (1, "buzz"), (2, "buzz")]

    # at once: the bots want to buzz, but a person takes a while (policies.reaction_delay):
    # nobody acts, and the step comes back when the first is due
    with django_capture_on_commit_callbacks() as callbacks:
        assert not robots.bot_step(gid, version)
    assert moves_after(gid, version) == [] and len(callbacks) == 1
    time_passes(gid, policies.REACTION_SHARE * 30)  # every reaction time is within 80% of the window
    assert robots.bot_step(gid, version)
    assert robots.bot_step(gid, version + 1)
    buzzes = moves_after(gid, version)
    assert sorted(buzzes) == [(1, "bot", "buzz"), (2, "bot", "buzz")]  # both robots, seat 1 owing its turn too
    assert [(s, d) for s, d, _ in owed_now(gid)] == [(1, "turn"), (0, "buzz")]
    # then the robot in turn plays its turn (an in-turn action: the window closes on the human)
    assert robots.bot_step(gid, version + 2)
    seat, by, kind = moves_after(gid, version + 2)[0]
    assert (seat, by) == (1, "bot") and kind in ("play", "draw")
    assert not any(decision == "buzz" for _, decision, _ in owed_now(gid))


@requires_redis
@pytest.mark.django_db(transaction=True)
def test_with_a_worker_every_robot_buzzes_by_itself_after_a_human_like_delay(worker, make_player):
    """The seat in turn after the Buzzer (seat 3, play going right) is a person who
    takes their time: the window stays open (that seat's next in-turn action would
    close it) while the robots (seats 1 and 2) buzz by themselves."""
    gid, players = table(make_player, humans=2, bots=["normal", "hard"], turn_seconds=None, buzzer_seconds=20)
    assert [p is None for p in players] == [False, True, True, False]
    put(gid, buzzer_position(4, {**BUZZER, "buzzer_seconds": 20}, direction=-1))
    worker.start()
    version = play_buzzer(gid, players[0])
    # when the window opened: its obligations began then (the human's is still owed)
    opened = next(o.at for o in obligations.current(Game.objects.get(pk=gid)) if o.decision == "buzz")
    buzzes = wait_for(lambda: (lambda m: m if len(m) == 2 else None)(
        list(Move.objects.filter(game_id=gid, seq__gt=version, action={"type": "buzz"}))),
        timeout=20, interval=0.05, message="the two robots' buzzes")
    assert sorted(m.seat for m in buzzes) == [1, 2] and {m.by for m in buzzes} == {"bot"}
    delays = [(m.created_at - opened).total_seconds() for m in buzzes]
    assert all(policies.MIN_REACTION <= d < policies.REACTION_SHARE * 20 for d in delays), delays
    assert delays[0] != delays[1]  # each its own reaction time
    # the first step found its robots waiting, and came back for them
    assert len(worker.log.runs("bot_step", (gid, version))) >= 2
    assert [(s, d) for s, d, _ in owed_now(gid)] == [(3, "turn"), (0, "buzz"), (3, "buzz")]


@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_seat_handed_to_the_autopilot_keeps_its_windows_deadline_and_gets_a_robots_turn(make_player):
    gid, players = table(make_player, humans=2, turn_seconds=60, buzzer_seconds=10)
    put(gid, buzzer_position(2, {**BUZZER, "buzzer_seconds": 10}))
    play_buzzer(gid, players[0])
    before = deadlines(gid)
    services.leave_game(player=players[1], game_id=gid)  # seat 1: in turn, owing a buzz
    after = obligations.current(Game.objects.get(pk=gid))
    assert [(o.seat, o.decision, o.enforce) for o in after] == [
        (1, "turn", "revive"), (0, "buzz", "expire"), (1, "buzz", "expire")]
    assert {(o.seat, o.decision): o.deadline for o in after if o.decision == "buzz"} == {
        k: v for k, v in before.items() if k[1] == "buzz"}


# --- webhooks ------------------------------------------------------------------------------
@requires_redis
@pytest.mark.django_db(transaction=True)
def test_your_turn_goes_to_each_seat_that_newly_owes_a_decision_once(make_player, redis_broker):
    from config.celery import app

    gid, players = table(make_player, humans=3, turn_seconds=3600, buzzer_seconds=60)
    for p in players:
        Webhook.objects.create(player=p, url="https://example.com/hook", secret="s" * 32)
    put(gid, buzzer_position(3, {**BUZZER, "buzzer_seconds": 60}))
    app.control.purge()
    version = play_buzzer(gid, players[0])
    told = [args for name, args in queued_tasks() if name == "deliver_webhook"]
    by = {p.pk: seat for seat, p in enumerate(players)}
    assert sorted((by[pid], payload["decision"]) for pid, _, payload, _ in told) == [
        (1, "buzz"), (1, "turn"), (2, "buzz")]  # not seat 0: it played the Buzzer itself
    assert {event for _, event, _, _ in told} == {"your_turn"}
    assert all(payload["version"] == version and payload["seat"] == by[pid] for pid, _, payload, _ in told)
    ends = deadlines(gid)
    for pid, _, payload, _ in told:
        assert datetime.fromisoformat(payload["deadline"]) == ends[(by[pid], payload["decision"])]
    assert len({key for *_, key in told}) == 3  # three deliveries, three ids

    # a buzz changes nobody's obligations: nobody is told anything
    app.control.purge()
    services.act(game_id=gid, player=players[2], action={"type": "buzz"})
    assert [name for name, _ in queued_tasks()] == []
    # the same version's follow-ups run again (a redelivered task): nothing queued twice
    robots.resume(gid)
    assert [name for name, _ in queued_tasks()] == []


# --- games stored before obligations -----------------------------------------------------------
@pytest.mark.concurrency
@pytest.mark.django_db
def test_a_game_stored_before_obligations_shows_them_and_its_deadline_is_enforced():
    """A real row of the server before this change (null obligations), with a passed
    deadline: it is shown owing its turn, the sweeper enforces it, and its first move
    stores the list."""
    rows = json.loads(gzip.decompress(FIXTURE.read_bytes()))
    from django.core.management import call_command

    call_command("loaddata", str(FIXTURE), verbosity=0)
    assert all("obligations" not in r["fields"] for r in rows if r["model"] == "games.game")
    game = next(g for g in Game.objects.filter(status="active").order_by("pk")
                if Seat.objects.get(game=g, seat=g.current_seat).player_id is not None)
    assert game.obligations is None
    seat = game.current_seat
    Game.objects.filter(pk=game.pk).update(turn_seconds=60, deadline=timezone.now() - timedelta(seconds=1))
    game.refresh_from_db()
    shown = selectors.game_view(game, Seat.objects.get(game=game, seat=seat).player)
    assert [(o["seat"], o["kind"], o["deadline"]) for o in shown["obligations"]] == [(seat, "turn", game.deadline)]
    assert shown["players"][seat]["deadline"] == game.deadline

    assert robots.expire_deadline(game.pk)  # (the sweeper's work for this game alone)
    move = Move.objects.filter(game=game).latest("seq")
    assert (move.seat, move.by, move.action) == (seat, "timer", {"type": "timeout"})
    game.refresh_from_db()
    assert isinstance(game.obligations, list) and game.obligations
    assert game.deadline == obligations.earliest(obligations.current(game))


@pytest.mark.django_db
def test_a_window_closed_and_opened_again_in_one_move_starts_its_clocks_afresh(make_player):
    """Seat 1, in turn, plays a Buzzer while seat 0's buzz window is open: that in-turn
    action closes the open window and its own opens a new one in the same move.  The
    seats owe a buzz before and after, but in a new window: a full ``buzzer_seconds``."""
    gid, players = table(make_player, humans=2, turn_seconds=600, buzzer_seconds=30)
    hands = [["buzzer", *FILLERS[0]], ["buzzer", *FILLERS[1]]]
    put(gid, arrange_game(2, {**BUZZER, "buzzer_seconds": 30}, hands=hands))
    play_buzzer(gid, players[0])
    time_passes(gid, 20)  # the first window has 10 s left
    state = engine.State.from_dict(Game.objects.get(pk=gid).state)
    before = timezone.now()
    services.act(game_id=gid, player=players[1], action={"type": "play", "card": card_in(state, 1, "buzzer")})
    buzz = {seat: deadline for (seat, decision), deadline in deadlines(gid).items() if decision == "buzz"}
    assert set(buzz) == {0, 1}
    assert all(deadline >= before + timedelta(seconds=30) for deadline in buzz.values()), buzz
