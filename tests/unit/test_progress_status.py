"""Progress lines of long jobs (counts, rate, ETA against a fake clock) and ``schedbench status``
read from a hand-written Snakemake log, run lock and benchmark files."""

import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from schedbench.cli import main
from schedbench.hall.progress import Progress, progress_map
from schedbench.hall.status import format_status, read_status


class FakeClock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_progress_line_counts_rate_and_eta_by_items():
    clock = FakeClock()
    p = Progress(4, "instances", unit="runs", clock=clock)
    clock.t += 10
    p.advance(work=30)
    # 1 of 4 in 10 s: 30 s left; 30 runs in 10 s
    assert p.line() == "progress: 1/4 instances (25 %), 30 runs at 3/s, elapsed 0:00:10, ETA 0:00:30"


def test_progress_eta_weighs_by_expected_work():
    clock = FakeClock()
    p = Progress(3, "points", weights=[1, 1, 8], clock=clock)
    clock.t += 20
    p.advance()
    p.advance()
    # 2 of 10 work units in 20 s: 80 s left (by items it would say 10 s)
    assert p.line().endswith("elapsed 0:00:20, ETA 0:01:20")
    assert "2/3 points (67 %)" in p.line()


def test_progress_rejects_bad_weights():
    with pytest.raises(ValueError, match="weights"):
        Progress(2, weights=[1.0])
    with pytest.raises(ValueError, match="weights"):
        Progress(1, weights=[float("nan")])


def test_progress_map_keeps_order_and_logs_first_last_and_every(caplog):
    clock = FakeClock()

    def work(x):
        clock.t += 4  # each item takes 4 s of the fake clock
        return x * x

    log = logging.getLogger("test.progress")
    with caplog.at_level(logging.INFO, logger="test.progress"):
        out = progress_map(work, range(6), log, "items", every=10, clock=clock, work=lambda r: 1, unit="things")
    assert out == [0, 1, 4, 9, 16, 25]
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "progress: starting 6 items on 1 worker(s)"
    done = [int(re.search(r"(\d+)/6", m).group(1)) for m in lines[1:]]
    # first item, then at least 10 s apart (items 4: 16 s after item 1), then the last
    assert done == [1, 4, 6]
    assert lines[-1].endswith("ETA 0:00:00")


def _slow_abs(x):
    import time

    time.sleep(0.3 if x == -3 else 0.0)  # the first item finishes last
    return abs(x)


def test_progress_map_with_two_workers_keeps_input_order():
    log = logging.getLogger("test.progress2")
    assert progress_map(_slow_abs, [-3, 2, -1, 0, 5, -6], log, "items", n_jobs=2) == [3, 2, 1, 0, 5, 6]


SNAKEMAKE_LOG = """\
Using workflow specific profile profiles/default for setting default command line arguments.
Building DAG of jobs...
Job stats:
job              count
-------------  -------
make_instances       2
run_online           1
all                  1
total                4

[Mon Nov 30 09:00:00 2026]
rule make_instances:
    output: results/a/instances/batch-0
    log: results/logs/make_instances/a-0.log
    jobid: 3
    reason: Missing output files

[Mon Nov 30 09:00:00 2026]
rule make_instances:
    output: results/b/instances/batch-0
    log: results/logs/make_instances/b-0.log
    jobid: 4

[Mon Nov 30 09:00:02 2026]
Finished jobid: 3 (Rule: make_instances)
1 of 4 steps (25%) done

[Mon Nov 30 09:00:02 2026]
Group job online (jobs in lexicogr. order):

    [Mon Nov 30 09:00:02 2026]
    rule run_online:
        input: results/a/instances/batch-0, /src/x.py
        output: results/a/runs/greedy/batch-0.parquet
        log: results/logs/run_online/a-greedy-0.log
        jobid: 7
Job 1b2c has been submitted with SLURM jobid 11 (log: .snakemake/slurm_logs/x/11.log).
[Mon Nov 30 09:00:05 2026]
Error in rule make_instances:
    message: None
    jobid: 4
    log: results/logs/make_instances/b-0.log (check log file(s) for error details)
"""


def _workdir(tmp_path: Path, log_text: str, pid: int | None) -> Path:
    (tmp_path / ".snakemake/log").mkdir(parents=True)
    (tmp_path / ".snakemake/log/2026-11-30T090000.000000.snakemake.log").write_text(log_text)
    if pid is not None:
        (tmp_path / ".snakemake/schedbench-run.lock").write_text(f"pid {pid}\n")
    logs = tmp_path / "results/logs/run_online"
    logs.mkdir(parents=True)
    (logs / "a-greedy-0.log").write_text(
        "2026-11-30 09:00:03 INFO progress: starting 8 instances on 1 worker(s)\n"
        "2026-11-30 09:00:04 INFO progress: 1/8 instances (12 %), 6 runs at 6/s, elapsed 0:00:01, ETA 0:00:07\n"
    )
    for rule, job, s in [
        ("run_online", "a-greedy-0", 7.5),
        ("run_online", "b-greedy-0", 2.5),
        ("make_instances", "a-0", 1.0),
    ]:
        d = tmp_path / "results/benchmarks" / rule
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{job}.tsv").write_text(f"s\th:m:s\tmax_rss\n{s}\t0:00:0{int(s)}\t100\n")
    return tmp_path


