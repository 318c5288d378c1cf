"""The configured plug-in time limit (config ``plugin_time_limit``, one owner: the pipeline passes
it to every stage that runs user code) reaches every path that runs a plug-in, not only the
online batches: the practice stage (tuning and test runs), the black-box worst-case search (a
search task and the ε sweep) and the generation of an out-of-tree family's instances. Each
path: a plug-in that loops forever is stopped at a small limit with one error, in one line,
naming the plug-in file, what it defines and the limit (``play.user_code``, ``plugin_guard.family_code``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from schedbench.hall.logs import logged
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.instances.base import FamilyError
from schedbench.scheduling.play import RunTimeLimitError
from schedbench.scheduling.registry import use_plugins

pytestmark = pytest.mark.usefixtures("isolated_registry")  # tests/conftest.py

#: the limit every test configures (seconds): small, so that the tests are fast
LIMIT = 0.5

LOOPS = '''
"""loops-{problem}: never answers (a plug-in of the time-limit tests)."""
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm

@register_algorithm
class LoopsForever(OnlineAlgorithm):
    name = "loops-{problem}"
    problem = "{problem}"
    model = "{model}"
    rule_label = "R"
    reference = "a broken plug-in"
    def on_arrival(self, job, view):
        while True:
            pass
'''

FAMILY = '''
"""loops-family: an instance family whose generator never returns."""
from schedbench.hall.params import Param
from schedbench.scheduling.instances.base import Family
from schedbench.scheduling.registry import register_family

def _generate(rng, m, n):
    while True:
        pass

FAMILY = register_family(
    Family(
        name="{name}",
        parameters={{"m": Param(2, doc="machines", type=int, min=1), "n": Param(4, doc="jobs", type=int, min=1)}},
        generator=_generate,
        sized=lambda p: False,
        doc="never returns",
    )
)
'''

RAISES = FAMILY.replace("    while True:\n        pass\n", "    return 1 // 0\n")


def _plugin(tmp_path: Path, text: str, stem: str) -> Path:
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    use_plugins([str(path)])
    return path.resolve()


def _one_line(exc: BaseException, *parts: str) -> str:
    """The error as the CLI and a job's log print it (one line), checked to name every part."""
    line = " ".join(str(exc).split())
    for part in parts:
        assert part in line, (part, line)
    return line


def _stopped_within(t0: float, seconds: float = 20.0) -> None:
    assert time.perf_counter() - t0 < seconds, "the limit did not stop the plug-in in time"


def test_the_practice_stage_stops_a_looping_policy_at_the_configured_limit(tmp_path):
    from schedbench.scheduling.stage.practice import run_family

    path = _plugin(tmp_path, LOOPS.format(problem="load", model="plain"), "loops_load")
    section = {
        "eps": [0.25],
        "train_instances": 1,
        "test_instances": 2,
        "families": {
            "lb": {
                "family": "random-restricted",
                "problem": "load",
                "params": {"m": 2, "n": 6, "d": 2, "arrivals": "zero"},
                "policies": [{"algorithm": "greedy-reject"}],
                "baselines": [{"algorithm": "loops-load"}],
            }
        },
    }
    t0 = time.perf_counter()
    with pytest.raises(RunTimeLimitError) as stopped:
        run_family("lb", section, 1, run_seconds=LIMIT)
    _stopped_within(t0)
    _one_line(
        stopped.value,
        f"plug-in {path}: algorithm 'loops-load'",
        f"no answer within the run time limit of {LIMIT:g} s",
        "practice instance random-restricted/0, eps 0.25",
    )


def test_a_black_box_search_task_stops_a_looping_algorithm_at_the_configured_limit(tmp_path):
    from schedbench.scheduling.stage.search import run_task

    path = _plugin(tmp_path, LOOPS.format(problem="maxflow", model="plain"), "loops_maxflow")
    task = {"algorithm": "loops-maxflow", "method": "blackbox", "m": 2, "max_evals": 5, "budget_seconds": 60}
    out = tmp_path / "t.json"
    t0 = time.perf_counter()
    with pytest.raises(RunTimeLimitError) as stopped:
        run_task("t", task, 3, out, run_seconds=LIMIT)
    _stopped_within(t0)
    _one_line(
        stopped.value,
        f"plug-in {path}: algorithm 'loops-maxflow'",
        f"no answer within the run time limit of {LIMIT:g} s",
        "search task t",
    )
    assert not out.exists()  # no result for a run that never ended


