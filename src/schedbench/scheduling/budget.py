"""The ε rejection budget: the one rule every rejection-model algorithm, kernel and exact model
asks before it rejects (the model of ``docs/models/rejection-model.md`` §1.1, §1.4).

At every prefix of the arrivals, the rejected weight may be at most ε times the arrived weight.
What a job weighs is its budget weight, owned by the problem table (``problems.py``): 1 per job
(``count``: load, maxflow, stretch), w (wtdmaxflow) or w^r (genwtd). One more rejection of
weight w is within the budget iff

    rejected + w ≤ ε·arrived + BUDGET_TOL                                      (the rule)

with ``rejected`` and ``arrived`` the running sums, the job at hand already in ``arrived``.
Everything here is that one inequality in three forms, and they decide bit for bit alike:

* :func:`allows`, and :class:`Budget` (the running sums of one run or one phase): Python;
* :data:`allows_nb`, the compiled twin for numba kernels: compiled (:func:`schedbench.hall.jit.compiled`) from :func:`allows`
  itself, the same expression in the same IEEE-754 double arithmetic (kernel counts are int64,
  exact as Python ints below 2**53);
* :func:`allowance`, the integer form for the exact CP-SAT models: the largest count k with
  k ≤ ε·arrived + BUDGET_TOL, ⌊ε·arrived + BUDGET_TOL⌋ of the same float, so for integers
  ``allows(r, 1, a, eps)`` ⟺ ``r + 1 ≤ allowance(eps, a)``.

**One tolerance**, absolute: ``BUDGET_TOL = 1e-9``. Every plug-in, kernel and exact model used
exactly this test before it was gathered here, so no decision changes. It absorbs the rounding
of ε·arrived just below an integer (0.29·100 = 28.999999999999996): k = ε·n exactly is within
the budget, as the rule reads in exact arithmetic. The validator (``validate.py``) keeps its
own, independent check, with a tolerance relative to the arrived weight (1e-9·(1 + arrived),
never tighter than this one); it is deliberately not routed through here, and unifying the two
would change which runs the validator flags.

:func:`drop_period` is the one constant derived from the rule: k = ⌈1/ε⌉, the period at which
rejecting every k-th job routed to a machine keeps the count budget by construction
(⌊n_i/k⌋ ≤ ε·n_i on every machine, so at every prefix). Its rounding slack stays 1e-12, as
landed in ``drop-every-k``, ``drop-every-k-flow`` and their exact model; it is a slack on 1/ε,
not a budget test. Unifying it with BUDGET_TOL could change k: ⌈1/ε − 1e-9⌉ and ⌈1/ε − 1e-12⌉
differ when 1/ε lies in (N + 1e-12, N + 1e-9] for an integer N (e.g. ε = 1/(10 + 5e-10)).

The other integers derived from ε live here too: :func:`ceil_log2` (⌈log₂(1/ε)⌉ and the like,
slack 1e-12; :func:`ceil_log2_signed` without the clamp at 0, wmft-B's ⌈log₂ D⌉) and
:func:`ceil_over_eps` (⌈x/ε⌉, slack 1e-9), each slack the one its users had; with them the exact
integer :func:`floor_log2` (an adversary's rounds log₂ m).

What ε means for the machine speed (1 + ε in the speed model, 1 otherwise) is decided in
``speed.py``. The compiled twin is built on first use (``from schedbench.scheduling.budget
import allows_nb``), so importing the engine does not import numba.
"""

from __future__ import annotations

import math

__all__ = [
    "BUDGET_TOL",
    "Budget",
    "allows",
    "allowance",
    "left",
    "drop_period",
    "ceil_log2",
    "ceil_log2_signed",
    "floor_log2",
    "ceil_over_eps",
    "allows_nb",  # noqa: F822 (built on first use)
]

#: The one tolerance of the rule (absolute; see the module docstring).
BUDGET_TOL = 1e-9

#: Rounding slack of :func:`drop_period` (landed value, kept; see the module docstring).
_PERIOD_TOL = 1e-12


def allows(rejected, w, arrived, eps) -> bool:  # pragma: no mutate block (numba compiles it: docs/mutation-testing.md)
    """Whether rejecting one more job of budget weight ``w`` keeps ``rejected + w ≤
    ε·arrived`` (tolerance :data:`BUDGET_TOL`); ``arrived`` includes the job. Compiled as
    :data:`allows_nb`: keep this one expression, numba compiles exactly it (the kernels that call
    the twin are recompiled after an edit here: :func:`schedbench.hall.jit.compiled`)."""
    return rejected + w <= eps * arrived + BUDGET_TOL


def allowance(eps: float, arrived: int) -> int:
    """The integer form of :func:`allows` for the exact CP-SAT models: the largest count k with
    ``k ≤ ε·arrived + BUDGET_TOL`` (same float), so a rejection is within the budget iff
    rejected-so-far + 1 ≤ this."""
    return math.floor(eps * arrived + BUDGET_TOL)


