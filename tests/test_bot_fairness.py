"""The workers' fair share between owners (issue 24, games.botqueue): one owner's many
bot tables cannot fill the queue ahead of another owner's.

The queue is replaced by a list that a loop runs first come, first served, one step at
a time, as one busy pool process would (no timing: every bot thinks 0 s, so a step is
due when it is queued).  What is measured is an ordering: how many bot steps that
acted ran between the moment a step of the light owner's table was queued and the
moment it ran.  Without the share that is every busy table of the heavy owner; with
it, at most ``UNO_BOT_STEPS_PER_OWNER``."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from games import botqueue, robots, scheduling, services
from games.models import DeferredBotStep, Game, GameStatus, Move, Seat

BOT_STEP = "games.tasks.bot_step"


@pytest.fixture(autouse=True)
def _fresh_slots(request, settings):
    settings.UNO_BOT_THINK_SECONDS = 0
    # (the database's cache table, without Redis, outlives a transactional test's flush)
    uses_db = request.node.get_closest_marker("django_db") is not None
    if uses_db:
        cache.clear()
    yield
    if uses_db:
        cache.clear()


@dataclass
class Message:
    task: str
    args: tuple
    queue: str | None
    #: acted steps run before it was queued
    stamp: int


@dataclass
class Broker:
    """The two queues: ``scheduling._enqueue`` appends here; :meth:`run` runs the bot
    steps of the default queue first come, first served, one at a time, as one busy
    pool process would (every bot thinks 0 s: a step is due when queued), and those of
    the deadlines' queue (the sweeper's revivals) before each."""

    messages: deque = field(default_factory=deque)
    urgent: deque = field(default_factory=deque)
    acted: int = 0
    #: per game: the acted steps that ran while each of its steps waited in the queue
    waits: dict[int, list[int]] = field(default_factory=dict)
    #: the game of each step that acted, in order
    order: list[int] = field(default_factory=list)

    def enqueue(self, task, args, countdown, expires=None, queue=None) -> bool:
        (self.urgent if queue == "deadlines" else self.messages).append(Message(task, tuple(args), queue, self.acted))
        return True

    def bot_steps(self) -> list[Message]:
        return [m for m in self.messages if m.task == BOT_STEP]

    def run_urgent(self) -> None:
        while self.urgent:
            m = self.urgent.popleft()
            if m.task == BOT_STEP:  # (a revival)
                self._step(m)

    def run(self, steps: int) -> None:
        """Run the queued bot steps until ``steps`` acted."""
        self.run_urgent()
        while self.messages and self.acted < steps:
            m = self.messages.popleft()
            if m.task == BOT_STEP:
                self._step(m)
            self.run_urgent()

    def _step(self, m: Message) -> None:
        before = {id(x) for x in (*self.messages, *self.urgent)}
        if robots.bot_step(*m.args):
            self.waits.setdefault(m.args[0], []).append(self.acted - m.stamp)
            self.acted += 1
            self.order.append(m.args[0])
            for queued in (*self.messages, *self.urgent):  # queued by this step: after it
                if id(queued) not in before:
                    queued.stamp = self.acted


@pytest.fixture
def broker(monkeypatch) -> Broker:
    b = Broker()
    monkeypatch.setattr(scheduling, "_enqueue", b.enqueue)
    return b


def bot_tables(owner, n: int, bots: int = 3) -> list[int]:
    """``n`` running tables of ``owner`` played by robots only: ``bots`` bots and the
    owner's seat, left to the autopilot."""
    ids = []
    for _ in range(n):
        game = services.create_game(creator=owner, ruleset="standard", bots=[{"level": "random"}] * bots)
        services.start_game(player=owner, game_id=game.pk)
        services.leave_game(player=owner, game_id=game.pk)
        ids.append(game.pk)
    return ids


def heavy_and_light(make_player, broker, heavy_tables: int = 10) -> tuple[list[int], int]:
    heavy, _ = make_player("heavy")
    light, _ = make_player("light")
    many = bot_tables(heavy, heavy_tables)  # the heavy owner's burst comes first
    (one,) = bot_tables(light, 1)
    assert len(broker.bot_steps()) >= 2
    return many, one


def fair_run(make_player, broker, steps: int = 240) -> tuple[list[int], int]:
    many, one = heavy_and_light(make_player, broker)
    broker.run(steps)
    return many, one


