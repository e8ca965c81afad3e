import contextlib
import json
import threading
from typing import Callable, Iterator

from django.db import connections

from config.problems import PROBLEM_CONTENT_TYPE


def assert_problem(response, status: int, code: str) -> dict:
    """Assert an RFC 9457 problem response; returns its body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"https://uno.example/problems/{code}"
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def assert_json(response, status: int):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


@contextlib.contextmanager
def migrated_back_to(app: str, migration: str, model: str) -> Iterator[type]:
    """The database migrated back to ``app``'s ``migration`` for the block, which gets
    ``model`` as it was then (the historical model, to write rows as they were stored);
    after the block, whatever happens in it, migrated forward to the latest again (a
    test with ``django_db(transaction=True)``)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [(app, migration)]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    try:
        yield MigrationExecutor(connection).loader.project_state(before).apps.get_model(app, model)
    finally:
        MigrationExecutor(connection).migrate(latest)


def at_once(work: Callable[[int], object], n: int, wait: float = 120) -> list:
    """``work(i)`` in ``n`` threads released together (in this process: each closes its
    database connections when done); each one's result or exception, in order."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i):
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 (reported by the test)
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(wait)
    return results


def openapi_schema(client) -> dict:
    """The OpenAPI schema as ``client`` reads it, as JSON (``/api/schema/?format=json``: the
    same document as the default YAML, which pure-Python YAML took 1.7 s to read)."""
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200, response.content[:500]
    return json.loads(response.content)
