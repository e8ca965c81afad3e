"""The golden corpus: what the engine did, step by step, in a few hundred random games.

Generated once with the engine as it was before the v2 rewrite (issue 9) and committed
(``fixtures/golden_v1.json.gz``); ``test_golden.py`` replays it against today's engine and
requires the same behaviour to the byte.  It is the proof that ``standard`` / ``house``
and every option of that engine play exactly as before, and that snapshots of the old
format (v1: ``State.to_dict()`` without a ``format`` key) still load and play on.

    python -m tests.engine.golden                    # writes fixtures/golden_v1.json.gz
    python -m tests.engine.golden --games 20 --out /tmp/g.json.gz

Regenerate it only on purpose (a deliberate change of behaviour), and say so.  Recorded
again with today's engine, everything comes out the same except the snapshots, which are
then of today's format: the committed corpus is what proves that format 1 still loads.

What one game records (``record_game``):

- its ``spec`` (preset, options, seats, seed) and the events of ``new_game``;
- ``obs``: after ``new_game`` and after every step, what the public API shows: the
  spectator's ``view(state, None)`` (as a delta from the previous one), each seat's part
  of its own view (``seat``, ``hand``, ``drawn``: the rest of a seat's view equals the
  spectator's, which the generator checks), and ``legal_actions(state, s)`` for every
  seat (``null``: unchanged since the previous step);
- ``steps``: the seat, the action (``system``: applied as the server's), the events;
- ``probes``: refused actions tried before a step (malformed, unlisted, out of turn, a
  ``timeout`` without ``system``...) with the error's class, code, detail and extra;
- ``snapshots``: ``state.to_dict()`` after a few steps (0: right after ``new_game``).

The random driver (``Driver``) picks, with a seeded RNG, usually the seat that owes the
decision, sometimes another seat that has legal actions (UNO calls and catches, jump-ins),
and now and then the server's ``timeout``; among the legal actions it prefers plays so
that rounds end.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import random
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "golden_v1.json.gz"
DEFAULT_GAMES = 250
STEP_CAP = 1500  # a game stops being recorded after this many steps (finished or not)
PROBES_PER_STEP = 2

#: option -> the values the corpus draws from (every value the v1 engine accepts, or a
#: representative few of an integer range)
CHOICES: dict[str, list[Any]] = {
    "stacking": ["off", "same", "plus4_on_plus2", "any"],
    "jump_in": ["off", "exact", "super"],
    "seven_zero": [True, False],
    "draw_limit": [1, 2, 3, None],
    "penalty_skips_turn": [True, False],
    "uno_penalty": [2, 4, 7],
    "scoring": ["winner_takes", "lowest_total"],
    "two_player_replay": [True, False],
    "wild_keeps_color": [True],
    "wild_draw_four": ["official"],
}
COLORS = ("red", "yellow", "green", "blue")

#: malformed actions, each refused by shape alone
MALFORMED: list[Any] = [
    "draw", None, 42, [], {}, {"type": None}, {"type": 3}, {"type": "dance"}, {"type": "PLAY", "card": 0},
    {"type": "draw", "card": 5}, {"type": "pass", "color": "red"}, {"type": "call_uno", "target_seat": 1},
    {"type": "play"}, {"type": "play", "card": None}, {"type": "play", "card": "5"}, {"type": "play", "card": 5.0},
    {"type": "play", "card": True}, {"type": "play", "card": 9, "color": "purple"},
    {"type": "play", "card": 9, "uno": "yes"}, {"type": "play", "card": 9, "target_seat": "1"},
    {"type": "play", "card": 9, "seat": 0}, {"type": "choose_color"}, {"type": "choose_color", "color": "Red"},
    {"type": "catch_uno"}, {"type": "catch_uno", "target_seat": 1.0}, {"type": "timeout", "card": 1},
    {"type": ["play"]},
]


def game_spec(i: int) -> dict:
    """The i-th game of the corpus: preset, options, seats and seed, drawn from ``i``."""
    rng = random.Random(f"golden:{i}")
    seats = rng.choice([2, 2, 3, 3, 4, 4, 5, 6])
    preset = rng.choice(["standard", "standard", "standard", "house"])
    options: dict[str, Any] = {}
    for name, values in CHOICES.items():
        if name == "two_player_replay" and seats != 2:
            continue
        if rng.random() < 0.5:
            options[name] = rng.choice(values)
    length = rng.random()
    if length < 0.7:
        options["rounds"] = 1
    elif length < 0.85:
        options["rounds"] = rng.choice([2, 3])
    else:
        options["target_score"] = rng.choice([20, 60, 120])
    return {"preset": preset, "options": options, "seats": seats, "seed": f"golden-{i}"}


class Driver:
    """The seeded random player of every seat (see the module docstring)."""

    def __init__(self, engine: Any, seed: str):
        self.engine = engine
        self.rng = random.Random(f"driver:{seed}")

    def next_move(self, state: Any) -> tuple[int, Any, bool]:
        e, rng = self.engine, self.rng
        actor = state.actor()
        r = rng.random()
        if r < 0.2:
            seat = rng.randrange(state.config.seats)
            if seat != actor:
                acts = e.legal_actions(state, seat)
                if acts:
                    return seat, rng.choice(acts), False
        elif r < 0.23:
            return actor, {"type": "timeout"}, True
        acts = e.legal_actions(state, actor)
        plays = [a for a in acts if a["type"] in ("play", "choose_color", "challenge")]
        r = rng.random()
        if plays and r < 0.8:
            return actor, rng.choice(plays), False
        others = [a for a in acts if a["type"] != "draw"]
        if others and r < 0.95:
            return actor, rng.choice(others), False
        return actor, rng.choice(acts), False

    def probes(self, state: Any, legal: list[list[dict]]) -> list[tuple[Any, Any, bool]]:
        """A few actions that must be refused: (seat, action, system)."""
        rng, n = self.rng, state.config.seats
        out: list[tuple[Any, Any, bool]] = []
        for _ in range(PROBES_PER_STEP):
            seat = rng.choice([state.actor(), rng.randrange(n)])
            hand = [c["id"] for c in self.engine.view(state, seat)["hand"]]
            r = rng.random()
            if r < 0.15:
                out.append((seat, rng.choice(MALFORMED), False))
            elif r < 0.2:
                out.append((rng.choice([-1, n, True, "0", None]), {"type": "draw"}, False))
            elif r < 0.25:
                out.append((seat, {"type": "timeout"}, rng.random() < 0.5))
            elif r < 0.55 and any("card" in a for a in legal[seat]):
                # a listed play with one field changed, removed or added
                a = dict(rng.choice([a for a in legal[seat] if "card" in a]))
                change = rng.randrange(5)
                if change == 0:
                    a["card"] = rng.choice(hand + [rng.randrange(108)])
                elif change == 1:
                    a.pop("color", None) if "color" in a else a.update(color=rng.choice(COLORS))
                elif change == 2:
                    a["target_seat"] = rng.randrange(n + 1)
                elif change == 3:
                    a["uno"] = True
                else:
                    a.pop("target_seat", None) if "target_seat" in a else a.update(color=rng.choice(COLORS))
                out.append((seat, a, False))
            else:
                kind = rng.choice(["play", "play", "play", "draw", "pass", "challenge", "call_uno", "catch_uno",
                                   "choose_color"])
                action: dict[str, Any] = {"type": kind}
                if kind == "play":
                    pick = rng.random()
                    action["card"] = (rng.choice(hand) if hand and pick < 0.6 else
                                      rng.randrange(108) if pick < 0.9 else rng.choice([108, -1]))
                    if rng.random() < 0.3:
                        action["color"] = rng.choice(COLORS)
                    if rng.random() < 0.15:
                        action["target_seat"] = rng.randrange(n + 1)
                    if rng.random() < 0.15:
                        action["uno"] = rng.random() < 0.8
                elif kind == "catch_uno":
                    action["target_seat"] = rng.randrange(n)
                elif kind == "choose_color":
                    action["color"] = rng.choice(COLORS)
                out.append((seat, action, False))
        # keep only the unlisted ones (a listed one would be accepted and change the game)
        listed = [{json.dumps(a, sort_keys=True) for a in acts} for acts in legal]
        kept = []
        for seat, action, system in out:
            if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n and not system:
                if isinstance(action, dict) and json.dumps(action, sort_keys=True) in listed[seat]:
                    continue
                if isinstance(action, dict) and action.get("uno") is False:
                    # ``"uno": false`` is the same action as no ``uno`` at all
                    plain = {k: v for k, v in action.items() if k != "uno"}
                    if json.dumps(plain, sort_keys=True) in listed[seat]:
                        continue
            if system and seat == state.actor():
                continue  # the actor's timeout would be applied
            kept.append((seat, action, system))
        return kept


def _refusal(exc: Exception) -> list:
    return [type(exc).__name__, getattr(exc, "code", None), getattr(exc, "detail", str(exc)),
            getattr(exc, "extra", {})]


def _json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists...)."""
    return json.loads(json.dumps(value))