def test_the_eps_sweep_stops_a_looping_algorithm_at_the_configured_limit(tmp_path):
    from schedbench.scheduling.stage.eps_sweep import point_files, run_sweep

    path = _plugin(tmp_path, LOOPS.format(problem="maxflow", model="rejection"), "loops_maxflow")
    section = {"series": {"s": {"eps": [0.5], "m": 2, "max_evals": 3, "budget_seconds": 60}}}
    outputs = point_files(tmp_path / "points", section, "s")
    t0 = time.perf_counter()
    with pytest.raises(RunTimeLimitError) as stopped:
        run_sweep("s", "maxflow", "loops-maxflow", section, 3, outputs, run_seconds=LIMIT)
    _stopped_within(t0)
    _one_line(
        stopped.value,
        f"plug-in {path}: algorithm 'loops-maxflow'",
        f"no answer within the run time limit of {LIMIT:g} s",
        "eps sweep s/maxflow at eps 0.5",
    )
    assert not any(Path(o).exists() for o in outputs)


def test_search_worst_refuses_a_bad_run_time_limit_naming_it():
    from schedbench.hall.params import ParameterError
    from schedbench.scheduling.search import search_worst

    for bad in (0, -1.0, float("nan"), "1"):
        with pytest.raises(ParameterError, match="run_seconds") as refused:
            search_worst("greedy", m=2, max_evals=1, run_seconds=bad)
        assert refused.value.argument == "run_seconds"


def test_a_family_whose_generator_loops_is_stopped_naming_the_family(tmp_path):
    from schedbench.scheduling.registry import get_family
    from schedbench.scheduling.stage.experiment import make_instances

    path = _plugin(tmp_path, FAMILY.format(name="loops-family"), "loops_family")
    t0 = time.perf_counter()
    with pytest.raises(FamilyError) as stopped:
        make_instances("e", {"family": "loops-family"}, 0, [0, 1], tmp_path / "out", run_seconds=LIMIT)
    _stopped_within(t0)
    _one_line(
        stopped.value,
        f"plug-in {path}: family 'loops-family': instance 0",
        f"not generated within the run time limit of {LIMIT:g} s",
    )
    assert not list((tmp_path / "out").glob("*.npz"))
    # the default limit applies to every other caller (Family.make: generate, the practice check)
    from schedbench.scheduling import plugin_guard

    guard_default, plugin_guard.PLUGIN_RUN_SECONDS = plugin_guard.PLUGIN_RUN_SECONDS, LIMIT
    try:
        with pytest.raises(FamilyError, match=f"within the run time limit of {LIMIT:g} s"):
            get_family("loops-family").make(3, 0)
    finally:
        plugin_guard.PLUGIN_RUN_SECONDS = guard_default


def test_a_family_whose_generator_raises_is_one_error_naming_its_file_and_line(tmp_path):
    from schedbench.scheduling.registry import get_family

    path = _plugin(tmp_path, RAISES.format(name="raises-family"), "raises_family")
    with pytest.raises(FamilyError) as failed:
        get_family("raises-family").make(2, 0)
    _one_line(failed.value, f"plug-in {path}:8: family 'raises-family': instance 2", "raised ZeroDivisionError")


def test_a_builtin_family_is_not_limited(monkeypatch):
    from schedbench.scheduling import plugin_guard
    from schedbench.scheduling.registry import get_family

    monkeypatch.setattr(plugin_guard, "PLUGIN_RUN_SECONDS", 1e-6)  # a plug-in's limit: not a built-in's
    assert get_family("random-restricted").make(0, 0, m=2, n=50, d=2).n == 50  # the default limit
    inst = get_family("random-restricted").make_within(1e-6, 0, 0, m=2, n=50, d=2)
    assert inst.n == 50


