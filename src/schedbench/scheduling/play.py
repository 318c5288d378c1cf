"""The one run path: an algorithm against a driver (an instance replay or an adaptive
adversary) through the engine, then the independent validator.

:func:`execute` is what :func:`schedbench.run`, :func:`schedbench.run_adversary` and the
pipeline's runners all call; nothing else runs an algorithm.

A class declaring ``migratory = True`` (outside the model: a job may move between machines)
cannot use the non-migratory engine: it is routed to its whole-instance method
``schedule_all(inst) -> Outcome``, it cannot play an adaptive adversary, and its outcome is
validated with the migratory trace rule.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.hall.arguments import check_sizes
from schedbench.hall.limits import PLUGIN_RUN_SECONDS, hard_limit, wall_limit
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.algorithms.base import OnlineAlgorithm, ParameterError
from schedbench.scheduling.compiled import to_outcome
from schedbench.scheduling.engine import AlgorithmError, Engine
from schedbench.scheduling.plugin_guard import in_plugin
from schedbench.scheduling.model import ARRAY_FIELDS, REJECT, Instance, JobSpec, Outcome, touched_field
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.record import RunRecord
from schedbench.scheduling.registry import is_builtin, origin
from schedbench.scheduling.validate import validate

__all__ = [
    "RunRecord",
    "execute",
    "play_instance",
    "play_adversary",
    "PER_MACHINE_STATE",
    "check_machine_count",
    "PLUGIN_RUN_SECONDS",
    "RunTimeLimitError",
]

#: Entries of per-machine state a run may keep per machine (the engine's lists, a kernel's
#: arrays: ``imd`` keeps 64 class volumes per machine, B's class rules about 35 arrays, whose
#: per-class tables are bounded on their own); times m, bounded by ``hall.arguments.MAX_CELLS``
#: (m ≤ 1.25 × 10⁶), so an instance of 2^31 − 1 machines is refused with an error naming ``m``
#: instead of exhausting the memory.
PER_MACHINE_STATE = 80


class RunTimeLimitError(AlgorithmError):
    """A plug-in's run passed its wall-clock limit. Not a result (it depends on the machine's
    load): the pipeline's job fails and ``compare`` stops, naming the plug-in."""


def execute(
    cls: type[OnlineAlgorithm],
    source: Instance | Adversary,
    eps: float | None = None,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    oracle: float | None = None,
    fast: bool = True,
    problem: str | None = None,
    bound_opt: float | None = None,
    run_seconds: float | None = None,
) -> RunRecord:
    """Run ``cls`` on ``source``, validate, and return the run's record. ``oracle`` is T* for
    algorithms that assume it (an adversary supplies its constructed OPT when none is given).
    ``problem`` is the problem of the run (default: the adversary's, else the algorithm's
    default); the algorithm must solve it. ``bound_opt``: the instance's proven OPT, at which the
    ratio bound of a run without an oracle is taken (e.g. mft-unit with a prefix oracle:
    T(t) ≤ OPT, so its flow ≤ ⌈c·OPT/ε⌉); default the oracle given, else the adversary's claim.
    A run involving a plug-in stops with a :class:`RunTimeLimitError` after ``run_seconds``
    (default :data:`PLUGIN_RUN_SECONDS`)."""
    params = dict(params or {})
    bound_opt = oracle if oracle is not None else bound_opt
    if cls.migratory and isinstance(source, Adversary):
        raise ParameterError(
            f"algorithm {cls.name!r} is migratory (outside the model, no step path): it cannot "
            f"play the adaptive adversary {source.name!r}; run it on an instance"
        )
    if problem is None and isinstance(source, Adversary):
        problem = source.problem
    problem = cls.check_problem(problem)
    wants_oracle = cls.uses_oracle(cls.resolve_params(params))
    if isinstance(source, Adversary):
        if source.problem != problem:
            raise ParameterError(
                f"adversary {source.name!r} builds {source.problem!r} instances; this run "
                f"of {cls.name!r} solves {problem!r}"
            )
        if wants_oracle and oracle is None:
            oracle = source.opt
        if cls.unit_sizes_only and not source.unit_sizes:
            raise ParameterError(
                f"algorithm {cls.name!r} is defined for unit sizes only; adversary {source.name!r} releases sizes > 1"
            )
    elif cls.unit_sizes_only and not source.unit_sizes:
        raise ParameterError(f"algorithm {cls.name!r} is defined for unit sizes only; this instance has sizes > 1")
    check_machine_count(source.m)
    with user_code(cls, source, run_seconds):
        return _play(cls, source, eps, seed, params, oracle if wants_oracle else None, fast, problem, bound_opt)


