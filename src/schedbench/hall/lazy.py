"""Names a package loads on first use (PEP 562): ``schedbench``, a wing's package and its
stage list theirs in a literal ``_EXPORTS = {name: module}`` and set
``__getattr__ = lazy_getattr(__name__, _EXPORTS)``, so importing the package (or one room of a wing)
does not import every module behind its names. The job-source tracker reads the same literal
(:mod:`.sources`): a script that imports such a name depends on its module."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, exports: dict[str, str]) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: a name of ``exports`` is imported from its
    module on first use and kept in the package; any other name is an AttributeError."""

    def __getattr__(name: str):
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
