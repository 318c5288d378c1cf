"""Independent checker of online outcomes. It imports no algorithm and no engine code.

For a dispatch-only (LoadBalancing) outcome it checks, from the instance and the recorded
decisions alone:

* every job is dispatched to a machine of its eligible set, or rejected on arrival;
* every rejection happens at or after the job's arrival, is recorded once, with the time of
  the arrival at which it happened; algorithms outside the rejection model reject nothing;
* the objective: max over arrival events and machines of the load, where the load of machine i
  after event e counts the jobs dispatched to i by e and not rejected by e (paper §2: jobs
  rejected later still count until they are rejected). It must equal the engine's claim;
* the rejection budget at **every prefix** of the arrival sequence (finer than every time t):
  rejected(e) ≤ ε · arrived(e), counting jobs (LoadBalancing is count-based, spec §1.1).

Structural errors make an outcome ``invalid``; a budget overrun alone makes it
``budget_violated``. Either way ``valid`` is False and the run is not counted as a success.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from schedbench.scheduling.model import Instance, Outcome

__all__ = ["Validation", "validate_dispatch", "BUDGET_TOL"]

#: Slack allowed in the budget comparison (floating point only; counts are integers).
BUDGET_TOL = 1e-9


@dataclass
class Validation:
    valid: bool
    status: str  # "ok" | "budget_violated" | "invalid"
    errors: list[str] = field(default_factory=list)
    objective: float = float("nan")
    rejected_frac: float = float("nan")
    rejected_frac_max_prefix: float = float("nan")
    budget_violations: int = 0


def _fail(errors: list[str]) -> Validation:
    return Validation(valid=False, status="invalid", errors=errors)


def validate_dispatch(inst: Instance, out: Outcome, eps: float | None, model: str) -> Validation:
    """Check a LoadBalancing outcome; ``model`` is the algorithm's model (rejection/speed/plain)."""
    n, m = inst.n, inst.m
    errors: list[str] = []
    machine = np.asarray(out.machine)
    reject_event = np.asarray(out.reject_event)
    reject_time = np.asarray(out.reject_time, dtype=np.float64)
    for name, arr in (("machine", machine), ("reject_event", reject_event), ("reject_time", reject_time)):
        if arr.shape != (n,):
            errors.append(f"outcome field '{name}' has shape {arr.shape}, expected ({n},)")
    if errors:
        return _fail(errors)
    machine = machine.astype(np.int64)
    reject_event = reject_event.astype(np.int64)

    # Arrival positions, derived here (release time, ties by array index).
    order = np.lexsort((np.arange(n), inst.release))
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)

    def first(mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])

    bad = (machine < -1) | (machine >= m)
    if bad.any():
        j = first(bad)
        errors.append(f"job {j}: machine {machine[j]} out of range -1..{m - 1}")
        return _fail(errors)

    dispatched = machine >= 0
    rejected = reject_event >= 0
    if (reject_event < -1).any():
        errors.append(f"job {first(reject_event < -1)}: reject_event must be -1 or an arrival position")
    never = ~dispatched & ~rejected
    if never.any():
        errors.append(f"job {first(never)}: neither dispatched nor rejected")
    not_immediate = ~dispatched & rejected & (reject_event != position)
    if not_immediate.any():
        j = first(not_immediate)
        errors.append(
            f"job {j}: not dispatched, so it must be rejected on its own arrival "
            f"(position {position[j]}), but reject_event = {reject_event[j]}"
        )
    early = rejected & (reject_event < position)
    if early.any():
        j = first(early)
        errors.append(f"job {j}: rejected at arrival {reject_event[j]}, before it arrived (position {position[j]})")
    late = rejected & (reject_event >= n)
    if late.any():
        errors.append(f"job {first(late)}: reject_event {reject_event[first(late)]} beyond the last arrival")
    if errors:
        return _fail(errors)

    # Rejection time = release time of the arrival at which it happened.
    expected_time = inst.release[order[reject_event[rejected]]].astype(np.float64)
    wrong_time = np.flatnonzero(rejected)[reject_time[rejected] != expected_time]
    if wrong_time.size:
        j = int(wrong_time[0])
        errors.append(f"job {j}: reject_time {reject_time[j]} but it was rejected at an arrival at time "
                      f"{inst.release[order[reject_event[j]]]}")
    stray_time = ~rejected & ~np.isnan(reject_time)
    if stray_time.any():
        errors.append(f"job {first(stray_time)}: has a reject_time but was never rejected")

    # Eligibility of every dispatched job: the pair (j, machine[j]) must be a CSR entry.
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(inst.indptr))
    pair_keys = np.sort(owner * m + inst.indices)
    want = np.flatnonzero(dispatched)
    keys = want * m + machine[want]
    hit = np.searchsorted(pair_keys, keys)
    ok = (hit < pair_keys.size) & (pair_keys[np.minimum(hit, pair_keys.size - 1)] == keys)
    if not ok.all():
        j = int(want[~ok][0])
        errors.append(f"job {j}: dispatched to machine {machine[j]}, not in its eligible set "
                      f"{inst.eligible(j).tolist()}")

    if model != "rejection" and rejected.any():
        errors.append(f"job {first(rejected)}: rejected, but a {model!r} algorithm may not reject")

    # Objective: loads after each arrival event, per machine.
    objective = _max_load(machine, rejected, reject_event, position, inst.size, n)
    if not np.isclose(objective, out.claimed_objective, rtol=0, atol=1e-9):
        errors.append(f"objective: the engine claims {out.claimed_objective}, the decisions give {objective}")

    # Rejection budget at every prefix of the arrival sequence (count-based).
    rejections_at = np.bincount(reject_event[rejected], minlength=n)
    rejected_by = np.cumsum(rejections_at)
    arrived_by = np.arange(1, n + 1)
    frac = rejected_by / arrived_by if n else np.zeros(0)
    max_prefix = float(frac.max()) if n else 0.0
    violations = 0
    if model == "rejection":
        if eps is None:
            errors.append("rejection-model outcome without eps")
        else:
            violations = int(np.count_nonzero(rejected_by > eps * arrived_by + BUDGET_TOL))

    if errors:
        v = _fail(errors)
    elif violations:
        v = Validation(valid=False, status="budget_violated",
                       errors=[f"rejection budget exceeded at {violations} of {n} arrival prefixes "
                               f"(max rejected fraction {max_prefix:.4g} > eps = {eps})"])
    else:
        v = Validation(valid=True, status="ok")
    v.objective = objective
    v.rejected_frac = float(rejected.sum() / n) if n else 0.0
    v.rejected_frac_max_prefix = max_prefix
    v.budget_violations = violations
    return v


def _max_load(machine, rejected, reject_event, position, size, n) -> float:
    """Max over (machine, arrival event) of the load after that event's decisions."""
    on = machine >= 0
    late = on & rejected
    mach = np.concatenate([machine[on], machine[late]])
    when = np.concatenate([position[on], reject_event[late]])
    delta = np.concatenate([size[on], -size[late]]).astype(np.float64)
    if mach.size == 0:
        return 0.0
    key = mach * (n + 1) + when
    uniq, inverse = np.unique(key, return_inverse=True)
    step = np.bincount(inverse, weights=delta)
    seg_machine = uniq // (n + 1)
    total = np.cumsum(step)
    starts = np.flatnonzero(np.r_[True, seg_machine[1:] != seg_machine[:-1]])
    offset = np.repeat(np.r_[0.0, total[starts[1:] - 1]], np.diff(np.r_[starts, total.size]))
    return float(max(0.0, (total - offset).max()))
