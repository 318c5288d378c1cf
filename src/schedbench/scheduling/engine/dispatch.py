"""Dispatch-only engine (LoadBalancing): feeds jobs to an algorithm one at a time.

Arrival order is by release time, ties in array order (the instance contract). After each
arrival the engine asks the algorithm for late rejections. It records the decisions in an
:class:`~schedbench.scheduling.model.Outcome` and keeps its own running loads, whose maximum it reports as
``claimed_objective``; :mod:`schedbench.scheduling.validate` recomputes it independently.

Anything the algorithm returns that is not a legal decision (a machine outside the job's
eligible set, rejecting a job twice or before it arrived) raises :class:`AlgorithmError`
naming the job: a broken plug-in fails loudly rather than producing a silently wrong row.
"""

from __future__ import annotations

import time

import numpy as np

from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.model import REJECT, Instance, Outcome


class AlgorithmError(RuntimeError):
    """An algorithm made an illegal decision."""


def simulate_dispatch(alg: OnlineAlgorithm, inst: Instance, fast: bool = True) -> Outcome:
    """Run ``alg`` on ``inst``; use its :meth:`dispatch_all` fast path if ``fast`` and offered."""
    if alg.problem != "load":
        raise AlgorithmError(f"{alg.name!r} solves {alg.problem!r}; this engine runs 'load' only")
    order = inst.arrival_order()
    t0 = time.perf_counter()
    machine = None
    if fast and not alg.late_reject:
        machine = alg.dispatch_all(inst.size, inst.indptr, inst.indices, order)
    if machine is not None:
        outcome = _from_fast_path(alg, inst, order, np.asarray(machine, dtype=np.int64))
    else:
        outcome = _step_by_step(alg, inst, order)
    outcome.seconds = time.perf_counter() - t0
    return outcome


def _new_outcome(alg: OnlineAlgorithm, n: int) -> Outcome:
    return Outcome(
        algorithm=alg.name, problem=alg.problem, eps=alg.eps, params=dict(alg.params),
        machine=np.full(n, REJECT, dtype=np.int64),
        reject_event=np.full(n, -1, dtype=np.int64),
        reject_time=np.full(n, np.nan),
        claimed_objective=0.0,
    )


def _step_by_step(alg: OnlineAlgorithm, inst: Instance, order: np.ndarray) -> Outcome:
    out = _new_outcome(alg, inst.n)
    load = np.zeros(inst.m, dtype=np.float64)
    arrived = np.zeros(inst.n, dtype=bool)
    best = 0.0
    size, release = inst.size, inst.release
    for pos, j in enumerate(order.tolist()):
        arrived[j] = True
        eligible = inst.eligible(j)
        view = JobView(j, int(release[j]), int(size[j]), eligible,
                       float(inst.w_flow[j]), float(inst.w_reject[j]))
        i = alg.on_arrival(view)
        if i == REJECT:
            out.reject_event[j] = pos
            out.reject_time[j] = release[j]
        else:
            if not isinstance(i, (int, np.integer)) or i not in eligible:
                raise AlgorithmError(
                    f"{alg.name!r}: job {j} sent to machine {i!r}, not in its eligible set {eligible.tolist()}"
                )
            out.machine[j] = i
            load[i] += size[j]
        for k in alg.late_rejections():
            if not (0 <= k < inst.n) or not arrived[k] or out.machine[k] == REJECT or out.reject_event[k] >= 0:
                raise AlgorithmError(
                    f"{alg.name!r}: late rejection of job {k} at arrival {pos}: "
                    "it is not a dispatched, unrejected job that has arrived"
                )
            out.reject_event[k] = pos
            out.reject_time[k] = release[j]
            load[out.machine[k]] -= size[k]
        if i != REJECT:
            best = max(best, float(load[i]))
    out.claimed_objective = best
    return out


def _from_fast_path(alg: OnlineAlgorithm, inst: Instance, order: np.ndarray,
                    machine: np.ndarray) -> Outcome:
    out = _new_outcome(alg, inst.n)
    if machine.shape != (inst.n,):
        raise AlgorithmError(f"{alg.name!r}: dispatch_all returned shape {machine.shape}, expected ({inst.n},)")
    out.machine = machine
    rejected = np.flatnonzero(machine == REJECT)
    position = np.empty(inst.n, dtype=np.int64)
    position[order] = np.arange(inst.n)
    out.reject_event[rejected] = position[rejected]
    out.reject_time[rejected] = inst.release[rejected]
    kept = machine != REJECT
    load = np.bincount(machine[kept], weights=inst.size[kept], minlength=inst.m)
    out.claimed_objective = float(load.max()) if load.size else 0.0
    return out
