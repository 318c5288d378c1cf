"""Worst cases found by the black-box search, kept as an instance family (``worst-found``).

One stored instance per registered algorithm: the worst ALG/OPT the black-box search
(:func:`~schedbench.scheduling.search.search_worst`) found for that algorithm on its default
problem, m = 4 machines, ε = 1/4 (speed 1.25 for the speed baselines; plain rules have no ε),
with the weights the problem uses. Any algorithm — a user's plug-in included — can be measured
on the worst inputs known for the others: ``family: worst-found, params: {case: wmft-A}``.
Each case is a JSON file of ``worst_found/`` (the :class:`~schedbench.scheduling.search.WorstCase`
with its certificate: the recorded objective and the exact OPT); ``tests/golden`` replays every
one through the real algorithm and the real solver. Regenerate them with
``.venv/bin/python tools/find-worst-cases`` (deterministic: a fixed evaluation count and seed).
The instance does not use the seed; every index gives the same instance.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from schedbench.hall.params import Param
from schedbench.scheduling.instances.base import Family
from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import register_family

#: Where the stored cases are (package data).
CASES_DIR = Path(__file__).with_name("worst_found")


def case_names() -> tuple[str, ...]:
    """The stored cases, by name (the file stems: the algorithm whose worst case it is)."""
    return tuple(sorted(p.stem for p in CASES_DIR.glob("*.json")))


def case_file(name: str) -> Path:
    return CASES_DIR / f"{name}.json"


@lru_cache(maxsize=None)
def load_case(name: str):
    """The stored :class:`~schedbench.scheduling.search.WorstCase` called ``name``."""
    from schedbench.scheduling.search.result import WorstCase

    return WorstCase.load(case_file(name))


def _generate(rng: np.random.Generator, case: str) -> Instance:
    inst = load_case(case).instance
    return Instance(inst.m, inst.release, inst.size, inst.indptr, inst.indices, inst.w_flow, inst.w_reject, meta={})


def _size(p: dict) -> tuple[int, int, int]:
    inst = load_case(p["case"]).instance
    return inst.n, inst.m, int(inst.indices.size)


FAMILY = register_family(
    Family(
        name="worst-found",
        parameters={
            "case": Param(
                None,
                case_names(),
                "the stored worst case: the algorithm it was found for (its default problem, m = 4, ε = 1/4)",
                type=str,
                required=True,
            ),
        },
        generator=_generate,
        sized=lambda p: not load_case(p["case"]).instance.unit_sizes,
        size=_size,
        data_files=lambda p: [str(case_file(p["case"]))],
        doc=__doc__.split("\n\n")[0],
    )
)
