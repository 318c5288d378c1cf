"""The researcher's loop, scripted on a tiny config with an out-of-tree plug-in: run, archive,
change one plug-in parameter, rerun (only the online runs and what depends on them), ``diff``
names the parameter and prints both values with their intervals; edit the plug-in file, rerun,
``diff`` names the file. Only ``results/runs.parquet`` is built (no figures or paper): few jobs."""

import hashlib
import json
import re
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.e2e

#: a plain plug-in whose parameter c moves its results: each job to the eligible machine with
#: the least load + c × index (c = 0: least loaded; a larger c crowds the low machines)
PLUGIN = '''"""my-alg: least load + c x index (a plug-in for the loop test)."""

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class MyAlg(OnlineAlgorithm):
    name = "my-alg"
    problem = "load"
    model = "plain"
    rule_label = "R"
    reference = "the loop test"
    parameters = {"c": Param(0.0, doc="weight of the machine's index", type=float, min=0)}

    def on_arrival(self, job, view) -> int:
        return min(job.eligible.tolist(), key=lambda i: view.load(i) + self.params["c"] * i)
'''

RUNS = "results/runs.parquet"


def _schedbench(work, *args):
    proc = subprocess.run(
        [sys.executable, "-m", "schedbench.cli", *args, "--root", str(work)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _rerun(work) -> set[str]:
    """Run the pipeline to the runs table; the rules of the jobs it ran (Snakemake's job list)."""
    proc = snakemake(work, RUNS, "--configfile", "config/loop.yaml")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    out = proc.stdout + proc.stderr
    stats = out[out.index("Job stats:") :] if "Job stats:" in out else ""
    return set(re.findall(r"^(\w+)\s+\d+$", stats, re.M)) - {"total"}


def test_the_researchers_loop_change_rerun_diff(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    plug = tmp_path / "plugins"
    plug.mkdir()
    (plug / "my_alg.py").write_text(PLUGIN)
    family = {"family": "random-restricted", "params": {"m": 4, "n": 40, "d": 2, "sizes": "unit"}, "instances": 4}
    cfg = {
        "seed": 3,
        "eps": [0.25],
        "plugins": [str(plug)],
        "experiments": {"e": {**family, "algorithms": {"my-alg": {"c": 0.0}}}},
    }
    (work / "config/loop.yaml").write_text(yaml.safe_dump(cfg))
    first = _rerun(work)
    assert {"make_instances", "solve_offline", "run_online", "collect_runs"} <= first
    _schedbench(work, "archive", "c0")

    # one plug-in parameter changed: only the online runs and what depends on them rerun
    cfg["experiments"]["e"]["algorithms"]["my-alg"]["c"] = 2.0
    (work / "config/loop.yaml").write_text(yaml.safe_dump(cfg))
    assert {"run_online", "collect_runs"} <= _rerun(work) <= {"run_online", "collect_runs", "source_manifest"}
    text = _schedbench(work, "diff", "c0", "current")
    d = json.loads(_schedbench(work, "diff", "c0", "current", "--json"))
    assert "experiments.e.algorithms.my-alg.c: 0.0 → 2.0" in text  # the config key, both values
    assert re.search(r"^  setting      e my-alg \(c: 0 → 2\) \(4 → 4 runs\)$", text, re.M), text
    old = pd.read_parquet(work / "results/archive/c0" / RUNS)
    new = pd.read_parquet(work / RUNS)
    values = [r for r in d["changes"] if r["level"] == "setting" and r["kind"] != "setting"]
    assert values, text
    for r in values:  # both values, each the group's mean with its interval
        assert r["a"] == pytest.approx(old[r["metric"]].mean()) and r["b"] == pytest.approx(new[r["metric"]].mean())
        assert r["a_lo"] <= r["a"] <= r["a_hi"] and r["b_lo"] <= r["b"] <= r["b_hi"]
        assert f"{r['metric']} " in text
    assert re.search(r"^\s+\w+ [\d.]+( \[[\d.]+, [\d.]+\])? → [\d.]+ \[[\d.]+, [\d.]+\]", text, re.M), text
    paired = [p for p in d["paired"] if p["level"] == "setting"]
    assert len(paired) == 1 and paired[0]["n_pairs"] == 4 and "paired on 4 shared instances" in text
    assert "plug-in" not in text.replace("plug-ins:  same (my_alg.py)", "")  # the file did not change

    # the plug-in file edited (its behaviour kept): its jobs rerun and diff names the file
    _schedbench(work, "archive", "c2")
    edited = PLUGIN.replace('"""my-alg: least load', '"""my-alg (edited): least load')
    (plug / "my_alg.py").write_text(edited)
    assert {"run_online", "collect_runs"} <= _rerun(work) <= {"run_online", "collect_runs", "source_manifest"}
    text = _schedbench(work, "diff", "c2", "current")
    before, after = (hashlib.sha256(t.encode()).hexdigest() for t in (PLUGIN, edited))
    assert f"plug-in my_alg.py: changed (sha256 {before} → {after})" in text, text
    assert "summary:   no changes beyond the noise" in text  # the same results
    manifest = json.loads((work / "results/archive/c2/manifest.json").read_text())
    assert manifest["plugins"] == [{"file": "my_alg.py", "sha256": before, "stored": "plugins/my_alg.py"}]
