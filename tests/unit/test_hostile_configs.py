"""Generated bad configs (issue: hostile input): every mutation of the smoke config gets a
clear ConfigError naming a key, or passes both checks — never another exception."""

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from schedbench.hall.config import ConfigError, check_schema
from schedbench.checks import check_config

ROOT = Path(__file__).resolve().parents[2]
SMOKE = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
SCHEMA = str(ROOT / "workflow/schemas/config.schema.yaml")

BAD_VALUES = st.sampled_from(
    [
        None,
        -1,
        0,
        1,
        2.5,
        float("nan"),
        float("inf"),
        "x",
        "",
        [],
        {},
        [1, 2],
        True,
        10**12,
        -0.5,
        "greedy",
        {"rule": "full"},
    ]
)


def paths(node, prefix=()):
    """Every key path of a nested config (lists by index)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix + (k,)
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix + (i,)
            yield from paths(v, prefix + (i,))


ALL_PATHS = list(paths(SMOKE))


def mutate(cfg, path, action, value):
    node = cfg
    for key in path[:-1]:
        node = node[key]
    last = path[-1]
    if action == "delete":
        del node[last]
    elif action == "set":
        node[last] = value
    elif action == "add" and isinstance(node, dict):
        node[f"{last}_extra"] = value


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(ALL_PATHS), action=st.sampled_from(["delete", "set", "add"]), value=BAD_VALUES)
def test_a_mutated_config_gets_a_clear_error_or_passes(path, action, value):
    cfg = copy.deepcopy(SMOKE)
    mutate(cfg, path, action, value)
    try:
        check_schema(cfg, SCHEMA)
        check_config(cfg)
    except ConfigError as exc:
        message = str(exc)
        assert message and "\n" not in message and ":" in message  # "key.path: reason"


@pytest.mark.parametrize(
    "edit, message",
    [
        # JSON Schema's ranges let NaN through: it reached int() in the planner (a traceback)
        (lambda c: c["loss"].update(arrivals_per_server=float("nan")), "loss.arrivals_per_server: nan is not a finite"),
        (
            lambda c: c["bipartite"].update(arrivals_per_server=float("inf")),
            "bipartite.arrivals_per_server: inf is not",
        ),
        (lambda c: c["opt"].update(time_limit=float("inf")), "opt.time_limit: inf is not a finite number"),
        (lambda c: c["eps"].append(float("nan")), "eps.3: nan is not a finite number"),
        # 10^30 instances: the config check enumerated them for minutes
        (lambda c: c["experiments"]["anr_tree"].update(instances=10**30), "experiments.anr_tree.instances: .* maximum"),
        (lambda c: c["experiments"]["anr_adaptive"].update(seeds=10**6), "experiments.anr_adaptive.seeds: .* maximum"),
    ],
)
def test_non_finite_numbers_and_huge_counts_are_refused_by_the_schema_check(edit, message):
    cfg = copy.deepcopy(SMOKE)
    edit(cfg)
    with pytest.raises(ConfigError, match=message):
        check_schema(cfg, SCHEMA)


def test_the_schema_check_fills_the_defaults_the_pipeline_fills():
    """``check-config`` and the run planner see the schema's defaults, as the Snakefile's jobs do
    (a config without ``loss.min_arrivals`` was a KeyError traceback in the planner)."""
    from snakemake.utils import validate

    cfg = copy.deepcopy(SMOKE)
    del cfg["loss"]["min_arrivals"], cfg["bipartite"]["min_arrivals"]
    pipeline = copy.deepcopy(cfg)
    check_schema(cfg, SCHEMA)
    validate(pipeline, SCHEMA)
    assert cfg == pipeline and cfg["loss"]["min_arrivals"] == 200000
    check_config(cfg)
    from schedbench.checks import plan_config

    assert plan_config(cfg).stages