@pytest.mark.django_db(transaction=True)
def test_without_a_share_the_light_owners_bot_waits_behind_every_heavy_table(make_player, broker, settings):
    """The baseline (``UNO_BOT_STEPS_PER_OWNER = 0``): what the share fixes."""
    settings.UNO_BOT_STEPS_PER_OWNER = 0
    many, one = fair_run(make_player, broker)
    waits = broker.waits[one]
    assert min(waits) >= len(many), waits  # every heavy table moved before each of its moves
    assert broker.order.count(one) <= broker.acted // len(many)
    assert not DeferredBotStep.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_with_a_share_the_light_owners_bot_waits_behind_at_most_k_heavy_steps(make_player, broker, settings):
    settings.UNO_BOT_STEPS_PER_OWNER = k = 2
    many, one = fair_run(make_player, broker)
    waits = broker.waits[one]
    assert max(waits) <= k, waits  # (its first step too, queued just after the heavy burst)
    # the light table gets about one step in k + 1, not one in len(many) + 1
    assert broker.order.count(one) >= broker.acted // (k + 2), broker.order
    # the heavy owner's tables all move, oldest held back first (none starves)
    moved = {gid: broker.order.count(gid) for gid in many}
    assert min(moved.values()) >= 0.5 * max(moved.values()) > 0, moved
    # and every game is still consistent: one move per acted step, none lost or doubled
    assert Move.objects.filter(game_id__in=[*many, one], by__in=["bot", "timer"]).count() == broker.acted


def quiet_tables(owner, n: int, settings, broker) -> list[int]:
    """``bot_tables`` with no step queued nor held back (the share off meanwhile)."""
    k = settings.UNO_BOT_STEPS_PER_OWNER
    settings.UNO_BOT_STEPS_PER_OWNER = 0
    ids = bot_tables(owner, n)
    settings.UNO_BOT_STEPS_PER_OWNER = k
    broker.messages.clear()
    return ids


@pytest.mark.django_db(transaction=True)
def test_a_step_past_the_share_is_held_back_and_handed_the_slot_when_one_ends(make_player, broker, settings):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owner, _ = make_player("owner")
    a, b = bot_tables(owner, 2)
    # the first table's step holds the owner's one slot; the second's is held back
    (sent,) = broker.bot_steps()
    assert sent.args[:2] == (a, Game.objects.get(pk=a).version) and sent.args[2][0] == owner.pk
    row = DeferredBotStep.objects.get(game_id=b)
    assert (row.owner_id, row.version) == (owner.pk, Game.objects.get(pk=b).version)
    # (leaving a running game queues its step again, harmlessly: a's is a duplicate)
    assert set(DeferredBotStep.objects.values_list("game_id", flat=True)) <= {a, b}
    assert botqueue.acquire(owner.pk) is None
    # a's step runs: its move's next step is held back (the slot is still a's), and when
    # it ends its slot goes to the step held back first: b's, queued at once with it
    broker.messages.clear()
    assert robots.bot_step(*sent.args)
    (handed,) = broker.bot_steps()
    assert handed.args[:2] == (b, row.version) and handed.args[2][0] == owner.pk
    assert list(DeferredBotStep.objects.values_list("game_id", "version")) == [(a, Game.objects.get(pk=a).version)]
    assert robots.bot_step(*handed.args)
    assert Game.objects.get(pk=b).version == row.version + 1


@pytest.mark.django_db(transaction=True)
def test_a_held_back_step_does_nothing_now(make_player, broker, settings):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owner, _ = make_player("owner")
    (a,) = quiet_tables(owner, 1, settings, broker)
    version = Game.objects.get(pk=a).version
    held = botqueue.acquire(owner.pk)  # the owner's one slot, busy
    assert not robots.bot_step(a, version)  # (a revival, say): held back
    assert Game.objects.get(pk=a).version == version
    assert DeferredBotStep.objects.get(game_id=a).version == version
    botqueue.release(held)
    assert scheduling.hand_over(owner.pk) == 1


@pytest.mark.django_db(transaction=True)
def test_a_revived_step_takes_over_the_slot_its_games_lost_step_holds(make_player, broker, settings):
    """A worker killed with a step: the step's slot stays held until its lease expires
    (30 s).  The sweeper's revival of that game's robot takes the slot over at once; a
    revived step of another game of the owner's does not (it is held back)."""
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owner, _ = make_player("owner")
    a, b = quiet_tables(owner, 2, settings, broker)
    va, vb = (Game.objects.get(pk=g).version for g in (a, b))
    lost = botqueue.acquire(owner.pk, a)  # a's step, queued with the owner's one slot, then lost
    assert lost is not None and botqueue.acquire(owner.pk, b) is None
    assert not robots.bot_step(b, vb)  # b's robot revived: the slot is a's, so b is held back
    assert Game.objects.get(pk=b).version == vb and DeferredBotStep.objects.filter(game_id=b).exists()
    broker.messages.clear()
    assert robots.bot_step(a, va)  # a's robot revived (no slot given): it takes a's slot over and acts
    assert Game.objects.get(pk=a).version > va
    assert not botqueue.holds(lost)  # the lost step, were it to start after all, has no slot
    # the revived step ended: the slot went on to b's step, held back first
    assert [m.args[0] for m in broker.bot_steps()].count(b) == 1


