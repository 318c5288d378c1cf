"""End to end: Snakemake on config/smoke.yaml in a temporary copy of the workflow. Full pipeline
runs: the session's one (``pipeline``), a killed-and-resumed one from scratch and a forced rerun of
a copy of the finished one; the rest are dry runs or read the session's. Runs in a workflow of
their own (configs, plug-ins, a SIGTERM): tests/e2e/test_own_runs.py."""

import os
import re
import shutil
import signal
import stat
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedbench.hall.io import check_results, check_table
from schedbench.scheduling.registry import get_algorithm
from tests.e2e.conftest import (
    TIMING,
    assert_same_tables,
    snakemake,
    start,
)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


def test_outputs_exist_and_pass_schema(pipeline):
    runs = pd.read_parquet(pipeline / "results/runs.parquet")
    check_results(runs, pipeline / "workflow/schemas/results.schema.yaml")
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    assert set(runs["experiment"]) == set(smoke["experiments"])
    # every run valid; the one over budget is the Section-4 example's failing rule (spec §6.5)
    assert runs["status"].isin(["ok", "budget_violated"]).all()
    over = runs[runs["status"] == "budget_violated"]
    assert set(zip(over["experiment"], over["algorithm"])) <= {("section4", "class-ll-srpt")}
    for problem in ("load", "maxflow"):  # one ratio and one rejection figure per problem of the config
        for name in ("ratio_vs_eps", "rejection_vs_eps"):
            fig = (pipeline / f"paper/figures/{name}_{problem}.pdf").read_bytes()
            assert fig.startswith(b"%PDF") and len(fig) > 5000
    from schedbench.scheduling.stage.config import experiment_problem

    assert set(runs["problem"]) == {experiment_problem(e) for e in smoke["experiments"].values()}
    assert "\\texttt{mft-unit}" in (pipeline / "paper/tables/methods.tex").read_text()
    table = (pipeline / "results/tables/ratios.tex").read_text()
    assert "\\begin{tabular}" in table and "lb-unit-reject" in table
    assert "\\NumRuns" in (pipeline / "paper/macros.tex").read_text()
    assert (pipeline / "results/logs/collect_runs.log").read_text()


def test_loss_outputs(pipeline):
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    loss = pd.read_parquet(pipeline / "results/loss.parquet")
    check_table(loss, pipeline / "workflow/schemas/loss.schema.yaml", "loss table")
    assert set(loss["experiment"]) == set(smoke["loss"]["experiments"])
    for name in smoke["loss"]["experiments"]:
        fig = (pipeline / f"paper/figures/loss_{name}.pdf").read_bytes()
        assert fig.startswith(b"%PDF")
    slopes = (pipeline / "paper/tables/loss_slopes.tex").read_text()
    assert "A1\\_full\\_access" in slopes and "\\LossSeries" in (pipeline / "paper/macros_loss.tex").read_text()


def test_bipartite_outputs(pipeline):
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    table = pd.read_parquet(pipeline / "results/bipartite.parquet")
    check_table(table, pipeline / "workflow/schemas/bipartite.schema.yaml", "bipartite table")
    assert set(table["experiment"]) == set(smoke["bipartite"]["experiments"])
    for name, exp in smoke["bipartite"]["experiments"].items():
        for fig in exp["figures"]:
            assert (pipeline / f"paper/figures/bipartite_{name}_{fig}.pdf").read_bytes().startswith(b"%PDF")
    checks = pd.read_parquet(pipeline / "results/bipartite_checks.parquet")
    assert (checks.loc[checks["kind"] == "exact", "passed"]).all()  # limits need longer runs than smoke
    assert "token" in (pipeline / "paper/tables/bipartite_checks.tex").read_text()


def test_adaptive_adversary_runs_from_the_pipeline(pipeline):
    # anr_adaptive (m = 32): greedy with either tie rule reaches log2(32) + 1 = 6 and the offline
    # solver proves OPT = 1 = the adversary's claim on every realised instance
    runs = pd.read_parquet(pipeline / "results/runs.parquet")
    adv = runs[runs["experiment"] == "anr_adaptive"]
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())["experiments"]["anr_adaptive"]
    greedy = adv[adv["algorithm"] == "greedy"]
    assert sorted(greedy["p_ties"].unique()) == ["index", "random"]
    assert len(greedy) == 2 * smoke["seeds"] and (greedy["objective"] == 6).all()
    assert (adv["opt_status"] == "optimal").all() and (adv["opt"] == 1).all() and (adv["claimed_opt"] == 1).all()
    assert (adv["ratio"] == adv["objective"]).all()
    realised = sorted((pipeline / "results/anr_adaptive/realised/greedy").glob("*.npz"))
    assert len(realised) == len(greedy)