def check_machine_count(m: int) -> None:
    """Every path keeps a few arrays (or lists) per machine: ``m`` is refused, naming it, before
    they exist (and before an offline solve for the run: ``api.run`` calls this first)."""
    check_sizes("run", "m", PER_MACHINE_STATE * float(m), f"the per-machine state of {m} machines")


def _play(cls, source, eps, seed, params, oracle, fast, problem, bound_opt) -> RunRecord:
    """:func:`execute`'s run once its arguments are checked: construct, play, validate."""
    alg = cls(source.m, eps=eps, opt=oracle, seed=seed, problem=problem, **params)
    t0 = time.perf_counter()
    if isinstance(source, Adversary):
        inst, outcome = play_adversary(alg, source)
        claimed = source.opt
        inst.meta.update(
            {  # provenance of a realised instance, recorded here for every caller
                "adversary": source.name,
                "adversary_params": dict(source.params),
                "algorithm": cls.name,
                "algorithm_params": dict(alg.params),
                "eps": eps,
                "seed": int(seed),
                "claimed_opt": claimed,
            }
        )
    else:
        arrays = source.arrays()
        try:
            inst, outcome, claimed = source, play_instance(alg, source, fast=fast), None
        finally:  # a plug-in that failed after touching the instance is named for the touch
            touched = touched_field(source, arrays)
            if touched is not None:  # put the instance back for the runs after this one
                for name, arr in zip(ARRAY_FIELDS, arrays):
                    object.__setattr__(source, name, arr)
                raise AlgorithmError(
                    f"algorithm {cls.name!r} changed the instance (field {touched!r}): its run and every run "
                    "after it on this instance would be wrong, so none is counted"
                )
    outcome.seconds = time.perf_counter() - t0
    check = validate(
        inst, outcome, alg.eps, cls.model, alg.problem, cls.deferred_dispatch, cls.late_reject, migratory=cls.migratory
    )
    return RunRecord.validated(
        alg, seed, inst, outcome, check, claimed_opt=claimed, bound_opt=bound_opt if bound_opt is not None else claimed
    )


def _plugin_files(cls: type[OnlineAlgorithm], source) -> dict[str, str]:
    """The plug-in files of a run (resolved path → what it defines): the algorithm's and the
    adversary's, when registered outside the package."""
    out = {}
    for kind, name in (("algorithm", cls.name), ("adversary", getattr(source, "name", None))):
        if (kind == "algorithm" or isinstance(source, Adversary)) and name is not None:
            try:
                if not is_builtin(kind, name):
                    out[str(Path(origin(kind, name)).resolve())] = f"{kind} {name!r}"
            except KeyError:  # a class given to the API without registering it: not a plug-in file
                pass
    return out


