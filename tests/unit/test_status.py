"""``schedbench status`` on a working directory with broken entries: a dangling symlink or a
directory in the place of a log or benchmark file is skipped with a note, never a traceback."""

from pathlib import Path

import pytest

from schedbench.cli import main
from schedbench.hall.status import format_status, read_status
from tests.unit.test_progress_status import SNAKEMAKE_LOG, _workdir, snakemake_like_process  # noqa: F401

JOB_LOG = "results/logs/run_online/a-greedy-0.log"


def _dangling(path: Path) -> str:
    path.unlink()
    path.symlink_to(path.parent / "gone.log")
    return "that leads to no file"


def _directory(path: Path) -> str:
    path.unlink()
    path.mkdir()
    return "a directory, not a file"


@pytest.mark.parametrize("break_it", [_dangling, _directory])
def test_a_broken_job_log_of_a_running_job_is_noted(tmp_path, snakemake_like_process, break_it, capsys):  # noqa: F811
    work = _workdir(tmp_path, SNAKEMAKE_LOG, snakemake_like_process)
    why = break_it(work / JOB_LOG)
    st = read_status(work)
    assert [j.jobid for j in st.running] == [7] and st.progress == {}
    assert len(st.notes) == 1 and JOB_LOG in st.notes[0] and why in st.notes[0]
    assert main(["status", str(work)]) == 0
    out = capsys.readouterr().out
    assert "run_online (jobid 7, log results/logs/run_online/a-greedy-0.log)" in out
    assert "skipped (not readable files):" in out and why in out


@pytest.mark.parametrize("break_it", [_dangling, _directory])
def test_a_broken_snakemake_log_or_benchmark_file_is_skipped(tmp_path, break_it):
    work = _workdir(tmp_path, SNAKEMAKE_LOG, None)
    # the newest Snakemake log and a benchmark file, each broken the same way
    newest = work / ".snakemake/log/2026-12-01T090000.000000.snakemake.log"
    newest.write_text("")
    break_it(newest)
    bench = work / "results/benchmarks/run_online/c-greedy-0.tsv"
    bench.write_text("s\n1.0\n")
    why = break_it(bench)
    st = read_status(work)
    assert st.log_file.name.startswith("2026-11-30T090000")  # the readable log, the run's
    assert list(st.slowest_rules["rule"]) == ["run_online", "make_instances"]
    text = format_status(st)
    assert f"benchmark file {bench}: " in text and why in text


def test_only_broken_snakemake_logs_say_no_run(tmp_path, capsys):
    (tmp_path / ".snakemake/log").mkdir(parents=True)
    (tmp_path / ".snakemake/log/a.snakemake.log").mkdir()
    (tmp_path / ".snakemake/log/b.snakemake.log").symlink_to(tmp_path / "nowhere")
    assert main(["status", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "no pipeline run recorded" in out
    assert "a.snakemake.log: a directory, not a file; skipped" in out
    assert "b.snakemake.log: a symlink to " in out
