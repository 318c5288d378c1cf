"""Every registered adversary and instance family, as the algorithms are checked in
test_registry_conformance.py: its parameters are declared in the one vocabulary
(:class:`schedbench.hall.params.Param`: typed and documented), its defaults (literal and derived) are
valid, a bad value of each parameter is refused by an error naming it, and a small case builds
(families) or plays (adversaries) deterministically for a seed. New plug-ins get these tests
without writing any; one whose parameters have no small default adds a row to ``SMALL``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedbench
from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.instances.base import Family
from schedbench.scheduling.registry import (
    adversary_names,
    algorithm_names,
    family_names,
    get_adversary,
    get_algorithm,
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


def bad_values(p: Param) -> list:
    """Values ``p`` must refuse, from its own declaration."""
    kinds, out = p.kinds, [object()]
    if (int in kinds or float in kinds) and bool not in kinds:
        out.append(True)  # a bool is not a number
    if float in kinds:
        out += [math.nan, math.inf, -math.inf]
    if int in kinds and float not in kinds:
        out.append(2.5)
    if str not in kinds:
        out.append("not-a-value")
    if bool in kinds and int not in kinds:
        out.append(1)
    if p.choices is not None and str in kinds:
        out.append("no-such-choice")
    if p.min is not None:
        out.append(p.min if p.min_open else (p.min - 1 if kinds == (int,) else p.min - 0.5))
    if p.max is not None:
        out.append(p.max if p.max_open else (p.max + 1 if kinds == (int,) else p.max + 0.5))
    if not p.accepts_none() and p.derive is None:
        out.append(None)
    return out


@pytest.mark.parametrize("kind,name", PLUGINS)
def test_a_bad_value_of_each_parameter_is_refused_naming_it(kind, name):
    table = declared(kind, name)
    base = small(kind, name, table)
    for key, p in table.items():
        for value in bad_values(p):
            with pytest.raises(ParameterError, match=f"'{key}'"):
                resolve(kind, name, {**base, key: value})
    with pytest.raises(ParameterError, match="has no parameter 'no_such_parameter'"):
        resolve(kind, name, {**base, "no_such_parameter": 1})


# ------------------------------------------------------------------------- building and playing
@pytest.mark.parametrize("name", FAMILIES)
def test_family_builds_a_small_case_deterministically(name):
    fam = get_family(name)
    params = small("family", name, fam.parameters)
    a, b = fam.make(0, 7, **params), fam.make(0, 7, **params)
    assert a.n > 0 and a.m >= 1
    for field in ("release", "size", "indptr", "indices", "w_flow", "w_reject"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.meta["family"] == name and a.meta["params"] == fam.resolve(params)


def opponent(adv: type[Adversary], params: dict) -> tuple[str, float | None]:
    """A registered algorithm that may play this adversary (its problem and size model), plain
    if one exists, with the ε it runs at."""
    problem, unit = adv.problem_for(params), adv.unit_sizes_for(params)
    fits = [get_algorithm(n) for n in algorithm_names()]
    fits = [c for c in fits if problem in c.solved_problems() and not c.migratory and (unit or not c.unit_sizes_only)]
    assert fits, f"no registered algorithm plays adversary {adv.name!r} ({problem})"
    cls = sorted(fits, key=lambda c: (c.model != "plain", c.name))[0]
    return cls.name, (None if cls.model == "plain" else EPS)


@pytest.mark.parametrize("name", ADVERSARIES)
def test_adversary_plays_a_small_case_deterministically(name):
    adv = get_adversary(name)
    params = small("adversary", name, adv.parameters)
    alg, eps = opponent(adv, adv.resolve_params(params, eps=EPS))
    runs = [
        schedbench.run_adversary(name, alg, eps=eps, seed=5, adversary_params=params, solve=False) for _ in range(2)
    ]
    a, b = runs
    assert a.status != "invalid", a.errors
    assert a.instance.n > 0 and a.claimed_opt > 0
    for field in ("release", "size", "indptr", "indices", "w_flow", "w_reject"):
        np.testing.assert_array_equal(getattr(a.instance, field), getattr(b.instance, field))
    np.testing.assert_array_equal(a.outcome.machine, b.outcome.machine)
    np.testing.assert_array_equal(a.outcome.rejected, b.outcome.rejected)
    assert a.objective == b.objective and a.claimed_opt == b.claimed_opt