# -- the observation of one step -----------------------------------------------------------
SEAT_KEYS = ("seat", "hand", "drawn")


def observe_all(engine: Any, state: Any) -> tuple[dict, list[dict], list[list[dict]]]:
    """(spectator view, each seat's own part of its view, each seat's legal actions)."""
    n = state.config.seats
    spectator = engine.view(state, None)
    parts = []
    for s in range(n):
        v = engine.view(state, s)
        common = {k: x for k, x in v.items() if k not in SEAT_KEYS}
        if list(common) != list(spectator) or _json(common) != _json(spectator):
            raise AssertionError("a seat's view differs from the spectator's outside its own part")
        parts.append({k: v[k] for k in SEAT_KEYS if k in v})
    legal = [engine.legal_actions(state, s) for s in range(n)]
    return spectator, parts, legal


def delta(prev: dict | None, new: dict) -> dict:
    """``{"=": new}`` or, when the keys are the same in the same order, ``{"~": changed}``."""
    if prev is None or list(prev) != list(new):
        return {"=": _json(new)}
    return {"~": {k: _json(v) for k, v in new.items() if _json(v) != _json(prev[k])}}


def undelta(prev: dict | None, d: dict) -> dict:
    if "=" in d:
        return d["="]
    assert prev is not None
    out = dict(prev)
    out.update(d["~"])
    return out


