"""Look up online algorithms, instance families and adversaries by name.

A plug-in registers itself with :func:`register_algorithm`, :func:`register_adversary` (class decorators) or
:func:`register_family`; the packages :mod:`schedbench.scheduling.algorithms`,
:mod:`schedbench.scheduling.instances` and :mod:`schedbench.scheduling.adversaries` import every module they contain, so adding one file is enough.

**Plug-ins outside the package** (docs/plugins.md), loaded after the built-ins, in this order:

1. installed packages: every entry point of the group ``schedbench.plugins`` (its value names a
   module, which registers what it defines when imported);
2. files and folders named by the environment variable ``SCHEDBENCH_PLUGINS``
   (``os.pathsep``-separated; a folder contributes each of its ``*.py`` files not starting with
   ``_`` or ``test_``, in name order). The pipeline's ``plugins:`` config key and the CLI's ``--plugins``
   add to it through :func:`use_plugins`, so that every job's own process loads the same files.

A name registered twice is an error naming both files; a plug-in that does not import is an
error naming its file and line (:class:`PluginError`), raised by the first lookup — in the
pipeline, while the Snakefile is read, before any job runs.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import pkgutil
import sys
import traceback
from pathlib import Path
from typing import Any

from schedbench.hall.limits import wall_limit
from schedbench.hall.params import did_you_mean
from schedbench.hall.params import Param

__all__ = [
    "register_algorithm",
    "register_family",
    "register_adversary",
    "get_algorithm",
    "get_family",
    "get_adversary",
    "algorithm_names",
    "family_names",
    "adversary_names",
    "KINDS",
    "names",
    "get",
    "UnknownNameError",
    "PluginError",
    "use_plugins",
    "plugin_files",
    "plugin_files_of",
    "origin",
    "is_builtin",
    "PLUGIN_ENV",
    "ENTRY_POINT_GROUP",
]

#: The environment variable listing plug-in files and folders (``os.pathsep``-separated).
PLUGIN_ENV = "SCHEDBENCH_PLUGINS"
#: A plug-in file must import within this many seconds (a loop at import is an error naming it).
IMPORT_SECONDS = 60.0
#: The entry-point group an installed package declares its plug-in modules in.
ENTRY_POINT_GROUP = "schedbench.plugins"

_ALGORITHMS: dict[str, type] = {}
_FAMILIES: dict[str, Any] = {}
_ADVERSARIES: dict[str, type] = {}
#: The kinds of plug-in, in the order listings show them, and each kind's table and its name in
#: an error message.
KINDS = ("algorithm", "adversary", "family")
_TABLES = {
    "algorithm": (_ALGORITHMS, "algorithm"),
    "adversary": (_ADVERSARIES, "adversary"),
    "family": (_FAMILIES, "instance family"),
}
_LOADED = False
#: (kind, name) -> the file that registered it
_ORIGIN: dict[tuple[str, str], str] = {}
#: the out-of-tree plug-in files loaded so far (resolved paths), and their module names
_PLUGIN_FILES: dict[str, str] = {}
#: the plug-in file being executed (its registrations are attributed to it)
_CURRENT: list[str] = []


class UnknownNameError(KeyError):
    """No algorithm or family is registered under that name."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


class PluginError(ValueError):
    """A plug-in cannot be loaded (it does not import, is missing, or clashes with another)."""


def _load_plugins() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for pkg_name in (
        "schedbench.scheduling.algorithms",
        "schedbench.scheduling.instances",
        "schedbench.scheduling.adversaries",
    ):
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"{pkg_name}.{info.name}")
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        _load_entry_point(ep)
    for path in _env_paths():
        _load_path(path)


def _env_paths() -> list[Path]:
    return [Path(p) for p in os.environ.get(PLUGIN_ENV, "").split(os.pathsep) if p.strip()]


