"""The pipeline record (schedbench.hall.pipeline_record): per-rule times summed from Snakemake benchmark files
written by hand here, the record's fields, and its section in ``schedbench diff``."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from schedbench.hall.io import provenance
from schedbench.hall.pipeline_record import (
    COMMAND_ENV,
    RECORD,
    STARTED_ENV,
    benchmark_jobs,
    pipeline_record,
    write_record,
)
from schedbench.hall.run_diff import diff

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(root, rel, s, cpu, rss, mtime):
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(HEADER + f"{s}\t0:00:{int(s):02d}\t{rss}\t1.0\t1.0\t1.0\t0.0\t0.0\t50.0\t{cpu}\n")
    os.utime(f, (mtime, mtime))


@pytest.fixture
def benchmarks(tmp_path):
    root = tmp_path / "results" / "benchmarks"
    _bench(root, "collect_runs.tsv", 8.25, 8.0, 279.5, 2000)
    _bench(root, "run_online/exp-0.tsv", 3.5, 3.0, 100.0, 2000)
    _bench(root, "run_online/exp-1.tsv", 1.5, 1.25, 150.0, 2000)
    _bench(root, "solve_offline/exp-0.tsv", 2.0, 1.0, 50.0, 500)  # an earlier run's job, kept
    (root / "broken.tsv").write_text("not a benchmark\n")
    return root


def test_every_rule_with_its_summed_times(benchmarks):
    jobs = benchmark_jobs(benchmarks, since=1000)
    assert {j["job"] for j in jobs} == {"collect_runs", "run_online/exp-0", "run_online/exp-1", "solve_offline/exp-0"}
    record = pipeline_record(
        {"seed": 1},
        "abc123",
        ["config/x.yaml"],
        benchmarks,
        [],
        {STARTED_ENV: "1000", COMMAND_ENV: "snakemake --cores 2"},
    )
    rules = {r["rule"]: r for r in record["rules"]}
    assert set(rules) == {"collect_runs", "run_online", "solve_offline"}
    assert rules["run_online"] == {
        "rule": "run_online",
        "jobs": 2,
        "ran_this_run": 2,
        "wall_s": 5.0,
        "cpu_s": 4.25,
        "max_job_s": 3.5,
        "max_rss_mb": 150.0,
    }
    assert rules["solve_offline"]["ran_this_run"] == 0 and rules["collect_runs"]["cpu_s"] == 8.0
    assert [r["rule"] for r in record["rules"]][0] == "collect_runs"  # the slowest first
    assert record["command"] == "snakemake --cores 2" and record["started"] == "1970-01-01T00:16:40+00:00"
    assert record["config"] == {"files": ["config/x.yaml"], "hash": "abc123", "resolved": {"seed": 1}}
    prov = provenance("abc123")
    assert record["git"]["commit"] + ("-dirty" if record["git"]["dirty"] else "") == prov["git_commit"]
    assert record["packages"] == json.loads(prov["packages"])
    assert {"system", "cpu", "cores", "memory", "python"} <= set(record["machine"])


def test_the_workflow_patterns_name_each_files_rule(benchmarks, monkeypatch):
    # a folder that is not the rule's name (practice/<family>.tsv is rule practice_family's), and a
    # file no rule of the workflow writes any more, left out
    _bench(benchmarks, "practice/flow_small.tsv", 4.0, 3.5, 90.0, 2000)
    _bench(benchmarks, "gone_rule.tsv", 1.0, 1.0, 1.0, 2000)
    _bench(benchmarks, "source_manifest/site-0123456789ab.tsv", 0.1, 0.0, 3.0, 2000)
    _bench(benchmarks, "source_manifest/not-a-manifest.tsv", 0.1, 0.0, 3.0, 2000)
    patterns = {
        "collect_runs": "results/benchmarks/collect_runs.tsv",
        "run_online": "results/benchmarks/run_online/{experiment}-{batch}.tsv",
        "solve_offline": "results/benchmarks/solve_offline/{experiment}-{part}.tsv",
        "practice_family": "results/benchmarks/practice/{practice_family}.tsv",
        "practice_table": "results/benchmarks/practice_table.tsv",
        # as Snakemake writes a pattern with its wildcard constraint (braces in the regex too)
        "source_manifest": "results/benchmarks/source_manifest/{name,[A-Za-z0-9_]+-[0-9a-f]{12}}.tsv",
    }
    monkeypatch.chdir(benchmarks.parents[1])  # the patterns are relative to the working directory
    record = pipeline_record({}, "h", [], "results/benchmarks", [], {STARTED_ENV: "1000"}, patterns)
    jobs = {j["job"]: j["rule"] for j in record["jobs"]}
    assert jobs == {
        "collect_runs": "collect_runs",
        "run_online/exp-0": "run_online",
        "run_online/exp-1": "run_online",
        "solve_offline/exp-0": "solve_offline",
        "practice/flow_small": "practice_family",
        "source_manifest/site-0123456789ab": "source_manifest",
    }


def _run(root, record=None):
    """A run directory with a tiny runs table (and a record, if given)."""
    (root / "results").mkdir(parents=True)
    df = pd.DataFrame(
        {
            "experiment": ["e"] * 3,
            "algorithm": ["x"] * 3,
            "instance": ["i0", "i1", "i2"],
            "eps": [0.5] * 3,
            "seed": [1] * 3,
            "status": ["ok"] * 3,
            "ratio": [1.0, 1.5, 2.0],
            "objective": [1.0, 2.0, 3.0],
            "rejected_frac": [0.0] * 3,
        }
    ).assign(**provenance("abc"))
    df.to_parquet(root / "results" / "runs.parquet")
    if record is not None:
        write_record(root / RECORD, record)
    return root


def _record(times, numpy="2.0"):
    return {
        "schedbench_pipeline_record": 1,
        "rules": [{"rule": r, "wall_s": s} for r, s in times.items()],
        "packages": {"numpy": numpy},
    }


def test_diff_compares_the_rule_times_and_versions_of_two_records(tmp_path):
    a = _run(tmp_path / "a", _record({"run_online": 100.0, "collect_runs": 8.0, "site": 2.0}))
    b = _run(tmp_path / "b", _record({"run_online": 50.0, "collect_runs": 8.5, "pipeline_record": 1.0}, numpy="2.1"))
    d = diff(str(a), str(b))
    text = d.report()
    assert "pipeline record: rule wall time 110.0 s → 59.5 s" in text
    assert "run_online                   100.0 s → 50.0 s" in text
    assert "collect_runs" not in text  # within 20 % (and 1 s)
    assert "site                         only in a" in text and "pipeline_record              only in b" in text
    assert "numpy: 2.0 → 2.1" in text
    assert d.to_dict()["records"]["packages"] == {"numpy": ["2.0", "2.1"]}


def test_diff_names_a_run_without_a_readable_record(tmp_path):
    a = _run(tmp_path / "a", _record({"x": 1.0}))
    b = _run(tmp_path / "b")
    assert f"pipeline record: not compared (b: no {RECORD} in {b})" in diff(str(a), str(b)).report()
    (b / RECORD).write_text("{not json")
    assert f"b: {b / RECORD}: not readable JSON" in diff(str(a), str(b)).report()
    plain = _run(tmp_path / "c")
    assert "pipeline record" not in diff(str(plain), str(b.parent / "c")).report()  # runs from before records
