"""Compiled functions whose on-disk cache follows their sources: :func:`compiled`.

numba's own cache (``njit(cache=True)``) is invalidated only when the file of the cached
function itself changes. A compiled rule that calls a helper in another file — the machine
core, the budget's compiled twin, a user's plug-in calling the suite's core — would keep
running the old helper after that file is edited, until someone clears the cache by hand.

:func:`compiled` is ``njit`` with a cache whose key also holds a hash of every source file the
function can reach: the files of the compiled functions it calls (by global name or as an
attribute of a module it imports, e.g. ``machines.advance``), transitively, and of the
modules those names live in, and the modules of the suite's own argument types (a record such
as the machine core's ``Machines``, whose fields compile as its module says: a function that
only reads a record's fields reaches no function of that module). Edit any of them and the next
call compiles again (once; the new code is cached under the new key). The hash is computed at
the first call of a process (a few files read, well under a millisecond each).

Functions compiled with plain ``njit`` (no cache) are not affected; numba's cache files stay
in the ``__pycache__`` beside each source, or numba's per-user cache directory when that is
not writable.
"""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

from numba import njit
from numba.core.caching import FunctionCache
from numba.core.registry import CPUDispatcher

__all__ = ["compiled", "source_files", "type_files"]


def _module_file(name: str | None) -> Path | None:
    mod = sys.modules.get(name or "")
    f = getattr(mod, "__file__", None)
    return Path(f) if f and f.endswith(".py") else None


def _code_names(code: types.CodeType) -> set[str]:
    """The global and attribute names a function's code (nested code objects included) uses."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def _ours(path: Path | None) -> bool:
    """Whether a source file belongs to this suite or a user's plug-in (not a library: numba,
    numpy, the standard library live under a ``site-packages`` or the interpreter's prefix)."""
    if path is None:
        return False
    p = str(path.resolve())
    return "site-packages" not in p and not p.startswith(sys.base_prefix)


def source_files(func) -> list[Path]:
    """Every source file the compiled function ``func`` (its Python function) can reach: its
    own, and transitively those of the compiled functions it names (directly or as a module's
    attribute) and of their modules. Sorted, each once."""
    seen_funcs: set[int] = set()
    files: set[Path] = set()
    todo = [func]
    while todo:
        f = todo.pop()
        if id(f) in seen_funcs:
            continue
        seen_funcs.add(id(f))
        own = _module_file(getattr(f, "__module__", None))
        if _ours(own):
            files.add(own.resolve())
        names = _code_names(f.__code__)
        glb = f.__globals__
        for name in names:
            value = glb.get(name)
            if isinstance(value, types.ModuleType):
                path = _module_file(value.__name__)
                if not _ours(path):
                    continue
                files.add(path.resolve())
                for attr in names:  # mod.attr: the module's compiled functions this code names
                    inner = getattr(value, attr, None)
                    if isinstance(inner, CPUDispatcher):
                        todo.append(inner.py_func)
            elif isinstance(value, CPUDispatcher):
                todo.append(value.py_func)
            elif callable(value) and _ours(_module_file(getattr(value, "__module__", None))):
                files.add(_module_file(value.__module__).resolve())  # a structref class, a helper
    return sorted(files)


def type_files(argtypes) -> list[Path]:
    """The source files of this suite's (or a plug-in's) own types among ``argtypes`` (numba
    types): where a record type, e.g. the machine core's ``Machines``, and its compilation are
    defined. Sorted, each once."""
    files = {_module_file(type(t).__module__) for t in argtypes}
    return sorted(f.resolve() for f in files if _ours(f))


class _SourceKeyedCache(FunctionCache):
    """numba's function cache with the hash of :func:`source_files` and :func:`type_files` in
    every index key."""

    def __init__(self, py_func) -> None:
        super().__init__(py_func)
        self._sources_hash: str | None = None

    def _index_key(self, sig, codegen):
        if self._sources_hash is None:
            h = hashlib.sha256()
            for path in source_files(self._py_func):
                h.update(str(path).encode())
                h.update(path.read_bytes())
            self._sources_hash = h.hexdigest()
        h = hashlib.sha256(self._sources_hash.encode())
        for path in type_files(sig):
            h.update(str(path).encode())
            h.update(path.read_bytes())
        return super()._index_key(sig, codegen) + (h.hexdigest(),)


def compiled(func=None, **options):
    """``numba.njit(**options)`` with an on-disk cache keyed on every source the function reaches
    (see the module docstring). Use as ``@compiled`` or ``@compiled(inline="always")``."""
    if "cache" in options:
        raise TypeError("compiled(): the cache is always on (keyed on the sources); do not pass cache=")

    def wrap(f):
        dispatcher = njit(**options)(f)
        dispatcher._cache = _SourceKeyedCache(f)  # what Dispatcher.enable_caching sets, with our key
        return dispatcher

    return wrap if func is None else wrap(func)
