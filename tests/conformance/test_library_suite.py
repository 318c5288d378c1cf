"""The library's own conformance suite (:mod:`schedbench.scheduling.conformance`, what
``schedbench check`` runs on a user's plug-in) on every built-in algorithm, adversary and
instance family: built-ins and plug-ins pass the same checks, written once. The tests beside this
file add only what the library cannot ask of a plug-in (one file per algorithm, typed parameters,
derived defaults, random instances drawn by hypothesis)."""

from __future__ import annotations

import pytest

from schedbench.scheduling.conformance import check_name
from schedbench.scheduling.registry import adversary_names, algorithm_names, family_names

BUILT_INS = (
    [("algorithm", n) for n in algorithm_names()]
    + [("adversary", n) for n in adversary_names()]
    + [("family", n) for n in family_names()]
)

#: what the suite checks of each kind; a built-in is checked on every item
TITLES = {
    "algorithm": {
        "declares the contract",
        "parameters",
        "runs on small instances",
        "passes the validator",
        "deterministic for a seed",
        "ALG ≥ OPT where it must",
        "fast path = step path",
    },
    "adversary": {
        "declares the contract",
        "parameters",
        "plays a small game",
        "passes the validator",
        "deterministic for a seed",
        "claimed OPT is the solver's",
    },
    "family": {
        "declares the contract",
        "parameters",
        "builds a small instance",
        "deterministic for a seed",
        "sizes as declared",
        "a built-in runs on it, OPT solves",
    },
}


@pytest.mark.parametrize("kind,name", BUILT_INS)
def test_every_built_in_passes_the_library_suite(kind, name):
    checks = check_name(kind, name)
    assert {c.check for c in checks} == TITLES[kind]
    failed = [c.line() for c in checks if not c.ok]
    assert failed == []
