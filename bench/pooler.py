"""What lock_timeout costs behind PgBouncer in transaction mode (issue 30).

Behind a pooler in transaction mode the server cannot send ``-c lock_timeout=...`` at
connect (PgBouncer refuses the ``options`` startup parameter), so the timeout must come
from somewhere else: the role's or the database's setting (``ALTER ROLE ... SET
lock_timeout``: nothing per transaction) or ``SET LOCAL lock_timeout`` at the start of
each transaction that locks (one more statement, one more round trip).  This script
times a move-shaped transaction (``SELECT ... FOR UPDATE`` of one row, an ``UPDATE`` of
it, ``COMMIT``) both ways, through a private PgBouncer in front of a private PostgreSQL
cluster (bench/_stack.py), and directly, and prints the medians and p99 per transaction
(``synchronous_commit = off``: the disk's flush would hide the round trips).

    .venv/bin/python bench/pooler.py --transactions 5000 --pg-port 17220 --pgbouncer-port 17221
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import psycopg

from _stack import PgBouncer, PrivatePostgres, load_average, percentile


def timed(url: str, n: int, set_local: bool) -> list[float]:
    """Seconds of each of ``n`` move-shaped transactions on one connection."""
    out = []
    with psycopg.connect(url, prepare_threshold=None) as conn:
        for i in range(n):
            t0 = time.perf_counter()
            with conn.transaction():
                if set_local:
                    conn.execute("SET LOCAL lock_timeout = 10000")
                conn.execute("SELECT v FROM t WHERE id = 1 FOR UPDATE").fetchone()
                conn.execute("UPDATE t SET v = %s WHERE id = 1", [i])
            out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--transactions", type=int, default=5000, help="per variant, default 5000")
    ap.add_argument("--rounds", type=int, default=3, help="variants interleaved this many times, default 3")
    ap.add_argument("--pg-port", type=int, default=55432)
    ap.add_argument("--pgbouncer-port", type=int, default=56432)
    args = ap.parse_args()
    print(f"bench/pooler.py: {args.transactions} transactions x {args.rounds} rounds per variant; "
          f"load average {load_average()}", flush=True)
    base = Path(tempfile.mkdtemp(prefix="uno-bench-pooler-"))
    base.chmod(0o755)
    pg = PrivatePostgres(base, args.pg_port)
    bouncer = PgBouncer(base, args.pgbouncer_port, args.pg_port)
    try:
        pg.start()
        with psycopg.connect(pg.url(), autocommit=True) as conn:
            conn.execute("CREATE TABLE t (id int PRIMARY KEY, v int)")
            conn.execute("INSERT INTO t VALUES (1, 0)")
            conn.execute("ALTER DATABASE uno SET lock_timeout = 10000")  # the role's / database's way
            # commits that do not wait for the disk: what is measured is the statements' round trips
            conn.execute("ALTER DATABASE uno SET synchronous_commit = off")
        bouncer.start()
        variants = {
            ("pgbouncer", "ALTER DATABASE (nothing per transaction)"): (bouncer.url(), False),
            ("pgbouncer", "SET LOCAL lock_timeout per transaction"): (bouncer.url(), True),
            ("direct", "ALTER DATABASE (nothing per transaction)"): (pg.url(), False),
            ("direct", "SET LOCAL lock_timeout per transaction"): (pg.url(), True),
        }
        times: dict = {key: [] for key in variants}
        for _ in range(args.rounds):
            for key, (url, set_local) in variants.items():
                times[key] += timed(url, args.transactions, set_local)
        for (route, how), values in times.items():
            print(f"{route:9} {how:42} median {statistics.median(values) * 1e6:7.1f} us  "
                  f"p99 {percentile(values, 99) * 1e6:7.1f} us  ({len(values)} transactions)")
        for route in ("pgbouncer", "direct"):
            a = statistics.median(times[(route, "ALTER DATABASE (nothing per transaction)")])
            b = statistics.median(times[(route, "SET LOCAL lock_timeout per transaction")])
            print(f"{route}: SET LOCAL adds {(b - a) * 1e6:.1f} us per transaction (median), {100 * (b - a) / a:.0f}%")
        print(f"load average at the end {load_average()}")
    finally:
        bouncer.stop()
        pg.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
