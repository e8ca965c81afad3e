"""Wait until TCP services accept connections: wait_for.py [--timeout S] HOST:PORT..."""

import argparse
import socket
import sys
import time


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("addresses", nargs="+", metavar="HOST:PORT")
    args = parser.parse_args()

    deadline = time.monotonic() + args.timeout
    pending = list(args.addresses)
    while pending:
        pending = [
            address for address in pending if not reachable(*_split(address))
        ]
        if not pending:
            break
        if time.monotonic() >= deadline:
            print(f"not reachable after {args.timeout:g}s: {', '.join(pending)}", file=sys.stderr)
            return 1
        time.sleep(0.5)
    return 0


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


if __name__ == "__main__":
    sys.exit(main())