@contextmanager
def user_code(cls: type[OnlineAlgorithm], source=None, run_seconds: float | None = None):
    """Run an algorithm's own code (its constructor, decisions, compiled path) — the one boundary
    between the suite and a plug-in's code:

    * ``sys.exit`` in it becomes an :class:`AlgorithmError` naming the algorithm instead of
      ending the process (``compare``, ``run`` or a pipeline job would otherwise exit, status 0
      for ``sys.exit(0)``, with nothing written); a MemoryError too (the run failed, the command
      goes on);
    * any exception raised in a plug-in's file (the algorithm's or the adversary's) becomes an
      AlgorithmError naming the file and line, the exception and, for a write into a read-only
      array (the instance's, :func:`~schedbench.scheduling.model.immutable`, or a job view's),
      that rule; a built-in's own bug keeps its exception;
    * a run involving a plug-in gets ``run_seconds`` (default :data:`PLUGIN_RUN_SECONDS`) of
      wall-clock time, then a :class:`RunTimeLimitError` naming it; a run stuck inside compiled
      code, where that limit cannot reach, ends the process
      :data:`~schedbench.hall.limits.HARD_GRACE_SECONDS` later (:func:`~schedbench.hall.limits.hard_limit`).

    A real Ctrl-C (KeyboardInterrupt) is left to end the run."""
    files = _plugin_files(cls, source)
    seconds = PLUGIN_RUN_SECONDS if run_seconds is None else float(run_seconds)
    named = ", ".join(f"plug-in {f}: {what}" for f, what in files.items())

    def too_long() -> RunTimeLimitError:
        return RunTimeLimitError(
            f"{named}: no answer within the run time limit of {seconds:g} s (a decision that never returns? "
            "the limit: compare --plugin-time-limit, the config's plugin_time_limit)"
        )

    try:
        with hard_limit(seconds if files else 0), wall_limit(seconds if files else 0, too_long):
            yield
    except SystemExit as exc:
        raise AlgorithmError(f"algorithm {cls.name!r} called sys.exit({exc.code!r}) during its run") from None
    except MemoryError:  # e.g. a plug-in allocating far past the machine: its run fails, not the command
        raise AlgorithmError(f"algorithm {cls.name!r} ran out of memory during its run") from None
    except AlgorithmError:
        raise
    except Exception as exc:
        if "WRITEABLE" in str(exc):  # numpy: cannot set WRITEABLE flag to True of this array
            raise AlgorithmError(
                f"algorithm {cls.name!r} tried to make the instance's arrays writeable: an instance is read-only"
            ) from None
        where = in_plugin(exc, files)
        if where is None:
            raise
        rule = " (the instance's arrays and a job's view are read-only)" if "read-only" in str(exc) else ""
        at = "".join(f" {note}" for note in getattr(exc, "__notes__", ()))
        raise AlgorithmError(f"{where}:{at} raised {type(exc).__name__}: {exc}{rule}") from exc


def play_instance(alg: OnlineAlgorithm, inst: Instance, fast: bool = True) -> Outcome:
    """Replay ``inst`` (arrival order: release, ties by index) against ``alg``: on its compiled
    path when it offers one for these parameters and ``fast`` (the default), else on the
    engine's step path; a migratory algorithm schedules the whole instance with its
    ``schedule_all``. The outcome's ``path`` says which."""
    cls = type(alg)
    if cls.migratory:
        schedule_all = getattr(alg, "schedule_all", None)
        if schedule_all is None:
            raise AlgorithmError(f"{alg.name!r} declares migratory but has no schedule_all(inst) method")
        outcome = schedule_all(inst)
        if not isinstance(outcome, Outcome):
            raise AlgorithmError(f"{alg.name!r}: schedule_all returned {type(outcome).__name__}, not an Outcome")
        outcome.path = "whole-instance"
        return outcome
    order = inst.arrival_order()
    if fast and not get_problem(alg.problem).processes and not cls.has_slot_hook():
        fast_result = alg.dispatch_all(inst.size, inst.indptr, inst.indices, order)
        if fast_result is not None:
            return _from_fast_path(alg, inst, order, fast_result)
    if fast and get_problem(alg.problem).processes:
        run = alg.compiled_run(inst, order)
        if run is not None:
            return to_outcome(alg.name, alg.problem, cls.speed_for(alg.eps), inst, order, run)
    engine = Engine(alg, inst.m)
    engine.release(
        (
            JobSpec(
                int(inst.release[j]),
                int(inst.size[j]),
                inst.eligible(j),
                float(inst.w_flow[j]),
                float(inst.w_reject[j]),
            )
            for j in order.tolist()
        ),
        checked=True,
    )
    return _to_instance_order(engine.finish(), order)


