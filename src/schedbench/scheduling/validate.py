"""Independent checker of online outcomes: it imports the model and the problem table (data)
only — no algorithm, no engine — and replays what the outcome claims.

Rules, each with a planted-fault test in ``tests/unit/test_validate.py``:

* **shape**: every per-job array has one entry per job; indices are integers; steps are
  numbered 0..S−1 with non-decreasing integer slots; the speed is the model's (1 + ε for the
  speed model, else 1), not whatever the outcome claims;
* **arrival**: jobs arrive in instance order (release, ties by index), one step each, at the
  slot of their release;
* **decisions**: a dispatch is to an eligible machine, at or after arrival (at arrival unless
  the algorithm declares deferred dispatch); every job is dispatched or rejected; a rejection
  is at or after arrival and dispatch; a dispatched job is rejected only by an algorithm that
  declares late rejection; algorithms outside the rejection model reject nothing;
* **trace** (flow-time problems; LoadBalancing has none): work only on the machine the job
  was dispatched to (no migration, no work on an undispatched job) — or, for an algorithm that
  declares ``migratory`` (outside the model, e.g. global EDF), only on machines of the job's
  eligible set and never on two machines at the same time (a job's own intervals do not
  overlap), still no work on an undispatched job; not before release or dispatch, not after
  rejection; at most ``speed``
  units per machine per unit of time (intervals on a machine do not overlap, each at rate
  ≤ speed); a completed job got exactly its size and completes at the end of its last
  interval; a rejected job did not get all its work; every job not rejected completes;
* **objective**: re-derived from the decisions (max load over machines and steps, load
  counting jobs dispatched and not yet rejected, docs/models/rejection-model.md §1.1) or from the completions (max of
  flow weight × (C_j − r_j) over jobs not rejected) and compared with the engine's claim;
* **budget**: at **every** step, rejected weight ≤ ε · arrived weight, with the problem's
  budget weight (count, w or w^r; docs/models/rejection-model.md §1.1). ``budget_violations``
  counts the steps with an arrival or a rejection at which it fails (steps where neither sum
  changes repeat the step before, so the count does not depend on how often a slot hook ran,
  nor on the step or compiled path).

The per-row trace rules (machine, speed, release or dispatch, rejection, overlap on a machine)
run in one compiled pass over the trace (:func:`_trace_rows`, numba), rows in the order written
(the overlap rule on each machine's consecutive rows; a sort only when a machine's rows are not
in start order): a 10⁶-job validation costs about a tenth of a second. mutmut does not mutate a
compiled function, so each of its rules was also removed by hand and the planted-fault tests
fail without it (docs/mutation-testing.md).

Structural errors make an outcome ``invalid``; a budget overrun alone makes it
``budget_violated``. Either way ``valid`` is False and the run is not counted as a success.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling.model import Instance, Outcome
from schedbench.scheduling.problems import PROBLEMS

__all__ = ["Validation", "validate", "BUDGET_REL_TOL", "WORK_TOL"]

#: Relative slack in the validator's budget comparison (floating-point sums of weights), scaled by
#: 1 + the weight arrived; the rule's own absolute tolerance is ``budget.BUDGET_TOL`` (the
#: validator shares no code with it, so it states its own).
BUDGET_REL_TOL = 1e-9
#: Relative slack in work and time comparisons (fractional speeds accumulate rounding).
WORK_TOL = 1e-6


def _tol(x) -> np.ndarray:
    """The slack for comparing a work or time value of magnitude ``x``."""
    return WORK_TOL * np.maximum(1.0, np.abs(x))


@dataclass
class Validation:
    valid: bool
    status: str  # "ok" | "budget_violated" | "invalid"
    errors: list[str] = field(default_factory=list)
    objective: float = float("nan")
    rejected_frac: float = float("nan")
    rejected_frac_max_prefix: float = float("nan")
    rejected_volume_frac: float = float("nan")  # Σ p over rejected jobs / Σ p (the Section-4 table)
    wasted_work_frac: float = float("nan")  # wasted work / Σ p
    budget_violations: int = 0
    wasted_work: float = float("nan")


def _invalid(errors: list[str]) -> Validation:
    return Validation(valid=False, status="invalid", errors=errors)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def validate(
    inst: Instance,
    out: Outcome,
    eps: float | None,
    model: str,
    problem: str,
    deferred_dispatch: bool = False,
    late_reject: bool = False,
    migratory: bool = False,
) -> Validation:
    """Check ``out`` against ``inst``; ``model``, ``problem``, ``deferred_dispatch``,
    ``late_reject`` and ``migratory`` are the algorithm's declarations (what it is allowed to
    do). With ``migratory`` a job's work may move between machines of its eligible set (never
    on two at once); ``machine`` is then only where the job was first placed."""
    if problem not in PROBLEMS:
        return _invalid([f"unknown problem {problem!r}"])
    prob = PROBLEMS[problem]
    processes = prob.processes
    n, m = inst.n, inst.m
    per_job = ("machine", "arrival_step", "dispatch_step", "reject_step", "completion")
    errors = [
        f"outcome field '{k}' has shape {np.shape(getattr(out, k))}, expected ({n},)"
        for k in per_job
        if np.shape(getattr(out, k)) != (n,)
    ]
    tr = ("trace_machine", "trace_job", "trace_start", "trace_end", "trace_work")
    k = np.shape(out.trace_job)
    errors += [
        f"outcome field '{f}' has shape {np.shape(getattr(out, f))}, trace has {k}"
        for f in tr
        if np.shape(getattr(out, f)) != k or len(k) != 1
    ]
    if errors:
        return _invalid(errors)
    for name in ("machine", "arrival_step", "dispatch_step", "reject_step", "trace_machine", "trace_job"):
        arr = np.asarray(getattr(out, name))
        if arr.size and not (
            np.issubdtype(arr.dtype, np.integer)
            or (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)))
        ):
            errors.append(f"outcome field '{name}' must hold integers (job, machine or step indices)")
    if errors:
        return _invalid(errors)
    machine = np.asarray(out.machine, dtype=np.int64)
    arrive = np.asarray(out.arrival_step, dtype=np.int64)
    dstep = np.asarray(out.dispatch_step, dtype=np.int64)
    rstep = np.asarray(out.reject_step, dtype=np.int64)
    completion = np.asarray(out.completion, dtype=np.float64)
    step_time = np.asarray(out.step_time, dtype=np.float64)

    # -- shape of the step sequence
    if step_time.ndim != 1:
        return _invalid([f"step_time must be a 1-d array of slots, got shape {step_time.shape}"])
    S = step_time.shape[0]
    if S and (np.any(np.diff(step_time) < 0) or np.any(step_time < 0) or np.any(step_time != np.round(step_time))):
        return _invalid(["step_time must be non-decreasing integer slots >= 0"])
    # -- the speed follows from the model, never from the outcome's claim
    speed = 1.0 + float(eps) if (model == "speed" and eps is not None) else 1.0
    if not np.isclose(float(out.speed), speed, rtol=0, atol=1e-12):
        return _invalid(
            [f"outcome claims speed {out.speed}, but a {model!r} algorithm at eps = {eps} runs at {speed:g}"]
        )
    for name, arr, lo in (("arrival_step", arrive, 0), ("dispatch_step", dstep, -1), ("reject_step", rstep, -1)):
        bad = (arr < lo) | (arr >= S)
        if bad.any():
            j = _first(bad)
            errors.append(f"job {j}: {name} {arr[j]} is not a step (0..{S - 1}{' or -1' if lo < 0 else ''})")
    bad = (machine < -1) | (machine >= m)
    if bad.any():
        errors.append(f"job {_first(bad)}: machine {machine[_first(bad)]} out of range -1..{m - 1}")
    if errors:
        return _invalid(errors)

    # -- arrivals: instance order, one step each, at the release slot
    order = np.lexsort((np.arange(n), inst.release))
    if n and (np.any(np.diff(arrive[order]) <= 0)):
        j = int(order[1:][np.diff(arrive[order]) <= 0][0])
        errors.append(f"job {j}: arrives at step {arrive[j]}, not after the job before it in arrival order")
    late = step_time[arrive] != inst.release
    if late.any():
        j = _first(late)
        errors.append(f"job {j}: arrives at slot {step_time[arrive[j]]:g}, but its release is {inst.release[j]}")

    # -- decisions
    dispatched = dstep >= 0
    rejected = rstep >= 0
    if np.any(dispatched != (machine >= 0)):
        j = _first(dispatched != (machine >= 0))
        errors.append(f"job {j}: machine {machine[j]} but dispatch_step {dstep[j]} (both or neither)")
    early = dispatched & (dstep < arrive)
    if early.any():
        j = _first(early)
        errors.append(f"job {j}: dispatched at step {dstep[j]}, before it arrived (step {arrive[j]})")
    early = rejected & ((rstep < arrive) | (dispatched & (rstep < dstep)))
    if early.any():
        j = _first(early)
        errors.append(f"job {j}: rejected at step {rstep[j]}, before it arrived or was dispatched")
    if not deferred_dispatch and np.any(dispatched & (dstep != arrive)):
        j = _first(dispatched & (dstep != arrive))
        errors.append(
            f"job {j}: dispatched at step {dstep[j]}, after its arrival step {arrive[j]}, but the "
            "algorithm does not declare deferred dispatch"
        )
    if not late_reject and np.any(dispatched & rejected):
        j = _first(dispatched & rejected)
        errors.append(f"job {j}: rejected after it was dispatched, but the algorithm does not declare late rejection")
    never = ~dispatched & ~rejected
    if never.any():
        errors.append(f"job {_first(never)}: neither dispatched nor rejected")
    if model != "rejection" and rejected.any():
        errors.append(f"job {_first(rejected)}: rejected, but a {model!r} algorithm may not reject")
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(inst.indptr))
    eligible_hit = np.zeros(n, dtype=bool)  # the job's machine is one of its eligible pairs
    eligible_hit[owner[inst.indices == machine[owner]]] = True
    off = (machine >= 0) & ~eligible_hit
    if off.any():
        j = _first(off)
        errors.append(
            f"job {j}: dispatched to machine {machine[j]}, not in its eligible set {inst.eligible(j).tolist()}"
        )
    if errors:
        return _invalid(errors)

    # -- trace and objective
    if processes:
        work_done, trace_errors = _check_trace(
            inst,
            out,
            machine,
            dstep,
            rstep,
            step_time,
            completion,
            rejected,
            speed,
            np.sort(owner * m + inst.indices) if migratory else None,
        )
        errors += trace_errors
        weight = prob.flow_weights(inst)
        done = ~rejected
        objective = float(np.max(weight[done] * (completion[done] - inst.release[done]), initial=0.0))
        wasted = float(work_done[rejected].sum())
    else:
        if np.shape(out.trace_job)[0]:
            errors.append(f"problem {problem!r} processes nothing, but the outcome has a trace")
        if np.any(~np.isnan(completion)):
            errors.append(
                f"job {_first(~np.isnan(completion))}: has a completion time, but problem {problem!r} processes nothing"
            )
        objective = _max_load(machine, dstep, rstep, inst.size, S)
        wasted = 0.0
    if not errors and not np.isclose(objective, out.claimed_objective, rtol=1e-9, atol=WORK_TOL):
        errors.append(f"objective: the engine claims {out.claimed_objective}, the outcome gives {objective}")

    # -- budget at every step
    bw = prob.budget_weights(inst)
    with np.errstate(over="ignore"):  # an overflow is reported below, not warned about
        arrived_by = np.cumsum(np.bincount(arrive, weights=bw, minlength=S))
        rejected_by = np.cumsum(np.bincount(rstep[rejected], weights=bw[rejected], minlength=S))
    if not (np.all(np.isfinite(arrived_by)) and math.isfinite(objective)):
        # an overflowed weight sum compares as a pass (nan > x is False): never counted as valid
        errors.append(
            f"non-finite sum: the budget weights ({prob.budget_weight}) total {float(arrived_by[-1]) if S else 0.0!r} "
            f"and the objective is {objective!r}"
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(arrived_by > 0, rejected_by / arrived_by, 0.0)
    max_prefix = float(frac.max()) if S else 0.0
    violations = 0
    if model == "rejection":
        if eps is None:
            errors.append("rejection-model outcome without eps")
        else:
            # counted at the steps where the sums change (an arrival or a rejection), so that the
            # count does not depend on how often an algorithm's slot hook ran (or on the path)
            changed = (np.bincount(arrive, minlength=S) > 0) | (np.bincount(rstep[rejected], minlength=S) > 0)
            over = rejected_by > eps * arrived_by + BUDGET_REL_TOL * (1 + arrived_by)
            violations = int(np.count_nonzero(over & changed))

    if errors:
        v = _invalid(errors)
    elif violations:
        v = Validation(
            valid=False,
            status="budget_violated",
            errors=[
                f"rejection budget exceeded at {violations} decision step{'s' if violations != 1 else ''} "
                f"(max rejected fraction {max_prefix:.4g} > eps = {eps}, by {prob.budget_weight})"
            ],
        )
    else:
        v = Validation(valid=True, status="ok")
    v.objective = objective
    with np.errstate(over="ignore", invalid="ignore"):
        v.rejected_frac = float(bw[rejected].sum() / bw.sum()) if n else 0.0
    v.rejected_frac_max_prefix = max_prefix
    v.rejected_volume_frac = float(inst.size[rejected].sum() / inst.size.sum()) if n else 0.0
    v.wasted_work_frac = float(wasted / inst.size.sum()) if n else 0.0
    v.budget_violations = violations
    v.wasted_work = wasted
    return v


def _check_trace(inst, out, machine, dstep, rstep, step_time, completion, rejected, speed, eligible_keys=None):
    """Replay the processing trace; return work done per job and the errors found.

    ``eligible_keys`` (sorted ``job * m + machine`` of every eligible pair) switches to the
    migratory rule: any eligible machine, but a job's own intervals must not overlap."""
    n = inst.n
    errors: list[str] = []
    tm = np.asarray(out.trace_machine, dtype=np.int64)
    tj = np.asarray(out.trace_job, dtype=np.int64)
    ts = np.asarray(out.trace_start, dtype=np.float64)
    te = np.asarray(out.trace_end, dtype=np.float64)
    tw = np.asarray(out.trace_work, dtype=np.float64)
    work = np.zeros(n)
    if tj.size:
        if _bad_trace_row(tj, ts, te, tw, n) >= 0:
            return work, ["trace: a row names no job or has a non-finite time or work"]
        row = lambda mask: int(np.flatnonzero(mask)[0])  # noqa: E731
        # the per-row rules in one compiled pass (the first offending row of each, in trace
        # order), the work and last end per job, and whether each machine's rows come in start order
        dispatch_time = np.where(machine >= 0, step_time[np.maximum(dstep, 0)], 0.0)
        reject_time = np.where(rejected, step_time[np.maximum(rstep, 0)], np.inf)
        # what a row needs of its job, one row of three per job (one cache line per lookup)
        job_rows = np.empty((n, 3))
        job_rows[:, 0] = np.maximum(inst.release, dispatch_time)  # work starts no earlier
        job_rows[:, 1] = reject_time
        job_rows[:, 2] = machine
        first, done, in_order = _trace_rows(tm, tj, ts, te, tw, job_rows, inst.m, float(speed), WORK_TOL)
        work, last_end = done[:, 0], done[:, 1]
        if eligible_keys is None:
            r = first[4]
            if r >= 0:
                errors.append(
                    f"job {tj[r]}: processed on machine {tm[r]} at {ts[r]:g}, but it was dispatched to "
                    f"{machine[tj[r]]} (migration or undispatched work)"
                )
        else:
            bad = machine[tj] < 0
            if bad.any():
                r = row(bad)
                errors.append(
                    f"job {tj[r]}: processed on machine {tm[r]} at {ts[r]:g}, but it was never "
                    "dispatched (undispatched work)"
                )
            keys = tj * inst.m + tm
            hit = np.searchsorted(eligible_keys, keys)
            ok = (
                (tm >= 0)
                & (tm < inst.m)
                & (hit < eligible_keys.size)
                & (eligible_keys[np.minimum(hit, max(eligible_keys.size - 1, 0))] == keys)
            )
            if not ok.all():
                r = row(~ok)
                errors.append(
                    f"job {tj[r]}: processed on machine {tm[r]} at {ts[r]:g}, not in its eligible set "
                    f"{inst.eligible(int(tj[r])).tolist()}"
                )
            by_job = np.lexsort((ts, tj))
            sj, ss, se = tj[by_job], ts[by_job], te[by_job]
            twice = (sj[1:] == sj[:-1]) & (ss[1:] < se[:-1] - _tol(se[:-1]))
            if twice.any():
                r = row(twice)
                errors.append(f"job {sj[r]}: on two machines at once around {ss[r + 1]:g} (its intervals overlap)")
        r = first[0]
        if r >= 0:
            errors.append(
                f"job {tj[r]}: {tw[r]:g} units in [{ts[r]:g}, {te[r]:g}) on machine {tm[r]}, more "
                f"than speed {speed:g} allows"
            )
        r = first[1]
        if r >= 0:
            start_ok = job_rows[tj[r], 0]
            errors.append(f"job {tj[r]}: processed from {ts[r]:g}, before its release or dispatch ({start_ok:g})")
        r = first[2]
        if r >= 0:
            errors.append(f"job {tj[r]}: processed until {te[r]:g}, after its rejection at slot {reject_time[tj[r]]:g}")
        if in_order:  # each machine's rows in time order (both paths write them so): checked in the pass
            r, sm, ss = first[3], tm, ts
        else:
            by_machine = _grouped_by_start(tm, ts)
            sm, ss, se = tm[by_machine], ts[by_machine], te[by_machine]
            overlap = (sm[1:] == sm[:-1]) & (ss[1:] < se[:-1] - _tol(se[:-1]))
            r = row(overlap) + 1 if overlap.any() else -1
        if r >= 0:
            errors.append(
                f"machine {sm[r]}: two jobs at once around {ss[r]:g} (more than speed {speed:g} units in a slot)"
            )
    else:
        last_end = np.full(n, -np.inf)
    completed = ~np.isnan(completion)
    bad = completed & rejected
    if bad.any():
        errors.append(f"job {_first(bad)}: both completed and rejected")
    bad = rejected & ~completed & (work >= inst.size - WORK_TOL * np.maximum(1, inst.size))
    if bad.any():
        j = _first(bad)
        errors.append(f"job {j}: got all {inst.size[j]} units of work, so it completed before its rejection")
    bad = ~completed & ~rejected
    if bad.any():
        errors.append(f"job {_first(bad)}: never completed and never rejected")
    bad = completed & (np.abs(work - inst.size) > WORK_TOL * np.maximum(1, inst.size))
    if bad.any():
        j = _first(bad)
        errors.append(f"job {j}: completed with {work[j]:g} units of work, its size is {inst.size[j]}")
    bad = completed & (np.abs(completion - last_end) > _tol(np.where(completed, completion, 0.0)))
    if bad.any():
        j = _first(bad)
        errors.append(f"job {j}: completion {completion[j]:g}, but its last work ends at {last_end[j]:g}")
    return work, errors