class ObsEncoder:
    """Encodes successive observations as deltas of the previous one."""

    def __init__(self) -> None:
        self.spectator: dict | None = None
        self.parts: list[dict | None] | None = None
        self.legal: list[list | None] | None = None

    def encode(self, spectator: dict, parts: list[dict], legal: list[list[dict]]) -> dict:
        n = len(parts)
        if self.parts is None:
            self.parts, self.legal = [None] * n, [None] * n
        assert self.legal is not None
        out = {"view": delta(self.spectator, spectator),
               "parts": [delta(self.parts[s], parts[s]) for s in range(n)],
               "legal": [None if self.legal[s] == _json(legal[s]) else _json(legal[s]) for s in range(n)]}
        self.spectator = spectator
        self.parts = list(parts)
        self.legal = [_json(x) for x in legal]
        return out


class ObsDecoder:
    """The inverse of :class:`ObsEncoder`: full observations back from the deltas."""

    def __init__(self, seats: int) -> None:
        self.spectator: dict | None = None
        self.parts: list[dict | None] = [None] * seats
        self.legal: list[list | None] = [None] * seats

    def decode(self, enc: dict) -> tuple[dict, list[dict], list[list]]:
        self.spectator = undelta(self.spectator, enc["view"])
        self.parts = [undelta(self.parts[s], d) for s, d in enumerate(enc["parts"])]
        self.legal = [self.legal[s] if x is None else x for s, x in enumerate(enc["legal"])]
        return self.spectator, list(self.parts), list(self.legal)  # type: ignore[arg-type]


