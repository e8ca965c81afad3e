"""Benchmark of the rules engine (games/engine): random games per second.

    python bench/engine.py                       # 2000 two-player games, rlcard policy, both paths
    python bench/engine.py --policy uniform      # uniform over every legal action
    python bench/engine.py --vs-rlcard           # also RLCard's UNO (pip install rlcard)
    python bench/engine.py --path fast           # one path only (fast | validated | both)

Each game is a ``standard`` game of one round (``options={"rounds": 1}``), played
through one of the engine's two paths:

``fast``
    what bots and replay use: ``legal_moves`` (the ``Action`` values, uncopied) and
    ``push`` (no validation, no event built).
``validated``
    the public API a client goes through: ``legal_actions`` (ready-to-post dicts) and
    ``apply`` (which validates every action and returns its events).

Both paths make the same choices (the same policy on the same lists), so they play
the same games. Policies:

``rlcard`` (default)
    the action set RLCard's UNO exposes: uniform over the legal plays and colour
    choices, draw only when there is none; a play of the next-to-last card is made
    with ``uno: true`` (RLCard has no UNO call), a pending penalty is accepted with
    ``draw`` (RLCard has no challenge). This is the fair comparison with RLCard.
``uniform``
    uniform over all legal actions of the actor, voluntary draws, UNO calls and
    challenges included; games get very long.

Rates are per CPU second of this process, the best of ``--repeat`` runs; the runs of
the paths (and of RLCard with ``--vs-rlcard``) alternate, so all see the same load on
the machine, which is printed (the load average) before and after. With
``--vs-rlcard`` a ``ratio`` line per path compares it with RLCard's UNO environment
run in the same process. Prints figures only.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import GAME_OVER, Action, apply, legal_actions, legal_moves, new_game, push  # noqa: E402

DESCRIPTIONS = {
    "rlcard": "uniform over legal plays/colour choices, draw only with no playable card "
    "(RLCard UNO's action set: the fair comparison with RLCard)",
    "uniform": "uniform over all legal actions of the actor, voluntary draws included "
    "(not comparable with RLCard)",
}


def uniform_policy(actions: list, rng: random.Random):
    return rng.choice(actions)  # dicts or Actions alike


def rlcard_policy(actions: list[dict], rng: random.Random) -> dict:
    plays = [a for a in actions if a["type"] in PLAYS]
    if plays:
        # With two cards in hand every play is listed twice, with and without
        # "uno": take the calling twin, so each distinct play is equally likely.
        calling = [a for a in plays if a.get("uno")]
        return rng.choice(calling or plays)
    for a in actions:
        if a["type"] == "draw":
            return a
    return rng.choice(actions)  # e.g. "pass" after a draw (never needed in practice)


def rlcard_policy_moves(moves: list[Action], rng: random.Random) -> Action:
    """``rlcard_policy`` on the fast path's ``Action`` values: the same choices."""
    plays = [m for m in moves if m.type in PLAYS]
    if plays:
        calling = [m for m in plays if m.uno]
        return rng.choice(calling or plays)
    for m in moves:
        if m.type == "draw":
            return m
    return rng.choice(moves)


PLAYS = ("play", "choose_color")
#: policy name -> (on dicts, for the validated path; on Actions, for the fast path)
POLICIES = {"rlcard": (rlcard_policy, rlcard_policy_moves), "uniform": (uniform_policy, uniform_policy)}


def play_validated(policy, rng: random.Random, seats: int, seed: str, max_actions: int) -> tuple[int, bool]:
    """One random game through the public API; returns (actions applied, finished)."""
    state = new_game("standard", {"rounds": 1}, seats, seed)
    n = 0
    while state.phase != GAME_OVER and n < max_actions:
        seat = state.actor()
        apply(state, seat, policy(legal_actions(state, seat), rng))
        n += 1
    return n, state.phase == GAME_OVER


def play_fast(policy, rng: random.Random, seats: int, seed: str, max_actions: int) -> tuple[int, bool]:
    """The same game through the fast path (``legal_moves`` + ``push``)."""
    state = new_game("standard", {"rounds": 1}, seats, seed)
    n = 0
    while state.phase != GAME_OVER and n < max_actions:
        seat = state.actor()
        push(state, seat, policy(legal_moves(state, seat), rng))
        n += 1
    return n, state.phase == GAME_OVER


PATHS = {"fast": play_fast, "validated": play_validated}


