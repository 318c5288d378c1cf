"""Config values as the paper's macros write them: a number (:func:`tex_number`), a set of
numbers (:func:`tex_set`) or of ε values (:func:`tex_eps_set`). The wings' paper macros use
them (:attr:`schedbench.hall.wing.Wing.paper_macros`)."""

from __future__ import annotations

import math

from schedbench.hall.latex import eps_text

__all__ = ["tex_eps_set", "tex_number", "tex_set"]


def tex_number(x) -> str:
    """A number as LaTeX text: integers plain, powers of ten ≥ 1000 as 10^{k}, others %g. Math is
    wrapped in \\ensuremath, so the macro reads the same in text and inside $...$ (the prose uses
    both: ``over $n\\ge\\LossFitMinN$``)."""
    x = float(x)
    if x.is_integer():
        k = math.log10(x) if x > 0 else 0
        if x >= 1000 and float(k).is_integer():
            return f"\\ensuremath{{10^{{{int(k)}}}}}"
        return f"{int(x)}"
    return f"{x:g}"


def tex_set(values, fmt=lambda v: f"{v:g}") -> str:
    """A set of numbers as LaTeX: {1, 2, 4} in \\ensuremath, or -- when empty."""
    values = sorted({float(v) for v in values})
    return "\\ensuremath{\\{" + ", ".join(fmt(v) for v in values) + "\\}}" if values else "--"


def tex_eps_set(values) -> str:
    """A set of ε values as a reader writes them: {1/32, 1/16, 1/8} (:func:`~schedbench.hall.latex.eps_text`)."""
    return tex_set(values, eps_text)
