"""Bot-only games in process, to compare the bot levels.

    manage.py simulate --ruleset standard --bots hard,normal,easy,random --games 100
    manage.py simulate --bots normal,random --games 500 --options '{"rounds": 1}' --seed 7
    manage.py simulate --ruleset all --bots hard,normal --games 50 --options '{"rounds": 1}'

``--ruleset all`` plays every preset of the catalogue in turn (``engine.PRESETS``),
each with as many of the ``--bots`` seats as its seat range allows (the list cut
short, or repeated, to fit; an even count where its options need one), one progress
bar and one table per preset; a preset that refuses ``--options`` is skipped (said so).

Games are played with the rules engine and ``games.bots`` directly (nothing is
written to the database), the way the server's bot task plays them: every seat
but the one whose turn it is gets its out-of-turn chance first (calling or
catching UNO, jumping in), then the seat whose turn it is acts.  Seats are
rotated from one game to the next so that every level plays from every position
equally often.  With a seed the deals and the bots' dice are reproducible (the
``hard`` bot's search still depends on its time budget).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games import bots
from games.engine import ACTIVE, PRESETS, EngineError, InvalidOptions, State, apply, make_config, new_game

#: a game still running after this many actions is abandoned (counted apart)
MAX_ACTIONS = 50_000
BAR_WIDTH = 30
TIMEOUT = {"type": "timeout"}


def play_game(ruleset: str, options: dict, levels: list[str], seed: str, rng: random.Random,
              budget_ms: float | None) -> tuple[list[int] | None, int, int]:
    """Play one game with ``levels[seat]`` in each seat; returns (the winning seats,
    several for a shared win, or None if abandoned; actions applied; bot actions
    refused by the engine)."""
    state, actions, refused = play_state(ruleset, options, levels, seed, rng, budget_ms)
    return (state.winners if state.status != ACTIVE else None), actions, refused


def play_state(ruleset: str, options: dict, levels: list[str], seed: str, rng: random.Random,
               budget_ms: float | None, max_samples: int | None = None) -> tuple[State, int, int]:
    """:func:`play_game`, returning the final state instead of its winners (still
    active if abandoned): what the ratings' strength check (bench/ratings_strength.py)
    takes the places from.  ``max_samples``: ``hard`` stops after that many worlds
    instead of at ``budget_ms`` (the same choice on any machine, at any load)."""
    dealt: list[dict] = []
    state = new_game(ruleset, options, len(levels), seed, events=dealt)
    log = bots.RoundLog(dealt)  # what the server's hard bots read from the moves
    seats = list(range(len(levels)))
    actions = refused = 0
    while state.status == ACTIVE and actions < MAX_ACTIONS:
        actor = state.actor()
        for seat in bots.acting_order(actor, seats, rng):
            action = bots.decide(levels[seat], state, seat, random.Random(rng.random()), budget_ms=budget_ms,
                                 history=log.shown_to(seat) if levels[seat] == "hard" else None,
                                 max_samples=max_samples)
            if action is not None:
                try:
                    log.add(apply(state, seat, action))
                    break
                except EngineError:
                    refused += 1
            if seat == actor:  # what the server does for a bot that fails: the timer acts
                log.add(apply(state, seat, TIMEOUT, system=True))
                break
        actions += 1
    return state, actions, refused


class Progress:
    """A plain-text progress bar on a command's stderr: ``\\r[#####     ] 50/100``."""

    def __init__(self, total: int, stream, enabled: bool = True, label: str = ""):
        self.total, self.stream, self.enabled, self.label = total, stream, enabled, label
        self.shown = -1.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self.shown < 0.1:
            return
        self.shown = now
        filled = BAR_WIDTH * done // max(1, self.total)
        end = "\n" if done >= self.total else ""
        self.stream.write(f"\r{self.label}[{'#' * filled}{' ' * (BAR_WIDTH - filled)}] {done}/{self.total}", ending=end)
        self.stream.flush()