def plugin_files_of(
    path: Path, where: str, skip: tuple[str, ...] = ("_", "test_"), not_py: str = "not a .py file"
) -> list[Path]:
    """The plug-in files a path names: the file itself, or a folder's ``*.py`` files (not
    starting with one of ``skip``; by default not ``_`` nor the folder's tests, ``test_``) in name
    order. A path that is not a ``.py`` file or a folder is a :class:`PluginError` starting with
    ``where`` (``not_py`` for a file that is not ``.py``)."""
    if path.is_dir():
        # not the folder's tests (``schedbench new`` writes test_<name>.py next to the plug-in)
        return sorted(p for p in path.glob("*.py") if not p.name.startswith(skip))
    if path.is_file():
        if path.suffix != ".py":
            raise PluginError(f"{where}: {not_py}")
        return [path]
    if path.exists():  # a FIFO, a device or a socket: never opened (a FIFO would block)
        raise PluginError(f"{where}: not a regular file (a FIFO, a device or a socket)")
    raise PluginError(f"{where}: no such file or folder")


def _where(exc: BaseException, path: str) -> str:
    """``file:line`` of the deepest frame of ``exc``'s traceback in ``path`` (or of a syntax error)."""
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename).resolve() == Path(path).resolve():
        return f"{path}:{exc.lineno}"
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename and Path(frame.filename).resolve() == Path(path).resolve():
            line = frame.lineno
    return f"{path}:{line}" if line is not None else path


def _load_path(path: Path, source: str = PLUGIN_ENV) -> None:
    for file in plugin_files_of(path, f"plug-in {path} (from {source})"):
        resolved = str(file.resolve())
        if resolved in _PLUGIN_FILES:
            continue  # named twice (a folder and one of its files, or env and config): loaded once
        digest = hashlib.sha1(resolved.encode()).hexdigest()[:10]
        name = f"schedbench_plugin_{file.stem}_{digest}"
        spec = importlib.util.spec_from_file_location(name, resolved)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        _PLUGIN_FILES[resolved] = name
        _CURRENT.append(resolved)
        try:
            with wall_limit(IMPORT_SECONDS, lambda: PluginError(f"plug-in {resolved}: {_slow_import()}")):
                spec.loader.exec_module(module)
        except PluginError:
            raise
        except (Exception, SystemExit) as exc:  # sys.exit at import must not end the command
            del sys.modules[name]
            raise PluginError(f"plug-in {_where(exc, resolved)}: does not import: {type(exc).__name__}: {exc}") from exc
        finally:
            _CURRENT.pop()


def _slow_import() -> str:
    return f"does not import within {IMPORT_SECONDS:g} s (a loop at import? importing must not run the rule)"


