"""The run record is the one definition of a run's results columns: the results schema lists
exactly its fields plus the columns the pipeline adds, and a failed run's row has the same
columns, in the same order, as a validated run's."""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from schedbench.api import RunResult, run
from schedbench.scheduling.stage.experiment import INSTANCE_COLUMNS, run_online_batch, solve_offline
from schedbench.hall.io import PROVENANCE_COLUMNS
from schedbench.scheduling.stage.results import OPT_COLUMNS
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import solve_opt
from schedbench.scheduling.play import execute
from schedbench.scheduling.record import RunRecord
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.validate import Validation

SCHEMA = Path(__file__).resolve().parents[2] / "workflow/schemas/results.schema.yaml"
# columns the pipeline adds to a record's row: the instance played (in front), then at collect
# time OPT, the ratio and the OPT gap (results.join_opt) and the provenance (io.provenance)
ADDED = [*INSTANCE_COLUMNS, *OPT_COLUMNS, "ratio", "opt_gap", "instance_tied", *PROVENANCE_COLUMNS]


def unit_instance(**meta) -> Instance:
    return Instance.from_lists(2, [0, 0, 1, 1], [1, 1, 1, 1], [[0], [0, 1], [1], [0, 1]], meta=meta)


def sized_instance(**meta) -> Instance:
    return Instance.from_lists(2, [0, 0, 1], [2, 1, 4], [[0], [0, 1], [1]], meta=meta)


def test_schema_columns_are_the_record_fields_and_the_added_columns():
    schema = yaml.safe_load(SCHEMA.read_text())
    record = [c for c in RunRecord.columns() if c != "params"]
    assert "params" in RunRecord.columns() and "^p_[A-Za-z0-9_]+$" in schema["patternProperties"]
    assert "^g_[A-Za-z0-9_]+$" in schema["patternProperties"]  # an adversary's parameters (instance columns)
    assert not set(record) & set(ADDED), "a record field is also a pipeline-added column"
    assert set(schema["properties"]) - set(record) - set(ADDED) == set(), "schema column nobody writes"
    assert set(record) - set(schema["properties"]) == set(), "record field missing from the results schema"
    assert set(ADDED) - set(schema["properties"]) == set(), "pipeline-added column missing from the schema"
    assert set(schema["required"]) <= set(schema["properties"])


def test_every_validator_measurement_is_a_record_field():
    names = {f.name for f in fields(RunRecord)}
    assert {f.name for f in fields(Validation)} - {"valid"} <= names


def test_failed_row_has_the_columns_of_a_good_row():
    cls = get_algorithm("lb-unit-reject")
    params = cls.resolve_params({})
    good = execute(cls, unit_instance(), eps=0.25, seed=3, params=params, oracle=2.0)
    assert good.status == "ok" and good.valid
    with pytest.raises(ValueError) as err:
        execute(cls, sized_instance(), eps=0.25, seed=3, params=params, oracle=2.0)
    bad = RunRecord.failed(cls, sized_instance(), err.value, 0.25, 3, params, seconds=0.5)
    assert list(bad.to_row()) == list(good.to_row())
    row = bad.to_row()
    assert row["status"] == "error" and not bad.valid and row["errors"].startswith(type(err.value).__name__)
    assert (row["n_jobs"], row["m"], row["problem"], row["model"], row["eps"]) == (3, 2, "load", "rejection", 0.25)
    for f in fields(RunRecord):  # every measurement of a failed run is its field default
        if f.name in (
            "objective",
            "rejected_frac",
            "rejected_frac_max_prefix",
            "rejected_volume_frac",
            "budget_used",
            "prefix_budget_used",
            "wasted_work",
            "wasted_work_frac",
            "claimed_opt",
            "ratio_bound",
        ):
            assert math.isnan(row[f.name])
        elif f.name in ("budget_violations", "guard_fires"):
            assert row[f.name] == f.default == 0


def test_pipeline_rows_are_the_instance_columns_then_the_record_row(tmp_path):
    paths = []
    for k, inst in enumerate([sized_instance(), unit_instance()]):  # the failed run comes first
        inst.meta.update({"experiment": "e", "family": "f", "instance": f"e/{k:04d}", "index": k})
        paths.append(tmp_path / f"{k:04d}.npz")
        inst.save(paths[-1])
    table = run_online_batch(paths, solve_offline(paths, "load", 10.0, 7), {"lb-unit-reject": None}, [0.25], 7)
    assert list(table["status"]) == ["error", "ok"]
    good = execute(get_algorithm("lb-unit-reject"), unit_instance(), eps=0.25, params={}, oracle=2.0)

    def plain(cols):  # the p_ columns of a failed run are the parameters given (collect sorts p_ columns)
        return [c for c in cols if not c.startswith("p_")]

    assert plain(table.columns) == INSTANCE_COLUMNS + plain(good.to_row())
    assert set(table.columns) == set(INSTANCE_COLUMNS) | set(good.to_row())
    assert table["n_jobs"].dtype.kind == table["budget_violations"].dtype.kind == table["guard_fires"].dtype.kind == "i"


def test_run_result_is_the_record_plus_opt(tiny_instance):
    res = run("greedy", tiny_instance, opt=2.0)
    assert isinstance(res, RunResult) and isinstance(res, RunRecord)
    assert res.valid and res.status == "ok" and res.errors == [] and res.claimed_opt is None
    assert res.objective == res.validation.objective and res.seconds == res.outcome.seconds
    assert res.opt is None and math.isnan(res.ratio)  # a number is T* for the algorithm, not an OptResult
    opt = solve_opt(tiny_instance, "load")
    solved = run("greedy", tiny_instance, opt=opt)
    assert solved.opt is opt and solved.ratio == solved.objective / opt.value
    assert "opt" not in RunResult.columns() and list(solved.to_row()) == list(res.to_row())


def test_a_wrong_claimed_opt_of_an_adversary_is_an_error_at_the_api():
    # the pipeline refuses it at collect time (check_results); the API must not pass it silently
    from schedbench.api import ClaimedOptError, run_adversary
    from schedbench.scheduling.registry import get_adversary

    base = get_adversary("anr-tree")
    right = run_adversary(base, "greedy", adversary_params={"m": 8})
    assert right.opt.status == "optimal" and right.opt.value == right.claimed_opt == 1

    class Boastful(base):  # the same construction claiming one more than it builds
        @property
        def opt(self):
            return super().opt + 1

    with pytest.raises(ClaimedOptError, match=r"claims OPT = 2(\.0)? but the offline solver proves OPT = 1") as info:
        run_adversary(Boastful, "greedy", adversary_params={"m": 8})
    assert info.value.result.claimed_opt == 2 and info.value.result.opt.value == 1
    # without solving there is nothing to compare: the claim stands as given
    assert run_adversary(Boastful, "greedy", adversary_params={"m": 8}, solve=False).claimed_opt == 2
