"""End to end: Snakemake on config/smoke.yaml in a temporary copy of the workflow. Full pipeline
runs: the session's one (``pipeline``), a killed-and-resumed one from scratch, a forced rerun of a
copy of the finished one, and a one-experiment config; the rest are dry runs or read the session's."""

import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedbench.hall.io import check_results, check_table
from schedbench.scheduling.registry import get_algorithm
from tests.e2e.conftest import (
    TIMING,
    assert_same_tables,
    copy_workflow,
    omit_pdf,
    one_experiment_config,
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


def test_given_config_replaces_the_default_one(tmp_path):
    # Snakemake merges --configfile into a `configfile:` default; the Snakefile must not, or a
    # one-experiment config would silently inherit the paper's other experiments.
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    cfg["experiments"] = {"only_this": cfg["experiments"]["anr_tree"]}
    (work / "config/one.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/one.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    experiments = set(re.findall(r"results/(\w+)/instances/", proc.stdout + proc.stderr))
    assert experiments == {"only_this"}


@pytest.mark.parametrize(
    "edit, key",
    [
        (lambda c: c.update(expriments=c.pop("experiments")), "expriments"),
        (lambda c: c["experiments"]["random_unit"].update(instance=3), "instance"),
        (lambda c: c.update(seed="seven"), "seven"),
        (
            lambda c: c["experiments"]["random_unit"]["algorithms"].update({"lb-unit-reject": {"alpha_rul": "safe"}}),
            "experiments.random_unit.algorithms.lb-unit-reject",
        ),
    ],
)
def test_bad_config_fails_before_any_job_naming_the_key(tmp_path, edit, key):
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    edit(cfg)
    (work / "config/bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/bad.yaml")
    assert proc.returncode != 0
    assert key in proc.stdout + proc.stderr
    assert not (work / "results").exists()


# --------------------------------------------------------------------------- interrupted runs
def test_the_default_profile_is_in_effect(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    proc = snakemake(work, "--configfile", "config/smoke.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Using workflow specific profile profiles/default" in proc.stdout + proc.stderr


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


def test_every_valid_config_produces_every_figure(tmp_path):
    # one plain algorithm, no adversary, no loss or bipartite section: every target still builds
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    cfg["experiments"] = {
        "only": {"family": "anr-tree", "params": {"K": 3}, "instances": 1, "algorithms": {"greedy": None}}
    }
    for section in ("loss", "bipartite"):
        cfg.pop(section)
    (work / "config/one.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/one.yaml")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for fig in ("ratio_vs_eps_load", "rejection_vs_eps_load", "adversary_rounds"):
        assert (work / f"paper/figures/{fig}.pdf").read_bytes().startswith(b"%PDF")


def test_config_file_errors_name_the_file_and_line(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    (work / "config/dup.yaml").write_text((work / "config/smoke.yaml").read_text() + "seed: 8\n")
    proc = snakemake(work, "--configfile", "config/dup.yaml", "-n")
    assert proc.returncode != 0 and "key 'seed' given twice" in proc.stdout + proc.stderr


def test_an_out_of_tree_plugin_runs_in_the_pipeline_and_an_edit_reruns_exactly_its_jobs(tmp_path):
    # docs/plugins.md: the config's `plugins:` names a user's folder; its algorithm runs in the
    # pipeline like a built-in, and its file is a declared input of the jobs that use it
    from tests.unit.test_plugins import LEAST_INDEX

    work = copy_workflow(tmp_path / "wf")
    plug = tmp_path / "userplugins"
    plug.mkdir()
    (plug / "least_index.py").write_text(LEAST_INDEX)
    for kind, name in (("adversary", "my-trap"), ("family", "my-fam")):  # the scaffold's plug-ins
        made = subprocess.run(
            [sys.executable, "-m", "schedbench.cli", "new", kind, name, "--dir", str(plug)],
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
    family = {"family": "random-restricted", "params": {"m": 4, "n": 30, "d": 2, "sizes": "unit"}, "instances": 1}
    cfg = {
        "seed": 3,
        "eps": [0.25],
        "plugins": [str(plug)],
        "experiments": {
            "with_plugin": {**family, "algorithms": {"least-index": None, "greedy": None}},
            "without_plugin": {**family, "algorithms": {"greedy": None}},
            "plugin_adversary": {"adversary": "my-trap", "algorithms": {"greedy": None}},
            "plugin_family": {"family": "my-fam", "instances": 1, "algorithms": {"greedy": None}},
        },
    }
    (work / "config/plug.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "results/runs.parquet", "paper/tables/methods.tex", "--configfile", "config/plug.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "least-index" in (work / "paper/tables/methods.tex").read_text()  # the paper's method table
    runs = pd.read_parquet(work / "results/runs.parquet")
    mine = runs[runs["algorithm"] == "least-index"]
    assert len(mine) == 1 and (mine["status"] == "ok").all() and (mine["experiment"] == "with_plugin").all()
    assert set(runs[runs["experiment"] == "plugin_adversary"]["family"]) == {"my-trap"}
    assert set(runs[runs["experiment"] == "plugin_family"]["family"]) == {"my-fam"}
    assert (runs["status"] == "ok").all()
    packages = json.loads(runs["packages"].iloc[0])  # the plug-in's content is in the provenance
    assert packages["plug-in least_index.py"] == hashlib.sha256(LEAST_INDEX.encode()).hexdigest()
    path = plug / "least_index.py"
    path.write_text(LEAST_INDEX + "\n# edited\n")
    proc = snakemake(work, "results/runs.parquet", "--configfile", "config/plug.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert re.search(r"^run_online\s+1$", out, re.M), out[-3000:]  # the plug-in's batch only
    assert re.search(r"output: results/with_plugin/online/batch-0\.parquet", out)
    assert not re.search(r"output: results/without_plugin/online/", out)
    assert not re.search(r"^(make_instances|solve_offline)\s+\d+$", out, re.M)
    # a plug-in that stops importing fails the run before any job, naming its file and line
    path.write_text("import nothing_of_that_name\n")
    proc = snakemake(work, "results/runs.parquet", "--configfile", "config/plug.yaml", "-n")
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert f"{path.resolve()}:1" in out and "ModuleNotFoundError" in out, out[-3000:]


def _plugin_job_fails(tmp_path, file: str, source: str, limit: float, experiment: dict, target: str, log: str):
    """A one-experiment run (``experiment`` named after ``file``'s stem) with the plug-in ``source``
    in a folder of its own and ``plugin_time_limit`` = ``limit``: the ``target`` job fails; returns
    (workflow copy, plug-in path, the ``error:`` lines of the job's ``log``), no traceback anywhere."""
    work = copy_workflow(tmp_path / "wf")
    plug = tmp_path / "userplugins"
    plug.mkdir()
    (plug / file).write_text(source)
    name = Path(file).stem.split("_")[0]
    cfg = {
        "seed": 3,
        "eps": [0.25],
        "plugins": [str(plug)],
        "plugin_time_limit": limit,
        "experiments": {name: experiment},
    }
    (work / "config/mine.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, target, "--configfile", "config/mine.yaml")
    assert proc.returncode != 0
    text = (work / log).read_text()
    assert "Traceback" not in text and "Traceback" not in proc.stderr
    return work, (plug / file).resolve(), [line for line in text.splitlines() if line.startswith("error:")]


def test_a_plugin_that_hangs_fails_its_job_with_one_line_and_no_output(tmp_path):
    # config `plugin_time_limit`: a run of a plug-in past it ends its run_online job, the log
    # saying so in one line (no traceback), no batch table written; the other jobs are kept
    from tests.unit.test_time_limits import HANGS

    family = {"family": "random-restricted", "params": {"m": 4, "n": 12, "d": 2, "sizes": "unit"}, "instances": 1}
    experiment = {**family, "problem": "maxflow", "algorithms": {"hangs-forever": None}}
    work, plug, errors = _plugin_job_fails(
        tmp_path, "hangs_forever.py", HANGS, 2, experiment, "results/hangs/online/batch-0.parquet",
        "results/logs/run_online/hangs-0.log",
    )  # fmt: skip
    assert errors == [
        f"error: run_online: plug-in {plug}: algorithm 'hangs-forever': no answer "
        "within the run time limit of 2 s (a decision that never returns? the limit: compare --plugin-time-limit, "
        "the config's plugin_time_limit); instance hangs/0000, eps None"
    ], errors
    assert not (work / "results/hangs/online/batch-0.parquet").exists()
    assert (work / "results/hangs/opt/batch-0.parquet").exists()  # what was done is kept


def test_a_family_plugin_whose_generator_hangs_fails_make_instances_with_one_line(tmp_path):
    # config `plugin_time_limit` limits a plug-in family's generation too: its make_instances job
    # fails, the log saying so in one line naming the plug-in and the family, no batch written
    from tests.unit.test_plugin_time_limits import FAMILY

    experiment = {"family": "loops-family", "instances": 1, "algorithms": {"greedy": None}}
    work, plug, errors = _plugin_job_fails(
        tmp_path, "loops_family.py", FAMILY.format(name="loops-family"), 1, experiment,
        "results/loops/instances/batch-0", "results/logs/make_instances/loops-0.log",
    )  # fmt: skip
    assert errors == [
        f"error: make_instances: plug-in {plug}: family 'loops-family': instance 0: "
        "not generated within the run time limit of 1 s (a generator that never returns? the limit: compare "
        "--plugin-time-limit, the config's plugin_time_limit)"
    ], errors
    assert not (work / "results/loops/instances/batch-0").exists()


def _processes_in(work: Path) -> list[str]:
    """The command lines of live processes that name ``work`` (a job left running)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(work) in cmdline:
            found.append(cmdline)
    return found


def test_a_sigterm_ends_a_local_run_in_time_and_the_same_command_resumes(tmp_path):
    # hall/stop.py: Snakemake's own SIGTERM waits for every running job; the Snakefile's onstart
    # stops them instead, so that the run ends within STOP_SECONDS and the same command resumes
    from schedbench.hall.stop import STOP_SECONDS

    work = copy_workflow(tmp_path / "wf")
    one_experiment_config(work)
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", *omit_pdf(), "--configfile", "config/term.yaml"]
    run = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in run.stdout:
            if "Finished jobid" in line:  # jobs are under way
                break
        t0 = time.monotonic()
        run.send_signal(signal.SIGTERM)  # to Snakemake alone, as `kill PID` or a batch system sends it
        rest, _ = run.communicate(timeout=STOP_SECONDS + 60)
        elapsed = time.monotonic() - t0
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert elapsed <= STOP_SECONDS and "schedbench: SIGTERM: stopping the running jobs" in rest, rest[-3000:]
    time.sleep(1)
    assert _processes_in(work) == []  # no job left running
    for table in (work / "results").rglob("*.parquet"):  # nothing half-written in an output's place
        pd.read_parquet(table)
    again = snakemake(work, "--configfile", "config/term.yaml")  # the same command resumes
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    dry = snakemake(work, "--configfile", "config/term.yaml", "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr
