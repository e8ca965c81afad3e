"""The ratings' strength check (issue 27): do the ratings find the bots' real order?

    python bench/ratings_strength.py                       # 3,000 games, seed 1, 2 processes
    python bench/ratings_strength.py --games 300 --levels random,easy,normal --jobs 1
    python bench/ratings_strength.py --hard-samples 0      # hard on the server's time budget
    python bench/ratings_strength.py --save games.jsonl    # ... and keep the games played
    python bench/ratings_strength.py --replay games.jsonl  # rate those games again (seconds)

Plays ``--games`` games of ``--ruleset`` (``standard``) among bots: each game has 2 to 4
seats (drawn at random), each seat a level drawn at random from ``--levels`` (a level may
sit twice or more).  The games are played in process with the rules engine and the real
bot policies, by ``manage.py simulate``'s own loop (``play_state``: out-of-turn chances
first, then the seat whose turn it is; ``hard`` fed the round's events as on the server).
Nothing is written to the database.

Every game is then rated in order, as the server rates a finished rated game: its places
and factions from ``standing.services.places_of`` / ``factions_of`` (the engine's
standings), each seat's rating key from ``standing.services.seat_key`` (one rating per
bot level, as the server keeps them: a level holding several seats of a game gets the
sum of what each seat moved its mean), the new ratings from ``standing.ratings.update``.
Before the last ``--holdout`` share (20%) of the games is rated, each game's winner is
predicted with ``standing.ratings.win_probabilities`` from the seats' ratings of that
moment; the log-loss of the actual winner (``-ln p``; a shared win is split evenly: the
mean of its winners' ``-ln p``) is printed beside the uniform prediction's (``ln`` of the
seat count).  Then the board, ordered as the leaderboard orders it (the conservative
estimate ``ordinal = mu - 3 sigma``, highest first), and whether it ranks the levels in
their expected order (``hard > normal > easy > random``, or the order of ``--levels``
read from the strongest).

What a game is: one round (``{"rounds": 1}``, ``--options``).  A full game to 500 of
``hard`` bots takes 12-36 s against 1-2 s for one round (2026-11, this machine), which
would make 3,000 games several hours on 2 cores; one round still ranks every seat (the
engine's standings: the seat that went out first, then the fewest points left in hand).

``hard`` searches a fixed number of worlds per decision (``--hard-samples``, default 100:
about what its 60 ms budget gives on this machine when quiet, the median of a sample of
its decisions), so that a seed gives the same games on any machine at any load;
``--hard-samples 0`` uses the server's time budget instead (``UNO_HARD_BUDGET_MS``, or
``--budget-ms``), which is not reproducible.  The other levels are reproducible in any
case.  ``--jobs`` processes play the games; the ratings are computed in one, in game
order, so the figures do not depend on ``--jobs``.  Below the board, each level's seats by
table size (won, held, mean place) show what the board is made of.

Prints figures; exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import random
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
warnings.filterwarnings("ignore", message="SECRET_KEY is not set")  # no secret is used here

import django  # noqa: E402

django.setup()  # standing.services (places_of, factions_of) imports the models

from games.bots import LEVELS  # noqa: E402
from games.engine import FINISHED, PRESETS  # noqa: E402
from games.management.commands.simulate import play_state  # noqa: E402
from standing import ratings, services  # noqa: E402

DEFAULT_OPTIONS = {"rounds": 1}


@dataclass(frozen=True)
class BotSeat:
    """What ``standing.services`` reads of a game's seat: a bot's, never left."""
    seat: int
    bot_level: str
    left: bool = False
    player_id: None = None


@dataclass
class Played:
    """One game's result, as the rating needs it."""
    index: int
    levels: list[str]
    places: list[int] | None  # None: abandoned (no standings)
    factions: list[list[int]] | None
    winners: list[int]
    actions: int


@dataclass
class Standing:
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        return ratings.ordinal(self.mu, self.sigma)


@dataclass
class Result:
    games: int
    abandoned: int
    board: dict[str, Standing]  # level -> its rating
    held_out: int  # held-out games predicted
    log_loss: float  # mean -ln p(winner) over them
    uniform_log_loss: float  # mean ln(seats) over them
    favourite_won: int  # held-out games the seat given the highest chance won
    seconds: float
    actions: int
    seat_counts: dict[int, int] = field(default_factory=dict)
    #: (level, seats at the table) -> [seats it held, seats that won, sum of place / (seats - 1)]
    seats_held: dict[tuple[str, int], list] = field(default_factory=dict)

    def ranked(self) -> list[str]:
        """The levels as the leaderboard orders them (ordinal, highest first)."""
        return sorted(self.board, key=lambda lvl: -self.board[lvl].ordinal)


def lineup(seed: str, index: int, levels: list[str], min_seats: int, max_seats: int) -> list[str]:
    """Game ``index``'s seats: 2 to 4 (``min_seats``..``max_seats``), each a level drawn
    at random (its own generator: the same lineup whatever else changes)."""
    rng = random.Random(f"{seed}:{index}:lineup")
    return [rng.choice(levels) for _ in range(rng.randint(min_seats, max_seats))]


def play(job: tuple) -> Played:
    """Play game ``index`` (in a worker process) and read its places and factions."""
    index, seed, levels, ruleset, options, budget_ms, hard_samples = job
    state, actions, _ = play_state(ruleset, options, levels, f"{seed}:{index}", random.Random(f"{seed}:{index}:bots"),
                                   budget_ms, max_samples=hard_samples)
    if state.status != FINISHED:
        return Played(index, levels, None, None, [], actions)
    seats = [BotSeat(x, level) for x, level in enumerate(levels)]
    return Played(index, levels, services.places_of(seats, state), services.factions_of(seats, state),
                  list(state.winners), actions)


def run(games: int = 3000, seed: str = "1", levels: list[str] | tuple[str, ...] = LEVELS, ruleset: str = "standard",
        options: dict | None = None, seats: tuple[int, int] = (2, 4), holdout: float = 0.2, jobs: int = 1,
        budget_ms: float | None = None, hard_samples: int | None = 100, progress=None, save=None) -> Result:
    """Play and rate ``games`` games (see the module's docstring); ``progress(done,
    total)`` is called as games are rated, ``save(game)`` with each :class:`Played`."""
    options = DEFAULT_OPTIONS if options is None else options
    jobs_list = [(g, seed, lineup(seed, g, list(levels), *seats), ruleset, options, budget_ms, hard_samples)
                 for g in range(games)]
    pool = mp.get_context("fork").Pool(jobs) if jobs > 1 else None
    try:
        played = pool.imap(play, jobs_list, chunksize=4) if pool else map(play, jobs_list)  # imap keeps the order
        return rate(played, games, holdout, progress, save)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


def replay(path: str) -> list[Played]:
    """The games ``--save`` wrote to ``path``, in their order."""
    with open(path) as f:
        return [Played(**json.loads(line)) for line in f if line.strip()]


def rate(played: Iterable[Played], games: int, holdout: float = 0.2, progress=None, save=None) -> Result:
    """Rate ``games`` games of ``played`` in order, as the server would (see the module's
    docstring), predicting the last ``holdout`` share's winners before rating them."""
    first_held_out = games - round(games * holdout)
    board: dict[str, Standing] = {}
    abandoned = held_out = favourite_won = actions = 0
    loss = uniform = 0.0
    seat_counts: dict[int, int] = {}
    seats_held: dict[tuple[str, int], list] = {}
    started = time.perf_counter()
    for done, game in enumerate(played, 1):
        actions += game.actions
        seat_counts[len(game.levels)] = seat_counts.get(len(game.levels), 0) + 1
        if save:
            save(game)
        if game.places is None:
            abandoned += 1
        else:
            keys = [services.seat_key(BotSeat(x, level)) for x, level in enumerate(game.levels)]
            for key in keys:
                board.setdefault(key[1], Standing(*ratings.INITIAL))
            prior = {key: (board[key[1]].mu, board[key[1]].sigma) for key in keys}
            if done > first_held_out:  # (by position: a filtered --replay file too)
                p = ratings.win_probabilities([prior[key] for key in keys])
                held_out += 1
                loss += sum(-math.log(p[w]) for w in game.winners) / len(game.winners)
                uniform += math.log(len(keys))
                favourite_won += max(range(len(p)), key=lambda x: p[x]) in game.winners
            n = len(keys)
            for x, level in enumerate(game.levels):
                held = seats_held.setdefault((level, n), [0, 0, 0.0])
                held[0] += 1
                held[1] += x in game.winners
                held[2] += game.places[x] / (n - 1)
            new = ratings.update(prior, keys, game.factions, game.places)
            for key, (mu, sigma) in new.items():
                r = board[key[1]]
                r.mu, r.sigma = mu, sigma
                r.games += 1
                r.wins += any(keys[w] == key for w in game.winners)
        if progress:
            progress(done, games)
    return Result(games=games, abandoned=abandoned, board=board, held_out=held_out,
                  log_loss=loss / held_out if held_out else math.nan,
                  uniform_log_loss=uniform / held_out if held_out else math.nan,
                  favourite_won=favourite_won, seconds=time.perf_counter() - started, actions=actions,
                  seat_counts=dict(sorted(seat_counts.items())), seats_held=seats_held)


def report(result: Result, expected: list[str]) -> list[str]:
    """The printed lines: the board, whether it is in the ``expected`` order (strongest
    first), the log-losses."""
    lines = [f"{'rank':>4}  {'level':<8} {'mu':>8} {'sigma':>7} {'ordinal':>8} {'games':>6} {'wins':>6}"]
    for rank, level in enumerate(result.ranked(), 1):
        r = result.board[level]
        lines.append(f"{rank:>4}  {level:<8} {r.mu:>8.3f} {r.sigma:>7.3f} {r.ordinal:>8.3f} {r.games:>6} {r.wins:>6}")
    ranked = [lvl for lvl in result.ranked() if lvl in expected]
    verdict = "yes" if ranked == expected else "NO"
    lines += ["", f"board order {' > '.join(result.ranked())}; expected {' > '.join(expected)}: {verdict}"]
    if result.held_out:
        gain = result.uniform_log_loss - result.log_loss
        lines += [
            f"held out: the last {result.held_out} rated games, each predicted before it was rated",
            f"log-loss of the winner: ratings {result.log_loss:.4f}, uniform {result.uniform_log_loss:.4f} "
            f"(ln of the seat count); {'better' if gain > 0 else 'NOT better'} than chance by {gain:.4f} nats a game",
            f"the favourite (the seat given the highest chance) won {result.favourite_won} of {result.held_out} "
            f"({result.favourite_won / result.held_out:.1%})",
        ]
    counts = sorted({n for _, n in result.seats_held})
    lines += ["", "each level's seats by table size: won / held (mean place: 0 first, 1 last)",
              f"{'level':<8}" + "".join(f"{f'{n} seats':>24}" for n in counts)]
    for level in result.ranked():
        cells = []
        for n in counts:
            held, won, place = result.seats_held.get((level, n), (0, 0, 0.0))
            cells.append(f"{f'{won}/{held} {won / held:.1%} ({place / held:.2f})' if held else '-':>24}")
        lines.append(f"{level:<8}" + "".join(cells))
    lines.append(f"{result.games} games ({', '.join(f'{n} seats: {c}' for n, c in result.seat_counts.items())}), "
                 f"{result.abandoned} abandoned, {result.actions / max(1, result.games):.0f} actions a game, "
                 f"{result.seconds:.1f} s")
    return lines