@compiled
def _bad_trace_row(tj, ts, te, tw, n):
    """The first trace row naming no job or holding a non-finite time or work; −1 if none."""
    for r in range(tj.shape[0]):
        if tj[r] < 0 or tj[r] >= n or not (np.isfinite(ts[r]) and np.isfinite(te[r]) and np.isfinite(tw[r])):
            return r
    return -1


@compiled
def _trace_rows(tm, tj, ts, te, tw, job_rows, m, speed, work_tol):
    """One pass over the trace rows (jobs in range, times finite: checked before); ``job_rows``
    holds per job (earliest start: release and dispatch, rejection time or inf, machine).
    Returns the first offending row of each rule, −1 if none — [0] more work than the speed
    allows in the interval (or a negative one), [1] work before the job's release or dispatch,
    [2] work after its rejection, [3] a row that starts before the end of its machine's row
    before it (only meaningful when each machine's rows come in start order), [4] work on
    another machine than the job's (or on an undispatched job) — the work and last end per job,
    and whether each machine's rows (machines 0..m−1) come in start order, in whatever order
    the machines interleave: then consecutive rows of a machine are what a sort by (machine,
    start) would put side by side, so [3] is the sorted check without the sort. Tolerance:
    work_tol·max(1, |x|)."""
    n = job_rows.shape[0]
    first = np.full(5, -1, np.int64)
    done = np.empty((n, 2))
    done[:, 0] = 0.0
    done[:, 1] = -np.inf
    prev = np.full(m, -1, np.int64)  # each machine's row before, −1: none yet
    in_order = True
    for r in range(tj.shape[0]):
        j = tj[r]
        s, e, w = ts[r], te[r], tw[r]
        start_ok, rt, mach = job_rows[j, 0], job_rows[j, 1], job_rows[j, 2]
        if first[4] < 0 and (tm[r] != mach or mach < 0):
            first[4] = r
        if first[0] < 0 and (e < s or w < 0 or w > speed * (e - s) + work_tol * max(1.0, abs(w))):
            first[0] = r
        if first[1] < 0 and s < start_ok - work_tol * max(1.0, abs(start_ok)):
            first[1] = r
        if first[2] < 0 and rt < np.inf and e > rt + work_tol * max(1.0, abs(rt)):
            first[2] = r
        i = tm[r]
        if i < 0 or i >= m:  # no such machine (reported by [4] or the eligibility check)
            in_order = False
        elif in_order:
            p = prev[i]
            if p >= 0:
                if s < ts[p]:
                    in_order = False
                elif first[3] < 0 and s < te[p] - work_tol * max(1.0, abs(te[p])):
                    first[3] = r
            prev[i] = r
        done[j, 0] += w
        if e > done[j, 1]:
            done[j, 1] = e
    return first, done, in_order