def test_editing_an_imported_source_reruns_exactly_its_jobs(pipeline):
    # the machine core is imported by the algorithms, not by the scripts: still an input
    import schedbench.scheduling.machines as kernels

    # Snakemake >= 9.18 compares checksums, so the probe edits the content (a trailing comment)
    # and puts the exact bytes and times back afterwards.
    path = Path(kernels.__file__)
    st, original = path.stat(), path.read_bytes()
    try:
        path.write_bytes(original + b"\n# e2e probe: an edit must rerun the jobs that import this file\n")
        proc = snakemake(pipeline, "--configfile", "config/smoke.yaml", "-n")
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert re.search(r"run_online\s+\d+", out) and re.search(r"run_adversary\s+\d+", out)
    for untouched in ("make_instances", "loss_points", "bipartite_groups"):
        assert not re.search(untouched + r"\s+\d+", out), untouched


def test_changing_an_algorithm_parameter_reruns_its_runs_not_the_instances_or_optima(pipeline, tmp_path):
    """The researcher's loop: a new value of an algorithm's parameter reruns the online runs of
    that experiment only; its instances and their optima (the expensive stage) stay."""
    cfg = yaml.safe_load((pipeline / "config/smoke.yaml").read_text())
    name, exp = next((k, v) for k, v in cfg["experiments"].items() if "family" in v)
    alg = next(a for a, p in exp["algorithms"].items() if not p)  # one with default parameters
    from schedbench.scheduling.registry import get_algorithm

    cls_params = get_algorithm(alg).parameters
    key = next(k for k, p in cls_params.items() if getattr(p, "choices", None))
    exp["algorithms"][alg] = {key: list(cls_params[key].choices)}
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(cfg, sort_keys=False))
    proc = snakemake(pipeline, "--configfile", str(edited), "-n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert re.search(r"run_online\s+\d+", out), out[-2000:]
    for untouched in ("make_instances", "solve_offline"):
        assert not re.search(untouched + r"\s+\d+", out), (untouched, out[-3000:])


def test_editing_one_practice_family_reruns_that_family_only(pipeline, tmp_path):
    """The practice comparison's jobs take their own family's settings as params, not the
    whole section: a new grid for one family's policy reruns that family and the table."""
    cfg = yaml.safe_load((pipeline / "config/smoke.yaml").read_text())
    families = cfg["practice"]["families"]
    assert len(families) >= 2
    name = next(n for n, f in families.items() if f["problem"] != "load")
    families[name]["policies"][0]["tune"]["theta"] = [1.25, 2.5]
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(cfg, sort_keys=False))
    proc = snakemake(pipeline, "--configfile", str(edited), "-n", "results/practice_pairs.parquet")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert re.search(r"practice_family\s+1\b", out), out[-3000:]
    assert f"practice_family={name}" in out and not any(
        f"practice_family={other}" in out for other in families if other != name
    ), out[-3000:]


def test_each_online_job_depends_on_its_algorithms_sources(pipeline):
    # Snakemake tracks only a rule's own code: the package sources must be declared inputs so
    # that an edit to an algorithm reruns exactly the batch jobs that run it (one job per batch
    # of an experiment runs all of the experiment's algorithms).
    proc = snakemake(pipeline, "--configfile", "config/smoke.yaml", "--detailed-summary")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    header, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    online = [r for r in rows if r[col["rule"]] == "run_online"]
    assert online
    # a job declares its sources through one manifest (rule source_manifest), whose inputs they are
    manifests = {
        r[col["output_file"]]: r[col["input-file(s)"]].split(",") for r in rows if r[col["rule"]] == "source_manifest"
    }
    assert manifests
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())["experiments"]
    for r in online:
        exp = re.search(r"results/(\w+)/online/batch-\d+\.parquet", r[col["output_file"]]).group(1)
        declared = r[col["input-file(s)"]].split(",")
        mine_manifests = [p for p in declared if p in manifests]
        assert len(mine_manifests) == 1, declared
        assert not any(p.endswith(".py") for p in declared), declared  # no source file directly
        inputs = manifests[mine_manifests[0]]
        # wmft-A lives in wmft_a.py
        mine = {get_algorithm(a).__module__.rsplit(".", 1)[1] + ".py" for a in smoke[exp]["algorithms"]}
        for module in mine:
            assert any(p.endswith("/algorithms/" + module) for p in inputs), (exp, module, inputs)
        # a batch does not depend on the algorithms its experiment does not run
        for other in {"greedy.py", "lb_unit_reject.py"} - mine:
            assert not any(p.endswith("/algorithms/" + other) for p in inputs), (exp, other)
        assert any(p.endswith("/validate.py") for p in inputs)