def play_adversary(alg: OnlineAlgorithm, adversary: Adversary) -> tuple[Instance, Outcome]:
    """Let ``adversary`` choose each batch of jobs from the decisions so far; return the
    realised instance (jobs in arrival order) and the outcome."""
    engine = Engine(alg, adversary.m)
    while True:
        batch = adversary.next_jobs(engine.view)
        if not batch:
            break
        ids = engine.release(batch)
        adversary.observe(engine.view, ids)
    outcome = engine.finish()
    return engine.instance(), outcome


def _to_instance_order(out: Outcome, order: np.ndarray) -> Outcome:
    """Engine arrays are indexed by arrival position; put them in the instance's job order."""

    def back(arr):
        res = np.empty_like(arr)
        res[order] = arr
        return res

    out.machine, out.arrival_step = back(out.machine), back(out.arrival_step)
    out.dispatch_step, out.reject_step = back(out.dispatch_step), back(out.reject_step)
    out.completion = back(out.completion)
    out.trace_job = order[out.trace_job] if out.trace_job.size else out.trace_job
    return out


def _from_fast_path(alg: OnlineAlgorithm, inst: Instance, order: np.ndarray, result) -> Outcome:
    """Outcome of a whole-instance dispatch: one step per arrival; a late rejection happens at
    the step of the arrival that triggered it."""
    n = inst.n
    if isinstance(result, tuple):
        machine, reject_pos = (np.asarray(a, dtype=np.int64) for a in result)
    else:
        machine, reject_pos = np.asarray(result, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    if machine.shape != (n,) or reject_pos.shape != (n,):
        raise AlgorithmError(
            f"{alg.name!r}: dispatch_all returned shapes {machine.shape}, {reject_pos.shape}, expected ({n},)"
        )
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    kept = machine != REJECT
    if np.any(~kept & (reject_pos >= 0)):
        raise AlgorithmError(f"{alg.name!r}: dispatch_all rejected a job late that it never dispatched")
    reject_step = np.where(kept, reject_pos, position)
    empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0)
    out = Outcome(
        algorithm=alg.name,
        problem=alg.problem,
        speed=type(alg).speed_for(alg.eps),
        machine=machine,
        arrival_step=position,
        dispatch_step=np.where(kept, position, -1),
        reject_step=reject_step,
        completion=np.full(n, np.nan),
        step_time=inst.release[order].astype(np.float64),
        trace_machine=empty_i,
        trace_job=empty_i,
        trace_start=empty_f,
        trace_end=empty_f,
        trace_work=empty_f,
        claimed_objective=0.0,
        path="compiled",
    )
    out.claimed_objective = _max_load_over_steps(inst, out)
    return out


def _max_load_over_steps(inst: Instance, out: Outcome) -> float:
    """The engine-side claim for a fast-path run: loads after every step, per machine."""
    on = out.machine >= 0
    late = on & (out.reject_step >= 0)
    if not late.any():
        load = np.bincount(out.machine[on], weights=inst.size[on], minlength=inst.m)
        return float(load.max()) if load.size else 0.0
    mach = np.concatenate([out.machine[on], out.machine[late]])
    when = np.concatenate([out.dispatch_step[on], out.reject_step[late]])
    delta = np.concatenate([inst.size[on], -inst.size[late]]).astype(np.float64)
    order = np.lexsort((when, mach))
    mach, when, delta = mach[order], when[order], delta[order]
    csum = np.cumsum(delta)
    first = np.maximum.accumulate(np.where(np.r_[True, mach[1:] != mach[:-1]], np.arange(mach.size), 0))
    load = csum - (csum[first] - delta[first])  # running load within each machine
    end_of_step = np.r_[(mach[1:] != mach[:-1]) | (when[1:] != when[:-1]), True]
    return float(max(0.0, load[end_of_step].max()))
