"""gunicorn's worker for the web tier: uvicorn serving ``config.front_door``.

gunicorn stays the process manager (``config/gunicorn.conf.py``: workers, restarts,
graceful shutdown, the bind address); each worker runs uvicorn's event loop (uvloop,
httptools, with ``config.http_protocol``'s limits) in front of Django.  The
application gunicorn loads (``config.wsgi:application``, Django's WSGI handler) is
what the front door runs on its thread pool of ``threads`` (``GUNICORN_THREADS``);
an ASGI front door given instead (``config.asgi:application``) is served as it is.
"""

from __future__ import annotations

import logging
from typing import Any

from uvicorn_worker import UvicornWorker


class WebWorker(UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        "loop": "uvloop",
        "http": "config.http_protocol:LimitedHttpToolsProtocol",
        "lifespan": "off",
        "ws": "none",
        # the peer's address is the client's; behind proxies the throttles read
        # X-Forwarded-For themselves (NUM_PROXIES)
        "proxy_headers": False,
        "server_header": False,
        # one line per request is written by the front door (tokens redacted)
        "access_log": False,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # on SIGTERM, requests in flight get graceful_timeout less a second; then what is
        # still open (event streams: their clients reconnect elsewhere) is ended, before
        # gunicorn's master would kill the worker
        self.config.timeout_graceful_shutdown = max(1, self.cfg.graceful_timeout - 1)
        # the front door's access log goes where gunicorn's would
        access = logging.getLogger("uno.access")
        access.handlers = self.log.access_log.handlers if self.cfg.accesslog else []
        access.setLevel(logging.INFO)
        access.propagate = False

    def load_wsgi(self) -> None:
        super().load_wsgi()
        from config.front_door import FrontDoor

        if not isinstance(self.wsgi, FrontDoor):
            self.wsgi = FrontDoor(self.wsgi, threads=max(1, self.cfg.threads))
