"""A Server-Sent Events client for tests: a real HTTP connection to a real server, read
by a thread of its own; events parsed as the SSE spec says (``event``, ``id``,
``data`` lines, a blank line ending each; comment lines kept apart)."""

from __future__ import annotations

import http.client
import json
import queue
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Event:
    event: str = "message"
    id: str | None = None
    data: Any = None
    raw: str = ""


@dataclass
class Stream:
    status: int
    headers: dict[str, str]
    body: bytes = b""  # an error's body
    events: queue.Queue = field(default_factory=queue.Queue)
    comments: list[str] = field(default_factory=list)
    closed: threading.Event = field(default_factory=threading.Event)
    _conn: http.client.HTTPConnection | None = None
    _sock: object = None

    def next(self, timeout: float = 20.0) -> Event:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s (comments so far: {self.comments})") from None

    def until(self, predicate, timeout: float = 30.0) -> list[Event]:
        """Every event up to and including the first that satisfies ``predicate``."""
        seen = []
        while True:
            event = self.next(timeout)
            seen.append(event)
            if predicate(event):
                return seen

    def nothing_within(self, seconds: float) -> bool:
        try:
            event = self.events.get(timeout=seconds)
        except queue.Empty:
            return True
        self.events.put(event)
        return False

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(2)  # type: ignore[attr-defined]
            except OSError:
                pass
        if self._conn is not None:
            self._conn.close()


def open_stream(port: int, path: str, token: str | None = None, *, query_token: bool = False,
                headers: dict[str, str] | None = None, timeout: float = 60) -> Stream:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Accept": "text/event-stream", **(headers or {})}
    if token and query_token:
        path += ("&" if "?" in path else "?") + f"token={token}"
    elif token:
        h["Authorization"] = f"Token {token}"
    conn.request("GET", path, headers=h)
    sock = conn.sock  # (the response takes it over)
    resp = conn.getresponse()
    stream = Stream(resp.status, {k.lower(): v for k, v in resp.getheaders()}, _conn=conn, _sock=sock)
    if resp.status != 200:
        stream.body = resp.read()
        conn.close()
        return stream

    def read() -> None:
        current: dict[str, Any] = {}
        lines: list[str] = []
        try:
            while True:
                raw = resp.readline()  # (de-chunked)
                if not raw:
                    break
                line = raw.decode().rstrip("\n")
                if line == "":
                    if "data" in current:
                        stream.events.put(Event(current.get("event", "message"), current.get("id"),
                                                json.loads(current["data"]), "\n".join(lines)))
                    current, lines = {}, []
                    continue
                lines.append(line)
                if line.startswith(":"):
                    stream.comments.append(line[1:].strip())
                    continue
                name, _, value = line.partition(":")
                current[name] = value[1:] if value.startswith(" ") else value
        except (OSError, ValueError, AttributeError, http.client.HTTPException):  # (closed under it)
            pass
        finally:
            stream.closed.set()

    threading.Thread(target=read, daemon=True).start()
    return stream
