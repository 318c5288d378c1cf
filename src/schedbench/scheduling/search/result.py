"""The result of a worst-case search (exact or black-box), with its certificate, as JSON.

A :class:`WorstCase` carries the instance found, what the algorithm does on it (``objective``:
its max load or max flow; ``rejected_frac_max_prefix``), the offline optimum of the instance
(``opt``, from the real solver), and the certificate: ``proved`` (the exact search proved no
instance of the searched space is worse), ``bound`` (the solver's bound on the searched
quantity; equal to ``value`` when proved; None for the black-box search), ``status``.

``objective_kind`` says what was maximised: ``"ratio"`` or ``"rejection"`` (the worst prefix
rejection fraction; ``value`` = ``rejected_frac_max_prefix``). For ``"ratio"``, ``value`` and
``bound`` are in ratio units: the exact search maximises the algorithm's objective over the
instances with OPT ≤ T (= T when the algorithm is given T*), and reports objective/T and its
bound/T (the ratio itself when OPT = T; ``ratio`` is always objective/opt); the black-box search
maximises objective/OPT.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.scheduling.model import Instance

__all__ = ["WorstCase", "ReplayMismatch", "instance_to_dict", "instance_from_dict"]


class ReplayMismatch(AssertionError):
    """The real plug-in or the real offline solver disagrees with what a search claims: the
    model (or the plug-in) is wrong."""


def instance_to_dict(inst: Instance) -> dict:
    """The instance as JSON: machines, releases, sizes, eligible sets, and the weights when any
    differs from 1 (the weighted problems' finds; unweighted instances keep the short form)."""
    d = {
        "m": inst.m,
        "release": inst.release.tolist(),
        "size": inst.size.tolist(),
        "eligible": [inst.eligible(j).tolist() for j in range(inst.n)],
    }
    for weight in ("w_flow", "w_reject"):
        values = getattr(inst, weight)
        if values is not None and np.any(np.asarray(values) != 1.0):
            d[weight] = np.asarray(values, dtype=np.float64).tolist()
    return d


def instance_from_dict(d: dict, meta: dict | None = None) -> Instance:
    return Instance.from_lists(
        int(d["m"]),
        d["release"],
        d["size"],
        d["eligible"],
        w_flow=d.get("w_flow"),
        w_reject=d.get("w_reject"),
        meta=meta or {},
    )


@dataclass
class WorstCase:
    algorithm: str
    problem: str
    m: int
    n: int  # jobs of the instance found
    eps: float | None
    params: dict  # the algorithm's parameters (as given to the plug-in)
    objective_kind: str  # "ratio" | "rejection"
    instance: Instance
    objective: float  # the algorithm's objective on it (max load / max flow)
    opt: float  # OPT of the instance (offline solver)
    rejected_frac_max_prefix: float
    value: float  # what was maximised (ratio units, or worst prefix rejection fraction)
    bound: float | None  # solver's bound on ``value`` over the space (None: black-box)
    proved: bool
    status: str  # "optimal" | "feasible" | "best-found" | ...
    method: str  # "cp-sat" | "black-box"
    seconds: float
    oracle: float | None = None  # T* given to the algorithm (None: it takes none)
    space: dict = field(default_factory=dict)  # the searched space (m, n, T, sizes, window...)
    budget_violated: bool = False
    replayed: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.objective / self.opt if self.opt and self.opt > 0 else math.nan

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        d = asdict(self)
        d["instance"] = instance_to_dict(self.instance)
        d["ratio"] = self.ratio
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "WorstCase":
        d = dict(d)
        d.pop("ratio", None)
        d["instance"] = instance_from_dict(d["instance"])
        return cls(**d)

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=True, default=_jsonable) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "WorstCase":
        return cls.from_dict(json.loads(Path(path).read_text()))

    def summary(self) -> str:
        cert = "proved" if self.proved else (f"bound {self.bound:.4g}" if self.bound is not None else "best found")
        return (
            f"{self.algorithm} m={self.m} n={self.n} eps={self.eps} {self.objective_kind}: "
            f"ALG={self.objective:g} OPT={self.opt:g} ratio={self.ratio:.4g} "
            f"rej_prefix={self.rejected_frac_max_prefix:.4g} [{cert}, {self.method}, {self.seconds:.2f}s]"
        )


def _jsonable(x: Any):
    if hasattr(x, "item"):
        return x.item()
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")