def test_compare_stops_a_looping_family_with_one_line(tmp_path, capsys):
    from schedbench.cli import main

    folder = tmp_path / "plugs"
    folder.mkdir()
    (folder / "loops_family.py").write_text(FAMILY.format(name="loops-family"))
    argv = ["--plugins", str(folder), "compare", "-a", "greedy", "-f", "loops-family", "--instances", "2"]
    t0 = time.perf_counter()
    code = main([*argv, "--plugin-time-limit", str(LIMIT)])
    err = capsys.readouterr().err
    _stopped_within(t0)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"plug-in {(folder / 'loops_family.py').resolve()}: family 'loops-family': instance 0" in err
    assert f"not generated within the run time limit of {LIMIT:g} s" in err


@pytest.mark.parametrize(
    "script, caught, error",
    [
        (
            "practice_family",
            "AlgorithmError",
            RunTimeLimitError("plug-in x.py: algorithm 'x': no answer; practice f/0"),
        ),
        ("practice_family", "FamilyError", FamilyError("plug-in x.py: family 'x': instance 0: not generated")),
        (
            "worst_case_task",
            "AlgorithmError",
            RunTimeLimitError("plug-in x.py: algorithm 'x': no answer; search task t"),
        ),
        (
            "eps_sweep_algorithm",
            "AlgorithmError",
            RunTimeLimitError("plug-in x.py: algorithm 'x': no answer; eps sweep"),
        ),
        (
            "make_instances",
            "FamilyError",
            FamilyError("plug-in x.py: family 'x': instance 0: not generated within 1 s"),
        ),
    ],
)
def test_each_job_script_passes_the_configured_limit_and_logs_its_error_as_one_line(tmp_path, script, caught, error):
    """The pipeline's jobs that run user code get the configured limit (the rule passes
    ``run_seconds=config["plugin_time_limit"]``, the script hands it to the stage) and log the
    error as one line. The scripts are read as text (they need Snakemake's ``snakemake``
    object); the log line is what ``logged`` writes for the types the script names."""
    root = Path(__file__).resolve().parents[2] / "workflow"
    name = {"eps_sweep_algorithm": "eps_sweep_task"}.get(script, script)
    text = (root / "scripts" / f"{name}.py").read_text()
    assert "run_seconds=float(snakemake.params.run_seconds)" in text
    one_line = text[text.index(f'"{script}", one_line=(') :].split(")")[0]
    assert caught in one_line
    rules = "".join(p.read_text() for p in (root / "rules").glob("*.smk"))
    rule = rules[rules.index(f"rule {script}:") :]
    assert 'run_seconds=config["plugin_time_limit"]' in rule[: rule.index("script:")]
    log = tmp_path / "job.log"
    with pytest.raises(SystemExit):
        with logged(str(log), script, one_line=(AlgorithmError, FamilyError)):
            raise error
    assert log.read_text().splitlines() == [f"error: {script}: {error}"]


def test_check_fails_a_family_whose_generator_loops_naming_it(tmp_path, monkeypatch):
    from schedbench.scheduling import conformance

    monkeypatch.setattr(conformance, "RUN_SECONDS", LIMIT)
    plugin = tmp_path / "loops_family.py"
    plugin.write_text(FAMILY.format(name="loops-family"))
    t0 = time.perf_counter()
    report = conformance.check_path(plugin)
    _stopped_within(t0)
    assert not report.ok
    text = report.text()
    assert "FAIL  family loops-family: builds a small instance" in text
    assert f"family 'loops-family': instance 0: not generated within the run time limit of {LIMIT:g} s" in text


NUMBA_LOOP = '''
"""spins-in-numba: its compiled path never returns (a loop inside numba code)."""
import numba
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@numba.njit(cache=False)
def spin(x):
    while x != 0:  # xorshift32 never reaches 0 from a non-zero start: a loop the compiler keeps
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
    return x


spin(0)  # compiled at import, so the run's time is the loop's


@register_algorithm
class SpinsInNumba(OnlineAlgorithm):
    name = "spins-in-numba"
    problem = "maxflow"
    model = "plain"
    rule_label = "R"
    reference = "a broken plug-in"

    def on_arrival(self, job, view):
        return int(job.eligible[0])

    def compiled_run(self, inst, order):
        spin(1)
'''

