"""Every registered adversary and instance family beyond the library suite (test_library_suite.py:
bad values refused naming the parameter, a small case built or played deterministically, the
claimed OPT the solver's): a built-in declares every parameter typed and documented in the one
vocabulary (:class:`schedbench.hall.params.Param`), and its defaults, literal and derived, are
valid. One whose parameters have no small default adds a row to ``SMALL``."""

from __future__ import annotations


import pytest

from schedbench.hall.params import Param
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.instances.base import Family
from schedbench.scheduling.registry import (
    adversary_names,
    family_names,
    get_adversary,
    get_family,
)

ADVERSARIES = adversary_names()
FAMILIES = family_names()
EPS = 0.25

#: parameters of a small, fast case (on top of the defaults); required parameters must appear here
SMALL = {
    ("adversary", "anr-tree"): {"m": 8},
    ("adversary", "anr-flow"): {"m": 4, "T": 2},
    ("adversary", "lb-a"): {"K": 3, "T": 2},
    ("adversary", "lb-b"): {"K": 3, "g": 2},
    ("adversary", "lb-c"): {"K": 3, "g": 2},
    ("adversary", "pairing-streams"): {"m": 4, "T": 2},
    ("adversary", "section4"): {"horizon": 12},
    ("family", "random-restricted"): {"m": 4, "n": 12},
    ("family", "anr-tree"): {"K": 3},
    ("family", "swf-trace"): {"m": 8, "n": 40},
    ("family", "worst-found"): {"case": "gwmft"},
}


def small(kind: str, name: str, declared: dict[str, Param]) -> dict:
    params = dict(SMALL.get((kind, name), {}))
    missing = [k for k, p in declared.items() if p.required and k not in params]
    assert not missing, f"{kind} {name!r}: add a small case with {missing} to SMALL in this file"
    return params


def declared(kind: str, name: str) -> dict[str, Param]:
    return get_adversary(name).parameters if kind == "adversary" else get_family(name).parameters


def resolve(kind: str, name: str, params: dict) -> dict:
    if kind == "adversary":
        return get_adversary(name).resolve_params(params, eps=EPS)
    return get_family(name).resolve(params)


PLUGINS = [("adversary", n) for n in ADVERSARIES] + [("family", n) for n in FAMILIES]


def test_registries_hold_the_known_plugins():
    assert {"anr-tree", "lb-a", "lb-b", "lb-c", "anr-flow", "pairing-streams", "section4"} <= set(ADVERSARIES)
    assert {"random-restricted", "anr-tree", "swf-trace"} <= set(FAMILIES)
    assert all(issubclass(get_adversary(n), Adversary) and get_adversary(n).name == n for n in ADVERSARIES)
    assert all(isinstance(get_family(n), Family) and get_family(n).name == n for n in FAMILIES)


# ------------------------------------------------------------------------- declarations
@pytest.mark.parametrize("kind,name", PLUGINS)
def test_parameters_are_typed_and_documented(kind, name):
    for key, p in declared(kind, name).items():
        assert isinstance(p, Param), f"{kind} {name!r}: parameter {key!r} is not a schedbench.hall.params.Param"
        assert p.kinds, f"{kind} {name!r}: parameter {key!r} declares no type"
        assert p.doc.strip(), f"{kind} {name!r}: parameter {key!r} has no doc"
        assert p.default_text() and p.range_text()  # what generated docs show
        if p.derive is not None:
            assert p.derive.text.strip() and not p.required


@pytest.mark.parametrize("kind,name", PLUGINS)
def test_defaults_are_valid(kind, name):
    table = declared(kind, name)
    for key, p in table.items():
        if p.plain_default() is not None:
            assert p.validate(p.plain_default()) == p.plain_default(), f"{kind} {name!r}: default of {key!r}"
    out = resolve(kind, name, small(kind, name, table))
    assert set(out) == set(table)
    for key, p in table.items():  # every resolved value, derived ones included, passes its own check
        if out[key] is not None or not p.accepts_none():
            assert p.validate(out[key]) == out[key], f"{kind} {name!r}: resolved {key!r} = {out[key]!r}"


@pytest.mark.parametrize(
    "name", [n for n in ADVERSARIES if any(p.derive is not None for p in get_adversary(n).parameters.values())]
)
def test_derived_adversary_defaults_are_computed(name):
    cls = get_adversary(name)
    base = {k: v for k, v in small("adversary", name, cls.parameters).items() if cls.parameters[k].derive is None}
    resolved = cls.resolve_params(base, eps=EPS)
    for key, p in cls.parameters.items():
        if p.derive is None:
            continue
        assert resolved[key] is not None and p.validate(resolved[key]) == resolved[key]
        assert cls.resolve_params({**base, key: "auto"}, eps=EPS)[key] == resolved[key]  # "auto": derive
        if p.derive.needs:  # without the context (a config checked before ε is known): derived later
            assert cls.resolve_params(base)[key] is None
    built = cls(eps=EPS, seed=0, **base)  # the built adversary holds the derived values
    assert {k: built.params[k] for k in resolved} == resolved
