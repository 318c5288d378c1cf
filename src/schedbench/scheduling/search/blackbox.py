"""Black-box worst-case search for sizes beyond the exact models and for rules too rich
to model (``lb-general-reject``, the flow-time rejection algorithms, speed baselines, ...).

Simulated annealing with restarts over instances (jobs in arrival order: release, size, eligible
set, flow weight, rejection weight), seeded from the hand-made adversaries' realised instances (each adversary played against
this very algorithm) and from exact small worst cases. Every candidate is run through the real
plug-in (:func:`~schedbench.scheduling.play.execute`) and scored against its exact OPT
(:func:`~schedbench.scheduling.offline.solve_opt`; candidates whose OPT is not proven are
discarded, and so are those whose "optimal" OPT contradicts the solver's own lower bound or the
trivial bound — kept in ``extra["solver_errors"]`` for a report); algorithms that assume T* are
given that OPT. Moves: add, drop, duplicate or move a
job, toggle a machine of an eligible set, replace a set (a pair, a single machine, another job's
set), change a size, a release or (weighted problems) a weight, relabel machines (which changes
index ties).

Each algorithm is scored on the problem it is run for (``problem``; default: the first problem
it solves): LoadBalancing, MaxFlowTime, WtdMaxFlowTime (weights w_j on flow and budget),
GenWtdMaxFlowTime (w_j on flow, w^r_j on the budget) and max stretch — the offline solver is exact
on all five (docs/offline-optimum.md). Weights are drawn from :data:`WEIGHTS`; problems without
weights keep every weight 1 and never move one.

Deterministic given ``seed``: the trajectory depends on nothing but the seed, and the search
stops after ``max_evals`` evaluations or ``budget_seconds``, whichever comes first — so the
result is reproducible whenever ``max_evals`` is reached first.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from schedbench.hall.effort import work_clock
from schedbench.hall.params import Param, ParameterError, check_value
from schedbench.hall.progress import PREFIX, clock_text
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import solve_opt
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_adversary, get_algorithm
from schedbench.scheduling.search.exact import check_algorithm, check_objective, check_sizes, refused
from schedbench.scheduling.search.replay import check_claims, opt_inconsistency, run_real
from schedbench.scheduling.search.result import WorstCase
from schedbench.scheduling.search.starts import EXACT_PROBLEMS, default_seeds, exact_problem

__all__ = ["search_worst", "check_search_worst", "default_seeds", "exact_problem", "EXACT_PROBLEMS"]

Job = tuple[int, int, tuple[int, ...], float, float]  # (release, size, eligible (sorted), w_flow, w_reject)
#: The weights a weighted problem's moves choose from (powers of two: the weighted algorithms
#: round weights to classes of powers of two, docs/models/rejection-model.md §4).
WEIGHTS = (1.0, 2.0, 4.0, 8.0, 16.0)

_log = logging.getLogger(__name__)
REPORT_EVERY = 10.0  # seconds between progress lines in the log


def weighted_fields(problem: str) -> tuple[str, ...]:
    """The job weights that matter for ``problem`` (the ones the search moves)."""
    prob = get_problem(problem)
    fields = {"w_flow"} if prob.flow_weight == "w_flow" else set()
    fields |= {prob.budget_weight} if prob.budget_weight != "count" else set()
    return tuple(sorted(fields))


@dataclass
class _Eval:
    score: tuple
    objective: float
    opt: float
    rejfrac: float
    status: str
    n: int


class _Evaluator:
    def __init__(
        self,
        algorithm: str,
        eps,
        params: dict,
        problem: str,
        objective: str,
        opt_time_limit: float,
        run_seconds: float | None = None,
    ) -> None:
        self.cls = get_algorithm(algorithm)
        self.run_seconds = run_seconds
        self.algorithm, self.eps, self.params, self.problem = algorithm, eps, dict(params), problem
        self.objective, self.opt_time_limit = objective, opt_time_limit
        self.weighted = bool(weighted_fields(problem))
        self.wants_oracle = self.cls.uses_oracle(self.cls.resolve_params(self.params))
        self.cache: dict = {}
        self.evals = self.discarded = 0
        self.invalid: list[str] = []
        self.solver_errors: list[dict] = []

    def __call__(self, m: int, jobs: Sequence[Job]) -> _Eval | None:
        key = (m, tuple(jobs))
        if key in self.cache:
            return self.cache[key]
        self.evals += 1
        res = self._run(m, jobs)
        self.cache[key] = res
        return res

    def _run(self, m: int, jobs: Sequence[Job]) -> _Eval | None:
        if not jobs:
            return None
        inst = to_instance(m, jobs, weighted=self.weighted)
        opt = solve_opt(inst, self.problem, time_limit=self.opt_time_limit)
        why = opt_inconsistency(inst, self.problem, opt)
        if why:  # a wrong "optimal" OPT would fake a huge ratio: keep the instance for a report
            if len(self.solver_errors) < 5:
                self.solver_errors.append(
                    {"why": why, "m": m, "jobs": [[j[0], j[1], list(j[2]), *j[3:]] for j in jobs]}
                )
            self.discarded += 1
            return None
        if opt.status != "optimal" or not opt.value > 0:
            self.discarded += 1
            return None
        played = execute(
            self.cls,
            inst,
            eps=self.eps,
            params=self.params,
            problem=self.problem,
            oracle=float(opt.value) if self.wants_oracle else None,
            run_seconds=self.run_seconds,
        )
        v = played.validation
        if v.status == "invalid":
            if len(self.invalid) < 5:
                self.invalid.append(f"{v.errors[:2]} on {jobs}")
            return None
        ratio = v.objective / opt.value
        rej = float(v.rejected_frac_max_prefix)
        score = (ratio, rej, -len(jobs)) if self.objective == "ratio" else (rej, ratio, -len(jobs))
        return _Eval(score, float(v.objective), float(opt.value), rej, v.status, len(jobs))


def to_instance(m: int, jobs: Sequence[Job], meta: dict | None = None, weighted: bool = False) -> Instance:
    """The instance of a candidate; with ``weighted`` its weights too (else the instance has none,
    as an unweighted family's)."""
    w_flow = [j[3] for j in jobs] if weighted else None
    w_reject = [j[4] for j in jobs] if weighted else None
    return Instance.from_lists(
        m,
        [j[0] for j in jobs],
        [j[1] for j in jobs],
        [list(j[2]) for j in jobs],
        w_flow=w_flow,
        w_reject=w_reject,
        meta=meta or {},
    )


def from_instance(inst: Instance) -> list[Job]:
    order = inst.arrival_order()
    w_flow = inst.w_flow if inst.w_flow is not None else np.ones(inst.n)
    w_reject = inst.w_reject if inst.w_reject is not None else np.ones(inst.n)
    return [
        (
            int(inst.release[j]),
            int(inst.size[j]),
            tuple(sorted(int(i) for i in inst.eligible(j))),
            float(w_flow[j]),
            float(w_reject[j]),
        )
        for j in order.tolist()
    ]


class _Mutator:
    def __init__(
        self,
        rng: np.random.Generator,
        m: int,
        n_max: int,
        sizes: tuple[int, ...],
        release_window: int,
        weights: tuple[str, ...] = (),
        n_min: int = 1,
    ) -> None:
        self.rng, self.m, self.n_max, self.sizes, self.R = rng, m, n_max, sizes, release_window
        self.n_min = max(1, n_min)  # a move never drops a candidate below this many jobs
        self.weights = weights  # the weight fields this problem moves ("w_flow", "w_reject")

    def _weight(self) -> float:
        return float(self.rng.choice(WEIGHTS)) if self.weights else 1.0

    def new_job(self, release: int, jobs: list[Job]) -> Job:
        """A job released at ``release`` with a drawn size, eligible set and weights."""
        w_flow = self._weight() if "w_flow" in self.weights else 1.0
        w_reject = self._weight() if "w_reject" in self.weights else 1.0
        return (release, int(self.rng.choice(self.sizes)), self._set(jobs), w_flow, w_reject)

    def _set(self, jobs: list[Job]) -> tuple[int, ...]:
        r, m = self.rng, self.m
        kind = r.integers(4)
        if kind == 0 or m == 1:
            return (int(r.integers(m)),)
        if kind == 1 or not jobs:
            a, b = r.choice(m, 2, replace=False)
            return tuple(sorted((int(a), int(b))))
        if kind == 2:
            k = int(r.integers(1, m + 1))
            return tuple(sorted(int(i) for i in r.choice(m, k, replace=False)))
        return jobs[int(r.integers(len(jobs)))][2]

    def mutate(self, jobs: list[Job]) -> list[Job]:
        r = self.rng
        jobs = list(jobs)
        for _ in range(int(r.integers(1, 4))):
            jobs = self._move(jobs)
        jobs.sort(key=lambda j: j[0])  # stable: arrival order kept within a release
        return jobs

    def _move(self, jobs: list[Job]) -> list[Job]:
        r, n = self.rng, len(jobs)
        move = int(r.integers(11 if self.weights else 10))
        if n == 0:
            move = 0
        if move == 0 and n < self.n_max:  # add a job
            rel = jobs[int(r.integers(n))][0] if n and r.random() < 0.7 else int(r.integers(self.R + 1))
            jobs.insert(int(r.integers(n + 1)), self.new_job(rel, jobs))
        elif move == 1 and n > self.n_min:  # drop a job
            jobs.pop(int(r.integers(n)))
        elif move == 2 and n < self.n_max:  # duplicate a job
            k = int(r.integers(n))
            jobs.insert(int(r.integers(k, n + 1)), jobs[k])
        elif move == 3 and n > 1:  # move a job in the arrival order
            job = jobs.pop(int(r.integers(n)))
            jobs.insert(int(r.integers(n)), job)
        elif move == 4:  # toggle a machine of a set
            k = int(r.integers(n))
            i = int(r.integers(self.m))
            new = tuple(sorted(set(jobs[k][2]) ^ {i}))
            if new:
                jobs[k] = (*jobs[k][:2], new, *jobs[k][3:])
        elif move == 5:  # replace a set
            k = int(r.integers(n))
            jobs[k] = (*jobs[k][:2], self._set(jobs), *jobs[k][3:])
        elif move == 6 and len(self.sizes) > 1:  # change a size
            k = int(r.integers(n))
            jobs[k] = (jobs[k][0], int(r.choice(self.sizes)), *jobs[k][2:])
        elif move == 7 and self.R > 0:  # change a release
            k = int(r.integers(n))
            rel = min(self.R, max(0, jobs[k][0] + int(r.choice((-2, -1, 1, 2)))))
            jobs[k] = (rel, *jobs[k][1:])
        elif move == 8 and self.m > 1:  # swap two machine labels (changes index ties)
            a, b = (int(v) for v in r.choice(self.m, 2, replace=False))
            swap = {a: b, b: a}
            jobs = [(j[0], j[1], tuple(sorted(swap.get(i, i) for i in j[2])), *j[3:]) for j in jobs]
        elif move == 9 and n > 1:  # swap two adjacent jobs
            k = int(r.integers(n - 1))
            jobs[k], jobs[k + 1] = jobs[k + 1], jobs[k]
        elif move == 10:  # change a weight (weighted problems)
            k = int(r.integers(n))
            field = 3 if self.weights[int(r.integers(len(self.weights)))] == "w_flow" else 4
            job = list(jobs[k])
            job[field] = self._weight()
            jobs[k] = tuple(job)
        return jobs


def pad_jobs(jobs: list[Job], min_jobs: int, problem: str) -> list[Job]:
    """``jobs`` repeated until there are at least ``min_jobs`` (the last copy cut short), each copy
    after the previous one in arrival order: on a flow problem released after the previous copy's
    jobs could all have finished (shifted by the last release plus the total size), so a copy
    meets an idle system; on LoadBalancing (releases only order the arrivals) shifted past the
    last release, the copies adding their load. Unchanged when long enough."""
    if len(jobs) >= min_jobs or not jobs:
        return list(jobs)
    last = max(j[0] for j in jobs)
    shift = last + 1 if problem == "load" else last + sum(j[1] for j in jobs) + 1
    out, k = list(jobs), 1
    while len(out) < min_jobs:
        out += [(j[0] + k * shift, *j[1:]) for j in jobs[: min_jobs - len(out)]]
        k += 1
    return out


def _seed_instances(
    algorithm: str,
    cls,
    m: int,
    eps,
    params: dict,
    problem: str,
    seeds_from: Iterable[Any],
    notes: list[str],
    run_seconds: float | None = None,
) -> list[tuple[str, Instance]]:
    out = []
    for item in seeds_from:
        label, inst = None, None
        try:
            if isinstance(item, Instance):
                label, inst = item.meta.get("label", f"instance n={item.n}"), item
            elif isinstance(item, WorstCase):
                label, inst = f"{item.method} {item.algorithm} m={item.m}", item.instance
            else:
                if isinstance(item, str):
                    item = (item, {})
                if isinstance(item, tuple):
                    name, aparams = item
                    adv = get_adversary(name)(eps=eps, **dict(aparams))
                else:
                    adv = item
                if not isinstance(adv, Adversary):
                    raise ParameterError(f"cannot seed from {item!r}")
                label = f"{adv.name} {dict(adv.params)}"
                if adv.problem != problem:
                    notes.append(f"seed {label}: builds {adv.problem} instances, not {problem}; skipped")
                    continue
                inst = execute(cls, adv, eps=eps, params=params, problem=problem, run_seconds=run_seconds).instance
        except (ParameterError, ValueError) as exc:
            notes.append(f"seed {label or item!r}: {exc}; skipped")
            continue
        if inst.m > m:
            notes.append(f"seed {label}: {inst.m} machines > m = {m}; skipped")
            continue
        if cls.unit_sizes_only and not inst.unit_sizes:
            notes.append(f"seed {label}: sizes > 1 for a unit-size algorithm; skipped")
            continue
        out.append((label, inst))
    return out


#: Largest instance a black-box candidate may have (jobs) and largest m: every evaluation runs
#: the algorithm and the exact offline solver on it, so one evaluation must stay well inside
#: ``budget_seconds`` (m = 2^20 took minutes per evaluation past a 30 s budget).
MAX_SEARCH_JOBS = 20_000
MAX_SEARCH_MACHINES = 4096


def _arg(name: str, value: Any, **rules: Any) -> Any:
    """One argument of search_worst checked by the parameter vocabulary (type, NaN, inf, range)."""
    try:
        return check_value("search_worst", name, Param(nullable=rules.pop("nullable", False), **rules), value)
    except ValueError as exc:
        raise refused(name, str(exc)) from None


def check_search_worst(
    algorithm: str,
    m: int,
    n: int | None = None,
    eps: float | None = None,
    params: dict[str, Any] | None = None,
    budget_seconds: float = 10.0,
    seed: int = 0,
    objective: str = "ratio",
    sizes: Sequence[int] | None = None,
    release_window: int | None = None,
    max_evals: int | None = None,
    problem: str | None = None,
    max_seed_jobs: int = 400,
    patience: int = 400,
    temperature: float = 0.2,
    opt_time_limit: float = 10.0,
    min_jobs: int = 1,
    run_seconds: float | None = None,
) -> dict[str, Any]:
    """The arguments of :func:`search_worst` checked before any evaluation (the config check of a
    search task calls it too): a ParameterError whose ``argument`` names the argument, else the
    normalised values (``sizes`` a sorted tuple or None, plus ``cls``, ``params``, ``problem``)."""
    if not isinstance(algorithm, str):
        raise refused("algorithm", f"search_worst: algorithm must be a registered name (a string), got {algorithm!r}")
    out: dict[str, Any] = {
        "m": _arg("m", m, type=int, min=1, max=MAX_SEARCH_MACHINES),
        "n": _arg("n", n, type=int, min=1, max=MAX_SEARCH_JOBS, nullable=True),
        "budget_seconds": _arg("budget_seconds", budget_seconds, type=float, min=0, min_open=True),
        "max_evals": _arg("max_evals", max_evals, type=int, min=1, nullable=True),
        "seed": _arg("seed", seed, type=int, min=0),
        "max_seed_jobs": _arg("max_seed_jobs", max_seed_jobs, type=int, min=1, max=MAX_SEARCH_JOBS),
        "patience": _arg("patience", patience, type=int, min=1),
        "temperature": _arg("temperature", temperature, type=float, min=0),
        "opt_time_limit": _arg("opt_time_limit", opt_time_limit, type=float, min=0, min_open=True),
        "release_window": _arg("release_window", release_window, type=int, min=0, nullable=True),
        "min_jobs": _arg("min_jobs", min_jobs, type=int, min=1, max=MAX_SEARCH_JOBS),
        "run_seconds": _arg("run_seconds", run_seconds, type=float, min=0, min_open=True, nullable=True),
    }
    if out["n"] is not None and out["min_jobs"] > out["n"]:
        raise refused("min_jobs", f"search_worst: min_jobs = {out['min_jobs']} exceeds n = {out['n']} (the most jobs)")
    # migratory classes run on instances only (adversary seeds are skipped)
    cls, params, _ = check_algorithm("search_worst", algorithm, params, eps)
    try:
        problem = cls.check_problem(problem) if problem is not None else exact_problem(cls)
    except ParameterError as exc:
        raise refused("problem" if problem is not None else "algorithm", str(exc)) from None
    if problem not in EXACT_PROBLEMS:
        raise refused("problem", f"problem {problem!r} has no exact OPT; the search scores {', '.join(EXACT_PROBLEMS)}")
    check_objective("search_worst", objective, algorithm, cls.model == "rejection")
    if sizes is not None:
        sizes = check_sizes("search_worst", sizes)
        if cls.unit_sizes_only and sizes != (1,):
            raise refused("sizes", f"{algorithm!r} is defined for unit sizes only; sizes={list(sizes)}")
    return {**out, "sizes": sizes, "cls": cls, "params": params, "problem": problem}


def search_worst(
    algorithm: str,
    m: int,
    n: int | None = None,
    eps: float | None = None,
    params: dict[str, Any] | None = None,
    budget_seconds: float = 10.0,
    seed: int = 0,
    seeds_from: Iterable[Any] | None = None,
    objective: str = "ratio",
    sizes: Sequence[int] | None = None,
    release_window: int | None = None,
    max_evals: int | None = None,
    problem: str | None = None,
    max_seed_jobs: int = 400,
    patience: int = 400,
    temperature: float = 0.2,
    opt_time_limit: float = 10.0,
    replay: bool = True,
    min_jobs: int = 1,
    run_seconds: float | None = None,
) -> WorstCase:
    """Black-box search for a bad instance of ``algorithm`` on ``m`` machines (see the module
    docstring). ``objective``: ``"ratio"`` (ALG/OPT) or ``"rejection"`` (worst prefix rejection
    fraction). ``seeds_from``: Instances, WorstCases, Adversary objects, adversary names or
    ``(name, params)`` pairs (default: :func:`default_seeds`); seeds larger than ``max_seed_jobs``
    jobs are skipped. ``n``: the most jobs a candidate may have (default: max(3m, largest seed)).
    ``sizes``: the sizes a move may choose (default: 1, 2, 4 and the seeds' sizes; 1 for unit-size
    algorithms); ``release_window``: the latest release a move may choose (flow problems; default:
    max(m, the seeds' latest release); 0 for LoadBalancing). ``min_jobs``: the fewest jobs a
    candidate may have — a seed with fewer is repeated (:func:`pad_jobs`) and no move drops below
    it, so a rejection budget of ε·``min_jobs`` jobs is really available. Returns a
    :class:`~.result.WorstCase` with ``proved=False``, ``bound=None``; ``extra`` holds the seeds'
    own scores (``seed_scores``: what each hand-made construction forces here) and
    ``beats_seeds``. ``run_seconds``: the wall-clock limit of each run of a plug-in algorithm
    or adversary (default :data:`~schedbench.hall.limits.PLUGIN_RUN_SECONDS`; the pipeline passes
    the config's ``plugin_time_limit``): a run past it ends the search with a
    :class:`~schedbench.scheduling.play.RunTimeLimitError` naming the plug-in."""
    a = check_search_worst(
        algorithm,
        m,
        n=n,
        eps=eps,
        params=params,
        budget_seconds=budget_seconds,
        seed=seed,
        objective=objective,
        sizes=sizes,
        release_window=release_window,
        max_evals=max_evals,
        problem=problem,
        max_seed_jobs=max_seed_jobs,
        patience=patience,
        temperature=temperature,
        opt_time_limit=opt_time_limit,
        min_jobs=min_jobs,
        run_seconds=run_seconds,
    )
    m, n, budget_seconds, max_evals, seed = a["m"], a["n"], a["budget_seconds"], a["max_evals"], a["seed"]
    max_seed_jobs, patience, temperature = a["max_seed_jobs"], a["patience"], a["temperature"]
    opt_time_limit, release_window, sizes = a["opt_time_limit"], a["release_window"], a["sizes"]
    cls, params, problem, run_seconds = a["cls"], a["params"], a["problem"], a["run_seconds"]
    t0 = time.perf_counter()
    w0 = work_clock()  # the budget's clock: numba compile time excluded (hall/effort.py)
    rng = np.random.default_rng(seed)
    notes: list[str] = []
    if seeds_from is None:
        seeds_from = default_seeds(algorithm, m, eps, problem)
    seeds = _seed_instances(algorithm, cls, m, eps, params, problem, list(seeds_from), notes, run_seconds)
    kept = []
    for label, inst in seeds:
        if inst.n > max_seed_jobs:
            notes.append(f"seed {label}: {inst.n} jobs > max_seed_jobs = {max_seed_jobs}; skipped")
        else:
            kept.append((label, inst))
    seeds = kept
    min_jobs = a["min_jobs"]
    n_cap = n if n is not None else MAX_SEARCH_JOBS
    seed_jobs = [(label, pad_jobs(from_instance(inst), min_jobs, problem)[:n_cap]) for label, inst in seeds]
    if sizes is None:
        sizes = (1,) if cls.unit_sizes_only else tuple(sorted({1, 2, 4} | {j[1] for _, js in seed_jobs for j in js}))
    if release_window is None:
        release_window = 0 if problem == "load" else max([m] + [j[0] for _, js in seed_jobs for j in js])
    if n is None:
        n = min(MAX_SEARCH_JOBS, max([3 * m, min_jobs] + [len(js) for _, js in seed_jobs]))
    ev = _Evaluator(algorithm, eps, params, problem, objective, opt_time_limit, run_seconds)
    mut = _Mutator(rng, m, n, sizes, int(release_window), weighted_fields(problem), n_min=min_jobs)

    seed_scores, pool = {}, []
    for label, js in seed_jobs:
        res = ev(m, js)
        if res is not None:
            seed_scores[label] = {
                "ratio": res.objective / res.opt,
                "objective": res.objective,
                "opt": res.opt,
                "rejected_frac_max_prefix": res.rejfrac,
                "n": res.n,
            }
            pool.append((res, js))
    while not pool:  # nothing to start from: random instances
        js = sorted(
            [mut.new_job(int(rng.integers(release_window + 1)), []) for _ in range(max(1, m, min_jobs))],
            key=lambda j: j[0],
        )
        res = ev(m, js)
        if res is not None:
            pool.append((res, js))
    pool.sort(key=lambda t: t[0].score, reverse=True)
    best_res, best_jobs = pool[0]
    cur_res, cur_jobs = best_res, best_jobs
    k_since, temp, restarts, improvements = 0, temperature, 0, 0

    def out_of_budget() -> bool:
        return (max_evals is not None and ev.evals >= max_evals) or work_clock() - w0 >= budget_seconds

    def report() -> None:
        """A progress line: evaluations, the best score, and the time left (budget or evaluations)."""
        elapsed = time.perf_counter() - t0
        left = budget_seconds - (work_clock() - w0)
        if max_evals is not None and ev.evals:
            left = min(left, elapsed * (max_evals - ev.evals) / ev.evals)
        of = f"/{max_evals}" if max_evals is not None else ""
        best = best_res.objective / best_res.opt if objective == "ratio" else best_res.rejfrac
        _log.info(
            "%s%d%s evaluations, best %s %.4g, %d restarts, elapsed %s, ETA %s",
            PREFIX,
            ev.evals,
            of,
            objective,
            best,
            restarts,
            clock_text(elapsed),
            clock_text(max(left, 0.0)),
        )

    next_report = time.perf_counter() + REPORT_EVERY
    while not out_of_budget():
        if time.perf_counter() >= next_report:
            report()
            next_report = time.perf_counter() + REPORT_EVERY
        cand = mut.mutate(cur_jobs)
        res = ev(m, cand)
        k_since += 1
        if res is not None:
            delta = res.score[0] - cur_res.score[0]
            if res.score >= cur_res.score or rng.random() < math.exp(delta / max(temp, 1e-9)):
                cur_res, cur_jobs = res, cand
            if res.score > best_res.score:
                best_res, best_jobs = res, cand
                k_since = 0
                improvements += 1
        temp *= 0.995
        if k_since >= patience:  # restart: from the best, or from a seed
            restarts += 1
            k_since, temp = 0, temperature
            if rng.random() < 0.5 or len(pool) == 1:
                cur_res, cur_jobs = best_res, best_jobs
            else:
                cur_res, cur_jobs = pool[int(rng.integers(len(pool)))]

    report()
    inst = to_instance(
        m,
        best_jobs,
        meta={
            "generator": "worst-case search (black-box)",
            "algorithm": algorithm,
            "eps": eps,
            "algorithm_params": params,
            "seed": int(seed),
            "objective_kind": objective,
        },
        weighted=ev.weighted,
    )
    oracle = best_res.opt if ev.wants_oracle else None
    if replay:
        rep = run_real(algorithm, inst, eps, params, oracle, problem=problem, run_seconds=run_seconds)
        check_claims(
            rep,
            objective=best_res.objective,
            opt_equals=best_res.opt,
            rejected_frac_max_prefix=best_res.rejfrac,
            what=f"black-box search of {algorithm}",
        )
    best_seed = max(
        seed_scores.values(),
        key=lambda s: s["ratio" if objective == "ratio" else "rejected_frac_max_prefix"],
        default=None,
    )
    key = "ratio" if objective == "ratio" else "rejected_frac_max_prefix"
    value = best_res.objective / best_res.opt if objective == "ratio" else best_res.rejfrac
    return WorstCase(
        algorithm=algorithm,
        problem=problem,
        m=m,
        n=len(best_jobs),
        eps=eps,
        params=params,
        objective_kind=objective,
        instance=inst,
        objective=best_res.objective,
        opt=best_res.opt,
        rejected_frac_max_prefix=best_res.rejfrac,
        value=value,
        bound=None,
        proved=False,
        status="best-found",
        method="black-box",
        seconds=time.perf_counter() - t0,
        oracle=oracle,
        space={
            "m": m,
            "n": n,
            "min_jobs": min_jobs,
            "sizes": list(sizes),
            "release_window": int(release_window),
            "opt": best_res.opt,
        },
        budget_violated=best_res.status == "budget_violated",
        replayed=replay,
        extra={
            "evals": ev.evals,
            "discarded": ev.discarded,
            "restarts": restarts,
            "improvements": improvements,
            "seed": int(seed),
            "max_evals": max_evals,
            "budget_seconds": budget_seconds,
            "seed_scores": seed_scores,
            "beats_seeds": best_seed is not None and value > best_seed[key] + 1e-9,
            "invalid_runs": ev.invalid,
            "solver_errors": ev.solver_errors,
            "notes": notes,
        },
    )
