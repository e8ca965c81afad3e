"""Every example of the documentation runs, against a real server.

The fenced blocks of README.md and docs/**/*.md are read from the Markdown itself (nothing is
copied here): a block whose info string starts with ``sh`` or ``bash`` is shell, one that starts
with ``python`` is Python; any other (``console``, ``text``, ``json``, ``ini``...) is not run
(docs/contributors/docs.md, "Examples"). A page's runnable blocks run in order as one bash
script (``set -euo pipefail``; a Python block as ``python3 <its file>`` at its place), in a
scratch directory, with ``API`` set to the server's ``/api/v1`` and the virtualenv's ``bin``
first on ``PATH``. The server is a real gunicorn (tests/server_support.py) with a real Celery
worker for the bots and webhooks, on the test database and Redis; bots think for 0 s, and
webhooks may call this machine (``UNO_WEBHOOK_ALLOW_PRIVATE=1``, as the webhooks page says).
One test per page: a failure names the page and the line of the failing block.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.celery_helpers import celery_worker, requires_redis
from tests.server_support import ROOT, served

#: info strings (their first word) whose blocks run
SHELL = ("sh", "bash")
PYTHON = ("python",)
#: one page's examples, all blocks together
PAGE_TIMEOUT = 240
#: the environment of the server and the worker the examples run against
SERVER_SETTINGS = {"UNO_BOT_THINK_SECONDS": "0", "UNO_WEBHOOK_ALLOW_PRIVATE": "1"}

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, from 1
    kind: str  # "sh" or "python"
    text: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line} ({self.kind})"


def blocks(path: Path, page: str) -> list[Block]:
    """The runnable fenced blocks of one Markdown file, in order."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        info = (m["info"].strip().split() or [""])[0].lower()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence) and lines[i].strip().strip(fence[0]) == ""):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        kind = "sh" if info in SHELL else "python" if info in PYTHON else None
        if kind:
            found.append(Block(page, start + 1, kind, "\n".join(body) + "\n"))
    return found


def pages() -> dict[str, list[Block]]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = {}
    for path in files:
        page = str(path.relative_to(ROOT))
        runnable = blocks(path, page)
        if runnable:
            found[page] = runnable
    return found


def script(runnable: list[Block], workdir: Path) -> str:
    """One bash script for a page's blocks: each block in turn, the failing one named."""
    parts = [
        "set -euo pipefail",
        "__BLOCK=start",
        "trap '__rc=$?; if [ $__rc -ne 0 ]; then echo \"DOC EXAMPLE FAILED: $__BLOCK (exit $__rc)\" >&2; fi' EXIT",
    ]
    for n, block in enumerate(runnable):
        parts.append(f"__BLOCK='{block.where}'")
        if block.kind == "sh":
            parts.append(block.text)
        else:
            name = f"block-{n:02d}-line-{block.line}.py"
            (workdir / name).write_text(block.text, encoding="utf-8")
            parts.append(f"python3 {name}")
    parts.append("__BLOCK=end")
    return "\n".join(parts) + "\n"


def run_page(runnable: list[Block], workdir: Path, api: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "API": api,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env.pop("PYTHONPATH", None)
    text = script(runnable, workdir)
    (workdir / "page.sh").write_text(text, encoding="utf-8")
    return subprocess.run(["bash", "page.sh"], cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=PAGE_TIMEOUT)


PAGES = pages()


def test_the_documentation_has_examples_to_run():
    assert "README.md" in PAGES, "the README's curl game is not a runnable block"
    assert any(b.kind == "python" for blocks_ in PAGES.values() for b in blocks_)
    assert len(PAGES) >= 5, sorted(PAGES)


def test_a_failing_example_fails_and_is_named(tmp_path):
    """The runner itself: a block that fails (here a request to a closed port under
    ``curl -f``, then a Python exception) fails its page and is named, and nothing after
    it runs."""
    page = tmp_path / "page.md"
    page.write_text("```sh\necho one > one.txt\n```\n\n```console\n$ false\n```\n\n"
                    "```sh\ntest -s one.txt\ncurl -fsS \"$API/nowhere\"\necho after > after.txt\n```\n")
    work = tmp_path / "work"
    work.mkdir()
    result = run_page(blocks(page, "page.md"), work, "http://127.0.0.1:9/api/v1")
    assert result.returncode != 0
    assert "DOC EXAMPLE FAILED: page.md:9 (sh)" in result.stderr, result.stderr
    assert (work / "one.txt").exists() and not (work / "after.txt").exists()

    page.write_text("```python\nraise SystemExit('no such player')\n```\n")
    result = run_page(blocks(page, "page.md"), work, "http://127.0.0.1:9")
    assert result.returncode != 0
    assert "DOC EXAMPLE FAILED: page.md:1 (python)" in result.stderr and "no such player" in result.stderr


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    """A real gunicorn on the test database and Redis, for every page."""
    yield from served(tmp_path_factory, "doc-examples-server", **SERVER_SETTINGS)


@pytest.fixture
def worker(server, tmp_path):
    """A real Celery worker for one page's bots and webhooks.  It stops (finishing what it
    runs) before the test database is flushed: one worker for every page kept moving the bots
    of earlier pages' games while the flush truncated the tables, and PostgreSQL aborted the
    flush as a deadlock (CI)."""
    with celery_worker(tmp_path, "docs", concurrency=2, **SERVER_SETTINGS) as proc:
        yield proc


@requires_redis
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("page", sorted(PAGES))
def test_examples_run(page, server, worker, tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    result = run_page(PAGES[page], workdir, f"{server.url}/api/v1")
    print(result.stdout[-3000:])  # shown by pytest -rP
    assert result.returncode == 0, (
        f"{page}: an example failed\n--- stderr\n{result.stderr[-4000:]}\n--- stdout\n{result.stdout[-3000:]}"
        f"\n--- server\n{server.output()[-2000:]}\n--- worker\n{worker.log()[-2000:]}"
    )
