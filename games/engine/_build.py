"""Which build of the engine runs: compiled (mypyc) or pure Python. Never compiled itself.

``setup.py`` compiles the engine's modules with mypyc into extension modules placed next
to their sources (``game.cpython-311-x86_64-linux-gnu.so`` beside ``game.py``) and
records the SHA-256 of every source it compiled in ``_compiled.json``. Python imports an
extension module in preference to the ``.py`` of the same name, so an engine edited after
it was built would silently run its old code. :func:`select`, called by
``games/engine/__init__.py`` before any other engine module is imported, compares the
recorded hashes with the sources (about a millisecond) and, when any differs, warns
(:class:`StaleEngineWarning`) and makes every engine module load from its ``.py``: the
code that runs is always the code on disk, compiled or not. Never a mix: the compiled
modules only work together.

``UNO_PURE_PYTHON=1`` in the environment forces the pure-Python engine (and makes
``setup.py`` skip the compilation). This module uses the standard library only: setup.py
loads it by path.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from pathlib import Path
from typing import Any, Sequence

#: written by setup.py next to this file
MANIFEST = "_compiled.json"
#: engine files that stay Python: the package's entry point (it runs this check), this file,
#: and the exceptions (mypyc would turn their class-level ``code`` into a missing instance
#: attribute; they are not on any hot path)
NOT_COMPILED = frozenset({"__init__.py", "_build.py", "errors.py"})
ENV_PURE = "UNO_PURE_PYTHON"


class StaleEngineWarning(RuntimeWarning):
    """The compiled engine does not match its sources: the pure-Python engine runs instead."""


def pure_requested() -> bool:
    return os.environ.get(ENV_PURE) == "1"


def sources(engine_dir: Path) -> list[str]:
    """The engine's modules that setup.py compiles, as paths relative to ``engine_dir``."""
    return sorted(
        p.relative_to(engine_dir).as_posix()
        for p in engine_dir.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(engine_dir).as_posix() not in NOT_COMPILED
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(engine_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((engine_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def compiled_modules(engine_dir: Path, names: Sequence[str]) -> list[str]:
    """The modules among ``names`` that an extension module shadows (it is imported instead)."""
    out = []
    for name in names:
        base = engine_dir / name[: -len(".py")]
        if any(base.with_name(base.name + suffix).exists() for suffix in EXTENSION_SUFFIXES):
            out.append(name)
    return out


class _SourcesOnly(MetaPathFinder):
    """Finds the modules of one package from their ``.py`` files, ignoring extension modules."""

    def __init__(self, package: str) -> None:
        self.prefix = package + "."

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> ModuleSpec | None:
        if not fullname.startswith(self.prefix) or not path:
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname, target)
            if spec is not None:
                return spec
        return None


def _use_sources(package: str) -> None:
    if not any(isinstance(f, _SourcesOnly) and f.prefix == package + "." for f in sys.meta_path):
        sys.meta_path.insert(0, _SourcesOnly(package))


def select(package: str, engine_dir: Path) -> tuple[bool, str]:
    """Decide which build of the engine runs; returns (compiled, description).

    Called before any engine module is imported. When the pure-Python engine must run
    although extension modules are there, a finder that imports the engine's modules from
    their ``.py`` files is put first on ``sys.meta_path``.
    """
    names = sources(engine_dir)
    shadowed = compiled_modules(engine_dir, names)
    manifest = read_manifest(engine_dir) or {}
    if pure_requested():
        if shadowed:
            _use_sources(package)
        return False, f"pure Python ({ENV_PURE}=1)"
    if not shadowed:
        if manifest.get("compiled") is False and manifest.get("fallback_reason"):
            warnings.warn(
                f"games.engine: the compiled engine could not be built ({manifest['fallback_reason']}); "
                f"running the pure-Python engine (slower). Install mypy and a C compiler and reinstall "
                f"(make venv), or set {ENV_PURE}=1 to build and run pure Python on purpose.",
                RuntimeWarning,
                stacklevel=2,
            )
            return False, "pure Python (the compiled build failed)"
        return False, "pure Python"
    recorded = manifest.get("sources") if manifest.get("compiled") else None
    if not isinstance(recorded, dict):
        problems = [f"no valid {MANIFEST} beside the compiled modules"]
    else:
        problems = []
        changed = [n for n in names if n in recorded and recorded[n] != digest(engine_dir / n)]
        added = [n for n in names if n not in recorded]
        removed = [n for n in recorded if n not in names]
        unbuilt = [n for n in names if n in recorded and n not in shadowed]
        for what, which in (("changed", changed), ("new", added), ("deleted", removed), ("not compiled", unbuilt)):
            if which:
                problems.append(f"{what} since the build: {', '.join(which)}")
    if problems:
        _use_sources(package)
        warnings.warn(
            f"games.engine: the compiled engine is stale ({'; '.join(problems)}); running the pure-Python "
            f"engine from the sources instead. Rebuild with `make venv` (or `.venv/bin/pip install -e .`), "
            f"or remove the compiled modules with `make clean-build`.",
            StaleEngineWarning,
            stacklevel=2,
        )
        return False, "pure Python (the compiled engine is stale)"
    return True, f"compiled (mypyc {manifest.get('mypy', '?')})"