@pytest.fixture
def snakemake_like_process():
    """A live process whose command line names snakemake (as the run holding the lock would)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "snakemake"])
    # until the child has exec'd, /proc shows the forked test process's command line (a race
    # that failed this test under load): wait for the one the run would show
    deadline = time.monotonic() + 30
    while b"snakemake" not in Path(f"/proc/{proc.pid}/cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    yield proc.pid
    proc.kill()
    proc.wait()


def test_status_of_a_running_pipeline(tmp_path, snakemake_like_process):
    st = read_status(_workdir(tmp_path, SNAKEMAKE_LOG, snakemake_like_process))
    assert st.active_pid == snakemake_like_process
    assert (st.done, st.total) == (1, 4)
    assert [j.jobid for j in st.running] == [7]  # 3 finished, 4 failed
    assert st.failed == {4: "make_instances"}
    assert st.slurm_jobs == 1
    text = format_status(st)
    assert f"running (pid {snakemake_like_process})" in text
    assert "jobs: 1 of 4 done, 1 running, 1 failed, 1 waiting; 1 SLURM jobs submitted" in text
    assert (
        "run_online (jobid 7, log results/logs/run_online/a-greedy-0.log): "
        "1/8 instances (12 %), 6 runs at 6/s, elapsed 0:00:01, ETA 0:00:07"
    ) in text
    assert "make_instances (jobid 4, log results/logs/make_instances/b-0.log)" in text
    rules = st.slowest_rules
    assert list(rules["rule"]) == ["run_online", "make_instances"]
    assert rules.iloc[0]["jobs"] == 2 and rules.iloc[0]["total_s"] == 10.0 and rules.iloc[0]["max_s"] == 7.5
    assert st.slowest_jobs.iloc[0]["job"] == "run_online/a-greedy-0"


def test_status_of_a_killed_pipeline(tmp_path):
    # the lock names a PID that is not a live snakemake (this test's own, say): not running
    st = read_status(_workdir(tmp_path, SNAKEMAKE_LOG, os.getpid()))
    assert st.active_pid is None and st.running == []
    text = format_status(st)
    assert "not running (ended without a summary: killed?)" in text
    assert "1 started but never finished (rerun the same command to resume)" in text


def test_status_of_a_finished_pipeline(tmp_path):
    done = SNAKEMAKE_LOG.split("[Mon Nov 30 09:00:02 2026]\nGroup job")[0] + (
        "Finished jobid: 4 (Rule: make_instances)\n2 of 2 steps (100%) done\n"
        "Complete log(s): .snakemake/log/x.snakemake.log\n"
    )
    st = read_status(_workdir(tmp_path, done, None))
    assert format_status(st).splitlines()[0].endswith(": finished")
    assert "jobs: 2 of 2 done, 0 running, 0 failed" in format_status(st)


def test_status_cli(tmp_path, capsys):
    assert main(["status", str(tmp_path)]) == 0
    assert "no pipeline run recorded" in capsys.readouterr().out
    assert main(["status", str(tmp_path / "missing")]) == 2
    assert "directory" in capsys.readouterr().err
    assert main(["status", str(tmp_path), "--top", "0"]) == 2
    assert "--top" in capsys.readouterr().err


def test_a_long_mip_logs_its_progress(monkeypatch, caplog):
    # every interrupt check "long" (report interval 0): the MIP's state appears in the log
    import sys

    import schedbench.hall.solvers as solvers
    from schedbench.scheduling.offline import opt_max_flow

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_opt_flow import poisson_instance

    monkeypatch.setattr(solvers, "MIP_REPORT_EVERY", 0.0)
    with caplog.at_level(logging.INFO, logger="schedbench.hall.solvers"):
        res = opt_max_flow(poisson_instance(60, 3, 0.9, 2, 1, sizes=4), time_limit=60)
    assert res.status == "optimal"
    lines = [r.getMessage() for r in caplog.records if r.name == "schedbench.hall.solvers"]
    assert lines and all(line.startswith("progress: HiGHS max-flow-time MIP: incumbent ") for line in lines)
    assert re.search(r"\d+ nodes, elapsed \d:\d\d:\d\d$", lines[-1])


def test_status_counts_failed_jobs_of_a_group_and_skips_logs_without_jobs(tmp_path):
    # a group job's failure: "Error in group", then each job's "Error in rule" indented
    group_failed = (
        SNAKEMAKE_LOG
        + """Error in group 5c1d:
    jobs:
        rule run_online:
            jobid: 7
            output: results/a/runs/greedy/batch-0.parquet
            log: results/logs/run_online/a-greedy-0.log (check log file(s) for error details)
    Error in rule run_online:
        message: SLURM-job '11' failed, SLURM status is: 'FAILED'
        jobid: 7
        log: results/logs/run_online/a-greedy-0.log (check log file(s) for error details)
Exiting because a job execution failed. Look above for error messages
"""
    )
    work = _workdir(tmp_path, group_failed, None)
    # a later log without jobs (e.g. `snakemake --report`): not the run's
    later = work / ".snakemake/log/2026-11-30T100000.000000.snakemake.log"
    later.write_text("Building DAG of jobs...\nCreating report...\n")
    os.utime(later, (2e9, 2e9))
    st = read_status(work)
    assert st.log_file.name.startswith("2026-11-30T090000")
    assert st.failed == {4: "make_instances", 7: "run_online"}
    assert st.ended == "stopped: a job failed"
    assert "jobs: 1 of 4 done, 0 running, 2 failed" in format_status(st)
