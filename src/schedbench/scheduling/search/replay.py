"""Replay a found instance through the real plug-in (:func:`~schedbench.scheduling.play.execute`)
and the real offline solver (:func:`~schedbench.scheduling.offline.solve_opt`), and check what a
search claims against them. A mismatch is a :class:`ReplayMismatch`: the model (or the plug-in,
or the solver) is wrong."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import solve_opt, trivial_bound
from schedbench.scheduling.offline.result import OptResult
from schedbench.scheduling.play import execute
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.record import RunRecord
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.search.result import ReplayMismatch, WorstCase

__all__ = ["Replay", "run_real", "check_claims", "replay_worst_case", "opt_inconsistency"]

TOL = 1e-9


@dataclass
class Replay:
    played: RunRecord
    opt: OptResult

    @property
    def objective(self) -> float:
        return float(self.played.validation.objective)

    @property
    def rejected_frac_max_prefix(self) -> float:
        return float(self.played.validation.rejected_frac_max_prefix)

    @property
    def ratio(self) -> float:
        return self.objective / self.opt.value if self.opt.value > 0 else math.nan


def opt_inconsistency(inst: Instance, problem: str, res: OptResult) -> str | None:
    """Why an "optimal" OPT cannot be right (below the solver's own lower bound, or below the
    trivial bound max(p_max, ⌈Σp/m⌉) of LoadBalancing), or None."""
    if res.status != "optimal":
        return None
    if res.value < res.lower_bound - TOL:
        return (
            f"the solver ({res.solver}) reports OPT {res.value} as optimal below its own lower bound {res.lower_bound}"
        )
    if get_problem(problem).objective == "max_load" and res.value < trivial_bound(inst) - TOL:
        return f"the solver ({res.solver}) reports OPT {res.value} below the trivial bound {trivial_bound(inst)}"
    return None


def run_real(
    algorithm: str,
    inst: Instance,
    eps: float | None,
    params: dict | None,
    oracle: float | None,
    problem: str | None = None,
    opt_time_limit: float = 60.0,
    run_seconds: float | None = None,
) -> Replay:
    """The real run and the real OPT of ``inst``. ``oracle`` (T*) is given to algorithms that use
    it; if None for such an algorithm, the instance's exact OPT is computed first and given.
    ``run_seconds``: a plug-in's run time limit (:func:`~schedbench.scheduling.play.execute`)."""
    cls = get_algorithm(algorithm)
    params = dict(params or {})
    problem = cls.check_problem(problem)
    optres = solve_opt(inst, problem, time_limit=opt_time_limit)
    why = opt_inconsistency(inst, problem, optres)
    if why:
        raise ReplayMismatch(f"{algorithm}: {why}")
    wants = cls.uses_oracle(cls.resolve_params(params))
    if wants and oracle is None:
        if optres.status != "optimal":
            raise ReplayMismatch(f"{algorithm}: OPT of the instance not proven ({optres.status}); no oracle to give")
        oracle = optres.value
    played = execute(
        cls, inst, eps=eps, params=params, oracle=oracle if wants else None, problem=problem, run_seconds=run_seconds
    )
    if played.validation.status == "invalid":
        raise ReplayMismatch(f"{algorithm}: the validator rejects the run: {played.validation.errors}")
    return Replay(played, optres)


def check_claims(
    rep: Replay,
    *,
    objective: float | None = None,
    opt_at_most: float | None = None,
    opt_equals: float | None = None,
    rejected_frac_max_prefix: float | None = None,
    machine: np.ndarray | None = None,
    what: str = "",
) -> None:
    """Raise :class:`ReplayMismatch` unless the real run and OPT agree with every given claim."""
    errors = []
    if machine is not None:
        got = np.asarray(rep.played.outcome.machine)
        want = np.asarray(machine)
        if got.shape != want.shape or np.any(got != want):
            diff = np.flatnonzero(got != want) if got.shape == want.shape else []
            j = int(diff[0]) if len(diff) else -1
            errors.append(
                f"decisions differ (first at job {j}: plug-in {got[j] if j >= 0 else got}, "
                f"claimed {want[j] if j >= 0 else want})"
            )
    if objective is not None and not math.isclose(rep.objective, objective, rel_tol=1e-9, abs_tol=1e-9):
        errors.append(f"objective: plug-in {rep.objective}, claimed {objective}")
    if rejected_frac_max_prefix is not None and not math.isclose(
        rep.rejected_frac_max_prefix, rejected_frac_max_prefix, rel_tol=1e-9, abs_tol=1e-9
    ):
        errors.append(
            f"worst prefix rejection: plug-in {rep.rejected_frac_max_prefix}, claimed {rejected_frac_max_prefix}"
        )
    if opt_at_most is not None or opt_equals is not None:
        if rep.opt.status != "optimal":
            errors.append(f"OPT not proven by the solver ({rep.opt.status})")
        if opt_at_most is not None and rep.opt.value > opt_at_most + TOL:
            errors.append(f"OPT {rep.opt.value} > claimed bound {opt_at_most}")
        if opt_equals is not None and not math.isclose(rep.opt.value, opt_equals):
            errors.append(f"OPT {rep.opt.value} != claimed {opt_equals}")
    if errors:
        raise ReplayMismatch(f"{what}: " + "; ".join(errors))


def replay_worst_case(wc: WorstCase) -> Replay:
    """Replay a stored :class:`WorstCase`: its objective, rejection fraction and OPT must be
    what it records (the golden test)."""
    rep = run_real(wc.algorithm, wc.instance, wc.eps, wc.params, wc.oracle, problem=wc.problem)
    check_claims(
        rep,
        objective=wc.objective,
        opt_equals=wc.opt,
        rejected_frac_max_prefix=wc.rejected_frac_max_prefix,
        what=wc.summary(),
    )
    return rep
