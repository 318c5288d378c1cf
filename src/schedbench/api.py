"""The Python API: run one online algorithm on an instance, or against an adaptive
adversary, through the one run path (:func:`schedbench.scheduling.play.execute`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from schedbench.hall.params import Param, ParameterError, check_value
from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import OptResult, solve_opt
from schedbench.scheduling.offline.result import oracle_value
from schedbench.scheduling.play import check_machine_count, execute
from schedbench.scheduling.record import RunRecord
from schedbench.scheduling.registry import get_adversary, get_algorithm

__all__ = ["RunResult", "run", "run_adversary", "ClaimedOptError", "RUN_WORK_LIMIT", "RUN_TIME_LIMIT"]

#: The limits of the OPT solve :func:`run` makes when no ``opt`` is given: small, so that an
#: interactive call on a large instance returns in seconds with a bound (``res.opt.status``)
#: rather than minutes with a proof; the caller raises them with ``work_limit``/``time_limit``.
RUN_WORK_LIMIT = 10.0
RUN_TIME_LIMIT = 60.0


class ClaimedOptError(ValueError):
    """An adversary's claimed OPT differs from the optimum the offline solver proves on the
    instance it realised (the pipeline refuses such a run at collect time; the API at once).
    ``result`` holds the run, for inspection."""

    def __init__(self, message: str, result: "RunResult") -> None:
        super().__init__(message)
        self.result = result


@dataclass
class RunResult(RunRecord):
    """A validated online run: the run's :class:`~schedbench.scheduling.record.RunRecord`
    plus the offline OPT it is compared with. ``valid`` is False for an illegal or
    over-budget outcome.

    ``instance`` is the instance played (for an adversary, the realised one, whose ``meta``
    names the adversary, its parameters, the algorithm, the seed and the claimed OPT);
    ``claimed_opt`` is the adversary's constructed OPT (None for a given instance)."""

    opt: OptResult | None = field(default=None, metadata={"column": False})

    @property
    def ratio(self) -> float:
        """objective / OPT (or / its lower bound when OPT is not proven; see ``opt.status``)."""
        if self.opt is None:
            return math.nan
        den = self.opt.denominator
        return self.objective / den if den > 0 else math.nan

    @classmethod
    def of(cls, record: RunRecord, opt: OptResult | None) -> "RunResult":
        """``record`` compared with ``opt``."""
        return cls(**{f.name: getattr(record, f.name) for f in fields(record)}, opt=opt)


def _cls(algorithm: str | type[OnlineAlgorithm], func: str = "run") -> type[OnlineAlgorithm]:
    if isinstance(algorithm, str):
        return get_algorithm(algorithm)
    if isinstance(algorithm, type) and issubclass(algorithm, OnlineAlgorithm):
        return algorithm
    raise ParameterError(
        f"{func}: algorithm must be a registered name or an OnlineAlgorithm subclass, got {algorithm!r}"
    )


def _args(func: str, seed: Any, time_limit: Any, **dicts: Any) -> tuple[int, float]:
    """The common arguments of the run functions, checked before any work: a ParameterError
    naming the function and the argument (numpy scalars accepted)."""
    seed = check_value(func, "seed", Param(type=int, min=0, nullable=False), seed, ParameterError)
    time_limit = check_value(
        func, "time_limit", Param(type=float, min=0, min_open=True, nullable=False), time_limit, ParameterError
    )
    for name, value in dicts.items():
        if value is not None and not isinstance(value, Mapping):
            raise ParameterError(f"{func}: {name} must be a dict of parameter names to values, got {value!r}")
    return seed, time_limit


