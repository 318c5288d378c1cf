"""The shared part of every exact worst-case model (CP-SAT): the instance as variables, the
least-loaded dispatch rule with index ties, the OPT certificates and the objectives.

Jobs are indexed by **arrival position** 0..n−1; a job may be absent (``present``), and the
absent ones come last (they change nothing, so any shorter instance is in the space). Releases
are non-decreasing in position, which is exactly the arrival order of the engine (release, ties
by array order), so an instance is read off the variables in position order.

Certificates (all for the searched value T of the space):

* **OPT ≤ T** — an explicit assignment: ``o[j][i]`` (LoadBalancing: machine sums ≤ T; MaxFlowTime,
  unit jobs: a slot s_j ∈ [r_j, r_j + T − 1] per job, no two jobs in one slot of one machine);
* **OPT ≥ T** (``exact_opt``: needed when the algorithm is given T* = T) — a Hall-type witness:
  a set M′ of machines and the jobs confined to it (S_j ⊆ M′) whose total size exceeds
  (T − 1)·|M′| (LoadBalancing; or a job of size ≥ T), resp. unit jobs confined to M′ and
  released in a window [lo, hi], more than |M′|·(hi − lo + T − 1) of them (MaxFlowTime: they
  cannot all finish within flow T − 1). These are sufficient conditions, so with ``exact_opt``
  the space is the instances whose OPT = T has such a witness (for unit LoadBalancing, every
  instance with OPT = T has one: Hall's theorem for b-matchings).
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from typing import Callable

from ortools.sat.python import cp_model

from schedbench.hall.effort import cpsat_deterministic_time
from schedbench.hall.params import ParameterError

__all__ = ["Space", "Builder", "Decisions", "ExactModel", "ORACLE_OPT"]


@dataclass(frozen=True)
class Space:
    """The searched instance space."""

    m: int
    n: int  # at most n jobs (at least ``min_jobs``)
    opt: int  # T: OPT ≤ T (and = T with ``exact_opt``)
    sizes: tuple[int, ...] = (1,)  # sizes a job may take
    release_window: int = 0  # releases in 0..release_window (flow problems only)
    max_eligible: int | None = None  # |S_j| ≤ this (None: m)
    min_jobs: int = 1
    exact_opt: bool = False

    def as_dict(self) -> dict:
        d = asdict(self)
        d["sizes"] = list(self.sizes)
        return d


@dataclass
class Decisions:
    """What an algorithm model exposes: per position the chosen machine ``c[j][i]``, the
    dispatch ``a[j][i]`` (chosen and accepted), the rejection ``rej[j]`` (None: never), the
    state each job saw ``state[j][i]`` (load or queue length) and how to read the model's claim
    of the algorithm's objective from solved values."""

    c: list
    a: list
    rej: list | None
    state: list  # state[j][i], j = 0..n (state[n]: after the last job)
    alg_objective: cp_model.IntVar  # the algorithm's objective (max load / max flow)
    kind: str  # "load" | "flow"
    extra: dict = field(default_factory=dict)