@pytest.mark.django_db(transaction=True)
def test_a_step_run_twice_acts_once_and_gives_its_slot_back(make_player, broker, settings):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owner, _ = make_player("owner")
    bot_tables(owner, 1)
    (sent,) = broker.bot_steps()
    gid, version = sent.args[:2]
    assert robots.bot_step(*sent.args)
    assert not robots.bot_step(*sent.args)  # redelivered: the game moved on
    assert Game.objects.get(pk=gid).version == version + 1
    # the next step of the game got the slot back (held back while the first ran, then
    # handed the slot when it ended)
    (nxt,) = broker.bot_steps()[1:]
    assert nxt.args[:2] == (gid, version + 1)
    assert not DeferredBotStep.objects.exists()


def test_round_robin_takes_every_owners_oldest_first():
    rows = [(1, 10, 0), (1, 11, 0), (1, 12, 0), (2, 20, 0), (1, 13, 0), (3, 30, 0), (2, 21, 0)]
    assert [g for _, g, _ in botqueue.round_robin(rows)] == [10, 20, 30, 11, 21, 12, 13]


@pytest.mark.django_db(transaction=True)
def test_the_sweeper_hands_free_slots_round_robin_across_owners(make_player, broker, settings):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owners = [make_player(name)[0] for name in ("a", "b", "c")]
    tables = {o.pk: quiet_tables(o, n, settings, broker) for o, n in zip(owners, (4, 2, 1))}
    now = timezone.now()
    # the heavy owner's steps were held back first (oldest), then the others'
    for i, gid in enumerate(tables[owners[0].pk]):
        botqueue.defer(gid, Game.objects.get(pk=gid).version, owners[0].pk, now - timedelta(seconds=60 - i))
    for o in owners[1:]:
        for gid in tables[o.pk]:
            botqueue.defer(gid, Game.objects.get(pk=gid).version, o.pk, now - timedelta(seconds=30))
    broker.messages.clear()

    assert robots.dispatch_deferred() == 3  # one slot each: every owner's oldest
    assert [m.args[0] for m in broker.bot_steps()] == [tables[owners[0].pk][0], tables[owners[1].pk][0],
                                                      tables[owners[2].pk][0]]
    assert robots.dispatch_deferred() == 0  # their slots are held by the queued steps
    settings.UNO_BOT_STEPS_PER_OWNER = 2  # more room: the next of each, round robin again
    broker.messages.clear()
    assert robots.dispatch_deferred() == 2
    assert [m.args[0] for m in broker.bot_steps()] == [tables[owners[0].pk][1], tables[owners[1].pk][1]]


@pytest.mark.django_db(transaction=True)
def test_slots_whose_holders_died_expire_and_the_sweeper_takes_the_held_back_steps(make_player, broker, settings,
                                                                                   monkeypatch):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    monkeypatch.setattr(botqueue, "LEASE_SECONDS", 1)
    owner, _ = make_player("owner")
    (a,) = quiet_tables(owner, 1, settings, broker)
    version = Game.objects.get(pk=a).version
    assert botqueue.acquire(owner.pk) is not None  # a step whose worker was killed: never released
    assert not robots.bot_step(a, version)
    broker.messages.clear()
    assert robots.dispatch_deferred() == 0
    import time

    time.sleep(1.2)
    assert robots.dispatch_deferred() == 1
    (sent,) = broker.bot_steps()
    assert robots.bot_step(*sent.args)


@pytest.mark.django_db(transaction=True)
def test_stale_held_back_steps_are_dropped_by_the_sweeper(make_player, broker, settings):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owner, _ = make_player("owner")
    a, b = quiet_tables(owner, 2, settings, broker)
    botqueue.defer(a, Game.objects.get(pk=a).version - 1, owner.pk)  # its game moved on since
    botqueue.defer(b, Game.objects.get(pk=b).version, owner.pk)
    Game.objects.filter(pk=b).update(status=GameStatus.FINISHED)
    broker.messages.clear()
    assert robots.dispatch_deferred() == 0 and broker.bot_steps() == []
    assert not DeferredBotStep.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_held_back_again_for_the_same_version_keeps_its_place(make_player, settings):
    owner, _ = make_player("owner")
    (a,) = bot_tables(owner, 1)
    version = Game.objects.get(pk=a).version
    first = timezone.now() - timedelta(seconds=40)
    botqueue.defer(a, version, owner.pk, first)
    botqueue.defer(a, version, owner.pk)  # e.g. the sweeper revived it and it was held back again
    assert DeferredBotStep.objects.get(game_id=a).since == first
    botqueue.defer(a, version + 1, owner.pk)  # a newer version: from now
    row = DeferredBotStep.objects.get(game_id=a)
    assert row.version == version + 1 and row.since > first


