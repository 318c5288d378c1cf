"""The online-algorithm plug-in contract.

One file per algorithm, one class per file, decorated with
:func:`schedbench.scheduling.registry.register_algorithm`. A class declares:

``name``         registry name (``kebab-case``), also the ``algorithm`` column of the results;
``problem``      ``"load"`` (LoadBalancing); flow-time problems come with the slotted engine;
``model``        ``"rejection"`` (may reject an ε fraction), ``"speed"`` (speed 1+ε) or ``"plain"``;
``rule_label``   how faithful the rule is to its source: ``Q`` quoted, ``R`` reconstructed,
                 ``R✓`` reconstructed and checked (labels of ``shared/specs``);
``needs_opt``    whether it assumes the oracle T* (the offline optimum) is given;
``unit_sizes_only`` whether it is only defined for unit sizes;
``parameters``   ``{name: Param(default, choices)}``: the grid a config may sweep;
``reference``    the paper and section it implements.

At run time the engine calls :meth:`OnlineAlgorithm.on_arrival` once per job, in arrival
order, with a :class:`JobView` (the job and nothing of the future) and expects a machine of
the job's eligible set or :data:`~schedbench.scheduling.model.REJECT`. After each arrival it calls
:meth:`late_rejections` for jobs dispatched earlier that the algorithm now rejects (only
algorithms whose paper rule allows late rejection return anything).

An algorithm may also implement the optional fast path :meth:`dispatch_all`: the same
decisions for a whole instance in one (numba) call. The conformance tests check that the fast
path and the step-by-step path agree on every instance they try.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from schedbench.scheduling.model import REJECT

__all__ = ["OnlineAlgorithm", "JobView", "Param", "ParameterError", "REJECT"]


class ParameterError(ValueError):
    """An algorithm parameter (or ε, or the oracle T*) is missing or out of range."""


class JobView(NamedTuple):
    """What an online algorithm sees of one arriving job."""

    id: int
    release: int
    size: int
    eligible: np.ndarray
    w_flow: float
    w_reject: float


@dataclass(frozen=True)
class Param:
    """One tunable parameter: its default and (optionally) the values it may take."""

    default: Any
    choices: tuple | None = None
    doc: str = ""

    def check(self, alg: str, name: str, value: Any) -> Any:
        if self.choices is not None and value not in self.choices:
            raise ParameterError(
                f"algorithm {alg!r}: parameter '{name}' must be one of {list(self.choices)}, got {value!r}"
            )
        return value


class OnlineAlgorithm:
    """Base class of every online algorithm (see the module docstring for the contract)."""

    name: ClassVar[str]
    problem: ClassVar[str] = "load"
    model: ClassVar[str] = "plain"
    rule_label: ClassVar[str] = "R"
    needs_opt: ClassVar[bool] = False
    unit_sizes_only: ClassVar[bool] = False
    late_reject: ClassVar[bool] = False
    parameters: ClassVar[dict[str, Param]] = {}
    reference: ClassVar[str] = ""

    def __init__(self, m: int, eps: float | None = None, opt: float | None = None,
                 seed: int = 0, **params: Any) -> None:
        cls = type(self)
        self.m = int(m)
        self.seed = int(seed)
        self.params = cls.resolve_params(params)
        if cls.model in ("rejection", "speed"):
            if eps is None or not (isinstance(eps, (int, float)) and 0.0 < float(eps) < 1.0):
                raise ParameterError(f"algorithm {cls.name!r}: eps must be a number in (0, 1), got {eps!r}")
            self.eps = float(eps)
        else:
            self.eps = None
        if cls.needs_opt:
            if opt is None or not math.isfinite(opt) or opt <= 0:
                raise ParameterError(
                    f"algorithm {cls.name!r} assumes the oracle T* (opt > 0), got opt={opt!r}"
                )
        self.opt = opt

    @classmethod
    def resolve_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults and check values; an unknown name is an error that names it."""
        unknown = sorted(set(params) - set(cls.parameters))
        if unknown:
            known = ", ".join(sorted(cls.parameters)) or "none"
            raise ParameterError(
                f"algorithm {cls.name!r} has no parameter '{unknown[0]}' (its parameters: {known})"
            )
        return {k: p.check(cls.name, k, params.get(k, p.default)) for k, p in cls.parameters.items()}

    # ---------------------------------------------------------------- step-by-step contract
    def on_arrival(self, job: JobView) -> int:
        raise NotImplementedError

    def late_rejections(self) -> list[int]:
        """Jobs dispatched earlier that are rejected now (default: none)."""
        return []

    # ---------------------------------------------------------------- optional fast path
    def dispatch_all(self, size: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
                     order: np.ndarray) -> np.ndarray | None:
        """Decisions for every job at once (machine or REJECT per job), or None if not offered."""
        return None

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {
            "name": cls.name, "problem": cls.problem, "model": cls.model,
            "rule": cls.rule_label, "needs_opt": cls.needs_opt,
            "unit_sizes_only": cls.unit_sizes_only,
            "parameters": {k: p.default for k, p in cls.parameters.items()},
            "reference": cls.reference,
        }
