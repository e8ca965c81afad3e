"""Build step: compile the rules engine (games/engine) with mypyc.

Everything about the package is in pyproject.toml; this file only adds the compiled
engine. ``build_ext`` compiles every module of games/engine (but ``__init__.py`` and
``_build.py``, see games/engine/_build.py) into C extension modules, placed next to the
sources by an editable install (``pip install -e .``) or in the wheel, and writes
``games/engine/_compiled.json`` with the SHA-256 of each compiled source (the import-time
staleness check compares it with the sources).

    UNO_PURE_PYTHON=1       skip the compilation: a pure-Python install (an editable
                            install also deletes compiled modules left in the tree)
    UNO_REQUIRE_COMPILED=1  fail the build instead of falling back to pure Python (Docker)

Without mypy or a C compiler, or when compilation fails, the install goes on as pure
Python with a warning here (``pip -v`` shows it) and at import time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
ENGINE = ROOT / "games" / "engine"
#: the shared library that holds the compiled code: games_engine__mypyc.*.so, a top-level
#: module (the repository's root in an editable install; mypyc derives the compiled
#: packages' __path__ from its place, and gets it wrong for a library inside a package)
GROUP = "games_engine"
OPT_LEVEL = "3"
#: stands for the engine's extension modules until build_ext knows whether to compile
#: (and, if it does not, keeps build_ext running; it is never built)
PLACEHOLDER = Extension("games.engine._placeholder", sources=[])


def _load_build_helpers():
    """games/engine/_build.py, loaded by path (importing games.engine would import the engine)."""
    spec = importlib.util.spec_from_file_location("_uno_engine_build", ENGINE / "_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


helpers = _load_build_helpers()


def _say(message: str) -> None:
    print(f"\n{'=' * 78}\n{message}\n{'=' * 78}\n", file=sys.stderr, flush=True)


def _require_compiled() -> bool:
    return os.environ.get("UNO_REQUIRE_COMPILED") == "1"


def _remove_compiled_modules_in_tree() -> None:
    """Extension modules an earlier editable build left next to the sources: they would shadow them."""
    for path in [*ENGINE.rglob("*"), *ROOT.glob(f"{GROUP}__mypyc.*")]:
        if path.is_file() and path.name.endswith(tuple(EXTENSION_SUFFIXES)):
            path.unlink()


class BuildEngine(build_ext):
    """build_ext that compiles the engine with mypyc, or falls back to pure Python."""

    #: what was decided, once per process: the extension modules ([]: pure Python), the
    #: compiled sources' digests, mypy's version, why the build fell back to pure Python
    #: (None: it did not, or it was asked to)
    decided: list[Extension] | None = None
    sources: dict[str, str] = {}
    mypy_version = "?"
    fallback_reason: str | None = None

    def finalize_options(self) -> None:
        # egg_info, dist_info and sdist finalize this command only to list sources: no
        # compiling for them (pip runs them before the build, in other processes).
        metadata_only = set(self.distribution.commands) <= {"egg_info", "dist_info", "sdist"}
        if self.distribution.ext_modules == [PLACEHOLDER] and not metadata_only:
            if BuildEngine.decided is None:
                BuildEngine.decided = self._engine_extensions()
            if BuildEngine.decided:
                self.distribution.ext_modules = BuildEngine.decided
        super().finalize_options()
        if self.extensions == [PLACEHOLDER]:
            # Pure Python. The placeholder stays in the distribution so that this command
            # still runs: it records the fact and clears compiled modules out of the tree.
            self.extensions = []

    # -- deciding, and generating the C code ---------------------------------------------
    def _engine_extensions(self) -> list[Extension]:
        if helpers.pure_requested():
            if _require_compiled():
                sys.exit("UNO_REQUIRE_COMPILED=1 and UNO_PURE_PYTHON=1 contradict each other")
            _say("games.engine: UNO_PURE_PYTHON=1, the engine is installed as pure Python (not compiled)")
            return []
        names = helpers.sources(ENGINE)
        # Hash first: a file edited during the build then shows as stale at import.
        sources = {name: helpers.digest(ENGINE / name) for name in names}
        try:
            import mypy.version
            from mypyc.build import mypycify
        except ImportError as exc:
            return self._fall_back(f"mypyc is not installed ({exc})")
        paths = [(ENGINE / name).relative_to(ROOT).as_posix() for name in names]
        try:
            extensions = mypycify(paths, opt_level=OPT_LEVEL, group_name=GROUP)
        except (Exception, SystemExit) as exc:  # mypy's type errors end in SystemExit
            return self._fall_back(f"mypyc failed: {exc!r}")
        BuildEngine.sources, BuildEngine.mypy_version = sources, mypy.version.__version__
        return extensions

    def _fall_back(self, reason: str) -> list[Extension]:
        if _require_compiled():
            sys.exit(f"games.engine: cannot compile the engine ({reason}) and UNO_REQUIRE_COMPILED=1")
        BuildEngine.fallback_reason = reason
        _say(
            f"WARNING: games.engine is installed as PURE PYTHON (slower): {reason}.\n"
            "Install mypy and a C compiler (e.g. apt-get install gcc) and reinstall for the compiled\n"
            "engine, or set UNO_PURE_PYTHON=1 to build pure Python on purpose (and silence this)."
        )
        return []

    # -- building -------------------------------------------------------------------------
    def run(self) -> None:
        if self.inplace:
            # Editable install: the tree is the install. Drop every compiled module and
            # the record first, so that none of an earlier build survives this one (or its
            # failure), and a half-copied build never passes for a complete one.
            (ENGINE / helpers.MANIFEST).unlink(missing_ok=True)
            _remove_compiled_modules_in_tree()
        if self.extensions:
            inplace = self.inplace
            try:
                super().run()
            except Exception as exc:  # no C compiler, a compiler error, ...
                traceback.print_exc()
                self.inplace = inplace  # setuptools' run() clears it while it builds
                self._discard_outputs()
                self._fall_back(f"compiling the C code failed: {exc!r}")
        self._record()

    def _discard_outputs(self) -> None:
        for ext in self.extensions:
            (Path(self.build_lib) / self.get_ext_filename(self.get_ext_fullname(ext.name))).unlink(missing_ok=True)
        if self.inplace:
            _remove_compiled_modules_in_tree()
        self.extensions = []

    def _record(self) -> None:
        """Write _compiled.json beside the sources (editable install) or into the wheel.

        Never into the tree for a wheel: the compiled modules it describes are not there."""
        if self.inplace:
            target = ENGINE / helpers.MANIFEST
        else:
            target = Path(self.build_lib) / "games" / "engine" / helpers.MANIFEST
            if not target.parent.is_dir():
                return
        if self.extensions:
            data = {
                "compiled": True,
                "mypy": BuildEngine.mypy_version,
                "opt_level": OPT_LEVEL,
                "python": sys.version.split()[0],
                "sources": BuildEngine.sources,
            }
        else:
            data = {"compiled": False, "fallback_reason": BuildEngine.fallback_reason}
        target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


setup(ext_modules=[PLACEHOLDER], cmdclass={"build_ext": BuildEngine})
