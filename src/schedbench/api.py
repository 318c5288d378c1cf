"""The Python API: run one online algorithm on one instance and validate the outcome."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from schedbench.scheduling.algorithms.base import OnlineAlgorithm, ParameterError
from schedbench.scheduling.engine import simulate_dispatch
from schedbench.scheduling.model import Instance, Outcome
from schedbench.scheduling.offline import OptResult, opt_makespan
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.validate import validate_dispatch

__all__ = ["RunResult", "run", "oracle_value"]


@dataclass
class RunResult:
    """A validated online run. ``valid`` is False for an illegal or over-budget outcome."""

    algorithm: str
    eps: float | None
    params: dict
    objective: float
    rejected_frac: float
    rejected_frac_max_prefix: float
    budget_violations: int
    valid: bool
    status: str
    errors: list[str]
    seconds: float
    outcome: Outcome = field(repr=False)
    opt: OptResult | None = None

    @property
    def ratio(self) -> float:
        """objective / OPT (or / its lower bound when OPT is not proven; see ``opt.status``)."""
        if self.opt is None:
            return math.nan
        den = self.opt.denominator
        return self.objective / den if den > 0 else math.nan


def oracle_value(opt: OptResult | float) -> float:
    """The T* handed to algorithms that assume it: the proven OPT, else ⌈lower bound⌉.

    With only a bound, T* may be underestimated, so a cap α·T* rejects more than the paper's
    analysis allows; such rows carry ``opt_status`` != ``optimal``.
    """
    if isinstance(opt, OptResult):
        return opt.value if opt.status == "optimal" else float(math.ceil(opt.lower_bound))
    return float(opt)


def run(algorithm: str | type[OnlineAlgorithm], instance: Instance, eps: float | None = None,
        seed: int = 0, opt: OptResult | float | None = None, fast: bool = True,
        time_limit: float = 60.0, **params) -> RunResult:
    """Run ``algorithm`` (a registered name or class) on ``instance`` and validate the outcome.

    ``eps`` is the rejection fraction (rejection model) or the extra speed (speed model); plain
    algorithms ignore it. ``opt`` is the offline optimum (an :class:`OptResult` or a number); it
    is computed with :func:`~schedbench.scheduling.offline.opt_makespan` when the algorithm needs T* and
    none is given. ``fast=False`` forces the step-by-step path.
    """
    cls = get_algorithm(algorithm) if isinstance(algorithm, str) else algorithm
    if cls.unit_sizes_only and not instance.unit_sizes:
        raise ParameterError(f"algorithm {cls.name!r} is defined for unit sizes only; this instance has sizes > 1")
    if opt is None and cls.needs_opt:
        opt = opt_makespan(instance, time_limit=time_limit)
    alg = cls(instance.m, eps=eps if cls.model != "plain" else None,
              opt=None if opt is None else oracle_value(opt), seed=seed, **params)
    outcome = simulate_dispatch(alg, instance, fast=fast)
    check = validate_dispatch(instance, outcome, alg.eps, cls.model)
    return RunResult(
        algorithm=cls.name, eps=alg.eps, params=dict(alg.params), objective=check.objective,
        rejected_frac=check.rejected_frac, rejected_frac_max_prefix=check.rejected_frac_max_prefix,
        budget_violations=check.budget_violations, valid=check.valid, status=check.status,
        errors=check.errors, seconds=outcome.seconds, outcome=outcome,
        opt=opt if isinstance(opt, OptResult) else None,
    )
