"""Benchmark of the rules engine (games/engine): random games per second.

    python bench/engine.py                       # 2000 two-player games, rlcard policy
    python bench/engine.py --policy uniform      # uniform over every legal action
    python bench/engine.py --vs-rlcard           # also RLCard's UNO (pip install rlcard)

Each game is a ``standard`` game of one round (``options={"rounds": 1}``) driven
through the public API only: ``new_game``, ``state.actor()``, ``legal_actions`` and
``apply`` (which validates every action). Policies:

``rlcard`` (default)
    the action set RLCard's UNO exposes: uniform over the legal plays and colour
    choices, draw only when there is none; a play of the next-to-last card is made
    with ``uno: true`` (RLCard has no UNO call), a pending penalty is accepted with
    ``draw`` (RLCard has no challenge). This is the fair comparison with RLCard.
``uniform``
    uniform over all legal actions of the actor, voluntary draws, UNO calls and
    challenges included; games get very long.

Rates are per CPU second of this process, the best of ``--repeat`` runs; with
``--vs-rlcard`` the two sides' runs alternate, so both see the same load on the
machine. Prints figures only.
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

from games.engine import ACTIVE, apply, legal_actions, new_game  # noqa: E402

PLAYS = ("play", "choose_color")
DESCRIPTIONS = {
    "rlcard": "uniform over legal plays/colour choices, draw only with no playable card "
    "(RLCard UNO's action set: the fair comparison with RLCard)",
    "uniform": "uniform over all legal actions of the actor, voluntary draws included "
    "(not comparable with RLCard)",
}


def uniform_policy(actions: list[dict], rng: random.Random) -> dict:
    return rng.choice(actions)


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


POLICIES = {"rlcard": rlcard_policy, "uniform": uniform_policy}


def play_game(policy, rng: random.Random, seats: int, seed: str, max_actions: int) -> tuple[int, bool]:
    """One random game; returns (actions applied, finished)."""
    state = new_game("standard", {"rounds": 1}, seats, seed)
    n = 0
    while state.status == ACTIVE and n < max_actions:
        seat = state.actor()
        apply(state, seat, policy(legal_actions(state, seat), rng))
        n += 1
    return n, state.status != ACTIVE


class Timer:
    """CPU time of this process (the figure that load from other processes on the
    machine disturbs least) and wall-clock time."""

    def __enter__(self) -> "Timer":
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.cpu, self.wall = time.process_time() - self.cpu, time.perf_counter() - self.wall


def bench_ours(args) -> tuple[Timer, int, int]:
    policy = POLICIES[args.policy]
    rng = random.Random(args.seed)
    actions = unfinished = 0
    with Timer() as t:
        for i in range(args.games):
            n, finished = play_game(policy, rng, args.seats, f"bench:{args.seed}:{i}", args.max_actions)
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
        f"{name:<7} {games} games in {t.cpu:.2f} s CPU ({t.wall:.2f} s wall): {games / t.cpu:,.1f} games/s, "
        f"{actions / t.cpu:,.0f} actions/s, {actions / games:.1f} actions/game"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    ap.add_argument("--seats", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--policy", choices=POLICIES, default="rlcard", help="random policy (default rlcard)")
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

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()} "
          f"({platform.python_implementation()})")
    print("engine: pure Python")
    print(f"games: standard, options={{'rounds': 1}}, {args.seats} seats, {args.games} games, seed {args.seed}; "
          f"rates per CPU second, best of {1 if args.profile else args.repeat} run(s)")
    print(f"policy {args.policy}: {DESCRIPTIONS[args.policy]}")
    if args.profile:
        prof = cProfile.Profile()
        t, actions, unfinished = prof.runcall(bench_ours, args)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        print(line("ours", args.games, t, actions))
        return
    ours = theirs = None
    for _ in range(max(1, args.repeat)):
        # alternate the two sides so that both see the same load on the machine
        run = bench_ours(args)
        ours = run if ours is None or run[0].cpu < ours[0].cpu else ours
        if args.vs_rlcard:
            run = bench_rlcard(args)
            theirs = run if theirs is None or run[0].cpu < theirs[0].cpu else theirs
    t, actions, unfinished = ours
    print(line("ours", args.games, t, actions))
    if unfinished:
        print(f"         ({unfinished} games stopped unfinished at --max-actions {args.max_actions})")
    if theirs is not None:
        rt, ractions = theirs
        print(line("RLCard", args.games, rt, ractions))
        print(f"ratio ours/RLCard: {rt.cpu / t.cpu:.2f}x games/s, "
              f"{(actions / t.cpu) / (ractions / rt.cpu):.2f}x actions/s")
        if args.policy != "rlcard":
            print("(policy uniform plays far longer games than RLCard's random agents: compare with --policy rlcard)")


if __name__ == "__main__":
    main()
