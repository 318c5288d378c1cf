"""The run record: one run of an online algorithm, validated or failed, in one type.

:func:`schedbench.scheduling.play.execute` builds it once per run (:meth:`RunRecord.validated`);
a run that raises before it is validated is a :meth:`RunRecord.failed` record. The API's
``RunResult`` is this record plus the offline OPT, and the pipeline's results row is
:meth:`RunRecord.to_row` with the instance columns in front (OPT, ratio and provenance are
added when the rows are collected).

The fields are the row's columns, in the row's order (``params`` becomes one ``p_<name>``
column per parameter); the instance, outcome and validation ride along and are not columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from schedbench.scheduling.validate import Validation

if TYPE_CHECKING:
    from schedbench.scheduling.algorithms.base import OnlineAlgorithm
    from schedbench.scheduling.model import Instance, Outcome

__all__ = ["RunRecord"]

_NAN_IF_NONE = {"nan_if_none": True}  # a number or None; the row writes None as NaN
_RIDER = {"column": False}  # rides along with the record, not a results column


@dataclass
class RunRecord:
    """One run: what ran (algorithm, problem, ε, seed, resolved parameters), on how large an
    instance, and what the validator measured. A failed run (``status == "error"``) keeps
    every measurement at its field default."""

    n_jobs: int
    m: int
    algorithm: str
    problem: str
    model: str  # rejection | speed | plain (what ε means)
    migratory: bool  # outside the model: jobs may move between machines
    rule: str  # Q quoted, R reconstructed, R✓ reconstructed and checked
    eps: float | None = field(metadata=_NAN_IF_NONE)
    seed: int
    params: dict[str, Any]  # the p_<name> columns
    objective: float = math.nan
    rejected_frac: float = math.nan  # by the problem's budget weight (count or w_reject)
    rejected_frac_max_prefix: float = math.nan  # the largest over arrival prefixes
    rejected_volume_frac: float = math.nan  # rejected size / total size
    budget_violations: int = 0  # steps with an arrival or a rejection at which the ε budget was exceeded
    budget_used: float = math.nan  # rejection model: rejected_frac / ε (NaN for speed and plain runs)
    prefix_budget_used: float = math.nan  # rejection model: rejected_frac_max_prefix / ε (> 1: over budget)
    wasted_work: float = math.nan  # work spent on jobs rejected later
    wasted_work_frac: float = math.nan  # wasted work / total size
    claimed_opt: float | None = field(default=None, metadata=_NAN_IF_NONE)  # an adversary's constructed OPT
    guard_fires: int = 0  # times a budget guard accepted a job its rule would reject
    ratio_bound: float | None = field(default=None, metadata=_NAN_IF_NONE)  # proven ALG/OPT bound (None: none)
    seconds: float = 0.0
    path: str = "none"  # step | compiled | whole-instance (Outcome.path); none: the run failed first
    status: str = "error"  # ok | budget_violated | invalid | error
    errors: list[str] = field(default_factory=list)
    counters: dict[str, Any] = field(default_factory=dict, metadata=_RIDER)  # what the algorithm counted
    instance: Instance | None = field(default=None, repr=False, metadata=_RIDER)  # played (realised) instance
    outcome: Outcome | None = field(default=None, repr=False, metadata=_RIDER)
    validation: Validation | None = field(default=None, repr=False, metadata=_RIDER)

    @property
    def valid(self) -> bool:
        """Whether the run counts: legal and within budget (``status == "ok"``)."""
        return self.status == "ok"

    @classmethod
    def columns(cls) -> list[str]:
        """The fields that are results columns, in row order (``params`` stands for the
        ``p_<name>`` columns)."""
        return [f.name for f in fields(cls) if f.metadata.get("column", True)]

    def to_row(self) -> dict[str, Any]:
        """The results row of this run (without the instance, OPT and provenance columns)."""
        row: dict[str, Any] = {}
        for f in fields(self):
            if not f.metadata.get("column", True):
                continue
            value = getattr(self, f.name)
            if f.name == "params":
                row.update({f"p_{k}": v for k, v in value.items()})
            elif f.name == "errors":
                row[f.name] = "; ".join(value)
            elif f.metadata.get("nan_if_none"):
                row[f.name] = math.nan if value is None else float(value)
            else:
                row[f.name] = value
        return row

    @classmethod
    def validated(
        cls,
        alg: OnlineAlgorithm,
        seed: int,
        instance: Instance,
        outcome: Outcome,
        validation: Validation,
        claimed_opt: float | None = None,
        bound_opt: float | None = None,
    ) -> RunRecord:
        """The record of a run the validator checked: every measurement of ``validation``
        (all its fields but ``valid``, which the status implies), the algorithm's resolved
        ε, parameters and counters, and its proven ratio bound at OPT = ``bound_opt`` (the
        oracle given, else the adversary's claim)."""
        algo = type(alg)
        params = dict(alg.params)
        measured = {f.name: getattr(validation, f.name) for f in fields(Validation) if f.name != "valid"}
        measured["errors"] = list(validation.errors)
        if algo.model == "rejection" and alg.eps:  # how much of its ε budget the run spent
            measured["budget_used"] = float(validation.rejected_frac) / alg.eps
            measured["prefix_budget_used"] = float(validation.rejected_frac_max_prefix) / alg.eps
        return cls(
            **_identity(algo, alg.eps, seed, params, alg.problem),
            n_jobs=instance.n,
            m=instance.m,
            **measured,
            claimed_opt=claimed_opt,
            guard_fires=int(alg.counters.get("guard_fires", 0)),
            ratio_bound=algo.ratio_bound(alg.eps, params, opt=bound_opt),
            seconds=outcome.seconds,
            path=outcome.path,
            counters=dict(alg.counters),
            instance=instance,
            outcome=outcome,
            validation=validation,
        )

    @classmethod
    def failed(
        cls,
        algo: type[OnlineAlgorithm],
        source: Any,
        error: BaseException,
        eps: float | None,
        seed: int,
        params: dict[str, Any],
        problem: str | None = None,
        seconds: float = 0.0,
    ) -> RunRecord:
        """The record of a run of ``algo`` on ``source`` (an instance or an adversary) that
        raised ``error`` before it was validated: the run as requested, ``status`` error, and
        every measurement at its field default."""
        problem = problem or getattr(source, "problem", None) or algo.problem
        return cls(
            **_identity(algo, eps, seed, dict(params), problem),
            n_jobs=getattr(source, "n", 0),
            m=source.m,
            seconds=seconds,
            errors=[f"{type(error).__name__}: {error}"],
        )


def _identity(
    algo: type[OnlineAlgorithm], eps: float | None, seed: int, params: dict[str, Any], problem: str
) -> dict[str, Any]:
    """The fields that say what ran."""
    return {
        "algorithm": algo.name,
        "problem": problem,
        "model": algo.model,
        "migratory": bool(algo.migratory),
        "rule": algo.rule_label,
        "eps": eps,
        "seed": seed,
        "params": params,
    }
