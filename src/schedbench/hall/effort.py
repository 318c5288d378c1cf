"""The limits of one solve (the offline optima, the worst-case search): one owner.

:class:`Effort` owns what a solve may still do. Its **work limit** is counted in deterministic
units, so that the same instance, seed and limit give the same answer on a quiet and on a
loaded machine; its **time limit** (wall clock) is only a safety net, and a result stopped by it
says so (``status="timeout"``, the one status that may differ between machines). One unit of
work is :data:`CPSAT_TIME_PER_UNIT` of CP-SAT's deterministic time (``max_deterministic_time``)
or :data:`HIGHS_NODES_PER_UNIT` branch-and-bound nodes of HiGHS; both are about a second of one
core of the reference machine (2 cores, Python 3.11: CP-SAT's lazy-window probes at m = 10,
n = 200–1000 spent 0.2–0.35 deterministic time per wall second; HiGHS's lazy probe at m = 10,
n = 200 about 200 nodes per second), so a work limit reads roughly as seconds. A step whose cost
grows faster than the input (the lazy windows' tabu local search: each move re-runs EDF on two
machines for every job of a late machine, about 200 s for its 2000 moves at n = 10⁴ on 16
machines) counts its elementary operations, gets a budget of operations from what is left of both
limits (:meth:`Effort.step_budget`) and is charged for what it did (:meth:`Effort.charge_steps`),
so neither limit is overrun by it. Polynomial steps that are near-linear (max-flow, matching, EDF
checks, list schedules) are not charged: they always finish, under the safety net only.
docs/offline-optimum.md states the rule for users. No solver is imported here (the module is
cheap to import for argument checks).

Every wall-clock limit of the suite (the safety nets here, the searches' ``budget_seconds``) is
read on :func:`work_clock`, a clock that stops while numba compiles: the first solve of a process
compiles the kernels it uses (measured: about a minute for the offline optima on a cold cache
with the other core busy, nothing once the on-disk cache holds them), and a limit of a few
seconds would otherwise expire in the compiler — on a fresh checkout or a cluster node, not on a
warm machine — and the same config would give different results there. Compilation is bounded
(it cannot hang); the ``seconds`` columns of the results still report wall time.
"""

from __future__ import annotations

import math
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import highspy

__all__ = [
    "Effort",
    "work_limit_problem",
    "cpsat_deterministic_time",
    "HIGHS_NODES_PER_UNIT",
    "CPSAT_TIME_PER_UNIT",
    "DEFAULT_WORK_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "CLOCK_MARGIN_SECONDS",
    "CLOCK_MARGIN_FRACTION",
    "clock_margin",
    "work_clock",
    "compile_seconds",
]

#: HiGHS branch-and-bound nodes per unit of work (module docstring).
HIGHS_NODES_PER_UNIT = 200
#: CP-SAT deterministic time per unit of work (module docstring).
CPSAT_TIME_PER_UNIT = 0.3
#: The work limit of an offline solve when none is given (units, module docstring).
DEFAULT_WORK_LIMIT = 60.0
#: The wall-clock safety net of an offline solve when none is given (seconds).
DEFAULT_TIME_LIMIT = 600.0
#: How far past its wall-clock ``time_limit`` a solve or search may return (:func:`clock_margin`):
#: the step under way when the clock runs out (a solver's reaction to its own limit, one EDF check,
#: the local search's fixed moves, a replay of the best find) and the result's assembly. Measured
#: at ``time_limit = 1`` with the other core busy: at most 0.7 s over (the lazy-window search at
#: m = 20, n = 3000); tests/unit/test_solver_limits.py sweeps every solver and search.
CLOCK_MARGIN_SECONDS = 2.0
CLOCK_MARGIN_FRACTION = 0.1


def clock_margin(time_limit: float) -> float:
    """Seconds a solve or search given ``time_limit`` may run past it (the stated margin)."""
    return CLOCK_MARGIN_SECONDS + CLOCK_MARGIN_FRACTION * float(time_limit)


class _CompileTimer:
    """Sums the seconds this process spends in numba's compiler (its ``numba:compile`` events;
    nested compiles of callees are counted once, by the outermost event)."""

    def __init__(self) -> None:
        self.total = 0.0
        self.depth = 0
        self.started = 0.0

    def on_start(self, event) -> None:
        if self.depth == 0:
            self.started = time.perf_counter()
        self.depth += 1

    def on_end(self, event) -> None:
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0:
            self.total += time.perf_counter() - self.started

    def seconds(self) -> float:
        """Compile seconds so far, the compile under way included."""
        running = time.perf_counter() - self.started if self.depth else 0.0
        return self.total + running


_timer: _CompileTimer | None = None
_timer_lock = threading.Lock()


def _compile_timer() -> _CompileTimer:
    """The process's compile timer, registered with numba on first use (numba is imported then:
    any compile that follows is counted; one before it happened before every clock read here)."""
    global _timer
    if _timer is None:
        with _timer_lock:
            if _timer is None:
                from numba.core import event

                timer = _CompileTimer()

                class _Listener(event.Listener):
                    def on_start(self, ev) -> None:
                        timer.on_start(ev)

                    def on_end(self, ev) -> None:
                        timer.on_end(ev)

                event.register("numba:compile", _Listener())
                _timer = timer
    return _timer


def compile_seconds() -> float:
    """Seconds this process has spent compiling numba kernels since the first clock read."""
    return _compile_timer().seconds()


