"""The engine tests are pure Python: they need neither Django nor its test settings.

``tests/conftest.py`` applies an autouse fixture that configures Django settings and
clears the cache for every test; it is overridden here by a no-op of the same name so
that the engine tests run the same with or without Django (with the system Python,
which has no Django, run them with ``--noconftest``).
"""

import pytest


@pytest.fixture(autouse=True)
def _test_settings():
    yield
