"""Look up online algorithms, instance families and adversaries by name.

A plug-in registers itself with :func:`register_algorithm`, :func:`register_adversary` (class decorators) or
:func:`register_family`; the packages :mod:`schedbench.scheduling.algorithms`,
:mod:`schedbench.scheduling.instances` and :mod:`schedbench.scheduling.adversaries` import every module they contain, so adding one file is enough.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

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
    "UnknownNameError",
]

_ALGORITHMS: dict[str, type] = {}
_FAMILIES: dict[str, Any] = {}
_ADVERSARIES: dict[str, type] = {}
_LOADED = False


class UnknownNameError(KeyError):
    """No algorithm or family is registered under that name."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


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


def _check_parameters(kind: str, name: str, parameters: dict) -> None:
    """Every plug-in declares its parameters in the one vocabulary (:class:`schedbench.hall.params.Param`)."""
    for key, param in parameters.items():
        if not isinstance(param, Param):
            raise ValueError(
                f"{kind} {name!r}: parameter {key!r} must be declared as a schedbench.hall.params.Param, "
                f"not {type(param).__name__}"
            )


def register_algorithm(cls: type) -> type:
    """Class decorator: make an online algorithm available under ``cls.name``."""
    name = cls.name
    if name in _ALGORITHMS and _ALGORITHMS[name] is not cls:
        raise ValueError(f"algorithm name {name!r} registered twice")
    cls.check_declaration()
    _check_parameters("algorithm", name, cls.parameters)
    _ALGORITHMS[name] = cls
    return cls


def register_adversary(cls: type) -> type:
    """Class decorator: make an adaptive adversary available under ``cls.name``."""
    if cls.name in _ADVERSARIES and _ADVERSARIES[cls.name] is not cls:
        raise ValueError(f"adversary name {cls.name!r} registered twice")
    _check_parameters("adversary", cls.name, cls.parameters)
    _ADVERSARIES[cls.name] = cls
    return cls


def register_family(family: Any) -> Any:
    """Register an instance family object (see :mod:`schedbench.scheduling.instances.base`)."""
    if family.name in _FAMILIES and _FAMILIES[family.name] is not family:
        raise ValueError(f"family name {family.name!r} registered twice")
    _check_parameters("family", family.name, family.parameters)
    _FAMILIES[family.name] = family
    return family


def _lookup(table: dict, name: str, kind: str):
    _load_plugins()
    try:
        return table[name]
    except KeyError:
        known = ", ".join(sorted(table)) or "(none)"
        raise UnknownNameError(f"unknown {kind} {name!r}; registered: {known}") from None


def get_algorithm(name: str) -> type:
    return _lookup(_ALGORITHMS, name, "algorithm")


def get_family(name: str) -> Any:
    return _lookup(_FAMILIES, name, "instance family")


def get_adversary(name: str) -> type:
    return _lookup(_ADVERSARIES, name, "adversary")


def adversary_names() -> list[str]:
    _load_plugins()
    return sorted(_ADVERSARIES)


def algorithm_names() -> list[str]:
    _load_plugins()
    return sorted(_ALGORITHMS)


def family_names() -> list[str]:
    _load_plugins()
    return sorted(_FAMILIES)