def work_clock() -> float:
    """A monotonic clock in seconds that stops while numba compiles (module docstring): every
    time limit and search budget of the suite is measured on it."""
    return time.perf_counter() - compile_seconds()


def work_limit_problem(work_limit) -> str:
    """Why ``work_limit`` is not a valid work limit ('' if it is): a finite number > 0, or None."""
    if work_limit is None:
        return ""
    number = isinstance(work_limit, (int, float)) and not isinstance(work_limit, bool)
    if not number:  # numpy scalars are numbers too
        number = (
            type(work_limit).__module__ == "numpy" and hasattr(work_limit, "dtype") and work_limit.dtype.kind in "iuf"
        )
    if number and math.isfinite(work_limit) and work_limit > 0:
        return ""
    return f"argument 'work_limit' must be a finite number > 0 (work units) or None, got {work_limit!r}"


def cpsat_deterministic_time(work: float) -> float:
    """CP-SAT's ``max_deterministic_time`` for ``work`` units."""
    return work * CPSAT_TIME_PER_UNIT


class Effort:
    """What one solve may still do: ``work_limit`` deterministic units (``None``: no work limit)
    and ``time_limit`` seconds of wall clock from now (the safety net). The solver asks
    :meth:`exhausted` between steps, hands the rest to HiGHS (:meth:`limit_highs`) or CP-SAT
    (:meth:`limit_cpsat`) and charges what they report; :attr:`status` says which limit ended
    an incomplete solve: ``"bound"`` (work: deterministic) or ``"timeout"`` (wall clock)."""

    def __init__(self, work_limit: float | None, time_limit: float) -> None:
        self.t0 = work_clock()
        self.deadline = self.t0 + float(time_limit)  # on work_clock()
        self.work_limit = math.inf if work_limit is None else float(work_limit)
        self.used = 0.0
        self.stopped_by = ""  # "" | "work" | "clock"
        self._given = math.inf  # the work handed to the last CP-SAT solve

    def seconds_left(self) -> float:
        return self.deadline - work_clock()

    def work_left(self) -> float:
        return self.work_limit - self.used

    def exhausted(self) -> bool:
        """True once either limit is used up (and remembers which came first)."""
        if not self.stopped_by:
            if self.work_left() <= 0:
                self.stopped_by = "work"
            elif self.seconds_left() <= 0:
                self.stopped_by = "clock"
        return bool(self.stopped_by)

    def clock_stop(self) -> None:
        """The caller stops for the clock (e.g. the next step would overrun the deadline)."""
        self.stopped_by = self.stopped_by or "clock"

    @property
    def status(self) -> str:
        """The status of a solve that did not finish."""
        return "timeout" if self.stopped_by == "clock" else "bound"

    # ------------------------------------------------------------------ budgeted steps
    def step_budget(self, ops_per_unit: float) -> int:
        """Operations a budgeted step may still do at ``ops_per_unit`` operations per unit of work
        (about a second, module docstring): the least of the work and the seconds left, ≥ 0."""
        left = min(self.work_left(), self.seconds_left())
        return int(max(0.0, min(left * ops_per_unit, 2.0**62)))

    def charge_steps(self, ops: int, ops_per_unit: float, budget: int) -> None:
        """Charge ``ops`` operations of a budgeted step; when it used up a ``budget`` that the
        clock (not the work) had set, the solve stops for the clock (``status="timeout"``)."""
        self.used += ops / ops_per_unit
        if ops >= budget and self.seconds_left() < self.work_left() and not self.stopped_by:
            self.clock_stop()

    # ------------------------------------------------------------------ HiGHS
    def limit_highs(self, h: highspy.Highs) -> None:
        h.setOptionValue("time_limit", max(self.seconds_left(), 1e-3))
        if math.isfinite(self.work_limit):
            # capped before rounding: a huge finite limit (1e306 units) overflows the product
            nodes = max(1, math.ceil(min(self.work_left() * HIGHS_NODES_PER_UNIT, 2**31 - 1)))
            h.setOptionValue("mip_max_nodes", int(nodes))

    def charge_highs(self, h: highspy.Highs, status: highspy.HighsModelStatus) -> None:
        """Charge the nodes of the solve just run; note which limit stopped it, if one did."""
        import highspy

        self.used += max(1, int(h.getInfo().mip_node_count)) / HIGHS_NODES_PER_UNIT
        if status == highspy.HighsModelStatus.kTimeLimit:
            self.clock_stop()
        elif status == highspy.HighsModelStatus.kSolutionLimit:  # what mip_max_nodes ends with
            self.stopped_by = self.stopped_by or "work"

    # ------------------------------------------------------------------ CP-SAT
    def limit_cpsat(self, parameters) -> None:
        parameters.max_time_in_seconds = max(self.seconds_left(), 1e-3)
        self._given = math.inf
        if math.isfinite(self.work_limit):
            self._given = cpsat_deterministic_time(max(self.work_left(), 1e-3))
            parameters.max_deterministic_time = self._given

    def charge_cpsat(self, solver, unknown: bool) -> None:
        """Charge the deterministic time of the solve just run; ``unknown``: it gave no answer."""
        spent = float(solver.response_proto.deterministic_time)
        self.used += spent / CPSAT_TIME_PER_UNIT
        if unknown and not self.stopped_by:  # which limit CP-SAT hit: the work given was spent, or not
            self.stopped_by = "work" if spent >= 0.99 * self._given else "clock"
