"""What a compiled run returns, and how it becomes an :class:`~schedbench.scheduling.model.Outcome`.

An algorithm that offers a compiled path (``OnlineAlgorithm.compiled_run``, see
``docs/models/rejection-model.md`` §1.3 and :func:`schedbench.scheduling.machines.run`) returns a
:class:`CompiledRun` for a whole instance; :func:`to_outcome` numbers its decision points the
way the engine does — one step per arrival, in arrival order, and one step per slot in which
held jobs were dispatched or jobs were rejected after their dispatch (after that slot's
arrivals) — so the validator checks it exactly as a step-path outcome (the same rules, the
budget at every step). The engine also opens a step at every call of a slot hook, including
calls that decide nothing; those are absent here, so step indices and the step count may differ
between the paths while every decision, its time and the budget sums at it agree. The
outcome's ``path`` is ``"compiled"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.scheduling.model import REJECT, AlgorithmError, Instance, Outcome
from schedbench.scheduling.problems import get_problem

__all__ = ["CompiledRun", "to_outcome"]


@dataclass
class CompiledRun:
    """A whole run, every array indexed by **arrival position** (``order[pos]`` is the job):
    ``machine`` (−1: rejected on arrival), ``completion`` (NaN: not completed),
    ``trace_int`` (rows × 2: machine, position) and ``trace_float`` (rows × 3: start, end,
    work), ``late_reject_slot`` (the slot of a rejection after dispatch, −1: none; None
    when the rule never rejects late) and ``dispatch_slot`` (the slot of a held job's
    dispatch; None when every job is dispatched on arrival)."""

    machine: np.ndarray
    completion: np.ndarray
    trace_int: np.ndarray
    trace_float: np.ndarray
    late_reject_slot: np.ndarray | None = None
    dispatch_slot: np.ndarray | None = None


def to_outcome(name: str, problem: str, speed: float, inst: Instance, order: np.ndarray, run: CompiledRun) -> Outcome:
    """The outcome of ``run`` in the instance's job order (see the module docstring)."""
    n = inst.n
    machine = np.asarray(run.machine, dtype=np.int64)
    if machine.shape != (n,) or np.shape(run.completion) != (n,):
        raise AlgorithmError(
            f"{name!r}: its compiled path returned {machine.shape[0] if machine.ndim == 1 else machine.shape} "
            f"machines and {np.shape(run.completion)} completions for the instance's {n} jobs"
        )
    release = inst.release[order].astype(np.int64)
    late = (
        np.full(n, -1, np.int64) if run.late_reject_slot is None else np.asarray(run.late_reject_slot, dtype=np.int64)
    )
    held = run.dispatch_slot is not None
    dslot = np.asarray(run.dispatch_slot, dtype=np.int64) if held else np.full(n, -1, np.int64)
    # steps: the arrivals, then a slot step after the arrivals of each slot with late
    # rejections or deferred dispatches (the engine's slot hook)
    slots = np.unique(np.r_[late[late >= 0], dslot[dslot >= 0]])
    if slots.size:
        kind = np.r_[np.zeros(n, np.int64), np.ones(slots.size, np.int64)]
        when = np.r_[release, slots]
        step_order = np.lexsort((np.r_[np.arange(n), np.zeros(slots.size, np.int64)], kind, when))
        step_of = np.empty(step_order.size, np.int64)
        step_of[step_order] = np.arange(step_order.size)
        arrival, slot_step, step_time = step_of[:n], step_of[n:], when[step_order]
    else:  # one step per arrival, in arrival order
        arrival, slot_step, step_time = np.arange(n, dtype=np.int64), slots, release
    kept = machine != REJECT
    reject = np.where(kept, -1, arrival)
    has_late = late >= 0
    if has_late.any():
        reject[has_late] = slot_step[np.searchsorted(slots, late[has_late])]
    dispatch = np.where(kept, arrival, -1)
    if held:
        deferred = kept & (dslot >= 0)
        dispatch[deferred] = slot_step[np.searchsorted(slots, dslot[deferred])]
    pos_arrays = {
        "machine": machine,
        "arrival_step": arrival,
        "dispatch_step": dispatch,
        "reject_step": reject,
        "completion": np.asarray(run.completion, dtype=np.float64),
    }
    by_job = {}
    for key, arr in pos_arrays.items():
        res = np.empty_like(arr)
        res[order] = arr
        by_job[key] = res
    ti = np.asarray(run.trace_int, dtype=np.int64).reshape(-1, 2)
    tf = np.asarray(run.trace_float, dtype=np.float64).reshape(-1, 3)
    weight = get_problem(problem).flow_weights(inst)
    done = ~np.isnan(by_job["completion"])
    claimed = float(np.max(weight[done] * (by_job["completion"][done] - inst.release[done]), initial=0.0))
    return Outcome(
        algorithm=name,
        problem=problem,
        speed=speed,
        step_time=step_time.astype(np.float64),
        trace_machine=ti[:, 0].copy(),
        trace_job=order[ti[:, 1]] if ti.shape[0] else np.zeros(0, np.int64),
        trace_start=tf[:, 0].copy(),
        trace_end=tf[:, 1].copy(),
        trace_work=tf[:, 2].copy(),
        claimed_objective=claimed,
        path="compiled",
        **by_job,
    )
