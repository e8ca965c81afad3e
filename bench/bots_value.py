"""How well a hand-size value predicts who wins a round, by seat count (issue 31).

``hard``'s rollouts are cut short after ``HARD_ROLLOUT_DEPTH`` actions and valued by the hand
sizes: each seat's chance of winning the round taken as ``1 / its cards`` over the sum of every
seat's.  This script measures that guess against rounds played out, per seat count:

    python bench/bots_value.py                      # 3, 4, 5, 6, 7, 8 and 10 seats, 2,000 games each
    python bench/bots_value.py --seats 3,6 --table  # also a table fitted per hand size and place

Rounds of ``standard`` (one round) with ``normal`` in every seat, played on the engine's fast
path as ``hard``'s rollouts play them (buzz windows answered the same way); a share of the
positions along each round (``--every``) is kept with the round's winner.  On ``--games``
rounds (seed ``--seed``) it fits the exponent ``b`` of ``cards ** -b`` (``b = 1``: the value
``hard`` uses), and with ``--table`` a softmax over a weight per hand size (capped at 12 cards)
plus a weight per place after the seat to act; then it prints the log-loss of the winner on
``--games / 2`` other rounds (seed + 1): uniform (``ln seats``), ``1 / cards``, the fitted
exponent, the table.  Lower is better.  Pure Python (no numpy): about a minute for the default
seat counts, a few more with ``--table``.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.bots import policies  # noqa: E402
from games.engine import GAME_OVER, legal_moves, new_game, push  # noqa: E402

CAP = 12  # hand sizes above this share its weight in the table

Position = list[tuple[int, int]]  # per seat: (its cards capped at CAP, its places after the seat to act)


def positions(seats: int, games: int, seed: int, every: float) -> list[tuple[Position, int]]:
    """Positions of ``games`` rounds of ``normal`` at ``seats``, each with the round's winner."""
    rng = random.Random(seed)
    out: list[tuple[Position, int]] = []
    for g in range(games):
        state = new_game("standard", {"rounds": 1}, seats, seed * 100_000 + g)
        kept: list[Position] = []
        for _ in range(5_000):
            if state.phase == GAME_OVER or state.round != 1:
                break
            if state.windows:
                policies._answer_buzzes(state, rng)
            actor = state.actor()
            if rng.random() < every:
                kept.append([(min(len(h), CAP), (s - actor) * state.direction % seats)
                             for s, h in enumerate(state.hands)])
            push(state, actor, policies._normal(state, actor, legal_moves(state, actor), rng))
        winner = state.history[-1].get("winner") if state.history else None
        if winner is not None:
            out.extend((p, winner) for p in kept)
    return out


def log_likelihood(data: list[tuple[Position, int]], by_cards: list[float], by_place: list[float]) -> float:
    """The mean log-probability of the winner under softmax(by_cards[n] + by_place[d])."""
    total = 0.0
    for position, winner in data:
        scores = [by_cards[n] + by_place[d] for n, d in position]
        top = max(scores)
        total += scores[winner] - top - math.log(sum(math.exp(s - top) for s in scores))
    return total / len(data)


def exponent(b: float) -> list[float]:
    return [0.0] + [-b * math.log(n) for n in range(1, CAP + 1)]


def fit_table(data: list[tuple[Position, int]], seats: int, steps: int = 300,
              rate: float = 0.05) -> tuple[list[float], list[float]]:
    """A weight per hand size and per place, by Adam on the log-likelihood (from ``1 / cards``)."""
    by_cards, by_place = exponent(1.0), [0.0] * seats
    params = (by_cards, by_place)
    moments = [([0.0] * len(p), [0.0] * len(p)) for p in params]
    for t in range(1, steps + 1):
        grads = ([0.0] * len(by_cards), [0.0] * seats)
        for position, winner in data:
            scores = [by_cards[n] + by_place[d] for n, d in position]
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            z = sum(e)
            for i, (n, d) in enumerate(position):
                g = (i == winner) - e[i] / z
                grads[0][n] += g
                grads[1][d] += g
        for p, grad, (m, v) in zip(params, grads, moments):
            for j in range(len(p)):
                g = -grad[j] / len(data)
                m[j] = 0.9 * m[j] + 0.1 * g
                v[j] = 0.999 * v[j] + 0.001 * g * g
                p[j] -= rate * (m[j] / (1 - 0.9 ** t)) / (math.sqrt(v[j] / (1 - 0.999 ** t)) + 1e-8)
        for p, ref in ((by_cards, by_cards[1]), (by_place, by_place[0])):  # (a softmax: shifts cancel)
            for j in range(len(p)):
                p[j] -= ref
    return by_cards, by_place


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seats", default="3,4,5,6,7,8,10", help="comma-separated seat counts")
    ap.add_argument("--games", type=int, default=2000, help="rounds to fit on per seat count (half as many to test)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--every", type=float, default=0.15, help="the share of positions kept")
    ap.add_argument("--table", action="store_true", help="also fit a weight per hand size and place")
    args = ap.parse_args()
    print(f"normal in every seat, standard, one round; {args.games} rounds to fit (seed {args.seed}), "
          f"{args.games // 2} to test (seed {args.seed + 1}); log-loss of the winner on the test rounds")
    for seats in (int(s) for s in args.seats.split(",")):
        t0 = time.perf_counter()
        train = positions(seats, args.games, args.seed, args.every)
        test = positions(seats, args.games // 2, args.seed + 1, args.every)
        flat = [0.0] * seats
        b = max((log_likelihood(train, exponent(x / 20), flat), x / 20) for x in range(10, 50))[1]
        line = (f"{seats:>2} seats: {len(train)} / {len(test)} positions; uniform {math.log(seats):.4f}, "
                f"1/cards {-log_likelihood(test, exponent(1.0), flat):.4f}, "
                f"cards^-{b:.2f} {-log_likelihood(test, exponent(b), flat):.4f}")
        if args.table:
            by_cards, by_place = fit_table(train, seats)
            line += f", table {-log_likelihood(test, by_cards, by_place):.4f}"
            line += ("\n           by cards 1..: " + " ".join(f"{w:.2f}" for w in by_cards[1:])
                     + "\n           by place 0..: " + " ".join(f"{w:.2f}" for w in by_place))
        print(line + f"  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