RUN_IT = """
import sys
import time
from schedbench.hall import limits
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_algorithm, use_plugins

limits.HARD_GRACE_SECONDS = {grace}
use_plugins([{plugin!r}])
inst = Instance.from_lists(2, [0, 0], [1, 1], [[0, 1], [1]])
cls = get_algorithm(sys.argv[1])
print("step path", execute(cls, inst, fast=False, run_seconds={limit}).status, flush=True)
time.sleep({limit} + {grace} + 1)  # a run that ended in time leaves no watchdog armed
print("compiled path", execute(cls, inst, run_seconds={limit}).status, flush=True)
"""


def test_a_loop_inside_numba_code_ends_the_process_at_the_hard_limit_naming_the_plugin_line(tmp_path):
    """SIGALRM cannot interrupt compiled code: the hard limit (``hall.limits.hard_limit``, a C
    watchdog) ends the process ``HARD_GRACE_SECONDS`` past the run's limit, its stderr naming
    the plug-in's file and the line that called the kernel; a plug-in that returns in time is
    untouched by it (its step path runs first, in time)."""
    import subprocess
    import sys

    plugin = tmp_path / "spins_in_numba.py"
    plugin.write_text(NUMBA_LOOP)
    script = tmp_path / "run_it.py"
    script.write_text(RUN_IT.format(grace=0.5, plugin=str(plugin), limit=LIMIT))
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, str(script), "spins-in-numba"], capture_output=True, text=True, timeout=120)
    took = time.perf_counter() - t0
    assert done.returncode == 1, done
    assert done.stdout.splitlines() == ["step path ok"], done
    assert done.stderr.startswith("Timeout (0:00:01)!\n")  # 0.5 s + 0.5 s
    line = NUMBA_LOOP.splitlines().index("        spin(1)") + 1
    assert f'File "{plugin}", line {line} in compiled_run' in done.stderr, done.stderr
    assert took < 60


def test_a_builtin_familys_own_error_keeps_its_exception(monkeypatch):
    from schedbench.scheduling.registry import get_family

    family = get_family("random-restricted")

    def bug(*args, **kwargs):
        raise KeyError("a built-in's bug")

    monkeypatch.setattr(type(family), "generator", property(lambda self: bug), raising=False)
    with pytest.raises(KeyError, match="a built-in's bug"):
        family.make(0, 0, m=2, n=4, d=2)


ADVERSARY_LOOPS = '''
"""loops-adversary: never releases its first batch."""
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.registry import register_adversary


@register_adversary
class LoopsAdversary(Adversary):
    name = "loops-adversary"
    problem = "load"
    reference = "a broken plug-in"
    m = 2
    opt = 1.0

    def next_jobs(self, view):
        while True:
            pass
'''


def test_check_fails_an_adversary_that_loops_naming_it(tmp_path, monkeypatch):
    from schedbench.scheduling import conformance

    monkeypatch.setattr(conformance, "RUN_SECONDS", LIMIT)
    plugin = tmp_path / "loops_adversary.py"
    plugin.write_text(ADVERSARY_LOOPS)
    t0 = time.perf_counter()
    report = conformance.check_path(plugin)
    _stopped_within(t0)
    text = report.text()
    assert not report.ok
    assert f"plug-in {plugin.resolve()}: adversary 'loops-adversary'" in text, text
    assert f"no answer within the run time limit of {LIMIT:g} s" in text, text


def test_the_hard_limit_writes_to_a_jobs_log_and_is_never_armed_for_a_builtin(tmp_path, monkeypatch):
    """In a pipeline job (``logged``) the watchdog's dump goes to the job's log file; a built-in's
    run (limit 0) arms nothing."""
    import faulthandler
    import sys

    from schedbench.hall import limits

    log = tmp_path / "job.log"
    with logged(str(log), "job"):
        assert limits._fd_file() is sys.stderr and sys.stderr.name == str(log)
    armed = []
    monkeypatch.setattr(faulthandler, "dump_traceback_later", lambda *a, **k: armed.append((a, k)))
    with limits.hard_limit(0):
        pass
    assert armed == []
    with limits.hard_limit(2.0):
        pass
    assert armed and armed[0][0] == (2.0 + limits.HARD_GRACE_SECONDS,) and armed[0][1]["exit"] is True
