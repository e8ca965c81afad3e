"""Replay a game's move log from its seed and check it reproduces what is stored.

    manage.py verify_game 42 [43 ...]

The game is rebuilt with the rules engine from its config (preset ``ruleset``, the
explicit ``options`` given at creation, as many seats as the game has, its
``seed``).  The first move, ``{"type": "start"}``, is the deal; every later move is
applied as recorded (the timer's ``{"type": "timeout"}`` too: the log is replayed
with ``system=True``, as ``engine.replay`` does).  Checked, in order: the move log
(seq 1..version, the first move the deal), every move's seat, round and events, the
final state (``Game.state``) and the game's denormalised fields, the rounds and the
score table (``Round`` / ``Score`` rows).

Prints ``OK`` per game, or the first difference; exits with status 1 when a game
does not verify.  (This is the server's check of its own records; anyone checks a
finished game from its public JSON alone with ``python -m games.engine.verify``, whose
``first_difference`` this shares.)
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games import engine
from games.engine import EngineError
from games.engine.verify import Mismatch, first_difference, options_as_played
from games.models import Game, GameStatus, Move, Round, Score


def _expect(what: str, stored: Any, replayed: Any) -> None:
    diff = first_difference(stored, replayed)
    if diff:
        raise Mismatch(f"{what}: {diff}")


def verify(game: Game) -> str:
    """Raise Mismatch at the first difference; return a one-line summary when it verifies."""
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    seats = game.seats.count()
    if game.status == GameStatus.WAITING:
        if moves or game.state is not None or game.version:
            raise Mismatch(f"a waiting game has {len(moves)} moves, version {game.version} and a state")
        return "waiting, nothing to replay"
    _expect("move sequence numbers", list(range(1, game.version + 1)), [m.seq for m in moves])
    if moves[0].action != {"type": "start"}:
        raise Mismatch(f"move 1: the deal ({{'type': 'start'}}) expected, stored {moves[0].action!r}")

    try:
        config = engine.make_config(game.ruleset, game.options, seats, game.seed)
    except EngineError as exc:
        raise Mismatch(f"the game's config is refused by the engine: {exc}") from None
    _expect("resolved options", options_as_played(game.resolved_options, config.options), dict(config.options))

    events: list[dict] = []
    state = engine.new_game(game.ruleset, game.options, seats, game.seed, events)
    _expect("move 1 (the deal): events", moves[0].events, events)
    for move in moves[1:]:
        where = f"move {move.seq} ({move.action!r} by seat {move.seat}, {move.by})"
        if move.round != state.round:
            raise Mismatch(f"{where}: recorded in round {move.round}, the replay is in round {state.round}")
        try:
            events = engine.apply(state, move.seat, move.action, system=True)
        except EngineError as exc:
            raise Mismatch(f"{where}: refused by the engine on replay: {exc.code}: {exc}") from None
        _expect(f"{where}: events", move.events, events)

    # the same through engine.replay, from the config alone
    replayed = engine.replay(config, [(m.seat, m.action) for m in moves[1:]])
    _expect("engine.replay vs the step-by-step replay", state.to_dict(), replayed.to_dict())

    # a state stored by an older engine (an older saved format) is compared as it loads
    _expect("state", engine.State.from_dict(game.state).to_dict(), state.to_dict())
    finished = state.status == engine.FINISHED
    _expect("game fields", {
        "status": game.status, "round": game.round, "current_seat": game.current_seat,
        "winner_seat": game.winner_seat,
    }, {
        "status": (GameStatus.FINISHED if finished else GameStatus.ACTIVE).value, "round": state.round,
        "current_seat": state.actor(), "winner_seat": state.winner,
    })

    # rounds and scores: one Round per round dealt, Score rows for every finished one
    ended = {}
    for m in moves:
        for e in m.events:
            if e["type"] == "round_ended":
                ended[e["round"]] = e
    rounds = list(Round.objects.filter(game=game).order_by("number"))
    _expect("rounds", list(range(1, state.round + 1)), [r.number for r in rounds])
    stored_scores = {(s.round.number, s.seat): (s.points, s.hand_points)
                     for s in Score.objects.filter(round__game=game).select_related("round")}
    replayed_scores = {}
    for row in state.history:
        e = ended[row["round"]]
        for seat, points in enumerate(row["points"]):
            replayed_scores[(row["round"], seat)] = (points, e["hand_points"][seat])
    _expect("scores {round/seat: [points, hand points]}",
            {f"{r}/{s}": list(v) for (r, s), v in sorted(stored_scores.items())},
            {f"{r}/{s}": list(v) for (r, s), v in sorted(replayed_scores.items())})
    for r in rounds:
        e = ended.get(r.number)
        _expect(f"round {r.number}", {"winner_seat": r.winner_seat, "ended": r.ended_at is not None},
                {"winner_seat": e["winner"] if e else None, "ended": e is not None})
    _expect("score totals", [sum(p for (_, s), (p, _) in stored_scores.items() if s == seat) for seat in range(seats)],
            list(state.scores))
    return f"{len(moves)} moves, round {state.round}, {game.status}"


class Command(BaseCommand):
    help = "Replay games from their seed and move log; check the stored state and scores (exit 1 on a mismatch)."

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="+", type=int, metavar="ID")

    def handle(self, *args, game_ids: list[int], **options):
        failed = []
        for gid in game_ids:
            game = Game.objects.filter(pk=gid).first()
            if game is None:
                self.stderr.write(f"game {gid}: no such game")
                failed.append(gid)
                continue
            try:
                summary = verify(game)
            except Mismatch as exc:
                self.stdout.write(f"game {gid}: MISMATCH: {exc}")
                failed.append(gid)
            else:
                self.stdout.write(f"game {gid}: OK ({summary})")
        if failed:
            raise CommandError(f"{len(failed)} of {len(game_ids)} games do not verify: {', '.join(map(str, failed))}")
