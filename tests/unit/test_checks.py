"""``check_config`` and ``plan_config`` (the faces' config checks) take a hand-written dict that
leaves out what the schema defaults: they check and fill a copy, never the caller's dict."""

from __future__ import annotations

import copy

import pytest

from schedbench.checks import check_config, plan_config, resolved
from schedbench.hall.config import ConfigError

PARTIAL = {
    "seed": 1,
    "eps": [0.5],
    "experiments": {
        "ru": {
            "family": "random-restricted",
            "params": {"m": 4, "n": 16, "d": 2, "sizes": "unit"},
            "instances": 2,
            "algorithms": {"greedy": None},
        }
    },
}


def test_a_partial_config_is_checked_and_planned_with_the_schema_defaults():
    given = copy.deepcopy(PARTIAL)
    check_config(given)
    plan = plan_config(given)
    assert given == PARTIAL  # the caller's dict is left as it was
    full = resolved(given)
    assert full["batch_size"] == 10 and full["opt"]["work_limit"] == 60 and "figures" in full
    stages = {(s.section, s.stage): s for s in plan.stages}
    assert stages[("experiments.ru", "make_instances")].runs == 2  # the defaulted batch size: one job
    assert stages[("experiments.ru", "make_instances")].jobs == 1


def test_a_partial_section_names_its_missing_key():
    with pytest.raises(ConfigError, match="loss: 'seed' is a required property"):
        check_config(PARTIAL | {"loss": {"experiments": {}}})
    with pytest.raises(ConfigError, match="experiments.ru.instances: 0 is less than the minimum of 1"):
        check_config(PARTIAL | {"experiments": {"ru": PARTIAL["experiments"]["ru"] | {"instances": 0}}})


def test_a_key_a_wing_check_reads_but_the_config_lacks_is_named_by_the_schema():
    # the loss check reads each experiment's ``k``; the schema names what is missing instead
    # of the check's KeyError
    partial_loss = {"seed": 1, "experiments": {"A": {"n": [10]}}}
    with pytest.raises(ConfigError, match="loss: 'arrivals_per_server' is a required property"):
        check_config(PARTIAL | {"loss": partial_loss})


def test_a_wing_check_names_its_key_before_the_schema_does():
    # a search task that is not a mapping: the wing's message, not the schema's "not of type"
    with pytest.raises(ConfigError, match="search.tasks.t: a mapping of keys"):
        check_config(PARTIAL | {"search": {"tasks": {"t": "greedy"}}})