def _grouped_by_start(group: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The permutation sorting rows by (group, start), as ``np.lexsort((start, group))``, in
    two stable sorts: by start (timsort, fast on the nearly sorted times of a trace), then by
    group (radix sort for small integer groups, such as machines)."""
    by_start = np.argsort(start, kind="stable")
    g = group[by_start]
    if g.size and 0 <= g.min() and g.max() < 2**15:
        g = g.astype(np.int16)
    return by_start[np.argsort(g, kind="stable")]


def _max_load(machine, dstep, rstep, size, S) -> float:
    """Max over (machine, step) of the load after that step's decisions."""
    on = machine >= 0
    late = on & (rstep >= 0)
    mach = np.concatenate([machine[on], machine[late]])
    when = np.concatenate([dstep[on], rstep[late]])
    delta = np.concatenate([size[on], -size[late]]).astype(np.float64)
    if mach.size == 0:
        return 0.0
    key = mach * (S + 1) + when
    uniq, inverse = np.unique(key, return_inverse=True)
    step = np.bincount(inverse, weights=delta)
    seg_machine = uniq // (S + 1)
    total = np.cumsum(step)
    starts = np.flatnonzero(np.r_[True, seg_machine[1:] != seg_machine[:-1]])
    offset = np.repeat(np.r_[0.0, total[starts[1:] - 1]], np.diff(np.r_[starts, total.size]))
    return float(max(0.0, (total - offset).max()))
