"""The ``worst-found`` instance family (src/schedbench/scheduling/instances/worst_found.py): one
stored worst case per registered algorithm, each replayed through the real algorithm and the real
offline solver (objective, worst prefix rejection and exact OPT as recorded), and offered to any
algorithm as an instance."""

from __future__ import annotations

import pytest

import schedbench
from schedbench.scheduling.instances.worst_found import case_file, case_names, load_case
from schedbench.scheduling.registry import algorithm_names, get_family
from schedbench.scheduling.search import replay_worst_case


def test_every_registered_algorithm_has_a_stored_worst_case():
    assert set(case_names()) == set(algorithm_names())


@pytest.mark.parametrize("name", case_names())
def test_a_stored_worst_case_replays_and_is_what_it_says(name):
    wc = load_case(name)
    replay_worst_case(wc)  # raises ReplayMismatch if the plug-in or the solver disagree
    assert wc.algorithm == name and wc.m == 4 and not wc.proved and wc.bound is None
    assert wc.problem == schedbench.get_algorithm(name).solved_problems()[0]
    assert wc.extra["evals"] == wc.extra["max_evals"]  # stopped by its evaluation count: reproducible
    assert wc.value >= 1.0


def test_the_family_gives_the_stored_instance_to_any_algorithm():
    family = get_family("worst-found")
    inst = family.make(0, 123, case="wmft-A")
    stored = load_case("wmft-A").instance
    assert (inst.release == stored.release).all() and (inst.w_flow == stored.w_flow).all()
    assert family.inputs({"case": "wmft-A"}) == [str(case_file("wmft-A"))]
    assert family.shape({"case": "wmft-A"}) == (stored.n, stored.m, stored.indices.size)
    # another algorithm measured on wmft-A's worst input, against the exact OPT
    opt = schedbench.solve_opt(inst, "wtdmaxflow")
    rec = schedbench.run("ll-fifo", inst, eps=0.25, problem="wtdmaxflow", opt=opt)
    assert opt.status == "optimal" and opt.value == load_case("wmft-A").opt
    assert rec.validation.valid and rec.ratio >= 1.0


def test_an_unknown_case_is_refused_by_name():
    with pytest.raises(ValueError, match="case"):
        get_family("worst-found").make(0, 0, case="no-such-algorithm")