# --------------------------------------------------------------------------- interrupted runs
def test_a_killed_run_resumes_with_the_same_command(finished_run, pipeline):
    # A run that had finished its instances and optima and is killed while the online runs,
    # adversary games, tables and figures are under way (a copy of the session's run without
    # those outputs: a from-scratch run would only add minutes of the same jobs before the kill).
    work = finished_run
    for online in (work / "results").glob("*/online"):
        shutil.rmtree(online)
    (work / "results/runs.parquet").unlink()
    run = start(work)
    done = total = None
    second_checked = False
    for line in run.stdout:
        if not second_checked and "Finished jobid" in line:
            # a second run in the same directory is refused while this one works
            second = snakemake(work, "--configfile", "config/smoke.yaml")
            assert second.returncode != 0 and "another pipeline run" in second.stdout + second.stderr
            second_checked = True
        m = re.search(r"(\d+) of (\d+) steps", line)
        if m and int(m.group(1)) >= 0.4 * int(m.group(2)):
            done, total = int(m.group(1)), int(m.group(2))
            break
    os.killpg(run.pid, signal.SIGKILL)  # the whole process group, mid-run
    run.wait()
    assert second_checked and done is not None
    again = snakemake(work, "--configfile", "config/smoke.yaml")  # the README's own command
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    out = again.stdout + again.stderr
    rerun = int(re.search(r"^total\s+(\d+)", out, re.M).group(1))
    assert 1 <= rerun <= total - done  # nothing finished before the kill is recomputed
    assert_same_tables(work, pipeline)
    # outputs get ordinary permissions (not mkstemp's 0600)
    mode = stat.S_IMODE((work / "results/runs.parquet").stat().st_mode)
    assert mode & 0o044 == 0o044


#: the results tables: the targets of the forced rerun (figures and the paper are downstream of
#: them and add minutes of the same kind of job)
TABLES = tuple(TIMING)


def test_forced_rerun_with_one_job_killed_then_the_same_command_gives_identical_tables(finished_run, pipeline):
    # --forceall of the three results tables over a copy of the finished run (every output already
    # there: instances, optima, online runs, adversary games, loss and bipartite points recomputed)
    # with one loss_points job SIGKILLed: keep-going finishes every other job and reports the
    # failure; the same command then runs the killed job and what depends on it, nothing else;
    # every table equals the first run's (the forced run recomputed runs and bipartite, the second
    # one loss)
    work = finished_run
    run = start(work, "--forceall", *TABLES)  # the flag ends --configfile's list
    killed = False
    forced = []
    for line in run.stdout:
        forced.append(line)
        if not killed and "rule loss_points:" in line:
            for _ in range(100):  # the job's own process: a Python running a generated script
                ps = subprocess.run(
                    ["pgrep", "-f", "-g", str(run.pid), r"\.snakemake/scripts/.*loss_points"],
                    capture_output=True,
                    text=True,
                )
                pids = [int(p) for p in ps.stdout.split()]
                if pids:
                    os.kill(pids[0], signal.SIGKILL)
                    killed = True
                    break
                import time

                time.sleep(0.05)
    run.wait()
    assert killed and run.returncode != 0  # keep-going finishes the rest, then reports the failure
    forced = "".join(forced)
    for rule in ("collect_runs", "bipartite_collect"):
        assert re.search(rf"rule {rule}:", forced), rule
    again = snakemake(work, *TABLES, "--configfile", "config/smoke.yaml")  # targets first: --configfile takes a list
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    out = again.stdout + again.stderr
    assert re.search(r"^loss_points\s+1$", out, re.M) and re.search(r"^loss_collect\s+1$", out, re.M), out[-3000:]
    assert not re.search(r"^(run_online|solve_offline|bipartite_groups|collect_runs)\s+\d+$", out, re.M)
    assert_same_tables(work, pipeline)