class Builder:
    """The instance variables and the shared constraints of one model."""

    def __init__(self, space: Space, problem: str) -> None:
        self.space, self.problem = space, problem
        self.md = md = cp_model.CpModel()
        m, n = space.m, space.n
        self.M, self.N = range(m), range(n)
        self.present = [md.new_bool_var(f"present{j}") for j in self.N]
        for j in range(min(space.min_jobs, n)):
            md.add(self.present[j] == 1)
        for j in range(1, n):
            md.add_implication(self.present[j], self.present[j - 1])
        self.x = [[md.new_bool_var(f"x{j}_{i}") for i in self.M] for j in self.N]
        for j in self.N:
            md.add(sum(self.x[j]) >= self.present[j])
            if space.max_eligible is not None:
                md.add(sum(self.x[j]) <= space.max_eligible)
            for i in self.M:
                md.add_implication(self.x[j][i], self.present[j])
        sizes = sorted(set(int(s) for s in space.sizes))
        if not sizes or sizes[0] < 1:
            raise ValueError(f"sizes must be integers >= 1, got {space.sizes!r}")
        self.smax = sizes[-1]
        self.unit = sizes == [1]
        if self.unit:
            self.size = [1 for _ in self.N]
        else:
            dom = cp_model.Domain.from_values(sizes)
            self.size = [md.new_int_var_from_domain(dom, f"p{j}") for j in self.N]
            for j in self.N:
                md.add(self.size[j] == sizes[0]).only_enforce_if(~self.present[j])
        R = int(space.release_window)
        if R <= 0:
            self.release = [0 for _ in self.N]
        else:
            self.release = [md.new_int_var(0, R, f"r{j}") for j in self.N]
            md.add(self.release[0] == 0)  # shifting every release changes nothing
            for j in range(1, n):
                md.add(self.release[j] >= self.release[j - 1])
                md.add(self.release[j] == self.release[j - 1]).only_enforce_if(~self.present[j])
        self.load_ub = n * self.smax
        self.symmetry_broken = False
        self.edf_certificate = False

    # ------------------------------------------------------------------ symmetry and hints
    def break_symmetry(self) -> None:
        """Machines used by no eligible set come last: ``used[i+1] → used[i]``. Valid for every
        model: renumbering the used machines onto 0..k−1 in their order keeps every index tie
        among them (the only way a rule sees an index), an unused machine is never chosen nor
        seen, and OPT does not depend on the numbering (its Hall witness may drop unused
        machines). So every instance of the space has a twin with the same objective, OPT and
        decisions that satisfies the constraint."""
        md = self.md
        used = []
        for i in self.M:
            u = md.new_bool_var(f"used{i}")
            md.add_max_equality(u, [self.x[j][i] for j in self.N])
            used.append(u)
        for i in range(len(used) - 1):
            md.add_implication(used[i + 1], used[i])
        self.symmetry_broken = True

    def hint_instance(self, release, size, eligible) -> None:
        """A solution hint: the instance (releases shifted to start at 0, sizes, eligible sets)
        in positions 0..len−1, the rest absent. CP-SAT starts its search from it and completes
        the decisions; a hint never changes what is proved."""
        md = self.md
        r0 = int(release[0]) if len(release) else 0
        for j in self.N:
            here = j < len(eligible)
            md.add_hint(self.present[j], here)
            for i in self.M:
                md.add_hint(self.x[j][i], here and i in eligible[j])
            if not self.unit:
                md.add_hint(self.size[j], int(size[j]) if here else min(self.space.sizes))
            if int(self.space.release_window) > 0:
                last = int(release[-1]) - r0 if len(release) else 0
                md.add_hint(self.release[j], int(release[j]) - r0 if here else last)

    # ------------------------------------------------------------------ helpers
    def inc(self, j: int, lit, name: str):
        """size_j if ``lit`` else 0 (a linear expression or a fresh variable)."""
        if self.unit:
            return lit
        v = self.md.new_int_var(0, self.smax, name)
        self.md.add(v == self.size[j]).only_enforce_if(lit)
        self.md.add(v == 0).only_enforce_if(~lit)
        return v

    def least(self, j: int, state: list, name: str = "c") -> list:
        """c[i]: job j goes to machine i = argmin over S_j of (state[i], i) (if present)."""
        md, x = self.md, self.x[j]
        c = [md.new_bool_var(f"{name}{j}_{i}") for i in self.M]
        md.add(sum(c) == self.present[j])
        for i in self.M:
            md.add_implication(c[i], x[i])
            for k in self.M:
                if k != i:
                    md.add(state[i] <= state[k] - (1 if k < i else 0)).only_enforce_if([c[i], x[k]])
        return c

    def and_(self, a, b, name: str):
        v = self.md.new_bool_var(name)
        self.md.add_bool_and([a, b]).only_enforce_if(v)
        self.md.add_bool_or([~a, ~b]).only_enforce_if(~v)
        return v

    def reify_ge(self, expr, value: int, name: str):
        """A literal b with b ⟺ expr ≥ value."""
        b = self.md.new_bool_var(name)
        self.md.add(expr >= value).only_enforce_if(b)
        self.md.add(expr <= value - 1).only_enforce_if(~b)
        return b

    def max_of(self, candidates: list, ub: int, name: str):
        """F = the largest value among the candidates (guard, expr) whose guard holds (a
        candidate whose guard fails counts 0; guard None: always counts); expressions ≥ 0."""
        md = self.md
        F = md.new_int_var(0, ub, name)
        vals = []
        for k, (guard, expr) in enumerate(candidates):
            if guard is None:
                vals.append(expr)
                continue
            v = md.new_int_var(0, ub, f"{name}_v{k}")
            md.add(v == expr).only_enforce_if(guard)
            md.add(v == 0).only_enforce_if(~guard)
            vals.append(v)
        md.add_max_equality(F, vals)
        return F

    # ------------------------------------------------------------------ OPT certificates
    def opt_upper_load(self) -> list:
        """An assignment of every present job with machine loads ≤ T."""
        md, T = self.md, self.space.opt
        o = [[md.new_bool_var(f"o{j}_{i}") for i in self.M] for j in self.N]
        for j in self.N:
            md.add(sum(o[j]) == self.present[j])
            for i in self.M:
                md.add_implication(o[j][i], self.x[j][i])
        for i in self.M:
            md.add(sum(self.inc(j, o[j][i], f"oi{j}_{i}") for j in self.N) <= T)
        self.o = o
        return o

    def opt_lower_load(self) -> None:
        """OPT ≥ T: a job of size ≥ T, or machines M′ with Σ size of jobs confined to M′ > (T−1)|M′|."""
        md, T = self.md, self.space.opt
        if T <= 1:
            return  # one present job suffices
        y = [md.new_bool_var(f"hy{i}") for i in self.M]
        z = [md.new_bool_var(f"hz{j}") for j in self.N]
        hall = md.new_bool_var("hall")
        for j in self.N:
            md.add_implication(z[j], self.present[j])
            for i in self.M:
                md.add_bool_or([~z[j], ~self.x[j][i], y[i]])  # z_j ∧ i ∈ S_j → i ∈ M′
        md.add(sum(self.inc(j, z[j], f"hzi{j}") for j in self.N) >= (T - 1) * sum(y) + 1).only_enforce_if(hall)
        alts = [hall]
        if not self.unit and self.smax >= T:
            for j in self.N:
                big = md.new_bool_var(f"big{j}")
                md.add(self.size[j] >= T).only_enforce_if(big)
                md.add_implication(big, self.present[j])
                alts.append(big)
        md.add_bool_or(alts)

    def opt_upper_flow(self) -> None:
        """Unit jobs: a machine and a slot s_j ∈ [r_j, r_j + T − 1] per present job, no two jobs
        in one slot of one machine (max flow ≤ T)."""
        md, T = self.md, self.space.opt
        horizon = int(self.space.release_window) + T
        o = [[md.new_bool_var(f"o{j}_{i}") for i in self.M] for j in self.N]
        s = [md.new_int_var(0, horizon, f"s{j}") for j in self.N]
        per_machine = [[] for _ in self.M]
        for j in self.N:
            md.add(sum(o[j]) == self.present[j])
            md.add(s[j] >= self.release[j])
            md.add(s[j] <= self.release[j] + T - 1)
            for i in self.M:
                md.add_implication(o[j][i], self.x[j][i])
                per_machine[i].append(md.new_optional_fixed_size_interval_var(s[j], 1, o[j][i], f"iv{j}_{i}"))
        for i in self.M:
            md.add_no_overlap(per_machine[i])
        if self.edf_certificate:
            # EDF order on each machine: j < k (so r_j ≤ r_k and the same window length T) run in
            # position order. Any certificate becomes one by swapping slots (both stay in their
            # windows), so this removes only the certificate's own symmetric copies.
            for i in self.M:
                for k in self.N:
                    for j in range(k):
                        md.add(s[j] < s[k]).only_enforce_if([o[j][i], o[k][i]])
        self.o, self.o_slot = o, s

    def opt_lower_flow(self) -> None:
        """OPT ≥ T (unit jobs): machines M′ and a release window [lo, hi] with more jobs confined
        to M′ and released in it than |M′|·(hi − lo + T − 1) slots."""
        md, T = self.md, self.space.opt
        if T <= 1:
            return
        R = int(self.space.release_window)
        y = [md.new_bool_var(f"hy{i}") for i in self.M]
        z = [md.new_bool_var(f"hz{j}") for j in self.N]
        lo, hi = md.new_int_var(0, R, "hlo"), md.new_int_var(0, R, "hhi")
        md.add(lo <= hi)
        for j in self.N:
            md.add_implication(z[j], self.present[j])
            md.add(self.release[j] >= lo).only_enforce_if(z[j])
            md.add(self.release[j] <= hi).only_enforce_if(z[j])
            for i in self.M:
                md.add_bool_or([~z[j], ~self.x[j][i], y[i]])
        ny = md.new_int_var(1, len(self.M), "hny")
        md.add(ny == sum(y))
        width = md.new_int_var(T - 1, R + T - 1, "hwidth")
        md.add(width == hi - lo + T - 1)
        slots = md.new_int_var(0, len(self.M) * (R + T - 1), "hslots")
        md.add_multiplication_equality(slots, [ny, width])
        md.add(sum(z) >= slots + 1)

    # ------------------------------------------------------------------ objectives
    def prefix_rejection_score(self, rej: list):
        """(F, L): F/L = max over prefixes ℓ of (#rejected among the first ℓ)/ℓ when maximised.
        Prefixes are arrival positions (the validator's steps); a prefix ending at an absent
        position only under-counts, so every ℓ may be a candidate."""
        n = len(rej)
        L = math.lcm(*range(1, n + 1))
        cands, cum = [], 0
        for ell in range(1, n + 1):
            cum = cum + rej[ell - 1]
            cands.append((self.present[ell - 1], (L // ell) * cum))
        return self.max_of(cands, L, "rejscore"), L


#: ``ExactModel.follows`` of the models built with the oracle T = T* only.
ORACLE_OPT = {"oracle": ("opt", "oracle='opt' (T = T*)")}


@dataclass(frozen=True)
class ExactModel:
    """One algorithm's exact model: its registered name, the problem it is built for (``load``
    or ``maxflow``), whether it takes unit sizes only and may reject, ``build(builder, eps,
    params, T) -> Decisions``, and the parameter settings the model follows (``follows``:
    {name: (value, what it means)}; any other value of the parameter is refused)."""

    algorithm: str
    problem: str
    unit_only: bool
    rejects: bool
    build: Callable
    follows: dict = field(default_factory=dict)

    def check(self, eps, params: dict) -> None:
        """Refuse (:class:`ParameterError`) a parameter value the model does not follow."""
        for key, (value, meaning) in self.follows.items():
            if params.get(key, value) != value:
                raise ParameterError(f"the exact model of {self.algorithm!r} follows {meaning} only")


def solver_for(
    time_limit: float, workers: int | None, seed: int, log: bool, work_limit: float | None = None
) -> cp_model.CpSolver:
    """A CP-SAT solver: ``work_limit`` in deterministic time units (schedbench.hall.effort; with
    one worker the result is the same on every machine), ``time_limit`` seconds of wall clock."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    if work_limit is not None:
        solver.parameters.max_deterministic_time = cpsat_deterministic_time(float(work_limit))
    solver.parameters.num_workers = int(workers or min(8, os.cpu_count() or 1))
    solver.parameters.random_seed = int(seed)
    solver.parameters.log_search_progress = bool(log)
    return solver
