"""Loaded first (``pytest -p tests.parallel_env``), before Django's settings are read:
under pytest-xdist, each worker process of a run gets Redis and run files of its own,
as pytest-django gives it a database of its own (``test_<name>_gw0``, ``_gw1``...).

Worker ``gwK`` uses the Redis database K below the one ``REDIS_URL`` names (``make
test``: 15 for gw0, 14 for gw1), and ``RUN_DIR/gwK`` for its run files (the filesystem
broker of the embedded default, beat schedules).  Without xdist, nothing changes."""

from __future__ import annotations

import os
import re

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
_match = re.fullmatch(r"gw(\d+)", _worker)
if _match:
    _k = int(_match.group(1))
    _url = os.environ.get("REDIS_URL", "")
    _db = re.search(r"/(\d+)$", _url)
    if _url and _db:
        _n = int(_db.group(1)) - _k
        if _n < 0:
            raise RuntimeError(f"REDIS_URL {_url}: no Redis database left for xdist worker {_worker}")
        os.environ["REDIS_URL"] = f"{_url[:_db.start()]}/{_n}"
    if os.environ.get("RUN_DIR"):
        os.environ["RUN_DIR"] = os.path.join(os.environ["RUN_DIR"], _worker)
        os.makedirs(os.environ["RUN_DIR"], exist_ok=True)