def _load_entry_point(ep) -> None:
    module_name = ep.value.split(":")[0].strip()
    spec = importlib.util.find_spec(module_name)
    path = spec.origin if spec is not None and spec.origin else module_name
    _CURRENT.append(str(path))
    try:
        ep.load()
    except PluginError:
        raise
    except (Exception, SystemExit) as exc:  # sys.exit at import must not end the command
        raise PluginError(
            f"plug-in {_where(exc, str(path))} (entry point {ep.name!r} of group {ENTRY_POINT_GROUP!r}): "
            f"does not import: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        _CURRENT.pop()


def use_plugins(paths: list[str | Path], source: str = "plugins") -> list[str]:
    """Add plug-in files or folders (``source`` names where they were given, for errors): they
    are checked now, appended to :data:`PLUGIN_ENV` (so that processes started from here — the
    pipeline's jobs — load them too) and loaded at once if the registry is already loaded.
    Returns the plug-in files (resolved)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files = []
    for p in paths:
        if not isinstance(p, (str, Path)) or not str(p).strip():
            raise PluginError(f"{source}: expected a file or folder path, got {p!r}")
        given = Path(p).expanduser()
        if given.is_symlink() and not given.exists():
            raise PluginError(
                f"plug-in {given} (from {source}): a symlink to {os.readlink(given)}, which does not exist"
            )
        path = given.resolve()
        files += [str(f.resolve()) for f in plugin_files_of(path, f"plug-in {path} (from {source})")]
        known = [q for q in os.environ.get(PLUGIN_ENV, "").split(os.pathsep) if q.strip()]
        if str(path) not in known:
            os.environ[PLUGIN_ENV] = os.pathsep.join(known + [str(path)])
        if _LOADED:
            _load_path(path, source)
    return files


def plugin_files() -> list[str]:
    """The out-of-tree plug-in files loaded so far (resolved paths, in load order)."""
    _load_plugins()
    return list(_PLUGIN_FILES)


def _file_of(obj: Any) -> str:
    """The file registering ``obj``: the plug-in being loaded, else the class's module (a
    family object: the module of the code that calls :func:`register_family`)."""
    if _CURRENT:
        return _CURRENT[-1]
    if isinstance(obj, type):
        module = sys.modules.get(obj.__module__)
        return str(getattr(module, "__file__", None) or obj.__module__)
    frame = sys._getframe(4)  # register_family <- _register <- _claim <- here
    return str(frame.f_globals.get("__file__") or frame.f_globals.get("__name__", "?"))


def origin(kind: str, name: str) -> str:
    """The file that registered ``name`` (``kind``: algorithm, adversary or family)."""
    _load_plugins()
    return _ORIGIN[(kind, name)]


def is_builtin(kind: str, name: str) -> bool:
    """Registered by a module of this package (not by an out-of-tree plug-in)."""
    return Path(origin(kind, name)).resolve().is_relative_to(Path(__file__).resolve().parents[1])


def _claim(kind: str, table: dict, name: str, obj: Any) -> None:
    """Register ``obj`` under ``name``; a second, different object is an error naming both files."""
    where = _file_of(obj)
    if name in table and table[name] is not obj:
        raise PluginError(f"{kind} name {name!r} registered twice: by {_ORIGIN.get((kind, name), '?')} and by {where}")
    table[name] = obj
    _ORIGIN[(kind, name)] = _ORIGIN.get((kind, name), where)


def _check_parameters(kind: str, name: str, parameters: dict) -> None:
    """Every plug-in declares its parameters in the one vocabulary (:class:`schedbench.hall.params.Param`)."""
    for key, param in parameters.items():
        if not isinstance(param, Param):
            raise ValueError(
                f"{kind} {name!r}: parameter {key!r} must be declared as a schedbench.hall.params.Param, "
                f"not {type(param).__name__}"
            )


def _register(kind: str, table: dict, obj: Any, check_declaration=None) -> Any:
    """Register a plug-in object under its ``name``: a name another object already holds is an
    error naming both files, raised before the object's own checks (``check_declaration``, then
    its parameters), which would otherwise fail first and name one file only."""
    name = obj.name
    if name in table and table[name] is not obj:
        _claim(kind, table, name, obj)  # raises, naming both files
    if check_declaration is not None:
        check_declaration()
    _check_parameters(kind, name, obj.parameters)
    _claim(kind, table, name, obj)
    return obj


def register_algorithm(cls: type) -> type:
    """Class decorator: make an online algorithm available under ``cls.name``."""
    return _register("algorithm", _ALGORITHMS, cls, cls.check_declaration)


def register_adversary(cls: type) -> type:
    """Class decorator: make an adaptive adversary available under ``cls.name``."""
    return _register("adversary", _ADVERSARIES, cls)


def register_family(family: Any) -> Any:
    """Register an instance family object (see :mod:`schedbench.scheduling.instances.base`)."""
    return _register("family", _FAMILIES, family)


def _lookup(table: dict, name: str, kind: str):
    _load_plugins()
    if not isinstance(name, str):
        raise UnknownNameError(f"{kind} name must be a string, got {name!r}; registered: {', '.join(sorted(table))}")
    try:
        return table[name]
    except KeyError:
        known = ", ".join(sorted(table)) or "(none)"
        raise UnknownNameError(f"unknown {kind} {name!r}{did_you_mean(name, table)} Registered: {known}") from None


def _table(kind: str) -> tuple[dict, str]:
    if not isinstance(kind, str) or kind not in _TABLES:
        raise ValueError(f"kind: {kind!r} is not one of {', '.join(KINDS)}")
    return _TABLES[kind]


def get(kind: str, name: str) -> Any:
    """The algorithm class, adversary class or family registered as ``name`` (``kind``)."""
    table, label = _table(kind)
    return _lookup(table, name, label)


def names(kind: str) -> list[str]:
    """The names registered as ``kind`` (algorithm, adversary or family), sorted."""
    table, _ = _table(kind)
    _load_plugins()
    return sorted(table)


def get_algorithm(name: str) -> type:
    return get("algorithm", name)


def get_family(name: str) -> Any:
    return get("family", name)


def get_adversary(name: str) -> type:
    return get("adversary", name)


def adversary_names() -> list[str]:
    return names("adversary")


def algorithm_names() -> list[str]:
    return names("algorithm")


def family_names() -> list[str]:
    return names("family")
