"""The offline-optimum contract."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any


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
    #: what proves ``lower_bound`` when OPT is not proven, in words a reader can check (the
    #: counting bound's jobs, machines, window and work; or the solver's proof); "" when optimal
    witness: str = ""

    @property
    def denominator(self) -> float:
        """What a ratio divides by: OPT if proven, else the lower bound (ratio overstated)."""
        return self.value if self.status == "optimal" else self.lower_bound

    @property
    def gap(self) -> float:
        """(value − lower bound)/value when OPT is not proven and a schedule is known; 0 when
        optimal; nan without a schedule."""
        if self.status == "optimal":
            return 0.0
        if not (math.isfinite(self.value) and self.value > 0):
            return math.nan
        return (self.value - self.lower_bound) / self.value

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


#: Entries of per-machine arrays an offline solver may keep per machine (loads, heaps, the
#: bounds' per-machine volumes); times m, bounded by ``hall.arguments.MAX_CELLS`` (m <= 6.25e6).
PER_MACHINE_SOLVER = 16


def check_solve_arguments(
    func: str, inst: Any, time_limit: Any, seed: Any, work_limit: Any, error: type[ValueError], finite_time: bool = True
) -> None:
    """The arguments every offline solver takes, checked before any work, each error naming its
    argument: an Instance whose machines fit the solvers' per-machine arrays
    (:data:`PER_MACHINE_SOLVER`), a time limit > 0 (finite unless ``finite_time`` is False), a
    seed in [0, 2^64) (the solvers take it modulo 2^31, :func:`solver_seed`), a work limit > 0
    or None."""
    from schedbench.hall.arguments import check_sizes
    from schedbench.hall.effort import work_limit_problem
    from schedbench.scheduling.model import Instance

    if not isinstance(inst, Instance):
        raise error(f"{func}: argument 'inst' must be a schedbench Instance, got {type(inst).__name__}")
    try:  # before the first per-machine array: a valid instance of 2^31 - 1 machines needs 16 GiB each
        check_sizes(func, "m", PER_MACHINE_SOLVER * float(inst.m), f"the per-machine arrays of {inst.m} machines")
    except ValueError as exc:
        raise error(str(exc)) from None
    number = isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool)
    number = number or (hasattr(time_limit, "dtype") and getattr(time_limit.dtype, "kind", "") in "iuf")
    if not number or not time_limit > 0 or (finite_time and not math.isfinite(time_limit)):
        what = "a finite number > 0" if finite_time else "a number > 0"
        raise error(f"argument 'time_limit' must be {what} (seconds), got {time_limit!r}")
    integer = isinstance(seed, int) and not isinstance(seed, bool)
    integer = integer or (hasattr(seed, "dtype") and getattr(seed.dtype, "kind", "") in "iu")
    if not integer or not 0 <= seed < 2**64:
        raise error(f"{func}: argument 'seed' must be an integer in [0, 2^64), got {seed!r}")
    if problem := work_limit_problem(work_limit):
        raise error(problem)


def solver_seed(seed: int) -> int:
    """The seed as HiGHS and CP-SAT take it (an int32 >= 0): HiGHS refuses a larger one with an
    error status and keeps its default, which made every pipeline seed above 2^31 a silent 0."""
    return int(seed) % 2**31