def run(
    algorithm: str | type[OnlineAlgorithm],
    instance: Instance,
    eps: float | None = None,
    seed: int = 0,
    opt: OptResult | float | None = None,
    fast: bool = True,
    time_limit: float = RUN_TIME_LIMIT,
    problem: str | None = None,
    work_limit: float | None = RUN_WORK_LIMIT,
    solve: bool = True,
    **params,
) -> RunResult:
    """Run ``algorithm`` (a registered name or class) on ``instance`` and validate the outcome.

    ``eps`` is the rejection fraction (rejection model) or the extra speed (speed model); a
    plain algorithm takes none. ``fast=False`` forces the step path. ``problem``: one of the
    problems the algorithm solves (default: its own).

    OPT is treated alike for every problem: ``opt`` (an :class:`OptResult`) is the offline
    optimum the ratio divides by; without it, and with ``solve`` (default), the suite's offline
    solver computes it (:func:`~schedbench.scheduling.offline.solve_opt`) within ``work_limit``
    (deterministic units) and ``time_limit`` (a wall-clock safety net), small by default
    (:data:`RUN_WORK_LIMIT`, :data:`RUN_TIME_LIMIT`); ``res.opt.status`` says whether it is
    proven ("optimal") or a bound. An algorithm that assumes T* receives it. A number as
    ``opt`` is T* for such an algorithm only (``res.opt`` stays None); ``solve=False`` skips
    the solve unless the algorithm needs T*.
    """
    cls = _cls(algorithm)
    if not isinstance(instance, Instance):
        raise ParameterError(f"run: instance must be a schedbench Instance, got {type(instance).__name__}")
    seed, time_limit = _args("run", seed, time_limit)
    work_limit = check_value(
        "run", "work_limit", Param(type=float, min=0, min_open=True, nullable=True), work_limit, ParameterError
    )
    if not isinstance(solve, bool):
        raise ParameterError(f"run: solve must be True or False, got {solve!r}")
    problem = cls.check_problem(problem)
    wants_oracle = cls.uses_oracle(cls.resolve_params(params))
    check_machine_count(instance.m)
    if opt is None and (solve or wants_oracle):
        opt = solve_opt(instance, problem, time_limit=time_limit, work_limit=work_limit)
    oracle = oracle_value(opt) if (opt is not None and wants_oracle) else None
    record = execute(cls, instance, eps=eps, seed=seed, params=params, oracle=oracle, fast=fast, problem=problem)
    return RunResult.of(record, opt if isinstance(opt, OptResult) else None)


def run_adversary(
    adversary: str | type[Adversary],
    algorithm: str | type[OnlineAlgorithm],
    eps: float | None = None,
    seed: int = 0,
    adversary_params: dict | None = None,
    algorithm_params: dict | None = None,
    solve: bool = True,
    time_limit: float = DEFAULT_TIME_LIMIT,
    work_limit: float | None = DEFAULT_WORK_LIMIT,
) -> RunResult:
    """Play ``adversary`` against ``algorithm`` through the engine and validate the outcome.

    The adversary chooses each batch of jobs from the algorithm's earlier decisions; the
    realised instance is ``result.instance`` (its ``meta`` records adversary, parameters,
    algorithm, seed and claimed OPT). With ``solve`` (default) the offline solver computes OPT
    of the realised instance (``result.opt``; ``result.ratio`` divides by it) so that it can be
    compared with ``claimed_opt``: a claim that differs from a proven optimum raises
    :class:`ClaimedOptError` (the result is on the exception), as the pipeline refuses such a run.
    Algorithms that assume T* receive the adversary's claim. ``work_limit`` and ``time_limit``
    are those of the OPT solve (:func:`~schedbench.scheduling.offline.solve_opt`).
    """
    if isinstance(adversary, str):
        adv_cls = get_adversary(adversary)
    elif isinstance(adversary, type) and issubclass(adversary, Adversary):
        adv_cls = adversary
    else:
        raise ParameterError(
            f"run_adversary: adversary must be a registered name or an Adversary subclass, got {adversary!r}"
        )
    cls = _cls(algorithm, "run_adversary")
    seed, time_limit = _args(
        "run_adversary", seed, time_limit, adversary_params=adversary_params, algorithm_params=algorithm_params
    )
    adv = adv_cls(eps=eps, seed=seed, **(adversary_params or {}))
    record = execute(cls, adv, eps=eps, seed=seed, params=algorithm_params or {})
    opt = solve_opt(record.instance, record.problem, time_limit=time_limit, work_limit=work_limit) if solve else None
    result = RunResult.of(record, opt)
    claim = record.claimed_opt
    if opt is not None and opt.status == "optimal" and claim is not None and not math.isnan(claim):
        if abs(claim - opt.value) > 1e-9 * max(1.0, abs(opt.value)):
            raise ClaimedOptError(
                f"adversary {adv_cls.name!r} claims OPT = {claim} but the offline solver proves OPT = "
                f"{opt.value} on the instance it realised against {cls.name!r} (eps={eps}, seed={seed}); "
                "the adversary's construction or its claim is wrong",
                result,
            )
    return result
