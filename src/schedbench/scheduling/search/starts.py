"""Where the worst-case searches start: the problems whose optimum the offline solver proves
exactly (so a search can score a ratio), the problem an algorithm is scored on by default, and
the hand-made adversaries that fit a search's machines and problem (played against the
algorithm by the black-box search as its seeds, and by the exact search for its CP-SAT hint).
One module that both searches import (docs/worst-case-search.md)."""

from __future__ import annotations

import math

from schedbench.hall.params import ParameterError
from schedbench.scheduling.registry import get_algorithm

__all__ = ["EXACT_PROBLEMS", "exact_problem", "default_seeds"]

#: Problems whose OPT solve_opt proves exactly: where the black-box search can score a ratio.
EXACT_PROBLEMS = ("load", "maxflow", "wtdmaxflow", "genwtd", "stretch")


def exact_problem(cls) -> str:
    """The problem a search scores ``cls`` on by default: its default if the offline solver is
    exact there (every registered problem), else the first problem it solves that is."""
    for p in cls.solved_problems():
        if p in EXACT_PROBLEMS:
            return p
    raise ParameterError(
        f"algorithm {cls.name!r} solves {', '.join(cls.solved_problems())}: no exact OPT "
        f"(the search scores against an exact OPT: {', '.join(EXACT_PROBLEMS)})"
    )


def default_seeds(algorithm: str, m: int, eps: float | None = None, problem: str | None = None) -> list:
    """The hand-made adversaries that fit ``m`` machines and the algorithm's problem, as
    ``(name, params)`` pairs (played against the algorithm when the search starts)."""
    cls = get_algorithm(algorithm)
    problem = problem or exact_problem(cls)
    K = int(round(math.log2(m))) if m >= 2 else 0
    if 2**K != m:
        return []
    out: list = []
    if problem == "load":
        out += [("anr-tree", {"m": m}), ("lb-a", {"K": K, "T": 2})]
        if not cls.unit_sizes_only and K >= 1:
            out.append(("lb-b", {"K": K, "g": 2}))
    elif problem == "maxflow":
        out += [
            ("anr-flow", {"m": m, "T": 1}),
            ("anr-flow", {"m": m, "T": 2}),
            ("anr-flow", {"m": m, "T": 1, "streams": True}),
        ]
    elif problem == "wtdmaxflow" and K >= 1:  # the WtdMaxFlowTime stress families (unit weights)
        out.append(("pairing-streams", {"m": m, "T": 2}))
        if m >= 8:
            out.append(("section4", {"m": m, "horizon": 4 * m}))
    return out