# -- one game ------------------------------------------------------------------------------
def record_game(engine: Any, spec: dict) -> dict:
    events: list[dict] = []
    state = engine.new_game(spec["preset"], spec["options"], spec["seats"], spec["seed"], events)
    driver = Driver(engine, spec["seed"])
    enc = ObsEncoder()
    snap_rng = random.Random(f"snapshots:{spec['seed']}")
    rec: dict[str, Any] = {"spec": spec, "start_events": _json(events), "steps": [], "obs": [],
                           "snapshots": {"0": state.to_dict()}}
    observation = observe_all(engine, state)
    rec["obs"].append(enc.encode(*observation))
    steps = 0
    while state.status == "active" and steps < STEP_CAP:
        probes = []
        for seat, action, system in driver.probes(state, observation[2]):
            try:
                engine.apply(state, seat, action, system=system)
            except engine.EngineError as exc:
                probes.append([_json(seat), _json(action), system, _refusal(exc)])
            else:
                raise AssertionError(f"probe {action!r} by {seat!r} was accepted")
        seat, action, system = driver.next_move(state)
        ev = engine.apply(state, seat, action, system=system)
        steps += 1
        rec["steps"].append({"seat": seat, "action": _json(action), "system": system, "events": _json(ev),
                             "probes": probes})
        observation = observe_all(engine, state)
        rec["obs"].append(enc.encode(*observation))
        if snap_rng.random() < 0.02:
            rec["snapshots"][str(steps)] = state.to_dict()
    rec["snapshots"][str(steps)] = state.to_dict()
    # the refusals of a finished game, and of bad seats everywhere
    finals = []
    for seat, action in ((0, {"type": "draw"}), (0, {"type": "timeout"}), (-1, {"type": "draw"})):
        try:
            engine.apply(state, seat, action, system=True)
        except engine.EngineError as exc:
            finals.append([seat, action, _refusal(exc)])
    rec["final_probes"] = finals
    return _json(rec)


def generate(engine: Any, games: int) -> dict:
    return {"format": 1, "games": [record_game(engine, game_spec(i)) for i in range(games)]}


def load(path: Path = FIXTURE) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def coverage(corpus: dict) -> dict[str, set]:
    """Which option values, seat counts and presets the corpus plays."""
    seen: dict[str, set] = {}
    for g in corpus["games"]:
        spec = g["spec"]
        seen.setdefault("preset", set()).add(spec["preset"])
        seen.setdefault("seats", set()).add(spec["seats"])
        for k, v in spec["options"].items():
            seen.setdefault(k, set()).add(json.dumps(v))
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default="games.engine", help="the engine module to record (default games.engine)")
    ap.add_argument("--games", type=int, default=DEFAULT_GAMES)
    ap.add_argument("--out", type=Path, default=FIXTURE)
    args = ap.parse_args()
    engine = importlib.import_module(args.engine)
    corpus = generate(engine, args.games)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(corpus, separators=(",", ":")).encode()
    with open(args.out, "wb") as raw, gzip.GzipFile("", "wb", compresslevel=9, fileobj=raw, mtime=0) as f:
        f.write(data)  # no file name nor time in the header: the same corpus, the same bytes
    steps = sum(len(g["steps"]) for g in corpus["games"])
    last = [g["snapshots"][str(len(g["steps"]))] for g in corpus["games"]]
    finished = sum(1 for snap in last if snap.get("status", snap.get("phase")) in ("finished", "game_over"))
    print(f"{args.games} games, {steps} steps, {finished} finished; {len(data):,} bytes raw, "
          f"{args.out.stat().st_size:,} gzipped -> {args.out}")
    for k, v in sorted(coverage(corpus).items()):
        print(f"  {k}: {sorted(v, key=str)}")
    refusals: dict[str, int] = {}
    for g in corpus["games"]:
        for step in g["steps"]:
            for probe in step["probes"]:
                kind = probe[3][0] + ": " + probe[3][2].split(" is not")[0].split(" does not")[0][:50]
                refusals[kind] = refusals.get(kind, 0) + 1
    print("  refusals probed:")
    for kind, count in sorted(refusals.items(), key=lambda x: -x[1]):
        if not kind.startswith(("NotYourCard: card", "UnknownCard: there")):
            print(f"    {count:6} {kind}")


if __name__ == "__main__":
    main()
