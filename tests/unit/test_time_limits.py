"""Code the suite does not own cannot hang a command: a plug-in that loops at import is a
PluginError naming its file, a decision that never returns fails ``schedbench check`` naming the
rule (``hall/limits.py``: a SIGALRM timer, so Python-level loops are interrupted)."""

from __future__ import annotations

import time

import pytest

from schedbench.hall.limits import wall_limit
from schedbench.scheduling import conformance, registry
from schedbench.scheduling.registry import PluginError

HANGS = '''
"""hangs-forever: never answers."""
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm

@register_algorithm
class HangsForever(OnlineAlgorithm):
    name = "hangs-forever"
    problem = "maxflow"
    model = "plain"
    rule_label = "R"
    reference = "a broken plug-in"
    def on_arrival(self, job, view):
        while True:
            pass
'''


pytestmark = pytest.mark.usefixtures("isolated_registry")  # tests/conftest.py


def test_the_limit_interrupts_a_python_loop_and_restores_an_outer_one():
    t0 = time.perf_counter()
    with pytest.raises(TimeoutError, match="inner"):
        with wall_limit(5.0, lambda: TimeoutError("outer")):
            with wall_limit(0.2, lambda: TimeoutError("inner")):
                while True:
                    pass
    assert time.perf_counter() - t0 < 3
    with wall_limit(1.0, lambda: TimeoutError("never")):
        pass  # nothing left armed after a block that ends in time
    time.sleep(1.2)


def test_a_plugin_that_loops_at_import_is_an_error_naming_it(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "IMPORT_SECONDS", 0.5)
    plugin = tmp_path / "loops_at_import.py"
    plugin.write_text("while True:\n    pass\n")
    with pytest.raises(PluginError, match=r"loops_at_import\.py: does not import within 0\.5 s"):
        registry.use_plugins([str(plugin)])


def test_a_decision_that_never_returns_fails_check_naming_the_rule(tmp_path, monkeypatch):
    monkeypatch.setattr(conformance, "RUN_SECONDS", 1.0)
    plugin = tmp_path / "hangs_forever.py"
    plugin.write_text(HANGS)
    t0 = time.perf_counter()
    report = conformance.check_path(plugin)
    assert time.perf_counter() - t0 < 30  # the first hanging run is the verdict
    assert not report.ok
    assert "FAIL  algorithm hangs-forever: runs on small instances" in report.text()
    assert "'hangs-forever': no answer within 1 s on a small instance" in report.text()


def test_an_inner_limit_ending_after_its_enclosing_one_leaves_the_enclosing_one_armed():
    t0 = time.perf_counter()
    with pytest.raises(TimeoutError, match="outer"):
        with wall_limit(0.3, lambda: TimeoutError("outer")):
            with wall_limit(600, lambda: TimeoutError("inner")):  # e.g. a run's limit inside check's
                while True:
                    pass
    assert time.perf_counter() - t0 < 3


def test_a_hanging_plugin_stops_compare_naming_the_plugin_the_algorithm_and_the_instance(tmp_path, capsys):
    from schedbench.cli import main

    folder = tmp_path / "plugs"
    folder.mkdir()
    (folder / "hangs_forever.py").write_text(HANGS)
    argv = ["--plugins", str(folder), "compare", "-a", "hangs-forever", "-a", "edf", "-f", "random-restricted"]
    argv += ["-p", "m=3", "-p", "n=6", "--instances", "2", "--plugin-time-limit", "0.5"]
    t0 = time.perf_counter()
    code = main(argv)
    err = capsys.readouterr().err
    assert time.perf_counter() - t0 < 30 and code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"plug-in {(folder / 'hangs_forever.py').resolve()}: algorithm 'hangs-forever'" in err
    assert "no answer within the run time limit of 0.5 s" in err and "instance compare/0000" in err
    with pytest.raises(SystemExit) as refused:  # the limit is checked: seconds > 0
        main([*argv[:-1], "0"])
    assert refused.value.code == 2 and "--plugin-time-limit: must be a finite number" in capsys.readouterr().err


def test_a_job_past_its_limit_writes_one_line_to_its_log_and_fails(tmp_path, capsys):
    """The pipeline's run_online / run_adversary scripts run under ``logged(one_line=(AlgorithmError,))``."""
    from schedbench.hall.logs import logged
    from schedbench.scheduling.play import RunTimeLimitError

    log = tmp_path / "job.log"
    with pytest.raises(SystemExit) as ended:
        with logged(str(log), "run_online", one_line=(RuntimeError,)):
            raise RunTimeLimitError("plug-in x.py: algorithm 'x': no answer within 1 s; instance e/0001")
    assert ended.value.code == 1
    lines = log.read_text().splitlines()
    assert lines == ["error: run_online: plug-in x.py: algorithm 'x': no answer within 1 s; instance e/0001"]


def test_a_builtin_is_not_limited_and_its_own_bug_keeps_its_exception(monkeypatch):
    import schedbench as sb
    from schedbench.scheduling import play
    from schedbench.scheduling.algorithms.greedy import Greedy
    from schedbench.scheduling.model import Instance

    inst = Instance.from_lists(2, [0, 0], [1, 1], [[0, 1], [1]])
    monkeypatch.setattr(play, "PLUGIN_RUN_SECONDS", 1e-6)  # a plug-in's limit: not a built-in's
    assert sb.run("greedy", inst).valid

    def bug(self, job, view):
        raise ZeroDivisionError("a built-in's bug")

    monkeypatch.setattr(Greedy, "on_arrival", bug)
    monkeypatch.setattr(Greedy, "dispatch_all", lambda *a: None)
    with pytest.raises(ZeroDivisionError, match="a built-in's bug"):
        sb.run("greedy", inst)


def test_a_log_line_after_a_logged_step_goes_nowhere_closed(tmp_path, capsys):
    """``logged`` gives the root logger back as it found it: a later log line in the same process
    (the API, a test) is not written to the step's closed file ("--- Logging error ---")."""
    import logging

    from schedbench.hall.logs import logged

    root = logging.getLogger()
    before = list(root.handlers)
    with logged(str(tmp_path / "step.log"), "step") as log:
        log.info("inside")
    assert root.handlers == before
    logging.getLogger("after").warning("after the step")
    assert "Logging error" not in capsys.readouterr().err
    assert "inside" in (tmp_path / "step.log").read_text()
