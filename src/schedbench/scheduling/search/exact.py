"""Exact worst cases for small sizes: a CP-SAT model whose variables are the instance
(eligible sets, sizes from a small set, releases in a small window, arrival order) and the
algorithm's decisions, constrained to follow its rule exactly, plus an assignment certifying
OPT ≤ T (and, when the algorithm is given T* = T, a witness that OPT ≥ T). The solver maximises
the algorithm's objective (``objective="ratio"``) or its worst prefix rejection fraction
(``objective="rejection"``, to hunt budget violations).

Every instance found is replayed through the real plug-in and the real offline solver
(:mod:`.replay`): decisions, objective, rejection fraction and OPT must match the model's claims,
else :class:`~.result.ReplayMismatch` is raised.

Example (the ANR bound, rediscovered and proved)::

    >>> wc = worst_case("greedy", m=4, opt=1)
    >>> wc.objective, wc.proved          # ⌈log₂ 4⌉ + 1
    (3.0, True)
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from ortools.sat.python import cp_model

from schedbench.hall.effort import cpsat_deterministic_time, work_clock
from schedbench.hall.params import Param, ParameterError, check_value
from schedbench.hall.progress import PREFIX, clock_text
from schedbench.scheduling.budget import floor_log2
from schedbench.scheduling.model import REJECT, Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_adversary, get_algorithm
from schedbench.scheduling.search.models import MODELS
from schedbench.scheduling.search.models._core import Builder, Space, solver_for
from schedbench.scheduling.search.replay import check_claims, run_real
from schedbench.scheduling.search.starts import default_seeds
from schedbench.scheduling.search.result import ReplayMismatch, WorstCase

#: CP-SAT workers at most (its parameter is an int32; more than the cores only adds overhead).
MAX_WORKERS = 1024

__all__ = ["worst_case", "check_worst_case", "exact_algorithms", "SearchFailed"]

_log = logging.getLogger(__name__)


class _ProgressLog(cp_model.CpSolverSolutionCallback):
    """A progress line per improving solution CP-SAT finds: the value so far (objective units of
    the ratio: ALG/T), the proven bound, the time used of the limit."""

    def __init__(self, scale: float, time_limit: float):
        super().__init__()
        self.scale, self.time_limit, self.count = scale, time_limit, 0

    def on_solution_callback(self) -> None:
        self.count += 1
        _log.info(
            "%ssolution %d: value %.4g, bound %.4g, elapsed %s of a %s limit",
            PREFIX,
            self.count,
            self.objective_value / self.scale,
            self.best_objective_bound / self.scale,
            clock_text(self.wall_time),
            clock_text(self.time_limit),
        )


_STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
    cp_model.MODEL_INVALID: "model_invalid",
    cp_model.UNKNOWN: "unknown",
}


class SearchFailed(RuntimeError):
    """The solver found no instance (infeasible space, or nothing within the time limit)."""


def exact_algorithms() -> list[str]:
    """The algorithms with an exact model."""
    return sorted(MODELS)


#: Largest search space the exact search builds a CP-SAT model for: jobs × machines (the model
#: has a decision per (job, machine) and per step; m = 400 with n = 400 spent minutes building
#: before the solver's time limit could start). The exact searches of config/search.yaml use
#: at most 16 × 48.
MAX_EXACT_CELLS = 4096


def _arg(func: str, name: str, value: Any, **rules: Any) -> Any:
    """One argument checked by the parameter vocabulary (type, NaN, inf, range): a
    ParameterError naming the function and the argument."""
    try:
        return check_value(func, name, Param(nullable=rules.pop("nullable", False), **rules), value, ParameterError)
    except ParameterError as exc:
        raise refused(name, str(exc)) from None


def refused(argument: str, message: str) -> ParameterError:
    """A ParameterError whose ``argument`` attribute names the argument it refuses (the config
    check of a search task reports it as that task's key)."""
    exc = ParameterError(message)
    exc.argument = argument
    return exc


@dataclass(frozen=True)
class WorstCaseArgs:
    """The arguments of :func:`worst_case`, checked and normalised (see :func:`check_worst_case`)."""

    m: int
    n: int
    opt: int
    time_limit: float
    work_limit: float | None
    seed: int
    sizes: tuple[int, ...]
    release_window: int
    max_eligible: int | None
    workers: int | None
    mod: Any
    cls: Any
    params: dict[str, Any]
    resolved: dict[str, Any]


def check_worst_case(
    algorithm: str,
    m: int,
    n: int | None = None,
    opt: int = 1,
    eps: float | None = None,
    time_limit: float = 60.0,
    objective: str = "ratio",
    params: dict[str, Any] | None = None,
    sizes: Sequence[int] = (1,),
    release_window: int = 0,
    max_eligible: int | None = None,
    workers: int | None = None,
    seed: int = 0,
    work_limit: float | None = None,
) -> WorstCaseArgs:
    """The arguments of :func:`worst_case` checked without building a model (the config check
    of a search task calls it too): a ParameterError whose ``argument`` names the argument."""
    if not isinstance(algorithm, str):
        raise refused("algorithm", f"worst_case: algorithm must be a registered name (a string), got {algorithm!r}")
    if algorithm not in MODELS:
        raise refused("algorithm", f"no exact model for {algorithm!r}; exact models: {', '.join(exact_algorithms())}")
    m = _arg("worst_case", "m", m, type=int, min=1)
    n = _arg("worst_case", "n", n, type=int, min=1, nullable=True)
    time_limit = _arg("worst_case", "time_limit", time_limit, type=float, min=0, min_open=True)
    work_limit = _arg("worst_case", "work_limit", work_limit, type=float, min=0, min_open=True, nullable=True)
    seed = _arg("worst_case", "seed", seed, type=int, min=0, max=2**31 - 1)  # CP-SAT's seed is an int32
    release_window = _arg("worst_case", "release_window", release_window, type=int, min=0)
    max_eligible = _arg("worst_case", "max_eligible", max_eligible, type=int, min=1, max=m, nullable=True)
    workers = _arg("worst_case", "workers", workers, type=int, min=1, max=MAX_WORKERS, nullable=True)
    sizes = check_sizes("worst_case", sizes)
    mod = MODELS[algorithm]
    cls, params, resolved = check_algorithm("worst_case", algorithm, params, eps)
    try:
        mod.check(eps, resolved)
    except ParameterError as exc:
        raise refused("params", str(exc)) from None
    check_objective("worst_case", objective, algorithm, mod.rejects)
    if mod.unit_only and sizes != (1,):
        raise refused("sizes", f"{algorithm!r} is defined for unit sizes only; sizes={list(sizes)}")
    if isinstance(opt, bool) or not isinstance(opt, (int, np.integer)) or opt < 1:
        raise refused("opt", f"opt must be an integer >= 1, got {opt!r}")
    opt = int(opt)
    if mod.problem == "load":
        release_window = 0
    elif sizes != (1,):
        raise refused("sizes", f"the flow-time models are for unit jobs; sizes={list(sizes)}")
    if n is None:
        if mod.problem == "load" and sizes == (1,):
            n = m * opt
        elif mod.problem == "maxflow":
            n = m * (release_window + opt)
        else:
            raise refused("n", "give n (the largest number of jobs) for sized instances")
    if n * m > MAX_EXACT_CELLS:
        raise refused(
            "n",
            f"worst_case: the space of {n} jobs on m = {m} machines ({n * m} job-machine pairs) is beyond "
            f"the exact search's limit of {MAX_EXACT_CELLS} (use search_worst, the black-box search, for larger m)",
        )
    return WorstCaseArgs(
        m=m,
        n=n,
        opt=opt,
        time_limit=time_limit,
        work_limit=work_limit,
        seed=seed,
        sizes=sizes,
        release_window=release_window,
        max_eligible=max_eligible,
        workers=workers,
        mod=mod,
        cls=cls,
        params=params,
        resolved=resolved,
    )


def check_sizes(func: str, sizes: Any) -> tuple[int, ...]:
    """``sizes`` of a search: a non-empty list of integers >= 1, as a sorted tuple without repeats."""
    wrong = refused("sizes", f"{func}: sizes must be a non-empty list of integers >= 1, got {sizes!r}")
    if isinstance(sizes, (str, bytes, dict)) or not hasattr(sizes, "__iter__") or not list(sizes):
        raise wrong
    try:
        return tuple(sorted(set(_arg(func, "sizes", x, type=int, min=1) for x in sizes)))
    except ParameterError:
        raise wrong from None


def check_objective(func: str, objective: Any, algorithm: str, rejects: bool) -> None:
    """``objective`` of a search: 'ratio', or 'rejection' for an algorithm that may reject."""
    if not isinstance(objective, str) or objective not in ("ratio", "rejection"):
        raise refused("objective", f"{func}: objective must be 'ratio' or 'rejection', got {objective!r}")
    if objective == "rejection" and not rejects:
        raise refused("objective", f"{algorithm!r} rejects nothing: objective='rejection' does not apply")


def check_algorithm(func: str, algorithm: str, params: Any, eps: Any) -> tuple[type, dict, dict]:
    """The algorithm class of a search, a copy of ``params`` (None: none) and those parameters
    resolved; a params that is not a dict, a refused parameter or an ``eps`` the algorithm's model
    does not take is a ParameterError naming that argument."""
    if params is not None and not isinstance(params, dict):
        raise refused("params", f"{func}: params must be a dict of the algorithm's parameters, got {params!r}")
    cls = get_algorithm(algorithm)
    params = dict(params or {})
    try:
        resolved = cls.resolve_params(params)
    except ParameterError as exc:
        raise refused("params", str(exc)) from None
    try:
        cls.check_eps(eps)
    except ParameterError as exc:
        raise refused("eps", str(exc)) from None
    return cls, params, resolved


def worst_case(
    algorithm: str,
    m: int,
    n: int | None = None,
    opt: int = 1,
    eps: float | None = None,
    time_limit: float = 60.0,
    objective: str = "ratio",
    params: dict[str, Any] | None = None,
    sizes: Sequence[int] = (1,),
    release_window: int = 0,
    max_eligible: int | None = None,
    exact_opt: bool | None = None,
    workers: int | None = None,
    seed: int = 0,
    replay: bool = True,
    log: bool = False,
    work_limit: float | None = None,
    symmetry: bool = True,
    hint: bool = True,
) -> WorstCase:
    """The worst instance of ``algorithm`` in a small space, found (and if ``proved``, certified)
    by CP-SAT.

    Space: ``m`` machines, at most ``n`` jobs (default: m·opt, all a unit-size instance with
    OPT ≤ opt can hold), sizes from ``sizes``, releases in ``0..release_window`` (flow problems;
    LoadBalancing ignores releases), |S_j| ≤ ``max_eligible``, any arrival order, and OPT ≤ ``opt``
    — OPT = ``opt`` exactly (``exact_opt``; always for algorithms given T*, which then receive
    T* = opt). ``objective``: ``"ratio"`` maximises the algorithm's objective (max load / max
    flow), ``"rejection"`` its worst prefix rejection fraction (rejection algorithms). ``eps``
    and ``params`` are the algorithm's (as for :func:`~schedbench.scheduling.play.execute`).

    Returns a :class:`~.result.WorstCase`: ``instance``, ``objective`` (the algorithm's value on
    it, from the real plug-in), ``opt`` (the real solver's), ``proved`` (no instance of the space
    is worse), ``bound`` (the solver's bound on the maximised value), ``status``.

    Limits: ``work_limit`` (CP-SAT deterministic time units, schedbench.hall.effort; ``None`` for
    none) and ``time_limit`` (seconds, wall clock). With ``workers=1`` and a work limit an
    unproved result is the same on every machine unless the clock stopped it first;
    ``extra["stopped_by"]`` says which limit ended an unproved search ("work" or "clock").

    Speed-ups that never change a proved value (docs/worst-case-search.md): ``symmetry``
    (default on) keeps only instances whose unused machines come last and only EDF-ordered OPT
    certificates (:meth:`Builder.break_symmetry`, ``Builder.edf_certificate``); ``hint``
    (default on) starts CP-SAT from the worst instance the hand-made adversaries realise against
    this algorithm inside the space, with the algorithm's own dispatch on it
    (``extra["hint"]`` names it, with what it forces). The hint's plays and optima take at most
    half of ``time_limit`` (they take well under a second; only a limit of about a second can cut
    them, and a clock-cut search is flagged as such anyway); CP-SAT gets the time left."""
    a = check_worst_case(
        algorithm,
        m,
        n=n,
        opt=opt,
        eps=eps,
        time_limit=time_limit,
        objective=objective,
        params=params,
        sizes=sizes,
        release_window=release_window,
        max_eligible=max_eligible,
        workers=workers,
        seed=seed,
        work_limit=work_limit,
    )
    m, n, opt, time_limit, work_limit, seed = a.m, a.n, a.opt, a.time_limit, a.work_limit, a.seed
    sizes, release_window, max_eligible, workers = a.sizes, a.release_window, a.max_eligible, a.workers
    mod, cls, params, resolved = a.mod, a.cls, a.params, a.resolved
    wants_oracle = cls.uses_oracle(resolved)
    exact_opt = bool(exact_opt) or wants_oracle
    space = Space(
        m=int(m),
        n=int(n),
        opt=int(opt),
        sizes=sizes,
        release_window=int(release_window),
        max_eligible=max_eligible,
        exact_opt=exact_opt,
    )

    t0 = time.perf_counter()
    w0 = work_clock()  # the time limit's clock: numba compile time excluded (hall/effort.py)
    b = Builder(space, mod.problem)
    b.edf_certificate = bool(symmetry)
    dec = mod.build(b, eps, resolved, space.opt)
    if mod.problem == "load":
        b.opt_upper_load()
        if exact_opt:
            b.opt_lower_load()
    else:
        b.opt_upper_flow()
        if exact_opt:
            b.opt_lower_flow()
    if symmetry:
        b.break_symmetry()
    # the hint's plays and optima count against the time limit: at most half of it goes to them
    hint_deadline = w0 + time_limit / 2
    hinted = (
        _adversary_hint(algorithm, cls, space, eps, params, wants_oracle, mod.problem, hint_deadline) if hint else None
    )
    if hinted is not None:
        b.hint_instance(hinted["release"], hinted["size"], hinted["eligible"])
        for j, i in enumerate(hinted["machine"]):
            for k in b.M:
                if not isinstance(dec.a[j][k], int):
                    b.md.add_hint(dec.a[j][k], k == i)
    scale = space.opt  # ratio units: objective / T
    if objective == "ratio":
        b.md.maximize(dec.alg_objective)
    else:
        score, scale = b.prefix_rejection_score(dec.rej)
        b.md.maximize(score)
    solver = solver_for(max(time_limit - (work_clock() - w0), 1e-3), workers, seed, log, work_limit)
    code = solver.solve(b.md, _ProgressLog(scale, time_limit))
    seconds = time.perf_counter() - t0
    status = _STATUS.get(code, str(code))
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        why = ""
        if code == cp_model.UNKNOWN:
            limit = (
                f"work_limit = {work_limit:g}"
                if _stopped_by(code, solver, work_limit) == "work"
                else f"time_limit = {time_limit:g} s"
            )
            why = f": its {limit} ran out before CP-SAT found one (raise it)"
        raise SearchFailed(f"{algorithm}: no instance found in {space.as_dict()} ({status}, {seconds:.1f}s){why}")

    inst, claim = _read(b, dec, space, solver, algorithm, eps, resolved, objective)
    value = solver.objective_value / scale
    bound = solver.best_objective_bound / scale
    oracle = float(space.opt) if wants_oracle else None
    rep = run_real(algorithm, inst, eps, params, oracle)
    if replay:
        check_claims(
            rep,
            objective=claim["objective"],
            machine=claim["machine"],
            rejected_frac_max_prefix=claim["rejected_frac_max_prefix"] if dec.rej is not None else None,
            opt_at_most=space.opt,
            opt_equals=space.opt if exact_opt else None,
            what=f"exact model of {algorithm} ({space.as_dict()})",
        )
        if not math.isclose(
            value,
            claim["objective"] / space.opt if objective == "ratio" else claim["rejected_frac_max_prefix"],
            rel_tol=1e-9,
            abs_tol=1e-9,
        ):
            raise ReplayMismatch(f"exact model of {algorithm}: solver objective {value} but its decisions give {claim}")
    v = rep.played.validation
    return WorstCase(
        algorithm=algorithm,
        problem=mod.problem,
        m=space.m,
        n=inst.n,
        eps=eps,
        params=params,
        objective_kind=objective,
        instance=inst,
        objective=rep.objective,
        opt=float(rep.opt.value),
        rejected_frac_max_prefix=rep.rejected_frac_max_prefix,
        value=value,
        bound=bound,
        proved=code == cp_model.OPTIMAL,
        status=status,
        method="cp-sat",
        seconds=seconds,
        oracle=oracle,
        space=space.as_dict(),
        budget_violated=v.status == "budget_violated",
        replayed=replay,
        extra={
            "time_limit": time_limit,
            "work_limit": work_limit,
            "stopped_by": _stopped_by(code, solver, work_limit),
            "workers": solver.parameters.num_workers,
            "seed": seed,
            "alg_params": dict(resolved),
            "symmetry": bool(symmetry),
            "hint": None if hinted is None else {"label": hinted["label"], "objective": hinted["objective"]},
            **{k: v_ for k, v_ in dec.extra.items()},
        },
    )


def _adversary_hint(
    algorithm: str, cls, space: Space, eps, params: dict, wants_oracle: bool, problem: str, deadline: float
):
    """The worst instance the hand-made adversaries realise against ``algorithm`` (those of the
    black-box search for the largest power of two ≤ m) that lies in the space — at most n jobs,
    its sizes, releases within the window, |S_j| ≤ max_eligible, OPT ≤ T (= T when exact) — with
    the algorithm's dispatch on it; None if there is none. No new adversary is tried after
    ``deadline`` (:func:`~schedbench.hall.effort.work_clock` seconds), and each optimum gets the time left until it."""
    from schedbench.scheduling.offline import solve_opt

    m2 = 1 << floor_log2(int(space.m))
    best = None
    for name, aparams in default_seeds(algorithm, m2, eps, problem):
        if work_clock() >= deadline:
            break
        try:
            adv = get_adversary(name)(eps=eps, **dict(aparams))
            inst = execute(cls, adv, eps=eps, params=params, problem=problem).instance
        except (ParameterError, ValueError):
            continue
        order = np.lexsort((np.arange(inst.n), inst.release))
        release = inst.release[order]
        eligible = [inst.eligible(int(j)).tolist() for j in order]
        fits = (
            inst.n <= space.n
            and set(inst.size.tolist()) <= set(space.sizes)
            and (problem == "load" or int(release[-1] - release[0]) <= int(space.release_window))
            and (space.max_eligible is None or max(len(e) for e in eligible) <= space.max_eligible)
        )
        if not fits:
            continue
        inst = Instance.from_lists(space.m, release.tolist(), inst.size[order].tolist(), eligible, meta={"label": name})
        opt = solve_opt(inst, problem, time_limit=max(min(10.0, deadline - work_clock()), 1e-3))
        if opt.status != "optimal" or opt.value > space.opt or (space.exact_opt and opt.value != space.opt):
            continue
        run = execute(
            cls, inst, eps=eps, params=params, oracle=float(space.opt) if wants_oracle else None, problem=problem
        )
        if run.status not in ("ok", "budget_violated"):
            continue
        if best is None or run.objective > best["objective"]:
            best = {
                "label": f"{name} {dict(aparams)}",
                "objective": float(run.objective),
                "release": release.tolist(),
                "size": inst.size.tolist(),
                "eligible": eligible,
                "machine": run.outcome.machine.tolist(),
            }
    return best


def _stopped_by(code, solver: cp_model.CpSolver, work_limit: float | None) -> str:
    """Which limit ended an unproved search: "work" (deterministic) or "clock"; "" if proved."""
    if code == cp_model.OPTIMAL:
        return ""
    spent = float(solver.response_proto.deterministic_time)
    given = math.inf if work_limit is None else cpsat_deterministic_time(work_limit)
    return "work" if spent >= 0.99 * given else "clock"


def _read(
    b: Builder, dec, space: Space, solver: cp_model.CpSolver, algorithm: str, eps, params: dict, objective: str
) -> tuple[Instance, dict]:
    """The instance and the model's claims (decisions, objective, rejection) from a solution."""
    val = lambda v: int(v) if isinstance(v, (int, np.integer)) else int(solver.value(v))  # noqa: E731
    jobs = [j for j in b.N if val(b.present[j])]
    release = [val(b.release[j]) for j in jobs]
    size = [val(b.size[j]) for j in jobs]
    eligible = [[i for i in b.M if val(b.x[j][i])] for j in jobs]
    machine, rej = [], []
    for j in jobs:
        on = [i for i in b.M if val(dec.a[j][i])]
        machine.append(on[0] if on else REJECT)
        rej.append(0 if dec.rej is None or dec.rej[j] is None else val(dec.rej[j]))
    if dec.kind == "load":
        obj = max(val(dec.state[space.n][i]) for i in b.M)
    else:
        obj = max(val(dec.state[j][machine[k]]) + 1 for k, j in enumerate(jobs) if machine[k] >= 0)
    cum = np.cumsum(rej)
    frac = float(max(cum[k] / (k + 1) for k in range(len(jobs))))
    meta = {
        "generator": "worst-case search (cp-sat)",
        "algorithm": algorithm,
        "eps": eps,
        "algorithm_params": dict(params),
        "space": space.as_dict(),
        "objective_kind": objective,
    }
    inst = Instance.from_lists(space.m, release, size, eligible, meta=meta)
    return inst, {
        "objective": float(obj),
        "machine": np.array(machine, dtype=np.int64),
        "rejected_frac_max_prefix": frac,
    }