def left(eps: float, arrived, rejected) -> float:
    """ε·(arrived weight) − (rejected weight): what is left of the budget (no tolerance; for
    reading, e.g. :attr:`EngineView.budget_left`, not for deciding)."""
    return eps * arrived - rejected


def ceil_log2(x: float) -> int:
    """⌈log₂ x⌉ for x > 0 (0 for x ≤ 1), with a slack of 1e-12 so that 1/ε for ε = 2^-k gives k
    whatever the last bit of the float: the ε-derived integers of the rules and adversaries
    (α = ⌈log₂(1/ε)⌉ of rejection-model.md §2.1–2.2, the rounds K = ⌈log₂(1/ε)⌉ + 2 of §6.1, the
    machines m = 2^⌈log₂(1/ε)⌉ of the ε sweep)."""
    return max(0, ceil_log2_signed(x))


def ceil_log2_signed(x: float) -> int:
    """⌈log₂ x⌉ for x > 0 with :func:`ceil_log2`'s slack, negative for x < 1 (no clamp at 0):
    wmft-B's density shift ⌈log₂ D⌉ (§4.3; D = 1/ε by default, any D > 0 allowed), so that
    density ≥ D·density' ⟺ class exponent ≥ exponent' + shift for powers of two."""
    return math.ceil(math.log2(x) - _PERIOD_TOL)


def floor_log2(k: int) -> int:
    """⌊log₂ k⌋ of an integer k ≥ 1, exactly (from its bit length): the rounds K = log₂ m of the
    elimination adversaries (rejection-model.md §6.4), the largest power of two ≤ m of the
    black-box search, imd's size classes ⌊log₂ p⌋ (§7 B6)."""
    if k < 1:
        raise ValueError(f"floor_log2: an integer >= 1, got {k!r}")
    return int(k).bit_length() - 1


#: Rounding slack of :func:`ceil_over_eps` (the value each of its users had, kept).
_OVER_EPS_TOL = 1e-9


def ceil_over_eps(x: float, eps: float) -> int:
    """⌈x/ε⌉ with a slack of 1e-9 (x/ε a hair above an integer by rounding gives that integer):
    the ε-derived lengths and caps — mft-unit's Qcap = ⌈c·T/ε⌉, anand-batch's batch length
    ⌈T/ε⌉ or ⌈2T/ε⌉, the ε sweep's job counts ⌈k/ε⌉. Callers bound it below where they need to."""
    return math.ceil(x / eps - _OVER_EPS_TOL)


def drop_period(eps: float) -> int:
    """k = ⌈1/ε⌉ (at least 1): rejecting every k-th job routed to a machine keeps the count
    budget at every prefix by construction."""
    return max(1, math.ceil(1.0 / eps - _PERIOD_TOL))


class Budget:
    """The running budget of one run (or one phase of a run): arrived and rejected weight.

    ``problem`` (a :class:`~schedbench.scheduling.problems.Problem`; None: by count) says what a
    job weighs, per the problem table: :meth:`weight`. Counting algorithms use the default
    weight 1 throughout and their sums stay integers. Use: :meth:`arrive` for every arriving
    job (before asking about it), :meth:`allows` before a rejection, :meth:`reject` when
    rejecting (:meth:`take`: both in one call).
    """

    __slots__ = ("eps", "problem", "arrived", "rejected")

    def __init__(self, eps: float, problem=None, arrived=0, rejected=0) -> None:
        self.eps, self.problem = eps, problem
        self.arrived, self.rejected = arrived, rejected

    def weight(self, job) -> float:
        """The budget weight of a job (anything with ``w_flow`` and ``w_reject``): 1 by count,
        else ``Problem.budget_weight_of`` (w or w^r)."""
        if self.problem is None:
            return 1
        return self.problem.budget_weight_of(float(job.w_flow), float(job.w_reject))

    def arrive(self, w=1) -> None:
        self.arrived += w

    def allows(self, w=1) -> bool:
        """Whether one more rejection of weight ``w`` stays within the budget (:func:`allows`)."""
        return allows(self.rejected, w, self.arrived, self.eps)

    def reject(self, w=1) -> None:
        self.rejected += w

    def take(self, w=1) -> bool:
        """Reject one job of weight ``w`` if the budget allows it (:meth:`allows`, then
        :meth:`reject`); whether it did. The arrival-time rejection of the policies that reject
        a job over their threshold while the budget lasts (and count a guard fire otherwise)."""
        if self.allows(w):
            self.reject(w)
            return True
        return False

    @property
    def left(self) -> float:
        return left(self.eps, self.arrived, self.rejected)


def __getattr__(name: str):
    # the compiled twin, built once on first import of the name (numba stays out of the engine)
    if name == "allows_nb":
        from schedbench.hall.jit import compiled

        twin = compiled(allows)
        globals()["allows_nb"] = twin
        return twin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
