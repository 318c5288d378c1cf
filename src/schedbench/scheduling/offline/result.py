"""The offline-optimum contract."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class OptResult:
    """Result of an offline solve.

    ``value`` is the proven optimum when ``status == "optimal"``. Otherwise it is the best
    feasible value found (an upper bound on OPT; ``nan`` if none) and ``lower_bound`` is the best
    proven lower bound: ``status == "timeout"`` when the solver hit its time limit, ``"bound"``
    when only a bound was computed. Ratios built on a non-optimal OPT carry its status.
    """

    value: float
    status: str  # "optimal" | "bound" | "timeout"
    lower_bound: float
    solver: str
    seconds: float

    @property
    def denominator(self) -> float:
        """What a ratio divides by: OPT if proven, else the lower bound (ratio overstated)."""
        return self.value if self.status == "optimal" else self.lower_bound

    def as_dict(self) -> dict:
        return asdict(self)


def oracle_value(opt: OptResult | float) -> float:
    """The T* handed to algorithms that assume it: the proven OPT, else ⌈lower bound⌉.

    With only a bound, T* may be underestimated, so a cap α·T* rejects more than the paper's
    analysis allows; such rows carry ``opt_status`` != ``optimal``.
    """
    if isinstance(opt, OptResult):
        return opt.value if opt.status == "optimal" else float(math.ceil(opt.lower_bound))
    return float(opt)
