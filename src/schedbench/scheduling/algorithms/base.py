"""The online-algorithm plug-in contract, one for every problem of the rejection model.

One file per algorithm, one class per file, decorated with
:func:`schedbench.scheduling.registry.register_algorithm`. A class declares:

``name``          registry name (``kebab-case``), also the ``algorithm`` column of the results;
``problem``       a key of :data:`schedbench.scheduling.problems.PROBLEMS`: the problem it solves by
                  default;
``problems``      other problems the same rule solves (e.g. EDF with d = r + T/w for every flow
                  problem): a run's problem is chosen by the experiment (``problem=`` of the
                  constructor, of :func:`~schedbench.scheduling.play.execute`, of a config
                  experiment) and read from ``self.problem``;
``model``         ``"rejection"`` (may reject an ε fraction), ``"speed"`` (machines run at
                  speed 1+ε, applied by the engine) or ``"plain"`` (neither);
``rule_label``    ``Q`` quoted, ``R`` reconstructed, ``R✓`` reconstructed and checked;
``needs_opt``     whether it assumes the oracle T* (the offline optimum) is given (an algorithm
                  with an ``oracle`` parameter decides per run: :meth:`uses_oracle`);
``unit_sizes_only``  whether it is only defined for unit sizes;
``deferred_dispatch`` whether it may answer :data:`HOLD` and dispatch the job later;
``migratory``     whether it is outside the model: preemptive *and migratory* (a job may move
                  between its eligible machines, never run on two at once); such a class has no
                  step path and schedules a whole instance at once (``schedule_all(inst)``);
``late_reject``   whether it may reject a job after dispatching it;
``overruns_budget`` whether it is a documented failing baseline that may reject more than the ε
                  budget (kept to show it; ``schedbench check`` fails any other rule that does);
``max_hold_slots`` how long it may hold jobs while every machine idles (a guard against
                  algorithms that would never dispatch; default 10 000 slots);
``parameters``    ``{name: Param(default, choices, doc)}`` (:class:`schedbench.hall.params.Param`: also
                  type, range, derived defaults): the grid a config may sweep;
``reference``     the paper and section it implements.
``summary``       its rule in one line (the paper's method table; optional for a plug-in);
``bound``         its proven guarantee on ALG/OPT in words, e.g. ``O(log 1/ε)`` or ``none known
                  for max flow`` (the method table; :meth:`ratio_bound` is the number);
``cites``, ``section``  the source paper's key in ``paper/references.tex`` and its section
                  (the method table cites them; the table never names a file).

The engine calls, in each slot t (docs/models/rejection-model.md §1.3):

1. :meth:`on_arrival` once per job released at t, in arrival order, with a :class:`JobView`
   and the engine's read-only view; the answer is a machine of the job's eligible set,
   :data:`REJECT`, or :data:`HOLD`. Right after each arrival, :meth:`after_arrival` may name
   dispatched jobs to reject now (LoadBalancing overload rules act here);
2. :meth:`on_slot` (only if the class overrides it) after the arrivals of t, in every slot
   where something changed (a release, a completion in the previous slot, or a wake-up the
   algorithm asked for): a :class:`SlotPlan` may dispatch held jobs, reject unfinished ones,
   give machines a processing order, and ask to be woken at a later slot;
3. the engine, not the algorithm, spends s units of work per machine in the slot along each
   machine's order (FIFO by dispatch unless the algorithm reordered it).

The view (:class:`schedbench.scheduling.engine.EngineView`) shows the time, the speed, queues,
remaining work, held jobs, rejections so far and the budget left, and never the future.

**Compiled paths.** An algorithm may also offer the same decisions for a whole instance in
one numba call — the only place this choice is made is the class itself:

* :meth:`dispatch_all` (LoadBalancing, nothing processed): the machine of every job;
* :meth:`compiled_run` (flow-time problems): the whole run, processing included, as a
  :class:`~schedbench.scheduling.compiled.CompiledRun`.

Either returns None for a parameter combination it does not cover; then, and for an
algorithm that overrides neither (a newcomer's plug-in in Python), the run takes the step
path unchanged. Adaptive adversaries always play the step path. The results table says which
path a run took (``path``); :meth:`has_compiled_path` is what listings show. The conformance
tests (``tests/conformance/test_compiled_paths.py``) check that both paths agree.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, NamedTuple

import numpy as np

from schedbench.hall.params import Param, ParameterError, resolve
from schedbench.scheduling.model import HOLD, REJECT
from schedbench.scheduling.problems import get_problem

#: the smallest rejected fraction ε an algorithm accepts: 1/ε ≤ 2^53 stays a finite float, exact
#: as an integer (a subnormal ε such as 5e-324 made ⌈log₂(1/ε)⌉ an OverflowError)
MIN_REJECTION_EPS = 2.0**-53

__all__ = ["OnlineAlgorithm", "JobView", "SlotPlan", "Param", "ParameterError", "REJECT", "HOLD"]


class JobView(NamedTuple):
    """What an online algorithm sees of one arrived job."""

    id: int
    release: int
    size: int
    eligible: np.ndarray
    w_flow: float
    w_reject: float


@dataclass
class SlotPlan:
    """An algorithm's decisions in one slot (all optional).

    ``dispatch``: {held job: machine}; ``reject``: unfinished jobs (held or dispatched) to
    reject now; ``priority``: {machine: jobs first, in this order} (the machine's other jobs
    follow in their current order; an order persists until changed); ``wake_at``: a later
    slot at which to call :meth:`OnlineAlgorithm.on_slot` again even if nothing happens.
    """

    dispatch: dict[int, int] = field(default_factory=dict)
    reject: Iterable[int] = ()
    priority: dict[int, Iterable[int]] = field(default_factory=dict)
    wake_at: int | None = None


#: the flow problems weighted other than by count: a rule that solves MaxFlowTime by a weight-blind
#: dispatch, or by deadlines r + T/w with the problem's flow weight, declares them in ``problems``
WEIGHTED_FLOW_PROBLEMS: tuple[str, ...] = ("wtdmaxflow", "genwtd", "stretch")

#: ``guard`` of the rejection rules with a cap (lb-unit-reject and its per-size-class form,
#: lb-general-reject): declared here, so that neither rule's file imports the other's
GUARD = Param("off", ("off", "on"), "on: accept instead of rejecting past the budget (counted)")


class OnlineAlgorithm:
    """Base class of every online algorithm (see the module docstring for the contract)."""

    name: ClassVar[str]
    problem: ClassVar[str] = "load"
    problems: ClassVar[tuple[str, ...]] = ()  # further problems the same rule solves
    model: ClassVar[str] = "plain"
    rule_label: ClassVar[str] = "R"
    needs_opt: ClassVar[bool] = False
    unit_sizes_only: ClassVar[bool] = False
    deferred_dispatch: ClassVar[bool] = False
    late_reject: ClassVar[bool] = False
    overruns_budget: ClassVar[bool] = False  # a documented failing baseline (check fails others that overrun)
    migratory: ClassVar[bool] = False  # outside the model: may migrate (whole-instance schedule_all)
    max_hold_slots: ClassVar[int] = 10_000  # slots it may hold jobs while every machine is idle
    parameters: ClassVar[dict[str, Param]] = {}
    reference: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    bound: ClassVar[str] = ""
    cites: ClassVar[str] = ""
    section: ClassVar[str] = ""
    jobs_per_second: ClassVar[float | None] = None  # the run planner's rate, if not its path's (docs/run-planner.md)

    def __init__(
        self,
        m: int,
        eps: float | None = None,
        opt: float | None = None,
        seed: int = 0,
        problem: str | None = None,
        **params: Any,
    ) -> None:
        cls = type(self)
        #: the problem of this run (the class default unless the experiment chose another it solves)
        self.problem = cls.check_problem(problem)
        self.m = int(m)
        self.seed = int(seed)
        self.params = cls.resolve_params(params)
        self.eps = cls.check_eps(eps)
        if cls.uses_oracle(self.params):
            if opt is None or not isinstance(opt, (int, float)) or not math.isfinite(opt) or opt <= 0:
                raise ParameterError(f"algorithm {cls.name!r} assumes the oracle T* (opt > 0), got opt={opt!r}")
        elif opt is not None:
            raise ParameterError(f"algorithm {cls.name!r} does not use the oracle T*: 'opt' does not apply")
        self.opt = opt
        #: Counters an algorithm reports with its outcome (e.g. how often a budget guard fired).
        self.counters: dict[str, int] = {}

    # ---------------------------------------------------------------- declared model
    @classmethod
    def solved_problems(cls) -> tuple[str, ...]:
        """Every problem this rule solves: its default ``problem`` first, then ``problems``."""
        return (cls.problem,) + tuple(p for p in cls.problems if p != cls.problem)

    @classmethod
    def check_problem(cls, problem: str | None) -> str:
        """The problem of a run: ``problem`` if the rule solves it, the default if None."""
        if problem is None:
            return cls.problem
        if problem not in cls.solved_problems():
            raise ParameterError(
                f"algorithm {cls.name!r} solves {', '.join(cls.solved_problems())}; "
                f"'problem' = {problem!r} does not apply"
            )
        return problem

    @classmethod
    def check_eps(cls, eps: float | None) -> float | None:
        """The one place that says what ε means per model: the rejected fraction (rejection,
        0 < ε < 1), the extra speed (speed, ε ≥ 0; ε = 0 is the speed-1 reference row), and
        nothing for plain algorithms (an ε given to one is an error)."""
        if cls.model == "plain":
            if eps is not None:
                raise ParameterError(f"algorithm {cls.name!r} is plain: 'eps' does not apply (give none)")
            return None
        # numpy scalars count as the numbers they are (np.float32(0.25) is ε = 0.25)
        ok = isinstance(eps, numbers.Real) and not isinstance(eps, (bool, np.bool_)) and math.isfinite(float(eps))
        if ok:
            eps = float(eps)
        if cls.model == "rejection" and not (ok and 0.0 < eps < 1.0):
            raise ParameterError(f"algorithm {cls.name!r}: eps must be a number in (0, 1), got {eps!r}")
        # 1/ε must be a finite integer-exact float: the rules derive ⌈1/ε⌉, log₂(1/ε), 1/ε^k
        if cls.model == "rejection" and eps < MIN_REJECTION_EPS:
            raise ParameterError(
                f"algorithm {cls.name!r}: eps = {eps!r} is too small: the rules need a finite 1/ε (eps >= 2^-53)"
            )
        if cls.model == "speed" and not (ok and 0.0 <= eps <= 16.0):
            raise ParameterError(f"algorithm {cls.name!r}: eps (extra speed) must be in [0, 16], got {eps!r}")
        return float(eps)

    @classmethod
    def eps_values(cls, eps_list: Iterable[float]) -> list[float | None]:
        """The ε values an experiment runs this algorithm at: each given ε, or once (None) if
        plain; a speed-model algorithm also runs at ε = 0 (speed 1), its own reference row."""
        if cls.model == "plain":
            return [None]
        values = [float(e) for e in eps_list]
        return ([0.0] if cls.model == "speed" and 0.0 not in values else []) + values

    @classmethod
    def speed_for(cls, eps: float | None) -> float:
        """Machine speed at ε (1 + ε for speed-model algorithms, else 1), as decided by
        :func:`schedbench.scheduling.speed.machine_speed`, which the engine asks."""
        from schedbench.scheduling.speed import machine_speed

        return machine_speed(cls.model, eps)

    @classmethod
    def resolve_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults and check values; an unknown name is an error that names it."""
        out = resolve(cls.parameters, params, f"algorithm {cls.name!r}")
        cls.check_params(out)
        return out

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Checks of free-valued parameters (numbers); raise ParameterError naming the parameter."""

    @classmethod
    def _positive_number(cls, params: dict[str, Any], key: str, allow_none: bool = False) -> None:
        value = params[key]
        if allow_none and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ParameterError(
                f"algorithm {cls.name!r}: parameter '{key}' must be a finite number > 0"
                f"{' (or null)' if allow_none else ''}, got {value!r}"
            )

    @classmethod
    def ratio_bound(cls, eps: float | None, params: dict[str, Any], opt: float | None = None) -> float | None:
        """The proven bound on ALG/OPT for a run with these parameters (``opt``: the instance's
        OPT when known, for bounds such as ⌈T*/ε⌉/T*), or None when the algorithm has none here
        (drawn as the theory curve in the figures)."""
        return None

    @classmethod
    def cap_by_construction(cls, params: dict[str, Any]) -> bool:
        """Whether the rule itself keeps a run within :meth:`ratio_bound` (it refuses whatever
        would cross its cap), so the bound holds by construction rather than as a measurement:
        by default when it is handed T* (:meth:`uses_oracle`)."""
        return cls.uses_oracle(params)

    @classmethod
    def uses_oracle(cls, params: dict[str, Any]) -> bool:
        """Whether a run with these (resolved) parameters needs T*: ``needs_opt``, or, for an
        algorithm with an ``oracle`` parameter, whether it is ``"opt"``."""
        if "oracle" in cls.parameters:
            return params.get("oracle", cls.parameters["oracle"].default) == "opt"
        return cls.needs_opt

    @classmethod
    def has_slot_hook(cls) -> bool:
        return cls.on_slot is not OnlineAlgorithm.on_slot

    # ---------------------------------------------------------------- step contract
    def on_arrival(self, job: JobView, view) -> int:
        raise NotImplementedError

    def after_arrival(self, view) -> Iterable[int]:
        """Dispatched jobs to reject right after an arrival (default: none)."""
        return ()

    def on_slot(self, view) -> SlotPlan | None:
        """Decisions once per slot where something changed (override to use it)."""
        return None

    # ---------------------------------------------------------------- optional fast path
    def dispatch_all(self, size: np.ndarray, indptr: np.ndarray, indices: np.ndarray, order: np.ndarray):
        """Decisions for every job at once, or None if not offered: either a machine-or-REJECT
        array, or a pair (machine, reject_position) where ``reject_position[j]`` is the arrival
        position at which a dispatched job j was rejected later (−1: never). Arrays are indexed
        by job; ``order`` lists the jobs in arrival order."""
        return None

    def compiled_run(self, inst, order: np.ndarray):
        """The whole run on ``inst`` (jobs in arrival ``order``) in one compiled call, as a
        :class:`~schedbench.scheduling.compiled.CompiledRun`, or None if not offered (for this
        parameter combination): the step path runs instead."""
        return None

    @classmethod
    def has_compiled_path(cls) -> bool:
        """Whether the class offers a compiled path (:meth:`dispatch_all` or :meth:`compiled_run`;
        it may still decline some parameter combinations, see each algorithm's docstring)."""
        return (
            cls.dispatch_all is not OnlineAlgorithm.dispatch_all or cls.compiled_run is not OnlineAlgorithm.compiled_run
        )

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {
            "name": cls.name,
            "problem": cls.problem,
            "problems": list(cls.solved_problems()),
            "model": cls.model,
            "rule": cls.rule_label,
            "needs_opt": cls.needs_opt,
            "unit_sizes_only": cls.unit_sizes_only,
            "deferred_dispatch": cls.deferred_dispatch,
            "late_reject": cls.late_reject,
            "compiled_path": cls.has_compiled_path(),
            "parameters": {k: p.default for k, p in cls.parameters.items()},
            "reference": cls.reference,
            "summary": cls.summary,
            "bound": cls.bound,
        }

    @classmethod
    def check_declaration(cls) -> None:
        """Raise if the class declaration is inconsistent (called by the registry)."""
        for p in cls.solved_problems():
            get_problem(p)
        if cls.model not in ("rejection", "speed", "plain"):
            raise ValueError(f"algorithm {cls.name!r}: model must be rejection, speed or plain")
        if cls.late_reject and cls.model != "rejection":
            raise ValueError(f"algorithm {cls.name!r}: only rejection-model algorithms may reject late")