class Timer:
    """CPU time of this process (the figure that load from other processes on the
    machine disturbs least) and wall-clock time."""

    def __enter__(self) -> "Timer":
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.cpu, self.wall = time.process_time() - self.cpu, time.perf_counter() - self.wall


def bench_ours(args, path: str) -> tuple[Timer, int, int]:
    play, policy = PATHS[path], POLICIES[args.policy][path == "fast"]
    rng = random.Random(args.seed)
    actions = unfinished = 0
    with Timer() as t:
        for i in range(args.games):
            n, finished = play(policy, rng, args.seats, f"bench:{args.seed}:{i}", args.max_actions)
            actions += n
            unfinished += not finished
    return t, actions, unfinished


def bench_rlcard(args) -> tuple[Timer, int]:
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"seed": args.seed})
    if args.seats != 2:
        # RLCard's Env only passes game_num_players to a few games; UNO's game takes it directly.
        env.game.configure({"game_num_players": args.seats})
        env.num_players = args.seats
    env.set_agents([RandomAgent(num_actions=env.num_actions)] * args.seats)
    np.random.seed(args.seed)  # RandomAgent draws from numpy's global RNG
    actions = 0
    with Timer() as t:
        for _ in range(args.games):
            env.run(is_training=False)
            actions += len(env.action_recorder)  # one entry per step of the game just played
    return t, actions


def line(name: str, games: int, t: Timer, actions: int) -> str:
    return (
        f"{name:<10} {games} games in {t.cpu:.2f} s CPU ({t.wall:.2f} s wall): {games / t.cpu:,.1f} games/s, "
        f"{actions / t.cpu:,.0f} actions/s, {actions / games:.1f} actions/game"
    )


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    ap.add_argument("--seats", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--policy", choices=POLICIES, default="rlcard", help="random policy (default rlcard)")
    ap.add_argument("--path", choices=("fast", "validated", "both"), default="both",
                    help="the engine path(s) to time (default both)")
    ap.add_argument("--vs-rlcard", action="store_true", help="also run RLCard's UNO with random agents")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each side, alternated; the fastest is reported (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the policy and of the games (default 0)")
    ap.add_argument("--max-actions", type=int, default=100_000, help="stop a game after this many actions")
    ap.add_argument("--profile", action="store_true", help="run ours once under cProfile and print the top functions")
    args = ap.parse_args(argv)
    if args.vs_rlcard:
        try:
            import rlcard  # noqa: F401
        except ImportError as exc:
            sys.exit(f"--vs-rlcard needs RLCard ({exc}): pip install rlcard")
    paths = ["fast", "validated"] if args.path == "both" else [args.path]

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()} "
          f"({platform.python_implementation()}); load average {load()}")
    print("engine: pure Python")
    print(f"games: standard, options={{'rounds': 1}}, {args.seats} seats, {args.games} games, seed {args.seed}; "
          f"rates per CPU second, best of {1 if args.profile else args.repeat} run(s)")
    print(f"policy {args.policy}: {DESCRIPTIONS[args.policy]}")
    print("paths: fast = legal_moves + push (no validation, no events); "
          "validated = legal_actions + apply (the public API)")
    if args.profile:
        for path in paths:
            prof = cProfile.Profile()
            t, actions, unfinished = prof.runcall(bench_ours, args, path)
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
            print(line(path, args.games, t, actions))
        return
    ours: dict[str, tuple[Timer, int, int]] = {}
    theirs = None
    for _ in range(max(1, args.repeat)):
        # alternate the sides so that all see the same load on the machine
        for path in paths:
            run = bench_ours(args, path)
            if path not in ours or run[0].cpu < ours[path][0].cpu:
                ours[path] = run
        if args.vs_rlcard:
            rl = bench_rlcard(args)
            theirs = rl if theirs is None or rl[0].cpu < theirs[0].cpu else theirs
    for path in paths:
        t, actions, unfinished = ours[path]
        print(line(path, args.games, t, actions))
        if unfinished:
            print(f"           ({unfinished} games stopped unfinished at --max-actions {args.max_actions})")
    if theirs is not None:
        rt, ractions = theirs
        print(line("RLCard", args.games, rt, ractions))
        for path in paths:
            t, actions, _ = ours[path]
            print(f"ratio {path}/RLCard: {rt.cpu / t.cpu:.2f}x games/s, "
                  f"{(actions / t.cpu) / (ractions / rt.cpu):.2f}x actions/s")
        if args.policy != "rlcard":
            print("(policy uniform plays far longer games than RLCard's random agents: compare with --policy rlcard)")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
