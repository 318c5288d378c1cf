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
