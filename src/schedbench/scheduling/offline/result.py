"""The offline-optimum contract."""

from __future__ import annotations

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
