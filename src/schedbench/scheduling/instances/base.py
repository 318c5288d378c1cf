"""The instance-family contract.

A family is an object with ``name``, ``parameters`` (``{name: FamilyParam}``), a
``unit_sizes(params)`` predicate, optional cross-parameter ``check``, ``uses_index`` (the
generator receives the instance index) and ``data_files`` (files read, declared as pipeline
inputs) (used to refuse unit-size-only algorithms on sized families
before any work) and ``generate(rng, **params) -> Instance``. ``make(index, base_seed,
**params)`` derives the family's random stream from (base seed, family, index) and records the
provenance in ``Instance.meta``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.seeds import rng as make_rng


class FamilyParameterError(ValueError):
    """A family parameter is unknown, missing or out of range; the message names it."""


@dataclass(frozen=True)
class FamilyParam:
    kind: type | tuple  # int, float, str
    default: Any = None
    choices: tuple | None = None
    minimum: float | None = None
    doc: str = ""
    optional: bool = False  # None (the default) means "not given" and is allowed


@dataclass(frozen=True)
class Family:
    name: str
    parameters: dict[str, FamilyParam]
    generator: Callable[..., Instance]
    sized: Callable[[dict], bool]  # True if the family may produce a size > 1
    doc: str = ""
    check: Callable[[dict], None] | None = None  # cross-parameter checks (raise FamilyParameterError)
    uses_index: bool = False  # the generator also takes ``index`` (e.g. a window of a trace)
    data_files: Callable[[dict], list[str]] | None = None  # files it reads (pipeline inputs)

    def inputs(self, params: dict[str, Any]) -> list[str]:
        """The data files an instance of these parameters is read from (none for synthetic ones)."""
        return [] if self.data_files is None else list(self.data_files(self.resolve(params)))

    def resolve(self, params: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(params) - set(self.parameters))
        if unknown:
            raise FamilyParameterError(
                f"family {self.name!r} has no parameter '{unknown[0]}' "
                f"(its parameters: {', '.join(sorted(self.parameters))})"
            )
        out = {}
        for key, spec in self.parameters.items():
            value = params.get(key, spec.default)
            if value is None and spec.optional:
                out[key] = None
                continue
            if value is None:
                raise FamilyParameterError(f"family {self.name!r}: parameter '{key}' is required")
            kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
            if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
                if float in kinds and isinstance(value, int) and not isinstance(value, bool):
                    value = float(value)
                else:
                    raise FamilyParameterError(
                        f"family {self.name!r}: parameter '{key}' must be {'/'.join(k.__name__ for k in kinds)}, "
                        f"got {value!r}"
                    )
            if spec.choices is not None and value not in spec.choices:
                raise FamilyParameterError(
                    f"family {self.name!r}: parameter '{key}' must be one of {list(spec.choices)}, got {value!r}"
                )
            if spec.minimum is not None and value < spec.minimum:
                raise FamilyParameterError(
                    f"family {self.name!r}: parameter '{key}' must be >= {spec.minimum}, got {value!r}"
                )
            out[key] = value
        if self.check is not None:
            self.check(out)
        return out

    def unit_sizes(self, params: dict[str, Any]) -> bool:
        return not self.sized(self.resolve(params))

    def make(self, index: int, base_seed: int, **params: Any) -> Instance:
        """Instance number ``index`` of this family under ``base_seed``."""
        resolved = self.resolve(params)
        extra = {"index": int(index)} if self.uses_index else {}
        inst = self.generator(make_rng(base_seed, "instance", self.name, index), **resolved, **extra)
        meta = {"family": self.name, "params": resolved, "index": int(index),
                "base_seed": int(base_seed)}
        return Instance(inst.m, inst.release, inst.size, inst.indptr, inst.indices,
                        inst.w_flow, inst.w_reject, meta=meta)


def csr_from_fixed_degree(choices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays for jobs that each have the same number d of eligible machines (rows of choices)."""
    n, d = choices.shape
    return np.arange(0, n * d + 1, d, dtype=np.int64), choices.reshape(-1).astype(np.int64)
