"""The instance-family contract.

A family is an object with ``name``, ``parameters`` (``{name: Param}``, the one vocabulary of
:mod:`schedbench.hall.params`), a
``unit_sizes(params)`` predicate, optional cross-parameter ``check``, ``uses_index`` (the
generator receives the instance index) and ``data_files`` (files read, declared as pipeline
inputs) (used to refuse unit-size-only algorithms on sized families
before any work), optional ``size(params) -> (jobs, machines, eligibility entries)`` (how large
one instance of these parameters is, read by :meth:`Family.shape` so that a run can be costed
before any job) and ``generate(rng, **params) -> Instance``. ``make(index, base_seed,
**params)`` derives the family's random stream from (base seed, family, index) and records the
provenance in ``Instance.meta``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from schedbench.hall.params import Param, ParameterError, resolve
from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import PluginError
from schedbench.hall.seeds import rng as make_rng


class FamilyParameterError(ParameterError):
    """A family parameter is unknown, missing or out of range; the message names it."""


class FamilyError(PluginError):
    """An out-of-tree family's generator raised, exited or passed its time limit: the message
    names the plug-in file (and line), the family and the instance."""


@dataclass(frozen=True)
class Family:
    name: str
    parameters: dict[str, Param]
    generator: Callable[..., Instance]
    sized: Callable[[dict], bool]  # True if the family may produce a size > 1
    doc: str = ""
    check: Callable[[dict], None] | None = None  # cross-parameter checks (raise FamilyParameterError)
    uses_index: bool = False  # the generator also takes ``index`` (e.g. a window of a trace)
    data_files: Callable[[dict], list[str]] | None = None  # files it reads (pipeline inputs)
    # (jobs, machines, eligibility entries) of one instance of the resolved params: exact where
    # the family fixes them, else an upper bound its docs state; None: the family does not say
    size: Callable[[dict], tuple[int, int, int]] | None = None

    def inputs(self, params: dict[str, Any]) -> list[str]:
        """The data files an instance of these parameters is read from (none for synthetic ones)."""
        return [] if self.data_files is None else list(self.data_files(self.resolve(params)))

    def resolve(self, params: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in and every value checked (:func:`schedbench.hall.params.resolve`; the
        messages spell types as Python does: "must be int"), then the family's own ``check``."""
        out = resolve(self.parameters, params, f"family {self.name!r}", error=FamilyParameterError, spelling="python")
        if self.check is not None:
            self.check(out)
        return out

    def shape(self, params: dict[str, Any]) -> tuple[int, int, int] | None:
        """(jobs, machines, eligibility entries = len(indices)) of one instance of these
        parameters, from the family's ``size`` (exact or a stated upper bound); None if the
        family does not state it. The parameters are resolved (and checked) first."""
        stated = None if self.size is None else self.size(self.resolve(params))
        return None if stated is None else tuple(int(v) for v in stated)

    def unit_sizes(self, params: dict[str, Any]) -> bool:
        return not self.sized(self.resolve(params))

    def make(self, index: int, base_seed: int, **params: Any) -> Instance:
        """Instance number ``index`` of this family under ``base_seed`` (an out-of-tree family's
        generator under the default plug-in time limit: :meth:`make_within`)."""
        return self.make_within(None, index, base_seed, **params)

    def make_within(self, run_seconds: float | None, index: int, base_seed: int, /, **params: Any) -> Instance:
        """:meth:`make`, an out-of-tree family's generator given at most ``run_seconds`` of wall
        clock (default :data:`~schedbench.hall.limits.PLUGIN_RUN_SECONDS`; the pipeline and
        ``compare`` pass the configured ``plugin_time_limit``), past which — or on an exception
        in its file — a :class:`FamilyError` names the plug-in (``plugin_guard.family_code``). Built-in
        families are not limited."""
        from schedbench.scheduling.plugin_guard import family_code

        resolved = self.resolve(params)
        extra = {"index": int(index)} if self.uses_index else {}
        with family_code(self, index, run_seconds, FamilyError):
            inst = self.generator(make_rng(base_seed, "instance", self.name, index), **resolved, **extra)
        if not isinstance(inst, Instance):
            raise FamilyError(
                f"family {self.name!r}: instance {int(index)}: its generator returned {type(inst).__name__}, "
                "not an Instance"
            )
        meta = {"family": self.name, "params": resolved, "index": int(index), "base_seed": int(base_seed)}
        return Instance(
            inst.m, inst.release, inst.size, inst.indptr, inst.indices, inst.w_flow, inst.w_reject, meta=meta
        )


def csr_from_fixed_degree(choices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays for jobs that each have the same number d of eligible machines (rows of choices)."""
    n, d = choices.shape
    return np.arange(0, n * d + 1, d, dtype=np.int64), choices.reshape(-1).astype(np.int64)
