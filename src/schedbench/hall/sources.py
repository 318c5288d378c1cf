"""The package sources a pipeline job depends on, derived from the imports (never by hand).

Snakemake tracks only a rule's own code, so every ``src/schedbench`` file a job's script
imports — directly or through other schedbench modules — is declared as an input: an edit to
any of them reruns the job. The closure is computed from the source text (``ast``), without
importing anything. Plug-ins are loaded by name at run time (the registry imports every
algorithm, family and adversary module, but a job's rows come from the one it names), so a rule
adds the named plug-in's module with :func:`module_sources`. An out-of-tree plug-in (a file
loaded from a user's folder or an installed package, ``registry.use_plugins``) is a module
outside ``src/schedbench``: its own file is declared, with the schedbench files it imports. A
module that reads the registered wings (``from schedbench.hall.wing import wings``, or another of
``hall.wing.READERS``) depends on every registered wing's ``WING`` module and what it imports —
a wing loaded from a researcher's file (the config's ``wings:``, ``hall.wing.use_wings``) by
that file and the schedbench files it imports.
"""

from __future__ import annotations

import ast
import sys
from functools import lru_cache
from pathlib import Path

from schedbench.hall.wing import READERS, wing_files, wing_modules

__all__ = ["script_sources", "module_sources", "module_file"]

_SRC = Path(__file__).resolve().parents[2]  # .../src
_PKG = "schedbench"
#: the names a module imports to read the registered wings (:data:`schedbench.hall.wing.READERS`):
#: they load the wings' ``WING`` modules by name at run time, so its sources include theirs
_WINGS_READERS = frozenset(f"schedbench.hall.wing.{name}" for name in READERS)


@lru_cache(maxsize=None)
def module_file(module: str) -> Path | None:
    """The file of a ``schedbench`` module (package → its ``__init__.py``), or None."""
    if module != _PKG and not module.startswith(_PKG + "."):
        return None
    base = _SRC.joinpath(*module.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


@lru_cache(maxsize=None)
def _lazy_exports(module: str) -> dict[str, str]:
    """A package's names loaded on first use: the literal ``_EXPORTS = {name: module}`` of its
    ``__init__.py`` (``schedbench``, a wing's package, its stage), else none."""
    f = module_file(module)
    if f is None or f.name != "__init__.py":
        return {}
    for node in ast.parse(f.read_text(), filename=str(f)).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in targets) and node.value is not None:
            return dict(ast.literal_eval(node.value))
    return {}


#: the registered wings as the sources see them: the wing modules by name, and the files of those
#: loaded from a file (module name, path); part of the caches' keys, so that a registry changed
#: in-process (a test's wing) is never answered from the closures of another
_WingKey = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]


def _wing_key() -> _WingKey:
    files = wing_files()
    modules = wing_modules()
    return modules, tuple(sorted((m, files[m]) for m in modules if m in files))


def _imports(path: Path, wings: _WingKey | None = None) -> frozenset[str]:
    """Schedbench modules named by the imports of one file (``from a import b`` counts
    ``a.b`` when that is a module, or the module package ``a`` loads ``b`` from on first use,
    and ``a`` itself plus the packages on the way); for a file that reads the registered wings,
    their modules too (``wings``: :func:`_wing_key`, the registry's now unless given)."""
    return _imports_with(path, _wing_key() if wings is None else wings)


@lru_cache(maxsize=None)
def _parsed(path: Path) -> frozenset[str]:
    """The module names the imports of one file name. Cached: the Snakefile asks for many
    closures sharing files, and every cluster job step parses it again (the files do not change
    during one parse)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
            lazy = _lazy_exports(node.module)  # a package's name loaded on first use: its module
            found.update(lazy[a.name] for a in node.names if a.name in lazy)
    return frozenset(found)


@lru_cache(maxsize=None)
def _imports_with(path: Path, wings: _WingKey) -> frozenset[str]:
    found = set(_parsed(path))
    modules, files = wings
    foreign = dict(files)  # the wings loaded from a researcher's file: the file itself
    if found & _WINGS_READERS:  # reads the registered wings: depends on each one's WING
        for wing in modules:
            found.add(wing)
            found.update(m for name, m in _lazy_exports(wing).items() if name == "WING")
    out = {name for name in found if name in foreign}
    for name in found - out:
        parts = name.split(".")
        for k in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
            prefix = ".".join(parts[:k])
            if module_file(prefix) is not None:
                out.add(prefix)
    return frozenset(out)


@lru_cache(maxsize=None)
def _closure(module: str, wings: _WingKey) -> frozenset[str]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        f = _file(mod, wings)
        if f is not None:
            todo.extend(_imports_with(f, wings) - seen)
    return frozenset(seen)


def _file(module: str, wings: _WingKey) -> Path | None:
    """The file of a schedbench module or of a wing module loaded from a file (else None)."""
    found = module_file(module)
    if found is None:
        path = dict(wings[1]).get(module)
        return Path(path) if path else None
    return found


def _foreign_file(module: str) -> Path | None:
    """The file of an already imported module outside the package (an out-of-tree plug-in)."""
    if module_file(module) is not None:
        return None
    path = getattr(sys.modules.get(module), "__file__", None)
    return Path(path).resolve() if path else None


def module_sources(*modules: str) -> list[str]:
    """Every schedbench file the given modules import, transitively (sorted paths); a module
    outside the package (an out-of-tree plug-in, already imported) adds its own file and the
    schedbench files it imports."""
    wings = _wing_key()
    foreign = [f for f in (_foreign_file(m) for m in modules) if f is not None]
    roots = [*modules, *(name for f in foreign for name in _imports_with(f, wings))]
    mods = set().union(*(_closure(m, wings) for m in roots)) if roots else set()
    files = {_file(m, wings) for m in mods}
    return sorted({str(f) for f in files if f is not None} | {str(f) for f in foreign})


def script_sources(script: str | Path, *extra_modules: str) -> list[str]:
    """The sources a workflow script depends on (plus ``extra_modules``, e.g. a plug-in)."""
    return module_sources(*sorted(_imports(Path(script))), *extra_modules)