def _levels(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if len(names) < 2 or len(set(names)) != len(names) or any(n not in LEVELS for n in names):
        raise argparse.ArgumentTypeError(f"two or more distinct levels of {', '.join(LEVELS)} (got {text!r})")
    return names


def _options(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("a JSON object")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an integer (got {text!r})") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1 (got {value})")
    return value


def main(argv: list[str] | None = None) -> None:
    from django.conf import settings
    from games.engine import InvalidOptions, make_config

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=_positive, default=3000, help="games played and rated (default 3000)")
    ap.add_argument("--seed", default="1", help="seed of the lineups, deals and bots' dice (default 1)")
    ap.add_argument("--levels", type=_levels, default=list(LEVELS),
                    help=f"the levels drawn for the seats, weakest first (default {','.join(LEVELS)})")
    ap.add_argument("--ruleset", default="standard", choices=sorted(PRESETS), help="preset (default standard)")
    ap.add_argument("--options", type=_options, default=DEFAULT_OPTIONS,
                    help='rule options as JSON (default {"rounds": 1}: a game is one round)')
    ap.add_argument("--min-seats", type=_positive, default=2)
    ap.add_argument("--max-seats", type=_positive, default=4)
    ap.add_argument("--holdout", type=float, default=0.2, help="share of the last games predicted (default 0.2)")
    ap.add_argument("--jobs", type=_positive, default=2, help="processes playing the games (default 2)")
    ap.add_argument("--hard-samples", type=int, default=100,
                    help="worlds per hard decision (default 100); 0: the server's time budget instead")
    ap.add_argument("--budget-ms", type=float, default=None,
                    help="hard's time budget with --hard-samples 0 (default UNO_HARD_BUDGET_MS)")
    ap.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    saved = ap.add_mutually_exclusive_group()
    saved.add_argument("--save", default=None, metavar="PATH",
                       help="write each game played (index, levels, places, factions, winners) to PATH, "
                       "one JSON object a line")
    saved.add_argument("--replay", default=None, metavar="PATH",
                       help="rate the games --save wrote to PATH again instead of playing games (seconds); "
                       "a filtered copy works too (the held-out share is the file's last games)")
    args = ap.parse_args(argv)
    if args.min_seats > args.max_seats:
        ap.error("--min-seats is above --max-seats")
    if not 0 < args.holdout < 1:
        ap.error("--holdout must be between 0 and 1")
    for n in {args.min_seats, args.max_seats}:
        try:
            make_config(args.ruleset, args.options, n, "check")
        except (InvalidOptions, ValueError) as exc:
            ap.error(f"cannot play {args.ruleset} with {n} seats and {args.options}: {exc}")
    hard_samples = args.hard_samples if args.hard_samples > 0 else None
    budget = args.budget_ms if args.budget_ms is not None else settings.UNO_HARD_BUDGET_MS

    hard = (f"{hard_samples} worlds a decision" if hard_samples else f"its {budget:g} ms time budget") \
        if "hard" in args.levels else "not playing"
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.replay:
        try:
            played = replay(args.replay)
        except (OSError, ValueError, TypeError) as exc:
            ap.error(f"cannot read the games of {args.replay}: {exc}")
        present = {level for game in played for level in game.levels}
        print(f"{len(played)} games read from {args.replay} (--save's), rated again, none played")
        print()
        result = rate(played, len(played), args.holdout)
        print("\n".join(report(result, [lvl for lvl in reversed(LEVELS) if lvl in present])))
        return
    print(f"{args.games} games of {args.ruleset} {args.options}, {args.min_seats}-{args.max_seats} seats of "
          f"{', '.join(args.levels)} drawn at random, seed {args.seed}, {args.jobs} process(es); hard: {hard}")
    print()

    shown = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - shown[0] >= 1:
            shown[0] = now
            sys.stderr.write(f"\r{done}/{total} games" + ("\n" if done == total else ""))
            sys.stderr.flush()

    out = None
    if args.save:
        try:
            out = open(args.save, "w")  # (after the checks: a refused command writes nothing)
        except OSError as exc:
            ap.error(f"cannot write {args.save}: {exc}")

    def save(game: Played) -> None:
        out.write(json.dumps(asdict(game)) + "\n")

    result = run(args.games, args.seed, args.levels, args.ruleset, args.options, (args.min_seats, args.max_seats),
                 args.holdout, args.jobs, budget, hard_samples, None if args.no_progress else progress,
                 save if args.save else None)
    if out is not None:
        out.close()
    print("\n".join(report(result, list(reversed(args.levels)))))


if __name__ == "__main__":
    main()
