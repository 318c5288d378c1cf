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