class Command(BaseCommand):
    help = "Play bot-only games in process and print each bot level's win rate."

    def add_arguments(self, parser):
        parser.add_argument("--ruleset", default="standard",
                            help="preset name, or 'all': every preset in turn (default: standard)")
        parser.add_argument("--bots", default="hard,normal,easy,random",
                            help="comma-separated levels, one per seat (default: hard,normal,easy,random)")
        parser.add_argument("--games", type=int, default=100, help="number of games (default: 100)")
        parser.add_argument("--options", default="{}", help='rule options as JSON, e.g. \'{"rounds": 1}\'')
        parser.add_argument("--seed", default=None, help="seed for reproducible deals and bot dice")
        parser.add_argument("--budget-ms", type=float, default=None,
                            help="the hard bot's search budget per decision (default: UNO_HARD_BUDGET_MS)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    def handle(self, *args, **opts):
        levels = [b.strip() for b in opts["bots"].split(",") if b.strip()]
        unknown = [b for b in levels if b not in bots.LEVELS]
        if unknown:
            raise CommandError(f"unknown bot level(s) {', '.join(unknown)}; levels: {', '.join(bots.LEVELS)}")
        if len(levels) < 2:
            raise CommandError("--bots needs at least two levels (one per seat)")
        if opts["games"] < 1:
            raise CommandError("--games must be at least 1")
        try:
            options = json.loads(opts["options"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from None
        if not isinstance(options, dict):
            raise CommandError("--options must be a JSON object")
        ruleset, n_games = opts["ruleset"], opts["games"]
        seed = opts["seed"] if opts["seed"] is not None else str(random.SystemRandom().randrange(2**63))
        budget = opts["budget_ms"] if opts["budget_ms"] is not None else settings.UNO_HARD_BUDGET_MS
        if ruleset != "all":
            try:
                new_game(ruleset, options, len(levels), f"{seed}:check")
            except (InvalidOptions, KeyError, ValueError) as exc:
                raise CommandError(f"cannot play {ruleset} with {len(levels)} seats and {options}: {exc}") from None
            self.simulate(ruleset, options, levels, n_games, seed, budget, not opts["no_progress"])
            return
        played = 0
        for preset in PRESETS:
            fitted, why = fit_levels(preset, options, levels)
            if fitted is None:
                self.stdout.write(f"{preset}: skipped: {why}")
                continue
            self.simulate(preset, options, fitted, n_games, seed, budget, not opts["no_progress"], label=f"{preset} ")
            played += 1
        if not played:
            raise CommandError(f"cannot play any preset with {options}")

    def simulate(self, ruleset: str, options: dict, levels: list[str], n_games: int, seed: str,
                 budget: float, progress_bar: bool, label: str = "") -> None:
        """Play ``n_games`` of ``ruleset`` between ``levels`` and print the table."""
        # Entries are told apart by position in --bots ("normal,normal" is two entries).
        labels = [lvl if levels.count(lvl) == 1 else f"{lvl}#{levels[:i + 1].count(lvl)}"
                  for i, lvl in enumerate(levels)]
        n = len(levels)
        wins: Counter[int] = Counter()
        abandoned = actions = refused = shared = 0
        progress = Progress(n_games, self.stderr, enabled=progress_bar, label=label)
        started = time.perf_counter()
        for g in range(n_games):
            # seat s is played by entry (s + g) % n: every entry sits everywhere in turn
            entry_of_seat = [(s + g) % n for s in range(n)]
            rng = random.Random(f"{seed}:{g}:bots")
            winners, count, bad = play_game(ruleset, options, [levels[e] for e in entry_of_seat], f"{seed}:{g}",
                                            rng, budget)
            actions += count
            refused += bad
            if winners is None:
                abandoned += 1
            elif len(winners) > 1 and len({entry_of_seat[w] for w in winners}) > 1:
                shared += 1  # equal top scores (Decktet-Uno): nobody's win alone
            else:
                wins[entry_of_seat[winners[0]]] += 1
            progress.update(g + 1)
        elapsed = time.perf_counter() - started
        finished = n_games - abandoned

        out = self.stdout
        out.write(f"{n_games} games of {ruleset} {json.dumps(options)}, {n} seats rotated, seed {seed}")
        out.write(f"{'bot':<12} {'wins':>7} {'win rate':>9}")
        for i, label in enumerate(labels):
            rate = 100.0 * wins[i] / finished if finished else 0.0
            out.write(f"{label:<12} {wins[i]:>7} {rate:>8.1f}%")
        if shared:
            out.write(f"shared wins (equal top scores of different bots): {shared} (counted in no bot's wins)")
        if abandoned:
            out.write(f"abandoned after {MAX_ACTIONS} actions: {abandoned} (not counted in the win rates)")
        if refused:
            out.write(f"bot actions refused by the engine: {refused} (the timer acted instead)")
        out.write(f"{n_games / elapsed:.2f} games/s ({actions / max(1, n_games):.0f} actions per game, "
                  f"{elapsed:.1f} s)")


def fit_levels(preset: str, options: dict, levels: list[str]) -> tuple[list[str] | None, str]:
    """``levels`` fitted to ``preset``'s seat range (cut short, or repeated), the
    nearest seat count its options take (``teams``: an even one); (None, why) when
    none does."""
    p = PRESETS[preset]
    want = max(p.min_seats, min(p.max_seats, len(levels)))
    why = ""
    for n in [*range(want, p.max_seats + 1), *range(want - 1, p.min_seats - 1, -1)]:
        try:
            make_config(preset, options, n, "check")
        except InvalidOptions as exc:
            why = why or str(exc)
            continue
        return [levels[i % len(levels)] for i in range(n)], ""
    return None, why