@pytest.mark.django_db(transaction=True)
def test_an_unreachable_cache_lets_the_bots_play(make_player, broker, settings, monkeypatch):
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    owner, _ = make_player("owner")
    (a,) = bot_tables(owner, 1)

    def down(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get_many", down)
    monkeypatch.setattr(cache, "add", down)
    assert robots.bot_step(a, Game.objects.get(pk=a).version)


@pytest.mark.django_db(transaction=True)
def test_the_sweeper_revives_a_lost_step_within_the_share_and_times_out_humans_regardless(make_player, broker,
                                                                                           settings):
    settings.UNO_BOT_STEPS_PER_OWNER = 0  # (setting up: no slot taken)
    owner, _ = make_player("owner")
    guest, _ = make_player("guest")
    (a,) = bot_tables(owner, 1)
    # a game of the owner's where a human (the guest) may owe the turn under a deadline
    mixed = services.create_game(creator=owner, ruleset="standard", max_players=3, turn_seconds=60,
                                 bots=[{"level": "random"}])
    services.join_game(player=guest, game_id=mixed.pk)
    services.start_game(player=owner, game_id=mixed.pk)
    services.leave_game(player=owner, game_id=mixed.pk)
    broker.messages.clear()
    settings.UNO_BOT_STEPS_PER_OWNER = 1
    held = botqueue.acquire(owner.pk)  # the owner's one slot, busy elsewhere
    assert held is not None
    past = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk__in=[a, mixed.pk]).update(deadline=past)  # a's robot overdue (its step lost)
    version_a = Game.objects.get(pk=a).version
    robots.sweep_deadlines()
    assert Game.objects.get(pk=a).version == version_a  # revived, but within the share: held back
    assert DeferredBotStep.objects.filter(game_id=a, version=version_a).exists()
    mixed_game = Game.objects.get(pk=mixed.pk)
    if Seat.objects.get(game_id=mixed.pk, seat=mixed_game.current_seat).player_id == guest.pk:
        # (the guest's turn was overdue: the timer acted, whatever the owner's share)
        assert Move.objects.filter(game_id=mixed.pk, by="timer").exists()
    botqueue.release(held)
    # the sweeper's next pass: the one slot goes to the held-back step due first, a's or, when
    # the deal left the mixed game's robot owing too, maybe that one; then the other's turn
    assert robots.dispatch_deferred() == 1
    for _ in range(2):
        (sent,) = [m for m in broker.bot_steps() if m.args[0] in (a, mixed.pk)]
        broker.messages.clear()
        assert robots.bot_step(*sent.args)
        if sent.args[0] == a:
            break
        # (the mixed game's step ended: its slot went on to a's held-back step, queued)
    assert Game.objects.get(pk=a).version > version_a


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("held_back_by", ["queue_bot", "bot_step"])
def test_a_slot_freed_while_a_step_is_being_held_back_is_taken_at_once(make_player, broker, settings, monkeypatch,
                                                                        held_back_by):
    """The race of a lost wake-up: every slot is held when the step asks for one, and the
    holders end (their hand-over finding no held-back row) before its row is written.
    The step must not wait for the sweeper: it is queued as soon as it is held back."""
    settings.UNO_BOT_STEPS_PER_OWNER = 2
    owner, _ = make_player("owner")
    (a,) = quiet_tables(owner, 1, settings, broker)
    version = Game.objects.get(pk=a).version
    holders = [botqueue.acquire(owner.pk) for _ in range(2)]  # two steps of the owner, running
    assert None not in holders and botqueue.acquire(owner.pk) is None
    defer = botqueue.defer

    def holders_end_first(*args, **kwargs):
        for lease in holders:  # each ends as robots._done ends a step: its hand-over finds no row
            botqueue.release(lease)
            assert scheduling.hand_over(owner.pk) == 0
        return defer(*args, **kwargs)

    monkeypatch.setattr(botqueue, "defer", holders_end_first)
    if held_back_by == "queue_bot":
        assert scheduling.queue_bot(a, version, owner.pk, 0) is True
    else:
        assert not robots.bot_step(a, version)  # a revival without a slot: held back, then queued
    (sent,) = broker.bot_steps()
    assert sent.args[:2] == (a, version) and sent.args[2][0] == owner.pk  # with a slot of its own
    assert not DeferredBotStep.objects.exists()
    assert robots.bot_step(*sent.args)
    assert Game.objects.get(pk=a).version == version + 1
